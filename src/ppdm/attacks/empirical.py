"""An empirical lower bound on epsilon: the release's sampler run as a black box.

``T`` records holding ``o`` and ``T`` holding ``o'`` (where the stated matrix puts its
largest ratio) are perturbed exactly as a release perturbs them, and the shares released
as ``h`` give ``epsilon_lb = ln(lower(p_o) / upper(p_o'))`` by Clopper-Pearson bounds,
valid whatever the sampler does (what it shows: docs/attacks.md).

References
----------
Dowd, Xu & Zhang, Sec. 5 (gamma-amplification); Jagielski, Ullman & Oprea (2020) and
Arcolezi & Gambs (2024), auditing (local) differential privacy by distinguishing tests;
Clopper & Pearson (1934).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..exceptions import ParameterError
from ..fields import fields_dict
from ..matrix import StratifiedMatrix
from ..mechanism import mechanism_of
from ..random import RandomState, perturbation_generator
from ..validation import check_at_least, check_probability
from ._substitution import binomial_lower, binomial_upper

__all__ = ["EpsilonAudit", "audit_matrix_epsilon", "audit_spec_epsilon"]

#: Records perturbed from each of the two originals, by default.
DEFAULT_TRIALS = 2_000_000


@dataclass(frozen=True)
class EpsilonAudit:
    """The empirical epsilon of one matrix's sampler.

    ``stated`` is ln gamma of the stated matrix (inf with a zero entry); ``counts`` are the
    records of each of ``originals`` (``o``, ``o'``, ``trials`` each) released as
    ``released`` (``h``); ``confidence`` is that of ``lower_bound``, both Clopper-Pearson
    bounds together.
    """

    attribute: str
    stated: float
    lower_bound: float
    confidence: float
    trials: int
    originals: tuple[int, int]
    released: int
    counts: tuple[int, int]

    @property
    def within_stated(self) -> bool:
        """The lower bound does not exceed the stated epsilon."""
        return self.lower_bound <= self.stated + 1e-12

    @property
    def share_of_stated(self) -> float:
        """``lower_bound / stated`` (1 is the whole stated epsilon shown)."""
        if not math.isfinite(self.stated) or self.stated <= 0:
            return math.nan
        return self.lower_bound / self.stated

    def to_dict(self) -> dict:
        """The JSON-ready figures (``ppdm audit --empirical-epsilon --json``)."""
        return fields_dict(
            self,
            "attribute stated lower_bound share_of_stated confidence trials originals released"
            " counts within_stated",
            {"stated": "stated_epsilon", "lower_bound": "empirical_lower_bound"},
        )


def _worst_case(dense: np.ndarray) -> tuple[int, int, int]:
    """``(h, o, o')`` maximising ``M[h, o] / M[h, o']`` (a zero ``M[h, o']`` first)."""
    lo = dense.min(axis=1)
    hi = dense.max(axis=1)
    with np.errstate(divide="ignore"):
        ratio = np.where(lo > 0, hi / np.where(lo > 0, lo, 1.0), np.inf)
    h = int(np.argmax(ratio))
    return h, int(np.argmax(dense[h])), int(np.argmin(dense[h]))


def audit_matrix_epsilon(
    matrix,
    *,
    attribute: str = "",
    trials: int = DEFAULT_TRIALS,
    confidence: float = 0.95,
    random_state: RandomState = None,
    draw=None,
) -> EpsilonAudit:
    """Run ``matrix``'s sampler (or ``draw(codes, rng)``) as a release does and bound epsilon.

    Each Clopper-Pearson bound is taken at ``(1 + confidence) / 2``; ``random_state=None``
    draws from the release's own CSPRNG stream.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5; Clopper & Pearson (1934).
    """
    check_at_least(trials, "trials", 100, error=ParameterError)
    check_probability(confidence, "confidence")
    amp = matrix.amplification()
    stated = math.log(amp) if math.isfinite(amp) else math.inf
    h, o, o2 = _worst_case(matrix.dense())
    rng = perturbation_generator(random_state, "empirical-epsilon")
    counts = []
    for code in (o, o2):
        out = (draw or matrix.draw)(np.full(int(trials), code, dtype=np.int64), rng)
        counts.append(int(np.count_nonzero(out == h)))
    alpha = (1 - confidence) / 2
    lower = float(binomial_lower(counts[0], int(trials), alpha))
    upper = float(binomial_upper(counts[1], int(trials), alpha))
    bound = math.log(lower / upper) if lower > 0 else 0.0
    return EpsilonAudit(
        attribute, stated, max(bound, 0.0), confidence, int(trials), (o, o2), h, tuple(counts)
    )


def audit_spec_epsilon(
    spec,
    *,
    trials: int = DEFAULT_TRIALS,
    confidence: float = 0.95,
    random_state: RandomState = None,
) -> list[EpsilonAudit]:
    """:func:`audit_matrix_epsilon` of every perturbed attribute of a spec, stratum by stratum
    for a stratified matrix; the confidence is per attribute (and stratum).
    """
    mechanism_of(spec).require("empirical_epsilon", error=ParameterError)
    out = []
    for i, a in enumerate(spec.perturbed_attributes()):
        m = a.get_matrix()
        parts = (
            [
                (f"{a.name} [{m.strata}={v}]", m.matrices[v], _stratum_sampler(m, j))
                for j, v in enumerate(m.values)
            ]
            if isinstance(m, StratifiedMatrix)
            else [(a.name, m, m.draw)]
        )
        for j, (name, matrix, draw) in enumerate(parts):
            seed = (
                random_state
                if random_state is None
                else np.random.SeedSequence([random_state, i] + ([j] if j else []))
            )
            out.append(
                audit_matrix_epsilon(
                    matrix,
                    attribute=name,
                    trials=trials,
                    confidence=confidence,
                    random_state=seed,
                    draw=draw,
                )
            )
    return out


def _stratum_sampler(matrix: StratifiedMatrix, index: int):
    """The stratified sampler drawing every record in stratum ``index``."""
    return lambda codes, rng: matrix.draw_rows(codes, np.full(np.shape(codes), index), rng)
