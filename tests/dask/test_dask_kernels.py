"""The pieces of the partitioned engines: splits, sketches, errors, the grid mapper."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.engine import (
    map_cells,
    partitions_of,
    perturb_partitions,
    plan_release_partitions,
    reconstruct_partitions,
    split_multisets,
)
from ppdm.engine.executors import open_executor
from ppdm.exceptions import DataError, DomainError, ParameterError, SpecError
from ppdm.perturb import plan_release


@st.composite
def _split_case(draw):
    n_groups = draw(st.integers(1, 4))
    n_codes = draw(st.integers(1, 5))
    n_parts = draw(st.integers(1, 5))
    multisets = np.array(
        draw(
            st.lists(
                st.lists(st.integers(0, 30), min_size=n_codes, max_size=n_codes),
                min_size=n_groups,
                max_size=n_groups,
            )
        )
    )
    rng = np.random.default_rng(draw(st.integers(0, 2**32)))
    # any split of every group's total over the partitions
    sizes = np.stack(
        [rng.multinomial(t, np.full(n_parts, 1 / n_parts)) for t in multisets.sum(1)], axis=1
    )
    return multisets, sizes, draw(st.integers(0, 2**32))


@settings(max_examples=60, deadline=None)
@given(_split_case())
def test_split_multisets_keeps_both_margins(case):
    multisets, sizes, seed = case
    shares = split_multisets(multisets, sizes, np.random.default_rng(seed))
    assert shares.min() >= 0
    np.testing.assert_array_equal(shares.sum(axis=0), multisets)
    np.testing.assert_array_equal(shares.sum(axis=2), sizes)


def test_split_multisets_is_hypergeometric():
    # one group with 30 of code 0 and 70 of code 1, partition 0 takes 40 records:
    # its count of code 0 is Hypergeometric(30, 70, 40): mean 12, variance 5.09
    multisets = np.array([[30, 70]])
    sizes = np.array([[40], [60]])
    rng = np.random.default_rng(0)
    draws = np.array([split_multisets(multisets, sizes, rng)[0, 0, 0] for _ in range(2000)])
    sd_of_mean = np.sqrt(40 * 0.3 * 0.7 * 60 / 99 / 2000)
    assert abs(draws.mean() - 12.0) < 4 * sd_of_mean
    assert abs(draws.var() - 40 * 0.3 * 0.7 * 60 / 99) < 0.6


def test_split_rejects_inconsistent_sizes():
    with pytest.raises(DataError, match="do not add up"):
        split_multisets(np.array([[1, 1]]), np.array([[1], [2]]), np.random.default_rng(0))


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
