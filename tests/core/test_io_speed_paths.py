"""The fast paths of ppdm.io and ppdm.reconstruct give the same bytes as the plain ones.

The CSV writers format through Arrow; their output must equal pandas' ``to_csv`` byte
for byte, whatever the column types, so that a release does not depend on the path.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from ppdm.io import BatchWriter, write_csv_batch, write_table


def _pandas_bytes(frame: pd.DataFrame, header: bool = True) -> bytes:
    return frame.to_csv(index=False, header=header, lineterminator="\n").encode("utf-8")


def _fast_bytes(frame: pd.DataFrame, header: bool = True) -> bytes:
    buf = io.BytesIO()
    write_csv_batch(frame, buf, header=header)
    return buf.getvalue()


def _mixed(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    special = np.array(
        [0.0, -0.0, 1.0, -3.0, 1e-5, 1e-4, 9.99e-5, 0.1, 1 / 3, 1e10, 9999999999.5, 1e15,
         1e16, 1.5e17, 1e300, 5e-324, np.inf, -np.inf, np.nan, 34.425000000000004, 2.5e-7]
    )  # fmt: skip
    floats = np.concatenate(
        [special, rng.normal(0, 1, n), rng.lognormal(0, 12, n), np.round(rng.normal(0, 1e3, n))]
    )
    m = len(floats)
    ints = rng.integers(-(10**12), 10**12, m)
    words = np.array(["a", "b c", "", "ünï", "x;y", "00501"], dtype=object)[rng.integers(0, 6, m)]
    words[rng.random(m) < 0.1] = None
    nullable = pd.array(rng.integers(0, 5, m), dtype="Int64")
    nullable[rng.random(m) < 0.2] = pd.NA
    return pd.DataFrame(
        {
            "f": rng.permutation(floats),
            "i": ints,
            "s": words,
            "b": rng.random(m) < 0.5,
            "n": nullable,
            "u8": rng.integers(0, 255, m).astype(np.uint8),
        }
    )


@pytest.mark.parametrize("seed", [0, 1])
def test_csv_batch_bytes_equal_pandas(seed):
    frame = _mixed(2000, seed)
    assert _fast_bytes(frame) == _pandas_bytes(frame)
    assert _fast_bytes(frame, header=False) == _pandas_bytes(frame, header=False)


@pytest.mark.parametrize(
    "frame",
    [
        pd.DataFrame({"s": ["a,b", "c"], "x": [1.0, 2.0]}),  # a field to quote
        pd.DataFrame({"s": ['say "hi"', "c"]}),
        pd.DataFrame({"s": ["line\nbreak", "c"], "x": [1, 2]}),
        pd.DataFrame({"x": [1.0, np.nan, 3.0]}),  # one column, an empty field
        pd.DataFrame({"s": ["", "a"]}),
        pd.DataFrame({"x": np.array([1e-4, 0.5, 1e20], dtype=np.float32)}),
        pd.DataFrame({"o": [1, "a", 2.5, None]}),  # mixed objects
        pd.DataFrame({"c": pd.Categorical(["x", "y", "x"])}),
        pd.DataFrame({"x": [1.0, 2.0]}).iloc[:0],  # header only
        pd.DataFrame({"a,b": [1, 2], "c": ["d", "e"]}),  # a header to quote
        pd.DataFrame({"t": pd.to_datetime(["2020-01-01", "2021-06-30"])}),
        # pandas' string dtypes take the Arrow path
        pd.DataFrame({"s": pd.Series(["a", None, "ü b", ""], dtype="string"), "x": [1.5, 2, 3, 4]}),
        pd.DataFrame({"s": pd.Series(["a", None, "ü b", ""], dtype="str"), "k": [1, 2, 3, 4]}),
    ],
)
def test_csv_batch_edge_cases_equal_pandas(frame):
    assert _fast_bytes(frame) == _pandas_bytes(frame)


def test_batch_writer_and_write_table_bytes_equal_pandas(tmp_path):
    frame = _mixed(500, 3)
    with BatchWriter(tmp_path / "b.csv", "csv") as w:
        for i in range(0, len(frame), 300):
            w.write(frame.iloc[i : i + 300])
    write_table(frame, tmp_path / "w.csv")
    expected = _pandas_bytes(frame)
    assert (tmp_path / "b.csv").read_bytes() == expected
    assert (tmp_path / "w.csv").read_bytes() == expected


def test_mixed_table_takes_the_arrow_path():
    from ppdm.io.writers import _csv_text

    frame = _mixed(100, 0)
    assert all(_csv_text(frame[c]) is not None for c in frame.columns)
    assert _csv_text(pd.Series(["a,b"])) is None


# -- Algorithm 2: the counting-sort assignment hands out the same codes ------------------


class _SortingState:
    """The assignment before the counting sort (a comparison sort), kept as the reference."""

    def __init__(self, multisets):
        self.remaining = np.array(multisets, dtype=np.int64)

    def draw(self, groups, rng):
        groups = np.asarray(groups, dtype=np.int64)
        n_groups, n_codes = self.remaining.shape
        sizes = np.bincount(groups, minlength=n_groups)
        drawn = np.zeros_like(self.remaining)
        for g in np.flatnonzero(sizes):
            left = self.remaining[g]
            if sizes[g] == left.sum():
                drawn[g] = left
            else:
                drawn[g] = rng.multivariate_hypergeometric(left, int(sizes[g]))
        self.remaining -= drawn
        perm = rng.permutation(len(groups))
        order = perm[np.argsort(groups[perm], kind="stable")]
        codes = np.repeat(np.tile(np.arange(n_codes), n_groups), drawn.ravel())
        out = np.empty(len(groups), dtype=np.int32)
        out[order] = codes
        return out


@pytest.mark.parametrize(
    ("n_classes", "n_codes", "batch"),
    [(1, 2, 7), (1, 20, 1000), (3, 100, 333), (2, 200, 5000), (1, 300, 4000), (40, 300, 10_000)],
)
def test_counting_sort_draw_equals_sorting_draw(n_classes, n_codes, batch):
    from ppdm.reconstruct import AssignmentState, tie_group_multisets

    rng = np.random.default_rng(n_codes)
    n = 20_000
    classes = rng.integers(0, n_classes, n)
    codes = rng.integers(0, n_codes, n)
    groups = classes * n_codes + codes
    rows = []
    for c in range(n_classes):
        y = np.bincount(codes[classes == c], minlength=n_codes)
        dist = np.bincount(rng.integers(0, n_codes, int(y.sum())), minlength=n_codes)
        rows.append(tie_group_multisets(y, dist))
    multisets = np.concatenate(rows)
    new, old = AssignmentState(multisets), _SortingState(multisets)
    g_new, g_old = np.random.default_rng(7), np.random.default_rng(7)
    for i in range(0, n, batch):
        a = new.draw(groups[i : i + batch], g_new)
        b = old.draw(groups[i : i + batch], g_old)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(new.remaining, 0)
    assert g_new.integers(1 << 62) == g_old.integers(1 << 62)  # same draws consumed


@pytest.mark.parametrize("n_groups", [1, 2, 256, 257, 65536, 65537, 200_000])
def test_group_order_equals_stable_argsort(n_groups):
    from ppdm.reconstruct import _stable_group_order

    rng = np.random.default_rng(n_groups)
    groups = rng.integers(0, n_groups, 50_000)
    groups[:2] = [0, n_groups - 1]
    perm = rng.permutation(len(groups))
    expected = np.argsort(groups[perm], kind="stable")
    np.testing.assert_array_equal(_stable_group_order(groups, n_groups, perm), expected)


# -- the partitioned engine perturbs Parquet partitions batch by batch ------------------


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
def test_streamed_parquet_partitions_release_the_same_values(tmp_path, monkeypatch):
    from ppdm.engine import make_release_partitioned, workflows
    from ppdm.pipeline import make_release

    rng = np.random.default_rng(4)
    n = 2_300
    table = pd.DataFrame(
        {
            "x": rng.normal(50, 15, n).clip(0, 100),
            "k": rng.integers(0, 7, n),
            "label": np.where(rng.random(n) < 0.4, "yes", "no"),
        }
    )
    src = tmp_path / "in"
    src.mkdir()
    for i, lo in enumerate(range(0, n, 1000)):
        table.iloc[lo : lo + 1000].to_parquet(src / f"p{i}.parquet", index=False)
    table.iloc[:0].to_parquet(src / "p9.parquet", index=False)  # an empty partition
    opts = dict(class_attribute="label", random_state=3, bounds={"x": (0, 100), "k": (0, 6)})

    whole_calls = []
    real = workflows.perturb_partition
    monkeypatch.setattr(
        workflows, "perturb_partition", lambda *a, **k: whole_calls.append(1) or real(*a, **k)
    )
    monkeypatch.setattr(workflows, "_part_batch", lambda _: 300)  # several batches per partition
    spec_streamed = make_release_partitioned(src, tmp_path / "streamed", **opts)
    assert len(whole_calls) <= 1  # only the empty partition, if any, is read whole
    monkeypatch.setattr(workflows, "_streamable", lambda handle, spec: False)
    make_release_partitioned(src, tmp_path / "whole", **opts)
    spec_single = make_release(table, tmp_path / "single", fmt="parquet", **opts)
    # the plan from batch-by-batch summaries is the plan of the whole table
    assert spec_streamed.attributes == spec_single.attributes

    def data(release):
        return pd.read_parquet(release / "data").reset_index(drop=True)

    streamed = data(tmp_path / "streamed")
    pd.testing.assert_frame_equal(streamed, data(tmp_path / "whole"))
    single = pd.read_parquet(tmp_path / "single" / "data.parquet")
    pd.testing.assert_frame_equal(streamed, single, check_dtype=False)
    assert not streamed["x"].equals(table["x"])  # perturbed


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
def test_streamed_counts_equal_whole_partition_counts(tmp_path, monkeypatch):
    from ppdm.engine import make_release_partitioned, workflows
    from ppdm.engine.kernels import count_partition
    from ppdm.exceptions import DataError
    from ppdm.io import read_table

    rng = np.random.default_rng(5)
    n = 1_000
    table = pd.DataFrame(
        {
            "x": rng.normal(50, 15, n).clip(0, 100),
            "label": rng.choice(["a", "b", "c"], n, p=[0.5, 0.45, 0.05]),
        }
    )
    table.loc[:400, "label"] = "b"  # class "a" first appears in a later batch
    src = tmp_path / "in"
    src.mkdir()
    table.to_parquet(src / "p0.parquet", index=False)
    spec = make_release_partitioned(
        src, tmp_path / "rel", class_attribute="label", random_state=1, bounds={"x": (0, 100)}
    )
    part = next((tmp_path / "rel" / "data").glob("*.parquet"))
    monkeypatch.setattr(workflows, "_part_batch", lambda _: 300)
    for by_class in (False, True):
        streamed = workflows._count_task(spec, by_class, (0, str(part)))
        whole = count_partition(read_table(part), spec, 0, by_class)
        assert streamed.rows == whole.rows == n
        assert streamed.classes == whole.classes
        for name in whole.tables:
            np.testing.assert_array_equal(streamed.tables[name], whole.tables[name])
    broken = read_table(part)
    broken.loc[650, "label"] = None
    broken.to_parquet(tmp_path / "broken.parquet", index=False)
    # 1-based, as every other row a message names (it said "row 650")
    with pytest.raises(DataError, match="'label' has a missing value at data row 651$"):
        workflows._count_task(spec, True, (0, str(tmp_path / "broken.parquet")))
