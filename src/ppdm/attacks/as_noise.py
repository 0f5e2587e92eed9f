"""The additive-noise attacks applied to a substitution release, as if it were noisy numbers.

Dowd, Xu & Zhang (Sec. 3.3) view random substitution as additive noise
``r = p - o`` whose distribution depends on the original ``o`` (Theorem 1), which
breaks the assumption of the attacks of Kargupta et al. and of Huang, Du & Chen that
the noise is drawn from one distribution of known variance. An adversary who applies
them anyway needs a noise variance. We give the adversary the best single figure the
public information allows: the mean squared noise under the spec's matrix and the
prior estimated from the release,

``sigma_j^2 = sum_k P_k sum_h M[h, k] (v_h - v_k)^2 + s_j^2``,

where ``v`` are the numbers the codes stand for (bin centres, or the values of a
numeric categorical attribute) and ``s_j^2`` the spread inside a bin that the codes
cannot show (``w^2/12``, twice that for random representatives). Spectral filtering
assumes one variance for all attributes, so each column is first divided by its
``sigma_j`` (unit noise variance) and the estimate scaled back; PCA-DR and BE-DR take
the per-attribute variances directly.
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

    Parameters
    ----------
    domain : Domain
        A numeric domain (binned, or categorical of numbers).
    matrix : PerturbationMatrix
    prior : array-like of shape (N,)

    Returns
    -------
    float

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.3 (substitution as additive noise ``Pr[r | o] = m_{o+r, o}``).

    Examples
    --------
    >>> from ppdm.domain import CategoricalDomain
    >>> from ppdm.matrix import GammaDiagonal
    >>> substitution_noise_variance(CategoricalDomain((0, 1)), GammaDiagonal(2, 3.0), [0.5, 0.5])
    0.25
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
    """Run one data-recovery attack on the numeric perturbed attributes of a release.

    Parameters
    ----------
    released : pandas.DataFrame
        The released table (as written by :func:`ppdm.pipeline.make_release`).
    spec : ReleaseSpec
        Its spec (``method == "substitution"``).
    attack : str
        A name in ``NUMERIC_ATTACKS``: "spectral_filtering", "pca_reconstruct",
        "bayes_reconstruct".
    attributes : list of str, optional
        Numeric perturbed attributes to attack together. Default: all of them.

    Returns
    -------
    AttackResult
        ``estimate`` is a DataFrame of the attacked columns.

    References
    ----------
    Kargupta et al. (2003), spectral filtering; Huang, Du & Chen (2005), PCA-DR and
    BE-DR; Dowd, Xu & Zhang, Sec. 3.3 (why they should fail here).

    Examples
    --------
    >>> import warnings
    >>> from ppdm.perturbation import plan_release, perturb_frame
    >>> rng = np.random.default_rng(0)
    >>> z = rng.normal(size=(400, 1))
    >>> df = pd.DataFrame(np.hstack([z, z, z]) + 0.1 * rng.normal(size=(400, 3)), columns=list("abc"))
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     spec = plan_release(df, n_bins=10)
    ...     rel = perturb_frame(df, spec, random_state=0)
    >>> attack_substitution_release(rel, spec, "pca_reconstruct").estimate.shape
    (400, 3)
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
    sigma2 = np.asarray(variances)
    y = released[[a.name for a in candidates]].astype(float)
    return noise_attacks()[attack].estimate(y, sigma2)
