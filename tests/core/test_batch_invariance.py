"""Same seed, same bytes, whatever the batch size: releases and reconstructions, CSV and
Parquet, through the command line."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from ppdm.io import ROW_GROUP_ROWS, BatchWriter


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("cuts", [[], [1], [99_999, 250_000, 250_001], [ROW_GROUP_ROWS]])
def test_parquet_row_groups_do_not_follow_the_batches(tmp_path, cuts):
    n = 2 * ROW_GROUP_ROWS + 17
    frame = pd.DataFrame({"x": np.arange(n, dtype=np.float64), "y": np.arange(n) % 3})
    whole = tmp_path / "whole.parquet"
    with BatchWriter(whole, "parquet") as w:
        w.write(frame)
    out = tmp_path / "cut.parquet"
    edges = [0, *cuts, n]
    with BatchWriter(out, "parquet") as w:
        for a, b in zip(edges, edges[1:]):
            w.write(frame.iloc[a:b])
    assert out.read_bytes() == whole.read_bytes()
    meta = pq.ParquetFile(out).metadata
    rows = [meta.row_group(i).num_rows for i in range(meta.num_row_groups)]
    assert rows == [ROW_GROUP_ROWS, ROW_GROUP_ROWS, 17]
    pd.testing.assert_frame_equal(pd.read_parquet(out), frame)


@pytest.fixture
def table(tmp_path):
    from sklearn.datasets import load_breast_cancer

    path = tmp_path / "bc.parquet"
    load_breast_cancer(as_frame=True).frame.to_parquet(path, index=False)
    return path


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
@pytest.mark.filterwarnings("ignore::ppdm.exceptions.BoundsLeakWarning")
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_release_and_reconstruction_bytes_ignore_the_batch_size(run_cli, tmp_path, table, fmt):
    digests: dict[str, set] = {}
    for size in ("250000", "100", "53"):
        rel = tmp_path / f"rel-{size}"
        code, _, err = run_cli(
            "perturb", table, "--out", rel, "--class", "target", "--seed", "1",
            "--format", fmt, "--batch-size", size,
        )  # fmt: skip
        assert code == 0, err
        digests.setdefault("release", set()).add(_digest(rel / f"data.{fmt}"))
        for by_class in ([], ["--by-class"]):
            out = tmp_path / f"rec-{size}-{len(by_class)}.{fmt}"
            code, _, err = run_cli(
                "reconstruct", rel, "--out", out, "--seed", "2", "--batch-size", size, *by_class
            )
            assert code == 0, err
            digests.setdefault(f"rec{by_class}", set()).add(_digest(out))
    assert {k: len(v) for k, v in digests.items()} == {
        "release": 1,
        "rec[]": 1,
        "rec['--by-class']": 1,
    }


@pytest.mark.parametrize(
    "columns",
    [
        {"f": [0.0, -0.0, np.nan, np.inf, -np.inf, 1e-300, 5e-324, 1.5]},
        {"i": [0, -1, 2**62, 3, 4, 5, 6, 7], "u": np.arange(8, dtype=np.uint8)},
        {"b": [True, False] * 4, "f32": np.arange(8, dtype=np.float32) / 3},
        {"s": list("abcdefgh"), "f": np.arange(8.0)},  # not all numbers: pandas' path
        {"n": pd.array([1, None, 3, 4, 5, 6, 7, 8], dtype="Int64"), "f": np.arange(8.0)},
    ],
)
def test_later_batches_give_the_bytes_pandas_conversion_gives(tmp_path, columns):
    frame = pd.DataFrame(columns)
    one = tmp_path / "one.parquet"
    with BatchWriter(one, "parquet") as w:
        w.write(pd.concat([frame] * 3, ignore_index=True))
    many = tmp_path / "many.parquet"
    with BatchWriter(many, "parquet") as w:
        for _ in range(3):
            w.write(frame)
    assert many.read_bytes() == one.read_bytes()
    pd.testing.assert_frame_equal(pd.read_parquet(many), pd.concat([frame] * 3, ignore_index=True))


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
@pytest.mark.filterwarnings("ignore::ppdm.exceptions.BoundsLeakWarning")
def test_bytes_do_not_depend_on_reading_ahead(tmp_path, table, monkeypatch):
    # the same files whether batches are read, perturbed or rebuilt, and written on
    # threads of their own or one after another on one thread (no spare core)
    import ppdm.pipeline
    from ppdm.engine import make_release_partitioned, reconstruct_release_partitioned
    from ppdm.pipeline import make_release, reconstruct_release

    parts = tmp_path / "parts"
    parts.mkdir()
    frame = pd.read_parquet(table)
    for i, start in enumerate(range(0, len(frame), 200)):
        frame.iloc[start : start + 200].to_parquet(parts / f"p{i}.parquet", index=False)
    files = {}
    for threads in (True, False):
        monkeypatch.setattr(ppdm.pipeline.batches, "spare_core", lambda threads=threads: threads)
        out = tmp_path / f"threads-{threads}"
        opts = dict(class_attribute="target", random_state=3, batch_size=97)
        make_release(table, out / "rel", **opts)
        reconstruct_release(out / "rel", out / "rec.parquet", by_class=True, random_state=4)
        opts.pop("batch_size")
        make_release_partitioned(parts, out / "prel", **opts)
        reconstruct_release_partitioned(out / "prel", out / "prec", random_state=4)
        files[threads] = {
            p.relative_to(out).as_posix(): p.read_bytes()
            for p in sorted(out.rglob("*"))
            if p.is_file() and p.suffix in (".parquet", ".csv")
        }
    assert len(files[True]) == 1 + 1 + 3 + 3
    assert files[True] == files[False]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_wide_table_is_read_in_fewer_rows_per_batch_with_the_same_bytes(tmp_path, monkeypatch):
    """Left to ppdm, a batch holds about 1.5 M values: a table of 60 columns is read 25,000
    rows at a time (not 250,000), and the release and reconstruction are the bytes of
    any other batch size."""
    from ppdm import pipeline

    rng = np.random.default_rng(2)
    n = 60_000
    frame = pd.DataFrame({f"c{j}": rng.integers(0, 4, n) for j in range(59)})
    frame["y"] = rng.choice(["n", "y"], n)
    frame.to_parquet(tmp_path / "wide.parquet", index=False)
    sizes = []
    real = pipeline.writing.table_batches
    monkeypatch.setattr(
        pipeline.writing,
        "table_batches",
        lambda data, size, *a: sizes.append(size) or real(data, size, *a),
    )
    opts = dict(class_attribute="y", random_state=5)
    pipeline.make_release(tmp_path / "wide.parquet", tmp_path / "auto", **opts)
    assert set(sizes) == {pipeline.batch_rows(60)} == {25_000}
    pipeline.make_release(tmp_path / "wide.parquet", tmp_path / "big", batch_size=250_000, **opts)
    auto, big = tmp_path / "auto" / "data.parquet", tmp_path / "big" / "data.parquet"
    assert _digest(auto) == _digest(big)
    for name, size in (("a.parquet", None), ("b.parquet", 250_000)):
        pipeline.reconstruct_release(tmp_path / "auto", tmp_path / name, random_state=1,
                                     batch_size=size)  # fmt: skip
    assert _digest(tmp_path / "a.parquet") == _digest(tmp_path / "b.parquet")
