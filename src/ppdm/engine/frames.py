"""In-memory API: Dask DataFrames, and lists of pandas partitions for the local engine.

``*_dask`` functions return lazy Dask DataFrames with the input's partitioning; the
``*_partitions`` functions do the same work on a list of pandas DataFrames. For the same
seed both equal the single-frame results on the concatenated rows.

References
----------
Dowd, Xu & Zhang, Algorithms 1 and 2, Sec. 4.2-4.3.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..options import PlanOptions, plan_options
from ..pipeline import AttributeEstimate, estimates_from_counts
from ..random import RandomState
from ..release import ReleaseSpec
from .executors import DaskExecutor, LocalExecutor, _require_dask
from .kernels import perturb_partition, reconstruct_partition, resolve_root, row_offsets
from .workflows import count_partitions, partitions_of, plan_partitions, reconstruction_plan

__all__ = [
    "plan_release_dask",
    "perturb_dask",
    "count_dask",
    "estimate_dask",
    "reconstruct_dask",
    "plan_release_partitions",
    "perturb_partitions",
    "count_partitions_local",
    "estimate_partitions",
    "reconstruct_partitions",
]


def _check_ddf(ddf: Any) -> None:
    dask, _ = _require_dask()
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise DataError(f"ddf must be a dask.dataframe.DataFrame (got {type(ddf).__name__})")


def _check_parts(parts: Any) -> list[pd.DataFrame]:
    if not isinstance(parts, (list, tuple)) or not parts:
        raise DataError("parts must be a non-empty list of pandas DataFrames")
    return partitions_of(list(parts))


def _lazy(ddf, spec: ReleaseSpec, fn, per_partition: list[dict] | None = None):
    """``fn(frame, partition=i, **per_partition[i])`` on every partition, lazily."""
    dask, _ = _require_dask()
    import dask.dataframe as dd

    task = dask.delayed(fn, pure=True)
    extra = per_partition or [{}] * ddf.npartitions
    out = [task(part, partition=i, **x) for i, (part, x) in enumerate(zip(ddf.to_delayed(), extra))]
    meta = ddf._meta_nonempty.iloc[:1].copy()  # the dtypes of a perturbed partition
    for a in spec.perturbed_attributes():
        value = a.get_domain().decode(np.zeros(1, dtype=np.int64))
        meta[a.name] = pd.Series(value, index=meta.index)
    return dd.from_delayed(out, meta=meta.iloc[:0], verify_meta=False)


def plan_release_dask(ddf, options: PlanOptions | None = None, **plan_keywords) -> ReleaseSpec:
    """:func:`ppdm.perturbation.plan_release` of a Dask DataFrame (sketches tree-reduced).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    options : PlanOptions, optional
    **plan_keywords
        As in :func:`ppdm.perturbation.plan_release`.

    Returns
    -------
    ReleaseSpec

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 and 7.
    """
    opts = plan_options(options, **plan_keywords)
    _check_ddf(ddf)
    return plan_partitions(DaskExecutor(), partitions_of(ddf), opts)[0]


def perturb_dask(ddf, spec: ReleaseSpec, random_state: RandomState = None, *, warn: bool = True):
    """Algorithm 1 on a Dask DataFrame, partition by partition (lazy).

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    spec : ReleaseSpec
    random_state : None or int
        ``None``: 256 bits of OS entropy drawn now, on the client. Streams are keyed
        by attribute and addressed by row (the partitions' lengths are computed now),
        so the result equals :func:`ppdm.perturbation.perturb_frame` of the whole table.
    warn : bool, default=True
        Warn when a seeded release is made.

    Returns
    -------
    dask.dataframe.DataFrame
        Same partitions, perturbed.

    Examples
    --------
    >>> import dask.dataframe as dd  # doctest: +SKIP
    >>> out = perturb_dask(dd.from_pandas(df, npartitions=4), spec)  # doctest: +SKIP

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 1.
    """
    _check_ddf(ddf)
    root = resolve_root(random_state, warn=warn and random_state is not None)
    lengths = [int(n) for n in ddf.map_partitions(len).compute()]
    offsets = [{"row_offset": o} for o in row_offsets(lengths)]
    return _lazy(ddf, spec, functools.partial(perturb_partition, spec=spec, root=root), offsets)


def count_dask(
    ddf, spec: ReleaseSpec, *, by_class: bool = False
) -> tuple[dict[str, np.ndarray], list | None]:
    """Perturbed counts (C, N) per attribute of a Dask DataFrame, tree-reduced, and the class
    values (``by_class``).
    """
    _check_ddf(ddf)
    return count_partitions(DaskExecutor(), partitions_of(ddf), spec, by_class)


def estimate_dask(
    ddf, spec: ReleaseSpec, method: str = "set-scale", *, by_class: bool = False
) -> list[AttributeEstimate]:
    """Estimates from a perturbed Dask DataFrame (counts on the cluster, estimate here).

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3.
    """
    counts, classes = count_dask(ddf, spec, by_class=by_class)
    return estimates_from_counts(spec, counts, classes, method)


def reconstruct_dask(
    ddf,
    spec: ReleaseSpec,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
):
    """Algorithm 2 on a perturbed Dask DataFrame in two passes.

    The count pass runs now (partition by partition); the assignment pass is
    returned lazily, one task per partition, each with its share of the multisets.

    Returns
    -------
    dask.dataframe.DataFrame

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2 (two-pass streaming reconstruction).
    """
    _check_ddf(ddf)
    root = resolve_root(random_state)
    shares, classes, firsts = reconstruction_plan(
        DaskExecutor(), partitions_of(ddf), spec, method, by_class, root
    )
    fn = functools.partial(reconstruct_partition, spec=spec, classes=classes, root=root)
    return _lazy(ddf, spec, fn, [{"shares": x, "first_row": o} for x, o in zip(shares, firsts)])


def plan_release_partitions(
    parts: list[pd.DataFrame], options: PlanOptions | None = None, **plan_keywords
) -> ReleaseSpec:
    """:func:`plan_release_dask` on a list of pandas partitions, sequentially."""
    opts = plan_options(options, **plan_keywords)
    return plan_partitions(LocalExecutor(), _check_parts(parts), opts)[0]


def perturb_partitions(
    parts: list[pd.DataFrame],
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
) -> list[pd.DataFrame]:
    """:func:`perturb_dask` on a list of pandas partitions, sequentially."""
    parts = _check_parts(parts)
    root = resolve_root(random_state, warn=warn and random_state is not None)
    offsets = row_offsets([len(p) for p in parts])
    return [perturb_partition(p, spec, root, i, o) for i, (p, o) in enumerate(zip(parts, offsets))]


def count_partitions_local(
    parts: list[pd.DataFrame], spec: ReleaseSpec, *, by_class: bool = False
) -> tuple[dict[str, np.ndarray], list | None]:
    """:func:`count_dask` on a list of pandas partitions, sequentially."""
    return count_partitions(LocalExecutor(), _check_parts(parts), spec, by_class)


def estimate_partitions(
    parts: list[pd.DataFrame], spec: ReleaseSpec, method: str = "set-scale", *, by_class=False
) -> list[AttributeEstimate]:
    """:func:`estimate_dask` on a list of pandas partitions, sequentially."""
    counts, classes = count_partitions_local(parts, spec, by_class=by_class)
    return estimates_from_counts(spec, counts, classes, method)


def reconstruct_partitions(
    parts: list[pd.DataFrame],
    spec: ReleaseSpec,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
) -> list[pd.DataFrame]:
    """:func:`reconstruct_dask` on a list of pandas partitions, sequentially."""
    parts = _check_parts(parts)
    root = resolve_root(random_state)
    shares, classes, firsts = reconstruction_plan(
        LocalExecutor(), parts, spec, method, by_class, root
    )
    return [
        reconstruct_partition(p, spec, s, classes, root, i, o)
        for i, (p, s, o) in enumerate(zip(parts, shares, firsts))
    ]
