"""Malformed and odd tables through every command that reads one, and the table loaders.

A table is either read as the owner meant it (a release that loads and checks) or
refused with one line; never a traceback, never a changed input, never partial output.
"""

from __future__ import annotations

import shutil
import warnings

import pandas as pd
import pytest
from fuzzkit import (
    CORPUS,
    FAILURE,
    Snapshot,
    assert_clean,
    assert_refused,
    fuzz_class,
    xfail_until,
)
from hypothesis import given, settings
from hypothesis import strategies as st

TABLES = sorted(p.name for p in CORPUS.glob("table--*"))

#: Tables no command may accept: nothing or nothing usable to read.
MUST_REFUSE = {
    "table--empty.csv",
    "table--blank-lines.csv",
    "table--header-only.csv",
    "table--ragged-long.csv",
    "table--ragged-short.csv",
    "table--inf-nan.csv",
    "table--inf-nan.parquet",
    "table--all-null.parquet",
    "table--no-rows.parquet",
    "table--duplicate-header.csv",
}

LOADER_ERRORS = (ValueError, FileNotFoundError)


def _copy(tmp_path, name):
    d = tmp_path / "in"
    d.mkdir(exist_ok=True)
    dst = d / name.split("--", 1)[1]
    shutil.copyfile(CORPUS / name, dst)
    return dst


def _perturb_outcome(cli, tmp_path, src, *extra):
    out = tmp_path / "rel"
    snap = Snapshot(inputs=[src], outputs=[out])
    result = cli("perturb", src, "--out", out, "--class", "y", *extra)
    return result, snap, out


def _release_is_whole(out):
    from ppdm.pipeline import load_release, verify_release

    rel = load_release(out)
    assert verify_release(out) == rel.spec.n_records * rel.spec.copies


def _perturb_marks(name):
    marks = [fuzz_class("malformed tables")]
    if name in XFAIL_PERTURB:
        marks.append(xfail_until(XFAIL_PERTURB[name]))
    return marks


XFAIL_PERTURB: dict[str, str] = {}


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=_perturb_marks(n), id=n.split("--")[1]) for n in TABLES]
)
def test_perturb_reads_or_refuses(cli, tmp_path, name):
    src = _copy(tmp_path, name)
    result, snap, out = _perturb_outcome(cli, tmp_path, src)
    if name in MUST_REFUSE:
        assert_refused(result, snap, FAILURE)
    elif assert_clean(result, snap, FAILURE):
        _release_is_whole(out)
    else:
        assert not out.exists()


TREE_XFAIL: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            marks=[fuzz_class("malformed tables")]
            + ([xfail_until(TREE_XFAIL[n])] if n in TREE_XFAIL else []),
            id=n.split("--")[1],
        )
        for n in TABLES
    ],
)
def test_tree_train_reads_or_refuses(cli, tmp_path, name):
    src = _copy(tmp_path, name)
    out = tmp_path / "model.pkl"
    snap = Snapshot(inputs=[src], outputs=[out])
    result = cli("tree", "train", src, "--class", "y", "--out", out)
    # a tree reads NaN as missing; an all-missing column beside others is never split on
    fine = {"table--inf-nan.csv", "table--inf-nan.parquet", "table--all-null.parquet"}
    if name in MUST_REFUSE - fine:
        assert_refused(result, snap, FAILURE)
    else:
        assert_clean(result, snap, FAILURE)


LOADER_XFAIL: dict[str, str] = {}
#: Tables the loaders themselves refuse (the commands also refuse empty data).
LOADER_MUST_REFUSE = {
    "table--empty.csv",
    "table--blank-lines.csv",
    "table--header-only.csv",
    "table--ragged-long.csv",
    "table--duplicate-header.csv",
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n,
            marks=[fuzz_class("malformed tables")]
            + ([xfail_until(LOADER_XFAIL[n])] if n in LOADER_XFAIL else []),
            id=n.split("--")[1],
        )
        for n in TABLES
    ],
)
def test_loaders_read_or_raise_a_house_error(tmp_path, name):
    from ppdm.io import iter_batches, read_table

    src = _copy(tmp_path, name)
    before = Snapshot(inputs=[src])
    outcomes = []
    for load in (lambda: read_table(src).shape, lambda: sum(len(b) for b in iter_batches(src, 7))):
        try:
            shape = load()
        except LOADER_ERRORS as exc:
            outcomes.append(("refused", type(exc).__name__))
        else:
            outcomes.append(("read", shape))
    before.assert_inputs_unchanged()
    # the whole-file and the batch reader agree on whether the table is readable
    assert outcomes[0][0] == outcomes[1][0], outcomes
    if name in LOADER_MUST_REFUSE:
        assert outcomes[0][0] == "refused", outcomes


