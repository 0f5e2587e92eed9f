"""PCA-based data reconstruction, PCA-DR (Huang, Du & Chen 2005)."""

from __future__ import annotations

import numpy as np

from ..exceptions import ParameterError
from ..validation import show
from ._common import AttackResult, as_matrix, centered_cov, eigh_desc, noise_covariance

__all__ = ["pca_reconstruct"]


def pca_reconstruct(released, noise_variance, n_components: int | None = None) -> AttackResult:
    """Recover every original record by projecting on the top principal components.

    With ``Sigma_X = Cov(Y) - Sigma_R`` and ``Q_p`` its top ``p`` eigenvectors,
    ``X_hat = mu + (Y - mu) Q_p Q_p^T``. By default ``p`` counts the eigenvectors ``q`` with
    ``q^T Sigma_X q > q^T Sigma_R q``: keeping a direction costs its noise variance, dropping
    it its signal variance, so this minimises the expected squared error direction by
    direction.

    Parameters
    ----------
    released : array-like or pandas.DataFrame, shape (n, m)
        The released noisy records ``Y = X + R``.
    noise_variance : float, array of shape (m,) or (m, m)
        Noise variance (equal on all attributes), per-attribute variances, or the full
        noise covariance ``Sigma_R``.
    n_components : int, optional
        ``p``, in 0..m. Default: chosen by the rule above.

    Returns
    -------
    AttackResult
        ``eigenvalues`` are those of the estimated ``Sigma_X`` (may be negative).

    References
    ----------
    Huang, Du & Chen (2005), "Deriving private information from randomized data",
    SIGMOD (PCA-DR, the PCA-based data reconstruction scheme).
    Deviation: the data are centred before projecting; the default ``p`` rule is ours
    (the paper takes ``p`` as given).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(500, 1)) @ np.ones((1, 8)) * 3
    >>> res = pca_reconstruct(x + rng.normal(size=x.shape), 1.0)
    >>> res.n_components
    1
    """
    y, wrap = as_matrix(released)
    n, m = y.shape
    sigma_r = noise_covariance(noise_variance, m)
    if n_components is not None and (
        isinstance(n_components, bool)
        or not isinstance(n_components, (int, np.integer))
        or not 0 <= n_components <= m
    ):
        raise ParameterError(f"n_components must be an int in 0..{m} (got {show(n_components)})")
    mu, yc, cov = centered_cov(y)
    sigma_x = cov - sigma_r
    vals, vecs = eigh_desc(sigma_x)
    if n_components is None:
        noise_along = np.einsum("ij,ik,kj->j", vecs, sigma_r, vecs)
        p = int(np.sum(vals > noise_along))
    else:
        p = int(n_components)
    basis = vecs[:, :p]
    estimate = mu + (yc @ basis) @ basis.T
    return AttackResult(wrap(estimate), "pca_reconstruct", p, basis, vals)
