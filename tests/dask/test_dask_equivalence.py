"""The Dask engine is bit-identical to the local engine for the same seed and partitions."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pandas as pd
import pytest

from ppdm.engine import (
    count_partitions_local,
    estimate_dask,
    estimate_partitions,
    estimate_release_partitioned,
    make_release_partitioned,
    perturb_dask,
    perturb_partitions,
    plan_release_dask,
    plan_release_partitions,
    reconstruct_dask,
    reconstruct_partitions,
    reconstruct_release_partitioned,
)
from ppdm.exceptions import OutputError
from ppdm.pipeline import estimate_release, load_release, reconstruction_multisets

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


def _digest(directory) -> dict[str, str]:
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _keys(obj) -> list[str]:
    if isinstance(obj, dict):
        return [str(k) for k in obj] + [k for v in obj.values() for k in _keys(v)]
    if isinstance(obj, list):
        return [k for v in obj for k in _keys(v)]
    return []


def _same_estimates(a, b) -> None:
    assert [x.name for x in a] == [y.name for y in b]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x.overall.counts, y.overall.counts)
        np.testing.assert_array_equal(x.overall.stderr, y.overall.stderr)
        assert (x.by_class is None) == (y.by_class is None)
        for k in x.by_class or {}:
            np.testing.assert_array_equal(x.by_class[k].counts, y.by_class[k].counts)


def _ddf(parts):
    return dd.from_delayed([dask.delayed(p) for p in parts], meta=parts[0].iloc[:0])


@pytest.mark.parametrize("by_class", [False, True])
def test_frames_bit_identical_on_cluster(cluster, table, splitter, by_class):
    parts = splitter(table, 4)
    spec = plan_release_partitions(parts, class_attribute="label")
    assert plan_release_dask(_ddf(parts), class_attribute="label") == spec

    local = perturb_partitions(parts, spec, random_state=11)
    remote = perturb_dask(_ddf(parts), spec, random_state=11)
    assert remote.npartitions == 4
    pd.testing.assert_frame_equal(remote.compute(), pd.concat(local))

    rel = _ddf(local)
    _same_estimates(
        estimate_dask(rel, spec, by_class=by_class),
        estimate_partitions(local, spec, by_class=by_class),
    )
    rec_remote = reconstruct_dask(rel, spec, by_class=by_class, random_state=5).compute()
    rec_local = pd.concat(reconstruct_partitions(local, spec, by_class=by_class, random_state=5))
    pd.testing.assert_frame_equal(rec_remote, rec_local)

    # Algorithm 2's invariant: reconstructed counts equal the rounded estimate exactly
    counts, _ = count_partitions_local(local, spec, by_class=by_class)
    multisets = reconstruction_multisets(spec, counts)
    for a in spec.perturbed_attributes():
        target = multisets[a.name].sum(axis=0)
        got = a.get_domain().encode(rec_local[a.name], column=a.name)
        np.testing.assert_array_equal(np.bincount(got, minlength=len(target)), target)


def test_seed_changes_the_stream_and_partitioning_does_not(table, splitter):
    spec = plan_release_partitions([table], class_attribute="label")
    a = pd.concat(perturb_partitions(splitter(table, 3), spec, random_state=1))
    b = pd.concat(perturb_partitions(splitter(table, 3), spec, random_state=2))
    c = pd.concat(perturb_partitions(splitter(table, 4), spec, random_state=1))
    assert not a.equals(b) and a.equals(c)
    # the class is released as is, and nothing else changes shape
    pd.testing.assert_series_equal(a["label"], table["label"])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_files_bit_identical_on_cluster(cluster, tmp_path, parquet_dir, table, splitter, fmt):
    source = parquet_dir
    if fmt == "csv":
        source = tmp_path / "csv"
        source.mkdir()
        for i, part in enumerate(splitter(table, 5)):
            part.to_csv(source / f"p{i}.csv", index=False)
    opts = dict(class_attribute="label", random_state=7)
    spec_l = make_release_partitioned(source, tmp_path / "rel_l", engine="local", **opts)
    spec_d = make_release_partitioned(
        str(source) + "/p*." + fmt, tmp_path / "rel_d", engine="dask", scheduler=cluster, **opts
    )
    assert spec_l == spec_d
    assert _digest(tmp_path / "rel_l") == _digest(tmp_path / "rel_d")
    assert len(list((tmp_path / "rel_d" / "data").glob("part-*.parquet"))) == 5

    spec_json = json.loads((tmp_path / "rel_d" / "spec.json").read_text())
    assert not [k for k in _keys(spec_json) if "seed" in k or "random" in k or "root" in k]
    assert spec_json["data_file"] == "data" and spec_json["n_records"] == len(table)

    est_l = estimate_release_partitioned(tmp_path / "rel_l", by_class=True)
    est_d = estimate_release_partitioned(
        tmp_path / "rel_d", by_class=True, engine="dask", scheduler=cluster
    )
    _same_estimates(est_l, est_d)
    # counts do not depend on partitions: the core engine reads the partitioned release
    _same_estimates(est_l, estimate_release(load_release(tmp_path / "rel_l"), by_class=True))

    for engine in ("local", "dask"):
        reconstruct_release_partitioned(
            tmp_path / f"rel_{engine[0]}",
            tmp_path / f"rec_{engine[0]}",
            by_class=True,
            random_state=3,
            engine=engine,
            scheduler=cluster if engine == "dask" else None,
        )
    assert _digest(tmp_path / "rec_l") == _digest(tmp_path / "rec_d")
    rec = pd.read_parquet(tmp_path / "rec_d")
    assert len(rec) == len(table) and list(rec.columns) == list(table.columns)


def test_release_without_seed_is_fresh_and_records_no_seed(tmp_path, parquet_dir):
    make_release_partitioned(parquet_dir, tmp_path / "a", class_attribute="label")
    make_release_partitioned(parquet_dir, tmp_path / "b", class_attribute="label")
    a, b = pd.read_parquet(tmp_path / "a" / "data"), pd.read_parquet(tmp_path / "b" / "data")
    assert not a.equals(b)
    assert (tmp_path / "a" / "spec.json").read_text() == (tmp_path / "b" / "spec.json").read_text()


def test_rerun_replaces_release_atomically(tmp_path, parquet_dir):
    out = tmp_path / "rel"
    make_release_partitioned(parquet_dir, out, class_attribute="label", random_state=1)
    first = _digest(out)
    with pytest.raises(OutputError, match="not empty"):
        make_release_partitioned(parquet_dir, out, class_attribute="label", random_state=1)
    make_release_partitioned(
        parquet_dir, out, class_attribute="label", random_state=1, overwrite=True
    )
    assert _digest(out) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in", "rel"]


def test_cluster_release_equals_the_single_file_release(cluster, tmp_path, parquet_dir, table):
    from ppdm.io import read_table
    from ppdm.pipeline import make_release

    opts = dict(class_attribute="label", random_state=3, representative="random")
    table.to_parquet(tmp_path / "whole.parquet", index=False)
    make_release(tmp_path / "whole.parquet", tmp_path / "single", batch_size=1000, **opts)
    make_release_partitioned(
        parquet_dir, tmp_path / "parted", engine="dask", scheduler=cluster, **opts
    )
    single = read_table(tmp_path / "single" / "data.parquet")
    parts = sorted((tmp_path / "parted" / "data").glob("part-*.parquet"))
    parted = pd.concat([read_table(p) for p in parts], ignore_index=True)
    pd.testing.assert_frame_equal(parted, single, check_dtype=False)
