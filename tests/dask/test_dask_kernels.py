"""The pieces of the partitioned engines: splits, sketches, errors, the grid mapper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.engine import (
    map_cells,
    partitions_of,
    perturb_partitions,
    plan_release_partitions,
    reconstruct_partitions,
)
from ppdm.engine.executors import open_executor
from ppdm.exceptions import DataError, DomainError, ParameterError, SpecError
from ppdm.perturbation import plan_release


@pytest.mark.parametrize("by_class", [False, True])
def test_reconstruction_does_not_depend_on_the_partitioning(table, splitter, by_class):
    # rank keys and representatives are addressed by row: any partitioning, and the
    # single stream in any batch size, give the same reconstruction for one seed
    from ppdm.pipeline import reconstruct_frame

    spec = plan_release_partitions([table], class_attribute="label", representative="random")
    released = pd.concat(perturb_partitions([table], spec, random_state=3), ignore_index=True)
    whole = reconstruct_frame(released, spec, by_class=by_class, random_state=8, batch_size=97)
    for n in (1, 3, 4):
        parts = splitter(released, n)
        rec = reconstruct_partitions(parts, spec, by_class=by_class, random_state=8)
        pd.testing.assert_frame_equal(pd.concat(rec, ignore_index=True), whole)
    other = reconstruct_frame(released, spec, by_class=by_class, random_state=9)
    assert not other.equals(whole)


def test_a_partition_that_changed_between_the_passes_is_refused(table, splitter):
    from ppdm.engine import resolve_root
    from ppdm.engine.kernels import reconstruct_partition
    from ppdm.engine.workflows import reconstruction_plan

    spec = plan_release_partitions([table])
    parts = splitter(pd.concat(perturb_partitions([table], spec, random_state=3)), 2)
    root = resolve_root(4)
    with open_executor("local") as ex:
        shares, classes, firsts = reconstruction_plan(ex, parts, spec, "set-scale", False, root)
    # one record moved to another tie group (a value from another bin)
    attr = spec.perturbed_attributes()[0]
    codes = attr.get_domain().encode(parts[1][attr.name], column=attr.name)
    other = int(np.flatnonzero(codes != codes[0])[0])
    changed = parts[1].copy()
    changed.loc[changed.index[0], attr.name] = parts[1][attr.name].iloc[other]
    with pytest.raises(DataError, match="changed between the two passes"):
        reconstruct_partition(changed, spec, shares[1], classes, root, 1, firsts[1])
    with pytest.raises(DataError, match="changed between the two passes"):
        reconstruct_partition(parts[1].iloc[1:], spec, shares[1], classes, root, 1, firsts[1])
    # the tables themselves are untouched: the sound partition still reconstructs
    reconstruct_partition(parts[1], spec, shares[1], classes, root, 1, firsts[1])


def test_merged_sketches_plan_the_same_release(table, splitter):
    opts = dict(class_attribute="label", n_bins=12)
    assert plan_release_partitions(splitter(table, 7), **opts) == plan_release(table, **opts)


def test_errors_name_the_partition(table, splitter):
    parts = splitter(table, 3)
    spec = plan_release_partitions(parts, class_attribute="label")
    bad = parts[2].copy()
    bad.iloc[5, bad.columns.get_loc("city")] = "oslo"
    with pytest.raises(
        DomainError, match=r"^partition 2: column 'city' data row 6 has value 'oslo'"
    ):
        perturb_partitions([parts[0], parts[1], bad], spec, random_state=0)


def test_by_class_needs_an_unperturbed_class(table, splitter):
    parts = splitter(table, 2)
    spec = plan_release_partitions(parts, class_attribute="label", perturb_class=True)
    released = perturb_partitions(parts, spec, random_state=0)
    with pytest.raises(SpecError, match="unperturbed class"):
        reconstruct_partitions(released, spec, by_class=True)


def test_bad_arguments_are_named():
    with pytest.raises(ParameterError, match="engine must be one of 'local', 'dask'.*'spark'"):
        with open_executor("spark"):
            pass
    with pytest.raises(ParameterError, match="scheduler is only for engine='dask'"):
        with open_executor("local", "tcp://x:8786"):
            pass
    with pytest.raises(DataError, match="got int"):
        partitions_of(3)
    with pytest.raises(FileNotFoundError, match="matches no CSV or Parquet file"):
        partitions_of("/nonexistent/*.parquet")


def _cell(cell):
    gamma, n, rep = cell
    rng = np.random.default_rng([int(gamma), n, rep])
    return float(rng.random()) * gamma


def test_map_cells_same_results_everywhere(cluster):
    cells = [(g, n, r) for g in (3, 9) for n in (5, 10) for r in range(3)]
    expected = [_cell(c) for c in cells]
    assert map_cells(_cell, cells) == expected
    assert map_cells(_cell, cells, engine="local", jobs=2) == expected
    assert map_cells(_cell, cells, engine="dask", scheduler=cluster) == expected
    with pytest.raises(ParameterError, match="jobs must be >= 1"):
        map_cells(_cell, cells, jobs=0)


def test_class_values_come_from_all_partitions():
    # partition 0 sees only "a", partition 1 only "b": by-class counts still line up
    parts = [
        pd.DataFrame({"x": [1, 2, 1, 2], "c": ["a"] * 4}),
        pd.DataFrame({"x": [2, 2, 1, 1], "c": ["b"] * 4}),
    ]
    spec = plan_release_partitions(parts, class_attribute="c")
    rel = perturb_partitions(parts, spec, random_state=1)
    rec = reconstruct_partitions(rel, spec, by_class=True, random_state=2)
    assert [len(p) for p in rec] == [4, 4]
    assert pd.concat(rec)["c"].tolist() == ["a"] * 4 + ["b"] * 4


def test_tasks_of_a_dask_worker_do_not_read_ahead(cluster):
    # the workers' threads are the cluster's cores: a task starting a thread more only
    # makes the two cores take turns (BENCHMARKS.md, "Dask scale-out")
    from ppdm.pipeline import spare_core

    assert cluster.submit(spare_core, pure=False).result() is False
