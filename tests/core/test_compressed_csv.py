"""CSV compressed with gzip or bzip2 is read as the plain file; ppdm writes plain files."""

from __future__ import annotations

import bz2
import gzip

import pandas as pd
import pytest

from ppdm.io import count_csv_records, partition_files, read_table


@pytest.fixture
def plain(tmp_path):
    from sklearn.datasets import load_wine

    frame = load_wine(as_frame=True).frame
    frame["target"] = frame["target"].map({0: "a", 1: "b", 2: "c"})
    path = tmp_path / "wine.csv"
    frame.to_csv(path, index=False)
    return path


def _compressed(plain, suffix):
    data = plain.read_bytes()
    path = plain.with_name(plain.name + suffix)
    path.write_bytes(gzip.compress(data) if suffix == ".gz" else bz2.compress(data))
    return path


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
@pytest.mark.filterwarnings("ignore::ppdm.exceptions.BoundsLeakWarning")
@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_compressed_csv_gives_the_plain_file_s_release(run_cli, plain, tmp_path, suffix):
    packed = _compressed(plain, suffix)
    pd.testing.assert_frame_equal(read_table(packed), read_table(plain))
    assert count_csv_records(packed) == count_csv_records(plain) == 178
    for src, out in ((plain, "rel-plain"), (packed, "rel-packed")):
        code, _, err = run_cli(
            "perturb", src, "--out", tmp_path / out, "--class", "target", "--seed", "4"
        )
        assert code == 0, err
    assert (tmp_path / "rel-packed" / "data.csv").read_bytes() == (
        tmp_path / "rel-plain" / "data.csv"
    ).read_bytes()
    # a directory of compressed parts is a partitioned table
    parts = tmp_path / "parts"
    parts.mkdir()
    frame = pd.read_csv(plain)
    for i in range(2):
        piece = parts / f"p{i}.csv"
        frame.iloc[i * 89 : (i + 1) * 89].to_csv(piece, index=False)
        _compressed(piece, suffix)
        piece.unlink()
    assert [p.name for p in partition_files(parts)] == [f"p0.csv{suffix}", f"p1.csv{suffix}"]


@pytest.mark.parametrize(
    "command",
    [
        ["reconstruct", "{rel}", "--out", "{tmp}/rec.csv.gz"],
        ["tree", "predict", "{tmp}/m.json", "{plain}", "--out", "{tmp}/pred.csv.bz2"],
    ],
    ids=["reconstruct", "tree predict"],
)
def test_compressed_outputs_are_refused_before_any_work(run_cli, plain, tmp_path, command):
    code, _, err = run_cli("perturb", plain, "--out", tmp_path / "rel", "--class", "target")
    assert code == 0, err
    code, _, err = run_cli(
        "tree", "train", plain, "--class", "target", "--out", tmp_path / "m.json"
    )
    assert code == 0, err
    where = {"rel": tmp_path / "rel", "tmp": tmp_path, "plain": plain}
    code, _, err = run_cli(*[c.format(**where) for c in command])
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--out" in err and "writes plain CSV" in err
    assert not list(tmp_path.glob("rec*")) and not list(tmp_path.glob("pred*"))


@pytest.mark.parametrize("content", [b"not gzip at all\n", "cut"], ids=["not-gzip", "truncated"])
def test_a_broken_compressed_file_is_one_line_naming_it(run_cli, plain, tmp_path, content):
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(
        content if isinstance(content, bytes) else gzip.compress(plain.read_bytes())[:200]
    )
    code, _, err = run_cli("perturb", bad, "--out", tmp_path / "rel", "--class", "target")
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "'" + str(bad) + "' is not a readable gzip file" in err
    assert not (tmp_path / "rel").exists()
