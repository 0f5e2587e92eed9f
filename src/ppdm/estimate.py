"""Estimating original counts from perturbed counts, by the methods of the name table
:data:`ESTIMATORS` (inverse, zero, set-scale, norm-sub, ibu).

Standard errors are analytic for the linear ``inverse``, a parametric bootstrap seeded
from the counts for the others (``Estimate.stderr_kind`` says which).

References
----------
Dowd, Xu & Zhang, Sec. 4.2-4.3; Agrawal & Srikant (2000) and Agrawal, Srikant &
Thomas (2005) for the iterative Bayesian update; Wang et al. (2020) for Norm-Sub;
Ma & Sivakumar, Theorems 1-2 (covariance).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .exceptions import DataError, ParameterError, SpecError
from .matrix import KroneckerMatrix, PerturbationMatrix
from .random import digest_generator
from .reconstruct import largest_remainder
from .validation import check_at_least

__all__ = [
    "ESTIMATORS",
    "METHODS",
    "BOOTSTRAP_REPLICATES",
    "Estimate",
    "Estimator",
    "get_estimator",
    "bootstrap_stderr",
    "count_codes",
    "estimate_counts",
    "point_estimate",
    "estimate_joint_counts",
    "joint_stderr",
    "project_simplex",
    "iterative_bayesian_update",
    "estimation_error",
]

BOOTSTRAP_REPLICATES = 200


@dataclass(frozen=True)
class Estimate:
    """Estimated original counts of one attribute: ``perturbed`` y, ``counts`` X_hat.

    ``stderr_kind`` is ``"analytic"`` or ``"bootstrap (B=200)"``.
    """

    perturbed: np.ndarray
    counts: np.ndarray
    stderr: np.ndarray
    method: str
    stderr_kind: str = "analytic"

    @property
    def n(self) -> int:
        return int(round(float(self.perturbed.sum())))

    @property
    def distribution(self) -> np.ndarray:
        """Estimated proportions (counts clipped at 0 and normalised)."""
        c = np.clip(self.counts, 0, None)
        s = c.sum()
        return c / s if s > 0 else np.full_like(c, 1.0 / len(c))


def count_codes(codes: np.ndarray, n_values: int, weights: np.ndarray | None = None) -> np.ndarray:
    """Counts of every code ``0..N-1`` (``bincount`` with a fixed length)."""
    return np.bincount(np.asarray(codes), weights=weights, minlength=n_values).astype(np.float64)


def project_simplex(x: np.ndarray, total: float) -> np.ndarray:
    """Euclidean projection of ``x`` on ``{z >= 0, sum z = total}`` (Norm-Sub)."""
    return _norm_sub(np.asarray(x, dtype=np.float64), float(total))


def _project_columns(x: np.ndarray, total: np.ndarray) -> np.ndarray:
    """The projection of every column of ``x`` (N, K) on its own total."""
    n = x.shape[0]
    u = -np.sort(-x, axis=0)
    css = np.cumsum(u, axis=0) - total
    ok = u - css / np.arange(1, n + 1)[:, None] > 0
    rho = n - 1 - np.argmax(ok[::-1], axis=0)
    theta = css[rho, np.arange(x.shape[1])] / (rho + 1)
    out = np.maximum(x - theta, 0.0)
    out[:, total <= 0] = 0.0
    return out


def iterative_bayesian_update(
    y: np.ndarray,
    matrix: PerturbationMatrix,
    *,
    tol: float = 1e-7,
    max_iter: int = 5_000,
) -> np.ndarray:
    """EM estimate of the original counts: ``x <- x * M^T (y / (M x))``, from uniform.

    Stops when the largest change of the proportions falls below ``tol``. A 2-D ``y``
    (N, K) holds K histograms, each stopping on its own (as K separate calls).

    References
    ----------
    Agrawal & Srikant (2000), Sec. 4; Agrawal, Srikant & Thomas (2005).
    """
    y = np.asarray(y, dtype=np.float64)
    if y.ndim not in (1, 2):
        raise DataError(f"perturbed counts must be 1-D or 2-D (got shape {y.shape})")
    cols = y.reshape(len(y), -1)
    n = cols.sum(axis=0)
    p = np.full(cols.shape, 1.0 / len(cols))
    q = cols / np.where(n > 0, n, 1.0)
    active = np.flatnonzero(n > 0)
    for _ in range(max_iter):
        if active.size == 0:
            break
        cur = p[:, active]
        expected = matrix.apply(cur)
        ratio = np.divide(q[:, active], expected, out=np.zeros_like(cur), where=expected > 0)
        new = cur * matrix.apply_transpose(ratio)
        new /= new.sum(axis=0)
        done = np.max(np.abs(new - cur), axis=0) < tol
        p[:, active] = new
        active = active[~done]
    return (p * n).reshape(y.shape)


def _keep(raw: np.ndarray, total: np.ndarray | float) -> np.ndarray:
    return raw


def _zero(raw: np.ndarray, total: np.ndarray | float) -> np.ndarray:
    return np.clip(raw, 0, None)


def _set_scale(raw: np.ndarray, total: np.ndarray | float) -> np.ndarray:
    z = np.clip(raw, 0, None)
    s = z.sum(axis=0)
    return np.where(s > 0, z * (total / np.where(s > 0, s, 1.0)), total / len(z))


def _norm_sub(raw: np.ndarray, total: np.ndarray | float) -> np.ndarray:
    return _project_columns(raw.reshape(len(raw), -1), np.atleast_1d(total)).reshape(raw.shape)


@dataclass(frozen=True)
class Estimator:
    """One way of estimating original counts: an entry of :data:`ESTIMATORS`.

    Either ``fix(raw, total)`` fixes the raw estimate ``X_hat = M^-1 y`` (of shape (N,)
    or (N, K), so it also serves any unbiased raw estimate, e.g. a joint tensor), or
    ``fit(y, matrix)`` fits the counts. ``sums_to_n``: every histogram's estimate sums to
    its total; ``linear``: the covariance is the analytic ``M^-1 Cov(y) M^-T``.
    """

    name: str
    summary: str
    sums_to_n: bool
    nonnegative: bool
    linear: bool
    fix: Callable[[np.ndarray, np.ndarray | float], np.ndarray] | None = None
    fit: Callable[[np.ndarray, PerturbationMatrix], np.ndarray] | None = None
    aliases: tuple[str, ...] = ()

    @property
    def from_raw(self) -> bool:
        """It needs only the raw estimate and the totals (not ``y`` and ``M``)."""
        return self.fix is not None

    def estimate(self, y: np.ndarray, matrix: PerturbationMatrix) -> np.ndarray:
        """The estimated counts of ``y`` (N,) or (N, K) perturbed through ``matrix``."""
        if self.fix is None:
            return self.fit(y, matrix)  # type: ignore[misc]
        return self.fix(matrix.inverse_apply(y), y.sum(axis=0))


#: The estimators by name (Dowd, Xu & Zhang, Sec. 4.2-4.3; Wang et al. 2020; Agrawal &
#: Srikant 2000). Adding an estimator is one entry here.
ESTIMATORS: dict[str, Estimator] = {
    e.name: e
    for e in (
        Estimator(
            "inverse",
            "the raw estimate M^-1 y (Eq. 1): unbiased, may be negative",
            sums_to_n=True,
            nonnegative=False,
            linear=True,
            fix=_keep,
            aliases=("none",),
        ),
        Estimator(
            "zero",
            "negatives set to 0 (Proposition 1)",
            sums_to_n=False,
            nonnegative=True,
            linear=False,
            fix=_zero,
        ),
        Estimator(
            "set-scale",
            "negatives set to 0, then scaled to the total n (constraints C1, C2)",
            sums_to_n=True,
            nonnegative=True,
            linear=False,
            fix=_set_scale,
        ),
        Estimator(
            "norm-sub",
            "Euclidean projection of M^-1 y on {x >= 0, sum x = n}",
            sums_to_n=True,
            nonnegative=True,
            linear=False,
            fix=_norm_sub,
        ),
        Estimator(
            "ibu",
            "iterative Bayesian update (EM, the maximum-likelihood estimate)",
            sums_to_n=True,
            nonnegative=True,
            linear=False,
            fit=iterative_bayesian_update,
        ),
    )
}

#: Names of the estimators, in table order.
METHODS: tuple[str, ...] = tuple(ESTIMATORS)


def get_estimator(
    name: str,
    *,
    what: str = "method",
    where: Callable[[Estimator], bool] | None = None,
    purpose: str = "",
) -> Estimator:
    """The :data:`ESTIMATORS` entry called ``name`` (or one of its aliases).

    ``what`` names the parameter in the :class:`SpecError`, ``where`` filters the
    entries accepted, ``purpose`` follows the choices in the message.
    """
    ok = [e for e in ESTIMATORS.values() if where is None or where(e)]
    for e in ok:
        if name == e.name or name in e.aliases:
            return e
    tail = f" {purpose}" if purpose else ""
    raise SpecError(
        f"{what} must be one of {', '.join(e.name for e in ok)}{tail} (got {str(name)[:40]!r})"
    )


def check_method(method: str) -> str:
    """The estimator's name (an alias resolved), else a :class:`ppdm.exceptions.SpecError`."""
    return get_estimator(method).name