# -- what the owner meant survives in the release ------------------------------------


@fuzz_class("malformed tables")
def test_bom_is_not_part_of_the_first_column_name(cli, tmp_path):
    src = _copy(tmp_path, "table--bom.csv")
    result, snap, out = _perturb_outcome(cli, tmp_path, src)
    assert assert_clean(result, snap)
    from ppdm.release import read_spec

    assert read_spec(out).names == ["x", "k", "y"]


@fuzz_class("malformed tables")
def test_leading_zero_codes_stay_codes_in_the_release(cli, tmp_path):
    src = _copy(tmp_path, "table--codes-leading-zero.csv")
    result, snap, out = _perturb_outcome(cli, tmp_path, src, "--attributes", "k")
    assert assert_clean(result, snap)
    text = (out / "data.csv").read_text()
    assert "00501" in text and "02134" in text, text[:200]


@fuzz_class("malformed tables")
def test_integers_beyond_2_53_are_kept_exactly(cli, tmp_path):
    src = _copy(tmp_path, "table--huge-int.csv")
    result, snap, out = _perturb_outcome(cli, tmp_path, src, "--attributes", "k")
    assert assert_clean(result, snap)
    want = sorted(line.split(",")[0] for line in src.read_text().splitlines()[1:])
    got = sorted(line.split(",")[0] for line in (out / "data.csv").read_text().splitlines()[1:])
    assert got == want


@fuzz_class("malformed tables")
@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_one_megabyte_field(cli, tmp_path, ext):
    frame = pd.DataFrame({"x": [1.5, 2.5] * 20, "k": ["a", "b"] * 20, "y": ["no", "yes"] * 20})
    frame.loc[7, "k"] = "z" * (1 << 20)
    src = tmp_path / f"big.{ext}"
    if ext == "csv":
        frame.to_csv(src, index=False)
    else:
        frame.to_parquet(src, index=False)
    result, snap, out = _perturb_outcome(cli, tmp_path, src)
    if assert_clean(result, snap):
        _release_is_whole(out)


# -- generated tables ------------------------------------------------------------------

CELLS = st.sampled_from(
    [
        "",
        "0",
        "1",
        "-1",
        "1.5",
        "1e308",
        "-1e308",
        "1e400",
        "nan",
        "NaN",
        "inf",
        "-inf",
        "00501",
        str(2**63),
        str(2**53 + 1),
        "true",
        "False",
        "a",
        "b",
        "é",
        "\u202e",
        " ",
        "NULL",
        "?",
        '"',
        '""',
        "a,b",
        "2020-01-01",
    ]
)


def _csv_text(rows: list[list[str]]) -> str:
    def cell(v: str) -> str:
        if any(ch in v for ch in ',"\n'):
            return '"' + v.replace('"', '""') + '"'
        return v

    return "x,k,y\n" + "".join(",".join(cell(v) for v in r) + "\n" for r in rows)


@fuzz_class("malformed tables", examples=30)
@settings(settings.get_profile("fuzz"), max_examples=30)
@given(
    rows=st.lists(
        st.tuples(CELLS, CELLS, st.sampled_from(["no", "yes", "", "maybe"])).map(list),
        min_size=0,
        max_size=12,
    )
)
def test_generated_csv_release_is_whole_or_refused(cli, tmp_path_factory, rows):
    tmp_path = tmp_path_factory.mktemp("gen")
    src = tmp_path / "in.csv"
    src.write_text(_csv_text(rows), encoding="utf-8")
    result, snap, out = _perturb_outcome(cli, tmp_path, src, "--missing", "category")
    if assert_clean(result, snap):
        _release_is_whole(out)
    else:
        assert not out.exists()


@fuzz_class("malformed tables", examples=40)
@settings(settings.get_profile("fuzz"), max_examples=40)
@given(data=st.binary(max_size=300), ext=st.sampled_from(["csv", "parquet"]))
def test_random_bytes_loaders_raise_house_errors(tmp_path_factory, data, ext):
    from ppdm.io import iter_batches, read_table

    src = tmp_path_factory.mktemp("bytes") / f"t.{ext}"
    src.write_bytes(data)
    for load in (lambda: read_table(src), lambda: list(iter_batches(src, 3))):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                load()
        except LOADER_ERRORS:
            pass
    assert src.read_bytes() == data
