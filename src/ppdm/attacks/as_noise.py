"""The additive-noise attacks applied to a substitution release, as if it were noisy numbers.

Substitution is additive noise whose law depends on the original (Theorem 1), against
the one-distribution assumption of these attacks; the adversary is given the mean
squared noise under the public matrix and the estimated prior (the formula and the
scaling for spectral filtering are on docs/attacks.md).

References
----------
Dowd, Xu & Zhang, Sec. 3.3; Kargupta et al. (2003); Huang, Du & Chen (2005).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..domain import Domain
from ..exceptions import DataError, ParameterError
from ..matrix import PerturbationMatrix
from ..mechanism import mechanism_of
from ..release import ReleaseSpec
from ..validation import check_choice
from ._common import AttackResult
from ._substitution import estimated_prior, numeric_values, within_bin_variance
from .registry import noise_attacks

__all__ = ["NUMERIC_ATTACKS", "substitution_noise_variance", "attack_substitution_release"]

#: The data-recovery attacks that treat a release as noisy numbers (the
#: :class:`~ppdm.attacks.registry.NoiseAttack` entries of ``ATTACKS``).
NUMERIC_ATTACKS = tuple(noise_attacks())


def substitution_noise_variance(domain: Domain, matrix: PerturbationMatrix, prior) -> float:
    """Mean squared substitution noise ``E[(p - o)^2]`` under ``M`` and a prior.

    ``sigma^2 = sum_k P_k sum_h M[h, k] (v_h - v_k)^2 + s^2``, ``v`` the numbers the codes
    stand for and ``s^2`` the variance inside a bin.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.3 (substitution as additive noise ``Pr[r | o] = m_{o+r, o}``).
    """
    v = numeric_values(domain)
    if v is None:
        raise DataError(f"the domain {domain.kind!r} is not numeric: no noise variance")
    p = np.asarray(prior, dtype=np.float64)
    sq = (v[:, None] - v[None, :]) ** 2  # (h, k)
    return float(p @ (matrix.dense() * sq).sum(axis=0)) + within_bin_variance(domain)


def attack_substitution_release(
    released: pd.DataFrame,
    spec: ReleaseSpec,
    attack: str,
    *,
    attributes: list[str] | None = None,
) -> AttackResult:
    """Run one ``NUMERIC_ATTACKS`` attack on the numeric perturbed attributes of a release.

    ``attributes`` limits the attack to some of them; the estimate is a DataFrame of the
    attacked columns.

    References
    ----------
    Kargupta et al. (2003); Huang, Du & Chen (2005); Dowd, Xu & Zhang, Sec. 3.3 (why they
    should fail here).
    """
    check_choice(attack, "attack", NUMERIC_ATTACKS, error=ParameterError)
    mechanism_of(spec).require("attacks", error=DataError)
    spec.check_columns([str(c) for c in released.columns])
    candidates = [
        a for a in spec.perturbed_attributes() if numeric_values(a.get_domain()) is not None
    ]
    if attributes is not None:
        known = {a.name for a in candidates}
        bad = [c for c in attributes if c not in known]
        if bad:
            raise DataError(
                f"attributes {bad} are not numeric perturbed attributes; choose from {sorted(known)}"
            )
        candidates = [a for a in candidates if a.name in attributes]
    if not candidates:
        raise DataError("the release has no numeric perturbed attribute to attack")
    variances = []
    for a in candidates:
        dom, m = a.get_domain(), a.get_matrix()
        codes = dom.encode(released[a.name], column=a.name)
        variances.append(substitution_noise_variance(dom, m, estimated_prior(codes, m)))
    y = released[[a.name for a in candidates]].astype(float)
    return noise_attacks()[attack].estimate(y, np.asarray(variances))
