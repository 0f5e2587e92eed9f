"""The partitioned engine from the command line without Dask: a directory of parts in,
a directory of parts out, the same bytes as the library's local engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.engine import make_release_partitioned, reconstruct_release_partitioned


@pytest.fixture
def parts(tmp_path):
    rng = np.random.default_rng(4)
    df = pd.DataFrame(
        {
            "x": rng.integers(0, 8, 2500),
            "y": rng.uniform(0, 10, 2500),
            "c": rng.choice(["no", "yes"], 2500),
        }
    )
    directory = tmp_path / "table"
    directory.mkdir()
    for i, start in enumerate(range(0, 2500, 1000)):
        df.iloc[start : start + 1000].to_parquet(directory / f"p{i}.parquet", index=False)
    return df, directory


def _bytes(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.parquet"))}


def test_a_directory_is_released_and_rebuilt_part_by_part(run_cli, parts, tmp_path):
    df, table = parts
    flags = ("--class", "c", "--bounds", "x=0:7", "--bounds", "y=0:10", "--seed", "3")
    code, out, err = run_cli("perturb", table, "--out", tmp_path / "rel", *flags)
    assert code == 0, err
    assert "released 2500 records" in out and "partitioned Parquet" in out
    with pytest.warns(UserWarning):
        make_release_partitioned(
            table,
            tmp_path / "lib",
            class_attribute="c",
            bounds={"x": (0, 7), "y": (0, 10)},
            random_state=3,
        )
    cli_parts, lib_parts = _bytes(tmp_path / "rel" / "data"), _bytes(tmp_path / "lib" / "data")
    assert len(cli_parts) == 3 and cli_parts == lib_parts
    code, _, err = run_cli("perturb", f"{table}/p*.parquet", "--out", tmp_path / "glob", *flags)
    assert code == 0, err  # a glob of parts, as the Dask engine takes it
    assert _bytes(tmp_path / "glob" / "data") == cli_parts
    assert pd.read_parquet(tmp_path / "rel" / "data")["c"].tolist() == df["c"].tolist()

    code, out, err = run_cli(
        "reconstruct", tmp_path / "rel", "--out", tmp_path / "rec", "--by-class", "--seed", "5"
    )
    assert code == 0, err
    reconstruct_release_partitioned(
        tmp_path / "rel", tmp_path / "rec-lib", by_class=True, random_state=5
    )
    assert _bytes(tmp_path / "rec") == _bytes(tmp_path / "rec-lib") != {}
    # a second run into the same directory needs --overwrite, and replaces it whole
    code, _, err = run_cli(
        "reconstruct", tmp_path / "rel", "--out", tmp_path / "rec", "--seed", "5"
    )
    assert code == 2 and "--out" in err and "--overwrite" in err
    code, _, err = run_cli(
        "reconstruct", tmp_path / "rel", "--out", tmp_path / "rec", "--seed", "5", "--overwrite"
    )
    assert code == 0, err
    assert _bytes(tmp_path / "rec") != _bytes(tmp_path / "rec-lib")  # global, not by class


def test_a_partitioned_release_is_parquet_only(run_cli, parts, tmp_path):
    _, table = parts
    code, _, err = run_cli(
        "perturb", table, "--out", tmp_path / "rel", "--class", "c", "--format", "csv"
    )
    assert code == 2 and "--format csv" in err and "Parquet parts" in err
    assert not (tmp_path / "rel").exists()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_part_with_other_columns_is_named(run_cli, parts, tmp_path, fmt):
    df, _ = parts
    odd = tmp_path / f"odd-{fmt}"
    odd.mkdir()
    pieces = [df.iloc[:1000], df.iloc[1000:2000].drop(columns=["y"]), df.iloc[2000:]]
    for i, piece in enumerate(pieces):
        path = odd / f"p{i}.{fmt}"
        piece.to_parquet(path, index=False) if fmt == "parquet" else piece.to_csv(path, index=False)
    code, _, err = run_cli(
        "perturb", odd, "--out", tmp_path / "rel", "--class", "c", "--bounds", "x=0:7"
    )
    assert code == 1
    assert len(err.strip().splitlines()) == 1
    assert f"p1.{fmt}" in err and "lacks 'y'" in err and f"p0.{fmt}" in err
    assert not (tmp_path / "rel").exists()


def test_a_bad_value_is_named_by_its_file_and_row(run_cli, parts, tmp_path):
    df, _ = parts
    bad = tmp_path / "bad"
    bad.mkdir()
    second = df.iloc[1000:2000].copy()
    second.iloc[41, second.columns.get_loc("y")] = 99.5  # outside y=0:10, row 42 of p1
    for i, piece in enumerate([df.iloc[:1000], second, df.iloc[2000:]]):
        piece.to_parquet(bad / f"p{i}.parquet", index=False)
    code, _, err = run_cli(
        "perturb", bad, "--out", tmp_path / "rel", "--class", "c",
        "--bounds", "x=0:7", "--bounds", "y=0:10",
    )  # fmt: skip
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert f"partition file {str(bad / 'p1.parquet')!r}: column 'y' data row 42" in err
    assert "99.5" in err and not (tmp_path / "rel").exists()


def test_a_release_missing_a_part_is_refused(run_cli, parts, tmp_path):
    _, table = parts
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", table, "--out", rel, "--class", "c", "--bounds", "x=0:7", "--bounds", "y=0:10"
    )
    assert code == 0, err
    (rel / "data" / "part-00001.parquet").unlink()
    for command in (["estimate", rel], ["reconstruct", rel, "--out", tmp_path / "rec"]):
        code, _, err = run_cli(*command)
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        assert "holds 1500 rows but its spec says n_records 2500" in err
    assert not (tmp_path / "rec").exists()
    from ppdm.engine import estimate_release_partitioned
    from ppdm.exceptions import SpecError

    with pytest.raises(SpecError, match="holds 1500 rows but its spec says n_records 2500"):
        estimate_release_partitioned(rel)


@pytest.mark.parametrize("engine_out", ["rec.parquet", "rec"])
def test_a_changed_release_value_is_the_release_s_fault(run_cli, parts, tmp_path, engine_out):
    # a value the spec's domain cannot take: the release no longer matches its spec; the
    # owner's advice (widen the bounds, --out-of-bounds clip) is no help to its reader
    _, table = parts
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", table, "--out", rel, "--class", "c", "--bounds", "x=0:7", "--bounds", "y=0:10"
    )
    assert code == 0, err
    part = rel / "data" / "part-00001.parquet"
    frame = pd.read_parquet(part)
    frame.loc[9, "y"] = 1e6
    frame.to_parquet(part, index=False)
    for command in (["estimate", rel], ["reconstruct", rel, "--out", tmp_path / engine_out]):
        code, _, err = run_cli(*command)
        assert code == 1 and len(err.strip().splitlines()) == 1, err
        assert "column 'y'" in err and "1000000.0" in err
        assert "does not match its spec" in err and "widen the bounds" not in err
    assert not (tmp_path / engine_out).exists()


def test_parts_with_numbers_in_one_and_text_in_another_release_as_one_file(run_cli, tmp_path):
    # a categorical column of numbers in one CSV part and text in the other was planned
    # over ints and strings together, then failed to write ("Could not convert 'c1'")
    import json

    frame = pd.DataFrame({"x": [1, 2, 3, 1, 2, 3] * 100, "car": [1, 2, 3] * 200,
                          "group": [0, 1] * 300})  # fmt: skip
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:300].to_csv(parts / "a.csv", index=False)
    rest = frame.iloc[300:].copy()
    rest["car"] = "c" + rest["car"].astype(str)
    rest.to_csv(parts / "b.csv", index=False)
    single = tmp_path / "single.csv"
    single.write_text((parts / "a.csv").read_text() + "".join(
        (parts / "b.csv").read_text().splitlines(keepends=True)[1:]))  # fmt: skip
    for name, src in (("one", single), ("split", parts)):
        code, _, err = run_cli("perturb", src, "--out", tmp_path / name, "--class", "group",
                               "--seed", "1", "--format", "parquet")  # fmt: skip
        assert code == 0, err
    specs = [json.loads((tmp_path / n / "spec.json").read_text()) for n in ("one", "split")]
    assert [a.get("domain") for a in specs[0]["attributes"]] == [
        a.get("domain") for a in specs[1]["attributes"]
    ]
    one = pd.read_parquet(tmp_path / "one" / "data.parquet")
    split = pd.read_parquet(tmp_path / "split" / "data")
    assert one.astype(str).equals(split.astype(str))


def test_a_column_released_as_it_is_must_have_one_type_in_every_part(run_cli, tmp_path):
    # its parts came out int64 and string: the release could not be read as one table
    frame = pd.DataFrame({"age": range(20, 80), "group": [0, 1] * 30})
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:30].to_csv(parts / "a.csv", index=False)
    rest = frame.iloc[30:].assign(group=lambda d: d["group"].map({0: "no", 1: "yes"}))
    rest.to_csv(parts / "b.csv", index=False)
    code, _, err = run_cli("perturb", parts, "--out", tmp_path / "rel", "--class", "group",
                           "--bounds", "age=20:80", "--seed", "1")  # fmt: skip
    assert code == 1 and "column 'group' is integers in input part" in err and "a.csv" in err
    assert not (tmp_path / "rel").exists()


def test_integers_in_one_part_and_decimals_in_another_are_named_in_the_input(run_cli, tmp_path):
    """They were refused only when the written release was read back, naming its hidden
    staging directory ('.rel.ppdm-new-14064-d7ac4736/data/part-00001.parquet')."""
    parts = tmp_path / "parts"
    parts.mkdir()
    pd.DataFrame({"x": range(10), "y": range(10)}).to_csv(parts / "a.csv", index=False)
    pd.DataFrame({"x": range(10), "y": np.arange(10) + 0.5}).to_csv(parts / "b.csv", index=False)
    code, _, err = run_cli("perturb", parts, "--out", tmp_path / "rel", "--attributes", "x",
                           "--bounds", "x=0:9", "--seed", "1")  # fmt: skip
    assert code == 1 and "column 'y' is integers in input part" in err, err
    assert "b.csv" in err and "decimals" in err and "ppdm-new" not in err
    assert not (tmp_path / "rel").exists()


def test_a_damaged_part_of_a_partitioned_release_is_named(run_cli, tmp_path):
    # reconstruct into a directory said only "cannot read the table: Parquet file size..."
    frame = pd.DataFrame({"x": np.tile([1.0, 2.0, 3.0], 100), "y": ["a", "b", "c"] * 100})
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:150].to_parquet(parts / "a.parquet")
    frame.iloc[150:].to_parquet(parts / "b.parquet")
    code, _, err = run_cli("perturb", parts, "--out", tmp_path / "rel", "--class", "y",
                           "--bounds", "x=0:4", "--seed", "1")  # fmt: skip
    assert code == 0, err
    bad = sorted((tmp_path / "rel" / "data").glob("*.parquet"))[1]
    bad.write_bytes(b"junk")
    code, _, err = run_cli(
        "reconstruct", tmp_path / "rel", "--out", tmp_path / "rec", "--seed", "1"
    )
    assert code == 1 and f"input file {str(bad)!r} is not a readable Parquet file" in err
    assert not (tmp_path / "rec").exists()


def test_an_error_naming_a_work_directory_names_the_output_instead():
    """A message from a check run inside the staging directory, e.g. a written part read
    back, names the release the user asked for, not the hidden work directory."""
    from ppdm.cli._common import error_line
    from ppdm.exceptions import DataError

    hidden = "/data/.rel.ppdm-new-4824-60f50cdf/data/part-00001.parquet"
    text, code = error_line(DataError(f"partition file '{hidden}' holds column 'c' as int"))
    assert text == "partition file '/data/rel/data/part-00001.parquet' holds column 'c' as int"
    assert code == 1
