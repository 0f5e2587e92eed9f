"""Reconstructing a release by Algorithm 2, streamed in two passes in bounded memory.

References
----------
Dowd, Xu & Zhang, Algorithm 2.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping

import numpy as np
import pandas as pd

from ..estimate import estimate_counts
from ..io import BatchWriter, atomic_path, table_format, write_table
from ..mechanism import mechanism_of
from ..publish import operation
from ..random import RandomState, WordStream, resolve_seed, stream_generator
from ..reconstruct import RankTable, check_tie_group_table, largest_remainder, tie_group_multisets
from ..release import ReleaseSpec
from .batches import Progress, read_ahead, table_batches
from .estimating import count_pass
from .opening import Batches, Release, class_codes, opened, release_values


def reconstruction_multisets(
    spec: ReleaseSpec, counts: dict[str, np.ndarray], method: str = "set-scale"
) -> dict[str, np.ndarray]:
    """Every tie group's multiset of reconstructed codes from the perturbed counts (C, N):
    each class row estimated with ``method``, rounded by largest remainder and cut into
    the tie groups' multisets; row ``c * N + v`` is tie group ``v`` of class ``c``.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2.
    """
    out = {}
    for a in spec.perturbed_attributes():
        m = a.get_matrix()
        check_tie_group_table(len(counts[a.name]), m.n_values, f"attribute {a.name!r}")
        multisets = []
        for row in np.asarray(counts[a.name]):
            est = estimate_counts(row, m, method, replicates=0)  # counts only
            dist = largest_remainder(est.counts, int(round(float(row.sum()))))
            multisets.append(tie_group_multisets(np.asarray(row).astype(np.int64), dist))
        out[a.name] = np.concatenate(multisets)
    return out


def reconstruct_batches(
    spec: ReleaseSpec,
    batches: Batches,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
) -> Iterator[pd.DataFrame]:
    """Algorithm 2 on every perturbed attribute, in two passes over ``batches()``.

    Pass 1 counts the perturbed codes and rounds their estimate by largest remainder; pass 2
    hands every record a code from its tie group's multiset. The random streams are
    addressed by row, so the output does not depend on the batches.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2; Agrawal & Srikant (2000), global and by-class.
    """
    mechanism_of(spec).require("reconstruct")
    root = resolve_seed(random_state)
    attrs = spec.perturbed_attributes()
    hists, classes = count_pass(spec, batches, by_class, rank_keys(root, attrs))
    tables = rank_tables(spec, hists, method, root)
    yield from assign_batches(spec, batches(), tables, classes, root)


def assign_batches(
    spec: ReleaseSpec,
    batches: Iterable[pd.DataFrame],
    tables: Mapping[str, RankTable],
    classes: list | None,
    root: np.random.SeedSequence,
    first_row: int = 0,
) -> Iterator[pd.DataFrame]:
    """Pass 2 of the reconstruction: every record's code from the rank tables, decoded.

    ``batches`` are the records from row ``first_row`` of the table on, and ``tables``
    (:func:`rank_tables`) start after the records before it.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2.
    """
    attrs = spec.perturbed_attributes()
    tables = {name: t.fresh() for name, t in tables.items()}
    keys = rank_keys(root, attrs, first_row)
    values = {
        a.name: WordStream(reconstruction_generator(root, "value", a.name), first_row).generator
        for a in attrs
    }
    doms = {a.name: a.get_domain() for a in attrs}
    offset = 0
    for batch in batches:
        rec = batch.copy(deep=False)  # whole columns are replaced, never written into
        ccodes = class_codes(batch, spec, classes, offset)
        if classes is not None and len(classes) * max(d.n_values for d in doms.values()) < 2**31:
            ccodes = ccodes.astype(np.int32)  # 32-bit tie groups: half the memory traffic
        for a in attrs:
            d = doms[a.name]
            codes = d.encode(batch[a.name], column=a.name, row_offset=offset)
            groups = codes if classes is None else ccodes * d.n_values + codes
            new = tables[a.name].draw(groups, keys[a.name].uint32(len(groups)))
            rec[a.name] = d.decode(new, random_state=values[a.name])
        offset += len(batch)
        yield rec
    for table in tables.values():
        table.finish()


def reconstruction_generator(root: np.random.SeedSequence, *name: str) -> np.random.Generator:
    """The stream ``("reconstruct", *name)`` of a reconstruction under ``root``."""
    return stream_generator(root, "reconstruct", *name)


def rank_keys(root: np.random.SeedSequence, attrs, row: int = 0) -> dict[str, WordStream]:
    """Every attribute's stream of 32-bit rank keys, one per record, from row ``row``."""
    return {a.name: WordStream(reconstruction_generator(root, "rank", a.name), row) for a in attrs}


