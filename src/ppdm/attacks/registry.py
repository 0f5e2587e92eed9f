"""The attacks by name: what the audit and the ``attacks`` experiment iterate over.

A :class:`CodeAttack` guesses one perturbed attribute's original codes from its released
codes and public matrix; a :class:`NoiseAttack` estimates original numbers from numbers
with additive noise of known per-column variance. Adding an attack is one entry in
:data:`ATTACKS` (see docs/attacks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..matrix import PerturbationMatrix
from ._common import AttackResult
from .bayes import bayes_reconstruct
from .bayes_optimal import bayes_optimal_attack
from .pca import pca_reconstruct
from .repeated import repeated_perturbation_attack
from .spectral import spectral_filtering

__all__ = ["ATTACKS", "Attack", "CodeAttack", "NoiseAttack", "code_attacks", "noise_attacks"]


@dataclass(frozen=True)
class Attack:
    """An entry of :data:`ATTACKS`: its name, a one-line ``summary`` and its ``source``."""

    name: str
    summary: str
    source: str

    def label(self, repeat: int) -> str:
        """The name the audit report uses."""
        return self.name


@dataclass(frozen=True)
class CodeAttack(Attack):
    """An attack on one substituted attribute: released codes and ``M`` to guessed codes.

    Attributes
    ----------
    guess : callable
        ``guess(codes, matrix, rng, repeat) -> codes``; ``rng`` and ``repeat`` (the
        number of extra perturbations) serve attacks that perturb again.
    uses_repeat : bool
        The report names the attack with its ``repeat``, e.g. ``name(t=2)``.
    """

    guess: Callable[[np.ndarray, PerturbationMatrix, np.random.Generator, int], np.ndarray]
    uses_repeat: bool = False

    def label(self, repeat: int) -> str:
        """The name the audit report uses."""
        return f"{self.name}(t={repeat})" if self.uses_repeat else self.name


@dataclass(frozen=True)
class NoiseAttack(Attack):
    """A data-recovery attack on numbers with additive noise of known per-column variance.

    Attributes
    ----------
    estimate : callable
        ``estimate(y, variance) -> AttackResult``, ``y`` of shape (n, m) (array or
        DataFrame), ``variance`` of shape (m,).
    """

    estimate: Callable[[object, np.ndarray], AttackResult]


def _spectral(y, variance) -> AttackResult:
    # spectral filtering assumes one noise variance: scale every column to unit variance
    scale = np.sqrt(np.asarray(variance, dtype=np.float64))
    res = spectral_filtering(y / scale, 1.0)
    return replace(res, estimate=res.estimate * scale)


def _bayes_map(codes, matrix, rng, repeat) -> np.ndarray:
    return bayes_optimal_attack(codes, matrix).guess


def _released_value(codes, matrix, rng, repeat) -> np.ndarray:
    return np.asarray(codes)


def _repeated(codes, matrix, rng, repeat) -> np.ndarray:
    return repeated_perturbation_attack(codes, matrix, repeat, rng)[-1].guess


# named module-level functions, so that the table pickles (process pools, dask)
#: Every attack by name, in the order the audit reports them.
ATTACKS: dict[str, CodeAttack | NoiseAttack] = {
    "bayes-map": CodeAttack(
        "bayes-map",
        "posterior mode of the original given the released value, prior estimated from the release",
        "Dowd, Xu & Zhang Sec. 5.1; Evfimievski, Gehrke & Srikant (2003)",
        _bayes_map,
    ),
    "released-value": CodeAttack(
        "released-value",
        "take the released value as the original",
        "Dowd, Xu & Zhang Sec. 3",
        _released_value,
    ),
    "repeated-perturbation": CodeAttack(
        "repeated-perturbation",
        "perturb the release t more times, estimate through M^(t+1), posterior mode",
        "Dowd, Xu & Zhang Sec. 5.2, Theorem 2",
        _repeated,
        uses_repeat=True,
    ),
    "spectral_filtering": NoiseAttack(
        "spectral_filtering",
        "projection on the eigenvectors above the Marchenko-Pastur noise edge",
        "Kargupta, Datta, Wang & Sivakumar (2003)",
        _spectral,
    ),
    "pca_reconstruct": NoiseAttack(
        "pca_reconstruct",
        "PCA-DR: projection on the top eigenvectors of Cov(Y) - Sigma_R",
        "Huang, Du & Chen (2005)",
        pca_reconstruct,
    ),
    "bayes_reconstruct": NoiseAttack(
        "bayes_reconstruct",
        "BE-DR: Gaussian posterior mean",
        "Huang, Du & Chen (2005)",
        bayes_reconstruct,
    ),
}


def code_attacks() -> dict[str, CodeAttack]:
    """The entries of :data:`ATTACKS` that read one attribute's codes."""
    return {k: a for k, a in ATTACKS.items() if isinstance(a, CodeAttack)}


def noise_attacks() -> dict[str, NoiseAttack]:
    """The entries of :data:`ATTACKS` that read numbers with additive noise."""
    return {k: a for k, a in ATTACKS.items() if isinstance(a, NoiseAttack)}