def point_estimate(
    y: np.ndarray, matrix: PerturbationMatrix, method: str = "set-scale"
) -> np.ndarray:
    """``estimate_counts(y, matrix, method).counts`` without the standard errors.

    A 2-D ``y`` (N, K) holds K histograms, estimated column by column in one call.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3 (the set-scale fix).
    """
    return get_estimator(method).estimate(np.asarray(y, dtype=np.float64), matrix)


def estimate_counts(
    y: np.ndarray,
    matrix: PerturbationMatrix,
    method: str = "set-scale",
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> Estimate:
    """Estimate original counts from perturbed counts ``y``.

    Parameters
    ----------
    y : array of shape (N,)
        Perturbed counts.
    matrix : PerturbationMatrix
    method : str, default="set-scale"
        A name in :data:`ESTIMATORS` (:data:`METHODS`: inverse, zero, set-scale,
        norm-sub, ibu).
    replicates : int, default=200
        Bootstrap replicates B for the standard errors of the non-linear methods
        (:func:`bootstrap_stderr`); ``0`` gives them the analytic standard error of the
        raw inverse instead (labelled ``"analytic"``). The inverse's is always analytic.

    Returns
    -------
    Estimate

    Examples
    --------
    >>> from ppdm.matrix import GammaDiagonal
    >>> est = estimate_counts(np.array([60.0, 20.0, 20.0]), GammaDiagonal(3, 5.0), "inverse")
    >>> est.counts.round(2).tolist()
    [80.0, 10.0, 10.0]

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3; Ma & Sivakumar, Theorems 1-2.
    """
    est = get_estimator(method)
    if replicates != 0 and replicates < 2:
        raise ParameterError(f"replicates must be 0 or at least 2 (got {int(replicates)})")
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1 or len(y) != matrix.n_values:
        raise DataError(
            f"perturbed counts must be a vector of N = {matrix.n_values} counts (got shape {y.shape})"
        )
    counts = est.estimate(y, matrix)
    kind = "analytic" if est.linear or replicates == 0 else f"bootstrap (B={replicates})"
    if kind == "analytic":
        stderr = np.sqrt(np.clip(matrix.estimate_variance(np.clip(counts, 0, None)), 0, None))
    else:
        stderr = bootstrap_stderr(y, matrix, est.name, counts, replicates=replicates)
    return Estimate(perturbed=y, counts=counts, stderr=stderr, method=est.name, stderr_kind=kind)


def _reperturb(
    table: np.ndarray, matrix: PerturbationMatrix, replicates: int, rng: np.random.Generator
) -> np.ndarray:
    """Perturbed counts of ``table`` (whole records), ``replicates`` times: (N, B).

    For ``M = a I + b J``: one binomial (kept, probability ``a``) per value and one
    uniform multinomial per replicate.

    References
    ----------
    Ma & Sivakumar, Theorem 1.
    """
    n_values = len(table)
    form = matrix.affine_form
    if form is not None:
        kept = rng.binomial(table[:, None], form[0], size=(n_values, replicates))
        moved = int(table.sum()) - kept.sum(axis=0)
        spread = rng.multinomial(moved, np.full(n_values, 1.0 / n_values))
        return (kept + spread.T).astype(np.float64)
    cols = matrix.dense()
    out = np.zeros((replicates, n_values), dtype=np.int64)
    for k in np.flatnonzero(table):
        p = np.clip(cols[:, k], 0.0, None)
        out += rng.multinomial(int(table[k]), p / p.sum(), size=replicates)
    return out.T.astype(np.float64)


def _seed(y: np.ndarray, method: str) -> np.random.Generator:
    return digest_generator(np.ascontiguousarray(y, dtype=np.float64).tobytes(), method.encode())


def bootstrap_stderr(
    y: np.ndarray,
    matrix: PerturbationMatrix,
    method: str,
    counts: np.ndarray | None = None,
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Parametric-bootstrap standard errors of a (non-linear) estimate.

    The fitted table (``counts``, computed when omitted; clipped at 0 and rounded to n
    whole records) is re-perturbed ``replicates`` times through ``M`` and ``method``
    re-run on each; ``rng`` is seeded from ``y`` and ``method`` when omitted.

    References
    ----------
    Efron & Tibshirani (1993), Ch. 6 (parametric bootstrap); Ma & Sivakumar,
    Theorem 1 (the perturbation model of the replicates).
    """
    method = check_method(method)
    check_at_least(replicates, "replicates", 2, error=ParameterError)
    y = np.asarray(y, dtype=np.float64)
    if counts is None:
        counts = point_estimate(y, matrix, method)
    n = int(round(float(y.sum())))
    if n <= 0:
        return np.zeros(len(y))
    table = largest_remainder(counts, n)
    if rng is None:
        rng = _seed(y, method)
    ystar = _reperturb(table, matrix, int(replicates), rng)
    est = point_estimate(ystar, matrix, method)
    return est.std(axis=1, ddof=1)


def estimate_joint_counts(
    counts: np.ndarray, matrix: KroneckerMatrix, method: str = "inverse"
) -> np.ndarray:
    """Estimate a joint count tensor through a factored Kronecker matrix, factor by
    factor along its own axis (the full product matrix is never formed).

    References
    ----------
    Ma & Sivakumar, Sec. 4; Agrawal & Srikant (2000) for the iterative Bayesian update.
    """
    est = get_estimator(method)
    counts = np.asarray(counts, dtype=np.float64)
    if est.fix is None and counts.shape != matrix.shape:
        raise DataError(
            f"{est.name} needs a count tensor of shape {matrix.shape} (got {counts.shape})"
        )
    if est.fix is not None:
        raw = matrix.inverse_apply(counts)
        return est.fix(raw.ravel(), float(counts.ravel().sum())).reshape(raw.shape)
    return est.estimate(counts.ravel(), matrix.flat()).reshape(counts.shape)


def _reperturb_joint(
    table: np.ndarray, matrix: KroneckerMatrix, replicates: int, rng: np.random.Generator
) -> np.ndarray:
    """Perturbed count tensors of ``table`` (whole records), ``replicates`` times, axis
    by axis (a record's attributes are perturbed independently): shape (cells, B)."""
    out = np.broadcast_to(table.astype(np.int64), (replicates, *table.shape)).copy()
    for axis, f in enumerate(matrix.factors):
        moved = np.moveaxis(out, axis + 1, -1)  # (B, ..., N) with the original code last
        lead = moved.shape[:-1]
        n = f.n_values
        form = f.affine_form
        if form is not None:
            kept = rng.binomial(moved, form[0])
            spread = rng.multinomial(moved.sum(axis=-1) - kept.sum(axis=-1), np.full(n, 1 / n))
            new = kept + spread
        else:
            cols = np.clip(f.dense(), 0.0, None)
            cols = cols / cols.sum(axis=0)
            new = np.zeros((*lead, n), dtype=np.int64)
            for k in range(n):  # records of code k move by column k of M
                new += rng.multinomial(moved[..., k], cols[:, k])
        out = np.moveaxis(new, -1, axis + 1)
    return out.reshape(replicates, -1).T.astype(np.float64)


def joint_stderr(
    y: np.ndarray,
    matrix: KroneckerMatrix,
    method: str,
    counts: np.ndarray | None = None,
    *,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> np.ndarray:
    """Parametric-bootstrap standard errors of a joint estimate, as
    :func:`bootstrap_stderr` does for one attribute, in the shape of ``y``.

    References
    ----------
    Efron & Tibshirani (1993), Ch. 6; Ma & Sivakumar, Theorem 1.
    """
    est = get_estimator(method)
    check_at_least(replicates, "replicates", 2, error=ParameterError)
    y = np.asarray(y, dtype=np.float64)
    if counts is None:
        counts = estimate_joint_counts(y, matrix, est.name)
    n = int(round(float(y.sum())))
    if n <= 0:
        return np.zeros(y.shape)
    table = largest_remainder(np.ravel(counts), n)
    ystar = _reperturb_joint(table.reshape(y.shape), matrix, int(replicates), _seed(y, est.name))
    reps = est.estimate(ystar, matrix.flat())
    return reps.std(axis=1, ddof=1).reshape(y.shape)


def estimation_error(estimated: np.ndarray, true: np.ndarray) -> float:
    """E = sum |X_hat - X| / sum X (Dowd, Xu & Zhang, Sec. 6.2)."""
    true = np.asarray(true, dtype=np.float64)
    return float(np.abs(np.asarray(estimated) - true).sum() / true.sum())
