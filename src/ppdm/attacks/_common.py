"""What the data-recovery attacks share: input handling, the noise model, the result type."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from ..exceptions import DataError, ParameterError

__all__ = ["AttackResult", "noise_covariance"]


@dataclass(frozen=True)
class AttackResult:
    """An adversary's estimate of every original record.

    Attributes
    ----------
    estimate : numpy.ndarray or pandas.DataFrame, shape (n, m)
        Estimated original records; a DataFrame when the release was one.
    method : str
        Attack name.
    n_components : int or None
        Dimension of the signal subspace kept (None for attacks that keep no subspace).
    components : numpy.ndarray or None, shape (m, n_components)
        Orthonormal basis of that subspace.
    eigenvalues : numpy.ndarray, shape (m,)
        Eigenvalues the attack ranked, in decreasing order (of the released data's
        covariance for spectral filtering, of the estimated original covariance otherwise).

    Examples
    --------
    >>> from ppdm.attacks import pca_reconstruct
    >>> y = np.random.default_rng(0).normal(size=(100, 3))
    >>> res = pca_reconstruct(y, 1.0, n_components=3)
    >>> res.method, res.rmse(y) < 1e-12
    ('pca_reconstruct', True)
    """

    estimate: np.ndarray | pd.DataFrame
    method: str
    n_components: int | None
    components: np.ndarray | None
    eigenvalues: np.ndarray

    def rmse(self, original) -> float:
        """Root mean squared error of the estimate against the original records."""
        est = np.asarray(self.estimate, dtype=float)
        x = np.asarray(original, dtype=float)
        if x.shape != est.shape:
            raise DataError(f"original must have shape {est.shape} (got {x.shape})")
        return float(np.sqrt(np.mean((est - x) ** 2)))


def as_matrix(released) -> tuple[np.ndarray, object]:
    """Float matrix of the release and a function that gives an estimate the release's type."""
    frame = isinstance(released, pd.DataFrame)
    y = released.to_numpy(dtype=float) if frame else np.asarray(released, dtype=float)
    if y.ndim != 2:
        raise DataError(f"released must be a 2-D table of records x attributes (got {y.ndim}-D)")
    n, m = y.shape
    if n < 2 or m < 1:
        raise DataError(f"released must have at least 2 records and 1 attribute (got {n} x {m})")
    if not np.all(np.isfinite(y)):
        raise DataError("released must hold finite numbers only (found NaN or inf)")
    if frame:
        return y, partial(pd.DataFrame, index=released.index, columns=released.columns)
    return y, np.asarray


def noise_covariance(noise, m: int) -> np.ndarray:
    """The adversary's ``m x m`` noise covariance: one variance, one per attribute or a matrix."""
    s = np.asarray(noise, dtype=float)
    if s.ndim == 0:
        cov = float(s) * np.eye(m)
    elif s.shape == (m,):
        cov = np.diag(s)
    elif s.shape == (m, m):
        cov = 0.5 * (s + s.T)
    else:
        raise DataError(
            f"noise_variance must be a number, shape ({m},) or ({m}, {m}) (got shape {s.shape})"
        )
    if not np.all(np.isfinite(cov)):
        raise ParameterError("noise_variance must be finite")
    if np.linalg.eigvalsh(cov)[0] <= 0:
        raise ParameterError(
            f"noise_variance must be positive definite (got {noise if s.ndim == 0 else 'a matrix'})"
        )
    return cov


def centered_cov(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column means, centered data and sample covariance (divisor n - 1)."""
    mu = y.mean(axis=0)
    yc = y - mu
    cov = yc.T @ yc / (y.shape[0] - 1)
    return mu, yc, cov


def eigh_desc(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues (decreasing) and matching eigenvectors of a symmetric matrix."""
    vals, vecs = np.linalg.eigh(a)
    return vals[::-1], vecs[:, ::-1]