def rank_tables(
    spec: ReleaseSpec, hists: dict[str, np.ndarray], method: str, root: np.random.SeedSequence
) -> dict[str, RankTable]:
    """Every perturbed attribute's :class:`~ppdm.reconstruct.RankTable` from the count pass."""
    counts = {k: h.sum(axis=2) for k, h in hists.items()}
    multisets = reconstruction_multisets(spec, counts, method)
    return {
        name: RankTable(
            m,
            hists[name].reshape(len(m), -1),
            reconstruction_generator(root, "ties", name),
        )
        for name, m in multisets.items()
    }


@operation()
def reconstruct_release(
    release: Release | str | os.PathLike,
    out: str | os.PathLike | None = None,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
    batch_size: int | None = None,
    progress: Progress = None,
) -> pd.DataFrame | None:
    """Reconstruct a release on disk (see :func:`reconstruct_batches`).

    Parameters
    ----------
    release : Release or path
    out : path, optional
        Output file (.csv, .parquet or .arff), written atomically. If ``None`` the
        reconstructed table is returned instead.
    method, by_class, random_state
        See :func:`reconstruct_batches`.
    batch_size : int, optional
        Rows per batch; default :func:`batch_rows` of the release's columns.
    progress : callable, optional
        Called with the number of rows done after every batch.

    Returns
    -------
    DataFrame or None
    """
    rel, batch_size = opened(release, batch_size)
    stream = reconstruct_batches(
        rel.spec,
        lambda: read_ahead(rel.batches(batch_size)),
        method=method,
        by_class=by_class,
        random_state=random_state,
    )
    if out is None:
        with release_values(rel.source):
            return pd.concat(list(stream), ignore_index=True)
    fmt = table_format(out, writing=True)
    with release_values(rel.source), atomic_path(out) as tmp:
        if fmt == "arff":
            frame = pd.concat(list(stream), ignore_index=True)
            klass = rel.spec.class_attribute
            if klass in frame.columns:  # last, where Weka looks for the class
                frame = frame[[c for c in frame.columns if c != klass] + [klass]]
            # every categorical domain whole: every ARFF copy of a release has one header
            doms = {a.name: a.get_domain() for a in rel.spec.perturbed_attributes()}
            write_table(
                frame,
                tmp,
                fmt="arff",
                relation="ppdm-reconstructed",
                nominal=[] if klass is None else [klass],
                categories={n: d.values for n, d in doms.items() if d.kind == "categorical"},
            )
        else:
            with BatchWriter(tmp, fmt) as writer:
                for rec in read_ahead(stream):  # reconstruct the next batch while writing
                    writer.write(rec)
                    if progress:
                        progress(len(rec))
    return None


def reconstruct_frame(
    perturbed: pd.DataFrame,
    spec: ReleaseSpec,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
    batch_size: int | None = None,
) -> pd.DataFrame:
    """In-memory :func:`reconstruct_batches` of a perturbed DataFrame and its spec."""
    spec.check_columns([str(c) for c in perturbed.columns])
    size = batch_size or max(len(perturbed), 1)
    parts = reconstruct_batches(
        spec,
        lambda: table_batches(perturbed, size),
        method=method,
        by_class=by_class,
        random_state=random_state,
    )
    return pd.concat(parts, ignore_index=True)
