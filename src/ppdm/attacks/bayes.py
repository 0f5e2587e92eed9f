"""Bayes-estimate data reconstruction, BE-DR (Huang, Du & Chen 2005)."""

from __future__ import annotations

import numpy as np

from ._common import AttackResult, as_matrix, centered_cov, eigh_desc, noise_covariance

__all__ = ["bayes_reconstruct"]


def bayes_reconstruct(released, noise_variance) -> AttackResult:
    """Recover every original record as its posterior mean under a Gaussian model.

    With ``x ~ N(mu, Sigma_X)``, ``r ~ N(0, Sigma_R)`` and ``mu``, ``Sigma_X = Cov(Y) -
    Sigma_R`` estimated from the release (negative eigenvalues set to zero),
    ``x_hat = mu + Sigma_X (Sigma_X + Sigma_R)^-1 (y - mu)``, the matrix-inversion-lemma
    form of ``(Sigma_X^-1 + Sigma_R^-1)^-1 (Sigma_X^-1 mu + Sigma_R^-1 y)`` that stays
    defined for a singular ``Sigma_X``.

    Parameters
    ----------
    released : array-like or pandas.DataFrame, shape (n, m)
        The released noisy records ``Y``.
    noise_variance : float, array of shape (m,) or (m, m)
        Noise variance (equal on all attributes), per-attribute variances, or ``Sigma_R``.

    Returns
    -------
    AttackResult
        ``eigenvalues`` are those of the estimated ``Sigma_X`` before clipping;
        ``n_components`` and ``components`` are None.

    References
    ----------
    Huang, Du & Chen (2005), "Deriving private information from randomized data",
    SIGMOD (BE-DR, the Bayes-estimate-based data reconstruction scheme).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 1)) @ np.ones((1, 8)) * 3
    >>> res = bayes_reconstruct(x + rng.normal(size=x.shape), 1.0)
    >>> res.rmse(x) < 0.5
    True
    """
    y, wrap = as_matrix(released)
    m = y.shape[1]
    sigma_r = noise_covariance(noise_variance, m)
    mu, yc, cov = centered_cov(y)
    vals, vecs = eigh_desc(cov - sigma_r)
    sigma_x = (vecs * np.clip(vals, 0.0, None)) @ vecs.T
    # (Sigma_X + Sigma_R)^-1 Sigma_X, both symmetric: the gain applied to each row
    gain = np.linalg.solve(sigma_x + sigma_r, sigma_x)
    estimate = mu + yc @ gain
    return AttackResult(wrap(estimate), "bayes_reconstruct", None, None, vals)
