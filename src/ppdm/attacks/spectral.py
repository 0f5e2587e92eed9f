"""Spectral filtering (Kargupta, Datta, Wang & Sivakumar 2003)."""

from __future__ import annotations

import numpy as np

from ..exceptions import ParameterError
from ..validation import check_positive
from ._common import AttackResult, as_matrix, centered_cov, eigh_desc

__all__ = ["marchenko_pastur_bounds", "spectral_filtering"]


def marchenko_pastur_bounds(
    noise_variance: float, n_records: int, n_attributes: int
) -> tuple[float, float]:
    """Edges ``sigma^2 (1 -+ sqrt(m/n))^2`` of the sample-covariance spectrum of ``n x m`` noise.

    References
    ----------
    Kargupta et al. (2003), "On the privacy preserving properties of random data
    perturbation techniques", ICDM (the random-matrix noise bounds, ``Q = n/m``).
    """
    check_positive(noise_variance, "noise_variance", error=ParameterError)
    if n_records < 1 or n_attributes < 1:
        raise ParameterError(
            f"n_records and n_attributes must be >= 1 (got {n_records}, {n_attributes})"
        )
    r = np.sqrt(n_attributes / n_records)
    return float(noise_variance * (1 - r) ** 2), float(noise_variance * (1 + r) ** 2)


def spectral_filtering(released, noise_variance: float) -> AttackResult:
    """Recover every original record from additive noise by spectral filtering.

    The eigenvectors ``A_s`` of the released records' covariance whose eigenvalues exceed
    the Marchenko-Pastur edge ``lambda_max`` (:func:`marchenko_pastur_bounds`) span the
    signal, and ``U_hat = mu + (W - mu) A_s A_s^T``. The noise must be independent, of one
    known variance on every attribute, with ``n >= m`` (assumptions and the finite-size
    behaviour of the edge: docs/attacks.md).

    Parameters
    ----------
    released : array-like or pandas.DataFrame, shape (n, m)
        The released noisy records.
    noise_variance : float
        ``sigma^2`` of the additive noise, known to the adversary.

    Returns
    -------
    AttackResult
        ``eigenvalues`` are those of ``Sigma_W``; ``n_components`` how many exceeded
        ``lambda_max`` (0 gives every record the column means).

    References
    ----------
    Kargupta, Datta, Wang & Sivakumar (2003), "On the privacy preserving properties of
    random data perturbation techniques", ICDM (the spectral filtering technique).
    Deviation: the data are centred before the projection and the mean added back, so a
    non-zero mean outside the signal subspace is not lost; the paper projects ``W``
    itself.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> u = rng.normal(size=(500, 1)) @ np.ones((1, 8)) * 3
    >>> w = u + rng.normal(size=u.shape)
    >>> res = spectral_filtering(w, 1.0)
    >>> res.n_components, res.rmse(u) < 0.5
    (1, True)
    """
    y, wrap = as_matrix(released)
    sigma2 = np.asarray(noise_variance, dtype=float)
    if sigma2.ndim != 0:
        raise ParameterError(
            "noise_variance must be one number for spectral filtering: the Marchenko-Pastur "
            f"bounds assume equal noise variance on every attribute (got shape {sigma2.shape})"
        )
    _, lam_max = marchenko_pastur_bounds(float(sigma2), *y.shape)
    mu, yc, cov = centered_cov(y)
    vals, vecs = eigh_desc(cov)
    k = int(np.sum(vals > lam_max))
    basis = vecs[:, :k]
    estimate = mu + (yc @ basis) @ basis.T
    return AttackResult(wrap(estimate), "spectral_filtering", k, basis, vals)
