"""Algorithm 2 addressed by row (:class:`ppdm.reconstruct.RankTable`)."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from ppdm.exceptions import DataError
from ppdm.reconstruct import RankTable, rank_bits, rank_cells, tie_group_multisets


def _table(groups, keys, multisets, bits, seed=0):
    hist = np.bincount(
        rank_cells(groups, keys, bits, len(multisets)), minlength=len(multisets) << bits
    )
    return RankTable(multisets, hist.reshape(len(multisets), -1), np.random.default_rng(seed))


def _case(seed, n=400, n_codes=5, n_groups=3, bits=2):
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n)
    keys = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    sizes = np.bincount(groups, minlength=n_groups)
    multisets = np.stack(
        [np.bincount(rng.integers(0, n_codes, s), minlength=n_codes) for s in sizes]
    )
    return groups, keys, multisets, bits


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("bits", [0, 1, 3, 8])
def test_every_group_gets_exactly_its_multiset(seed, bits):
    groups, keys, multisets, _ = _case(seed, bits=bits)
    out = _table(groups, keys, multisets, bits, seed).draw(groups, keys)
    for g, m in enumerate(multisets):
        assert np.bincount(out[groups == g], minlength=len(m)).tolist() == m.tolist()


@pytest.mark.parametrize("cuts", [[1], [7, 150, 151], [399], list(range(0, 400, 37))])
def test_codes_do_not_depend_on_how_the_records_are_split(cuts):
    groups, keys, multisets, bits = _case(11)
    whole = _table(groups, keys, multisets, bits).draw(groups, keys)
    table = _table(groups, keys, multisets, bits)
    edges = [0, *cuts, len(groups)]
    parts = [table.draw(groups[a:b], keys[a:b]) for a, b in itertools.pairwise(edges)]
    assert np.array_equal(np.concatenate(parts), whole)


@pytest.mark.parametrize("bits", [0, 1, 6])
def test_a_later_partition_starts_after_the_records_before_it(bits):
    groups, keys, multisets, _ = _case(5, bits=bits)
    whole = _table(groups, keys, multisets, bits).draw(groups, keys)
    table = _table(groups, keys, multisets, bits)
    before = np.bincount(
        rank_cells(groups[:150], keys[:150], bits, len(multisets)), minlength=table.table.size
    )
    first, later = table.after(np.zeros_like(before)), table.after(before)
    assert np.array_equal(later.draw(groups[150:], keys[150:]), whole[150:])
    assert np.array_equal(first.draw(groups[:150], keys[:150]), whole[:150])
    assert np.array_equal(table.after(before).draw(groups[150:], keys[150:]), whole[150:])
    # a partition's share holds only its own records' part of the straddling codes
    own = np.bincount(
        rank_cells(groups[150:300], keys[150:300], bits, len(multisets)),
        minlength=table.table.size,
    )
    middle = table.after(before, own)
    assert len(middle.arrangement) <= len(table.arrangement)
    assert np.array_equal(middle.draw(groups[150:300], keys[150:300]), whole[150:300])
    middle.finish()


def test_arrangements_are_uniform():
    # one tie group of four records owning {0, 0, 1, 2}: 12 arrangements, each 1/12
    # under uniform tie breaking; two buckets make most runs straddle
    rng = np.random.default_rng(2024)
    multisets = np.array([[2, 1, 1]])
    groups = np.zeros(4, dtype=np.int64)
    trials = 12_000
    seen = Counter()
    for t in range(trials):
        keys = rng.integers(0, 2**32, 4, dtype=np.uint64).astype(np.uint32)
        table = _table(groups, keys, multisets, 1, seed=t)
        seen[tuple(table.draw(groups, keys).tolist())] += 1
    assert len(seen) == 12
    counts = np.array(list(seen.values()))
    # chi-square goodness of fit, 11 degrees of freedom: fails by chance with p = 1e-4
    assert stats.chisquare(counts).pvalue > 1e-4


def test_ties_follow_algorithm_2_with_sorted_keys_when_no_bucket_straddles():
    # with enough key bits every bucket holds one record: the codes are those of
    # sorting the group on its keys and handing out the sorted multiset
    rng = np.random.default_rng(3)
    y = np.array([6, 4])
    dist = np.array([3, 5, 2])
    multisets = tie_group_multisets(y, dist)
    groups = np.repeat([0, 1], y)
    keys = rng.permutation(np.arange(10, dtype=np.uint32) << np.uint32(28))
    out = _table(groups, keys, multisets, 4).draw(groups, keys)
    for g in (0, 1):
        members = np.flatnonzero(groups == g)
        ranked = members[np.argsort(keys[members])]
        assert out[ranked].tolist() == np.repeat(np.arange(3), multisets[g]).tolist()


def test_records_beyond_the_count_pass_are_refused():
    groups, keys, multisets, bits = _case(1)
    table = _table(groups, keys, multisets, bits)
    table.draw(groups, keys)
    with pytest.raises(DataError, match="changed between the two passes"):
        table.draw(groups[:1], keys[:1])


def test_keys_that_moved_are_refused():
    groups, keys, multisets, bits = _case(1, bits=0)
    table = _table(groups, keys, multisets, 8)
    moved = keys.copy()
    moved[:] = 0  # every record in the first bucket of its group
    with pytest.raises(DataError, match="changed between the two passes"):
        table.draw(groups, moved)


def test_bucket_bits_stay_within_the_table_cap():
    from ppdm.reconstruct import MAX_RANK_BITS, MAX_RANK_CELLS

    for n in (1, 2, 20, 100, 1000, 65_536):
        for classes in (1, 2, 600, 10_000):
            bits = rank_bits(n, classes)
            assert 0 <= bits <= MAX_RANK_BITS
            # within the cap, or one bucket per group when even that is over it
            assert (n * classes) << bits <= max(MAX_RANK_CELLS, n * classes)
            # about 64 buckets per code when the cap allows
            if (n * classes) << MAX_RANK_BITS <= MAX_RANK_CELLS:
                assert 1 << bits >= min(64 * n, 1 << MAX_RANK_BITS)


def test_coarser_buckets_are_the_counts_of_fewer_key_bits():
    from ppdm.reconstruct import coarsen_buckets

    rng = np.random.default_rng(0)
    groups = rng.integers(0, 3, 500)
    keys = rng.integers(0, 2**32, 500, dtype=np.uint64).astype(np.uint32)
    fine = np.bincount(rank_cells(groups, keys, 5, 3), minlength=3 << 5)
    coarse = np.bincount(rank_cells(groups, keys, 2, 3), minlength=3 << 2)
    assert np.array_equal(coarsen_buckets(fine, 5, 2), coarse)


def test_many_classes_coarsen_the_buckets_and_keep_the_bytes():
    # 600 classes: the buckets get coarser as classes appear (exact merges), so every
    # batch size and partitioning still gives the same reconstruction, and the count
    # table of an attribute stays within MAX_RANK_CELLS
    import pandas as pd

    from ppdm.engine import perturb_partitions, reconstruct_partitions
    from ppdm.pipeline import reconstruct_frame
    from ppdm.reconstruct import MAX_RANK_CELLS
    from ppdm.release import ReleaseSpec

    rng = np.random.default_rng(6)
    n = 6000
    table = pd.DataFrame({"x": rng.integers(0, 40, n).astype(float), "c": rng.integers(0, 600, n)})
    spec = ReleaseSpec.model_validate(
        {
            "class_attribute": "c",
            "attributes": [
                {
                    "name": "x",
                    "domain": {"kind": "binned", "low": 0, "high": 40, "n_bins": 20},
                    "matrix": {"kind": "gamma-diagonal", "gamma": 9},
                },
                {"name": "c", "perturbed": False},
            ],
        }
    )
    released = pd.concat(
        perturb_partitions([table], spec, random_state=1, warn=False), ignore_index=True
    )
    assert 20 * 600 << rank_bits(20, 600) <= MAX_RANK_CELLS < 20 * 600 << rank_bits(20)
    whole = reconstruct_frame(released, spec, by_class=True, random_state=2)
    for size in (97, 1000):
        again = reconstruct_frame(released, spec, by_class=True, random_state=2, batch_size=size)
        pd.testing.assert_frame_equal(again, whole)
    parts = [released.iloc[:1500], released.iloc[1500:1501], released.iloc[1501:]]
    rec = reconstruct_partitions(parts, spec, by_class=True, random_state=2)
    pd.testing.assert_frame_equal(pd.concat(rec), whole)
