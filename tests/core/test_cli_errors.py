"""Hostile command lines: every failure is ONE ``error:`` line and a documented exit code."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.cli._common import (
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    MAX_MESSAGE,
    error_line,
    short,
)
from ppdm.datasets import load_wisconsin


def _one_error_line(err: str) -> str:
    """The stderr of a failed command: exactly one line, starting with ``error:``."""
    lines = [line for line in err.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert len(errors) == 1, err
    assert "Traceback" not in err, err
    assert lines[-1] == errors[0], err  # warnings may come first, the error is last
    return errors[0]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("t") / "w.csv"
    load_wisconsin().frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def release(table, tmp_path_factory):
    out = tmp_path_factory.mktemp("r") / "rel"
    r = CliRunner().invoke(
        app, ["perturb", str(table), "--out", str(out), "--class", "class", "--seed", "1"]
    )
    assert r.exit_code == 0, r.output
    return out


# -- files -------------------------------------------------------------------------------
def test_missing_input_is_a_failure_not_a_usage_error(run_cli, tmp_path):
    code, _, err = run_cli("perturb", tmp_path / "nonexistent.csv", "--out", tmp_path / "x")
    assert code == EXIT_FAILURE
    assert "nonexistent.csv" in _one_error_line(err)


def test_unwritable_output_names_the_users_path(run_cli, table, tmp_path):
    blocker = tmp_path / "plain-file"
    blocker.write_text("not a directory")
    target = blocker / "model.json"
    code, _, err = run_cli("tree", "train", table, "--class", "class", "--out", target)
    line = _one_error_line(err)
    assert code == EXIT_USAGE  # a bad --out, refused before any work
    assert "plain-file" in line and ".tmp" not in line and "Errno" not in line


def test_deeply_nested_json_spec(run_cli, tmp_path):
    spec = tmp_path / "deep.json"
    spec.write_text("[" * 10_000 + "]" * 10_000)
    code, _, err = run_cli("report", spec)
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "deep.json" in line and "nested too deeply" in line


def test_null_spec_and_directory_without_spec(run_cli, tmp_path):
    (tmp_path / "null.json").write_text("null")
    code, _, err = run_cli("report", tmp_path / "null.json")
    assert code == EXIT_FAILURE and "null.json" in _one_error_line(err)
    (tmp_path / "empty").mkdir()
    code, _, err = run_cli("report", tmp_path / "empty")
    assert code == EXIT_FAILURE and "spec.json" in _one_error_line(err)


def test_estimate_on_a_file_says_it_is_not_a_release_directory(run_cli, table):
    code, _, err = run_cli("estimate", table)
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "is not a release directory" in line
    assert "does not exist" not in line


def test_ragged_csv_names_the_file(run_cli, table, tmp_path):
    ragged = tmp_path / "ragged.csv"
    ragged.write_text(table.read_text() + "1,2,3,4,5,6,7,8,9,10,11,12,13\n")
    code, _, err = run_cli("tree", "train", ragged, "--class", "class", "--out", tmp_path / "m")
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "ragged.csv" in line and "line 685" in line
    assert not (tmp_path / "m").exists()


def test_non_utf8_csv_names_the_file(run_cli, table, tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes(table.read_bytes().replace(b"\n5,", b"\n\xff5,", 1))
    code, _, err = run_cli("perturb", latin, "--out", tmp_path / "rel", "--class", "class")
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "latin.csv" in line and "UTF-8" in line
    assert not (tmp_path / "rel").exists()


@pytest.mark.parametrize("sep, word", [(";", "semicolons"), ("\t", "tabs")])
def test_csv_with_another_separator_is_named(run_cli, table, tmp_path, sep, word):
    other = tmp_path / "other.csv"
    other.write_text(table.read_text().replace(",", sep))
    code, _, err = run_cli("perturb", other, "--out", tmp_path / "rel", "--class", "class")
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "other.csv" in line and f"separated by {word}" in line
    assert not (tmp_path / "rel").exists()


# -- flag values are usage errors naming the flag -----------------------------------------
@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--gamma", "nan"], "--gamma"),
        (["--gamma", "1e400"], "--gamma"),
        (["--batch-size", "0"], "--batch-size"),
    ],
)
def test_bad_perturb_flags(run_cli, table, tmp_path, args, flag):
    code, _, err = run_cli("perturb", table, "--out", tmp_path / "o", *args)
    assert code == EXIT_USAGE and flag in _one_error_line(err)


def test_reconstruct_batch_size_names_the_flag(run_cli, release, tmp_path):
    code, _, err = run_cli("reconstruct", release, "--out", tmp_path / "r.csv", "--batch-size", "0")
    line = _one_error_line(err)
    assert code == EXIT_USAGE and "--batch-size" in line and "chunksize" not in line


def test_reconstruct_keeps_an_existing_table_unless_told(run_cli, release, table, tmp_path):
    """The original table is one mistyped --out away: an existing file is kept."""
    original = tmp_path / "original.csv"  # the owner's table, not an input of reconstruct
    original.write_bytes(Path(table).read_bytes())
    code, _, err = run_cli("reconstruct", release, "--out", original, "--seed", "1")
    line = _one_error_line(err)
    assert code == EXIT_USAGE and "exists; pass --overwrite" in line and str(original) in line
    assert original.read_bytes() == Path(table).read_bytes()
    out = tmp_path / "rec.csv"
    assert run_cli("reconstruct", release, "--out", out, "--seed", "1")[0] == 0
    first = out.read_bytes()
    code, _, err = run_cli("reconstruct", release, "--out", out, "--seed", "2")
    assert code == EXIT_USAGE and out.read_bytes() == first
    code, _, err = run_cli("reconstruct", release, "--out", out, "--seed", "2", "--overwrite")
    assert code == 0 and out.read_bytes() != first


# -- learners ----------------------------------------------------------------------------
def test_mine_refuses_arbitrary_imports(run_cli, release, table, monkeypatch):
    import os

    called = []
    monkeypatch.setattr(os, "system", lambda *a: called.append(a) or 0)
    code, _, err = run_cli("mine", release, "--test", table, "--learner", "os:system")
    line = _one_error_line(err)
    assert code == EXIT_USAGE and "--learner" in line and "cannot be scored" in line
    assert called == []


def test_the_release_s_own_data_is_no_original(run_cli, release, table, tmp_path):
    """mine --test and audit --original refuse the release's data file, however written,
    and a part of a partitioned release's data; a copy of the same bytes elsewhere is a
    table like any other."""
    data = next(Path(release).glob("data.*"))
    for given in (data, Path(release) / ".." / Path(release).name / data.name):
        for args in (["mine", release, "--test", given], ["audit", release, "--original", given]):
            code, _, err = run_cli(*args)
            line = _one_error_line(err)
            assert code == EXIT_FAILURE and "is the release's own data" in line, args
            assert repr(str(given)) in line
    frame = pd.read_csv(table)
    (tmp_path / "in").mkdir()
    for i in range(2):  # a directory of parts makes a partitioned release
        frame.iloc[i::2].to_parquet(tmp_path / "in" / f"{i}.parquet")
    parts = tmp_path / "parts"
    assert (
        run_cli("perturb", tmp_path / "in", "--out", parts, "--class", "class", "--seed", "1")[0]
        == 0
    )
    part = sorted((parts / "data").glob("*.parquet"))[0]
    code, _, err = run_cli("mine", parts, "--test", part)
    assert code == EXIT_FAILURE and "is the release's own data" in _one_error_line(err)
    copy = tmp_path / data.name
    copy.write_bytes(data.read_bytes())
    assert run_cli("mine", release, "--test", copy)[0] == 0


def test_mine_forces_a_learner_by_name(run_cli, release, table):
    code, out, err = run_cli("mine", release, "--test", table, "--learner", "release-forest")
    assert code == 0, err
    assert out.startswith("learner: release-forest (forced)") and "Release forest" in out


# -- model files -------------------------------------------------------------------------
class _Payload:
    def __reduce__(self):
        return (sys.exit, ("pickle executed",))


def test_tree_show_refuses_pickles_and_junk(run_cli, tmp_path):
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(pickle.dumps(_Payload()))
    code, _, err = run_cli("tree", "show", evil)
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "pickle" in line and "--trust-pickle" in line
    junk = tmp_path / "junk.bin"
    junk.write_bytes(np.random.default_rng(0).bytes(3000))
    code, _, err = run_cli("tree", "show", junk)
    assert code == EXIT_FAILURE and "not a ppdm tree model" in _one_error_line(err)


# -- the translator ----------------------------------------------------------------------
def test_interrupt_exits_130_with_one_line(run_cli, release, monkeypatch):
    import ppdm.pipeline

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(ppdm.pipeline, "estimate_release", interrupted)
    code, _, err = run_cli("estimate", release)
    assert code == EXIT_INTERRUPTED and _one_error_line(err) == "error: interrupted"


def test_a_bug_asks_for_a_report_and_debug_shows_the_traceback(run_cli, release, monkeypatch):
    import ppdm.pipeline

    def buggy(*args, **kwargs):
        return 1 / 0

    monkeypatch.setattr(ppdm.pipeline, "estimate_release", buggy)
    code, _, err = run_cli("estimate", release)
    line = _one_error_line(err)
    assert code == EXIT_FAILURE and "please report" in line and "PPDM_DEBUG=1" in line
    monkeypatch.setenv("PPDM_DEBUG", "1")
    code, _, err = run_cli("estimate", release)
    assert code == EXIT_FAILURE and "Traceback" in err and "ZeroDivisionError" in err


def test_error_line_translations():
    msg, code = error_line(ValueError("column 'a' holds " + repr(np.int64(67))))
    assert (msg, code) == ("column 'a' holds 67", EXIT_FAILURE)
    msg, _ = error_line(ValueError("x" * 2_000_000))
    assert len(msg) < MAX_MESSAGE + 80 and "2000000 characters" in msg
    msg, _ = error_line(MemoryError("Unable to allocate 74.5 GiB for an array"))
    assert "memory" in msg and "--bins" in msg
    msg, _ = error_line(ValueError("array is too big; `arr.size * arr.dtype.itemsize` is larger"))
    assert "--bins" in msg
    assert error_line(KeyboardInterrupt())[1] == EXIT_INTERRUPTED
    for kind, suffix in (("new", ""), ("new", ".part"), ("dir", "")):
        hidden = f"/data/.out.csv.ppdm-{kind}-4242-a1b2c3d4{suffix}"  # publish's own names
        err = PermissionError(13, "Permission denied", hidden)
        assert error_line(err)[0] == "cannot write '/data/out.csv': Permission denied"
    err = PermissionError(13, "Permission denied", "/data/.out.csv.a1b2c3d4")
    assert error_line(err)[0] == "'/data/.out.csv.a1b2c3d4': Permission denied"  # a user's file
    err = OSError(28, "No space left on device")
    assert "No space left on device" in error_line(err)[0]
    assert "\n" not in error_line(ValueError("two\nlines"))[0]


def test_pydantic_messages_lose_their_prefix():
    from pydantic import BaseModel, field_validator

    class Model(BaseModel):
        gamma: float

        @field_validator("gamma")
        @classmethod
        def _check(cls, v):
            if v <= 1:
                raise ValueError("gamma must be > 1")
            return v

    with pytest.raises(ValueError) as info:
        Model(gamma=0.5)
    msg, code = error_line(info.value)
    assert code == EXIT_FAILURE and msg == "invalid at gamma: gamma must be > 1"


def test_short_values():
    assert short(np.int64(67)) == "67"
    assert short(np.float64(0.5)) == "0.5"
    assert short(["a" * 10] * 100, limit=50).endswith("characters)")
    assert short(pd.Series([1]).iloc[0]) == "1"


def test_help_documents_exit_codes():
    r = CliRunner().invoke(app, ["--help"])
    assert r.exit_code == 0
    text = " ".join(r.output.split())
    assert "Exit codes" in text and "130" in text and "PPDM_DEBUG" in text


def test_trusted_old_pickle_still_loads(run_cli, table, tmp_path):
    from ppdm.tree import C45Classifier

    frame = pd.read_csv(table)
    clf = C45Classifier().fit(frame.drop(columns=["class"]), frame["class"])
    old = tmp_path / "old.pkl"
    old.write_bytes(
        pickle.dumps({"format": "ppdm-c45-model", "version": 1, "target": "class", "model": clf})
    )
    code, _, err = run_cli("tree", "show", old)
    assert code == EXIT_FAILURE and "--trust-pickle" in _one_error_line(err)
    code, out, err = run_cli("tree", "show", old, "--trust-pickle")
    assert code == 0, err
    assert out.startswith("J48 pruned tree")


def test_mine_shows_the_majority_rate(run_cli, tmp_path):
    import json as _json

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    n = 600
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n).round(4),
            "b": rng.integers(0, 4, n),
            "y": np.where(rng.random(n) < 0.7, "no", "yes"),  # independent of a and b
        }
    )
    data = tmp_path / "t.csv"
    frame.to_csv(data, index=False)
    rel = tmp_path / "rel"
    assert run_cli("perturb", data, "--out", rel, "--class", "y", "--seed", "1")[0] == 0
    code, out, err = run_cli("mine", rel, "--test", data)
    assert code == 0, err
    rate = float(np.mean(frame["y"] == "no"))
    assert "majority-class rate (always predicting 'no'" in out and f"{rate:.4f}" in out
    code, out, _ = run_cli("mine", rel, "--test", data, "--json")
    payload = _json.loads(out)
    assert payload["majority_class"] == "no" and payload["majority_rate"] == rate
    assert payload["n_test"] == n


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (["estimate", ""], "'DIR'"),
        (["perturb", "", "--out", "{tmp}/rel"], "'FILE'"),
        (["reconstruct", "", "--out", "{tmp}/rec.csv"], "'DIR'"),
        (["tree", "train", "", "--class", "y", "--out", "{tmp}/m.json"], "'FILE'"),
        (["mine", "{tmp}", "--test", ""], "'--test'"),
        (["perturb", "{tmp}/t.csv", "--spec", "", "--out", "{tmp}/rel"], "'--spec'"),
    ],
)
def test_an_empty_path_is_refused_not_read_as_the_current_directory(
    run_cli, tmp_path, monkeypatch, args, name
):
    # the current directory holds a readable table: '' must not be taken for it
    (tmp_path / "t.csv").write_text("x,y\n1,a\n2,b\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*[a.format(tmp=tmp_path) for a in args])
    assert code == 2, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and name in lines[0] and "is empty" in lines[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]


@pytest.mark.parametrize(
    "command",
    [
        ["datasets", "export", "wisconsin"],
        ["noise", "class", "{table}", "--class", "class", "--seed", "1"],
        ["tree", "predict", "{model}", "{table}"],
    ],
    ids=["datasets export", "noise class", "tree predict"],
)
def test_every_table_output_keeps_an_existing_file_unless_told(run_cli, tmp_path, command):
    table, model = tmp_path / "w.csv", tmp_path / "m.json"
    assert run_cli("datasets", "export", "wisconsin", "--out", table)[0] == 0
    assert run_cli("tree", "train", table, "--class", "class", "--out", model)[0] == 0
    args = [a.format(table=table, model=model) for a in command]
    kept = tmp_path / "kept.csv"
    kept.write_text("mine\n")
    code, _, err = run_cli(*args, "--out", kept)
    assert code == EXIT_USAGE and "exists; pass --overwrite" in _one_error_line(err)
    assert kept.read_text() == "mine\n"
    code, _, err = run_cli(*args, "--out", kept, "--overwrite")
    assert code == 0, err
    assert kept.read_text() != "mine\n"


@pytest.mark.parametrize(
    ("command", "flag", "name"),
    [
        (["tree", "train", "{table}", "--class", "class"], "--out", "kept.json"),
        (["audit", "{release}", "--original", "{table}"], "--plot", "kept.png"),
        (["report", "{release}"], "--html", "kept.html"),
        (
            [
                "advise",
                "{table}",
                "--class",
                "class",
                "--gamma",
                "9",
                "--ns",
                "5",
                "--reps",
                "1",
                "--out",
                "{tmp}/advice",
            ],
            "--spec-out",
            "kept.json",
        ),
    ],  # fmt: skip
    ids=["tree train", "audit --plot", "report --html", "advise --spec-out"],
)
def test_every_file_output_keeps_an_existing_file_unless_told(
    run_cli, tmp_path, command, flag, name
):
    # a model, plot, page or spec written over a file the user has (under a name the
    # command would write) loses it: refused before any work, kept byte for byte
    table, release = tmp_path / "w.csv", tmp_path / "rel"
    assert run_cli("datasets", "export", "wisconsin", "--out", table)[0] == 0
    if "{release}" in command:
        code, _, err = run_cli(
            "perturb", table, "--out", release, "--class", "class", "--seed", "1"
        )
        assert code == 0, err
    args = [a.format(table=table, release=release, tmp=tmp_path) for a in command]
    kept = tmp_path / name
    kept.write_text("mine\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run_cli(*args, flag, kept)
    line = _one_error_line(err)
    assert code == EXIT_USAGE and f"{flag} {str(kept)!r} exists; pass --overwrite" in line, err
    assert kept.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no work done, nothing left
    code, _, err = run_cli(*args, flag, kept, "--overwrite")
    assert code == 0, err
    assert kept.read_bytes() != b"mine\n"


def test_advise_keeps_its_files_of_an_earlier_run_unless_told(run_cli, tmp_path):
    table, out = tmp_path / "w.csv", tmp_path / "advice"
    assert run_cli("datasets", "export", "wisconsin", "--out", table)[0] == 0
    args = ["advise", table, "--class", "class", "--gamma", "9", "--ns", "5", "--reps", "1"]
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")  # a file of the user's: never touched
    assert run_cli(*args, "--out", out)[0] == 0
    first = (out / "advice.json").read_bytes()
    (out / "advice.png").write_text("last year's\n")
    code, _, err = run_cli(*args, "--out", out, "--seed", "1")
    assert code == EXIT_USAGE
    assert f"--out {str(out / 'advice_table.csv')!r} exists; pass --overwrite" in err
    assert (out / "advice.json").read_bytes() == first
    assert (out / "advice.png").read_text() == "last year's\n"
    assert run_cli(*args, "--out", out, "--seed", "1", "--overwrite")[0] == 0
    assert (out / "advice.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "notes.txt").read_text() == "mine\n"


def test_mine_refuses_a_perturbed_class_and_names_a_short_test_table(run_cli, tmp_path):
    table, rel = tmp_path / "w.csv", tmp_path / "rel"
    assert run_cli("datasets", "export", "wisconsin", "--out", table)[0] == 0
    args = ["perturb", table, "--out", rel, "--class", "class", "--perturb-class", "--seed", "1"]
    assert run_cli(*args)[0] == 0
    # scoring from the release needs the true class: refused, with or without a test table
    for extra in ([], ["--test", table]):
        code, out, err = run_cli("mine", rel, *extra)
        assert code == 1 and "perturbed its class 'class'" in _one_error_line(err)
    code, _, err = run_cli("estimate", rel, "--by-class")
    assert code == 1 and "without --by-class" in _one_error_line(err)
    short_table = tmp_path / "short.csv"
    pd.read_csv(table).drop(columns=["mitoses"]).to_csv(short_table, index=False)
    code, _, err = run_cli("mine", rel, "--test", short_table)
    line = _one_error_line(err)
    assert code == 1 and f"--test {str(short_table)!r} lacks the release's columns" in line
    assert "['mitoses']" in line


def test_tree_predict_reads_the_models_columns_by_name(run_cli, tmp_path):
    table, model = tmp_path / "w.csv", tmp_path / "m.json"
    assert run_cli("datasets", "export", "wisconsin", "--out", table)[0] == 0
    assert run_cli("tree", "train", table, "--class", "class", "--out", model)[0] == 0
    frame = pd.read_csv(table)
    # an id column and the columns in another order: the model takes its own, by name
    shuffled = frame[frame.columns[::-1]].assign(id=range(len(frame)))
    other = tmp_path / "other.csv"
    shuffled.to_csv(other, index=False)
    assert run_cli("tree", "predict", model, table, "--out", tmp_path / "a.csv")[0] == 0
    assert run_cli("tree", "predict", model, other, "--out", tmp_path / "b.csv")[0] == 0
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    assert b["id"].tolist() == list(range(len(frame)))  # kept in the output
    assert a["predicted"].tolist() == b["predicted"].tolist()
    frame.drop(columns=["mitoses"]).to_csv(other, index=False)
    code, _, err = run_cli("tree", "predict", model, other, "--out", tmp_path / "c.csv")
    assert code == 1 and f"{str(other)!r} lacks the model's columns ['mitoses']" in err
    bad = frame.astype({"mitoses": object})
    bad.loc[4, "mitoses"] = "ten"
    bad.to_csv(other, index=False)
    code, _, err = run_cli("tree", "predict", model, other, "--out", tmp_path / "c.csv")
    line = _one_error_line(err)
    assert code == 1 and f"{str(other)!r}: column 'mitoses' data row 5 holds 'ten'" in line
    assert not (tmp_path / "c.csv").exists()


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--gamma", "1"], "--gamma must be > 1 (got 1.0)"),
        (["--ns", "0"], "--ns must be >= 2 (got 0)"),
        (["--ns", "100000"], "--ns is 100000, above the cap"),
        (["--sample", "3"], "--sample must be >= 10 (got 3)"),
        (["--tie-tolerance", "-1"], "--tie-tolerance must be a number >= 0 (got -1.0)"),
        (["--tie-tolerance", "nan"], "--tie-tolerance must be a number >= 0 (got nan)"),
    ],
)
def test_advise_names_a_bad_flag_before_any_work(run_cli, table, tmp_path, flags, message):
    # these were exit 1 with the library's names (gammas, ns, sample), and a negative
    # --tie-tolerance an internal error once the whole grid had run
    base = ["advise", table, "--class", "class", "--reps", "1", "--no-progress"]
    code, _, err = run_cli(*base, "--out", tmp_path / "adv", *flags)
    assert code == 2 and message in _one_error_line(err), err
    assert not (tmp_path / "adv").exists()


def test_audit_tolerance_must_be_finite(run_cli, release, table):
    code, _, err = run_cli("audit", release, "--original", table, "--tolerance", "inf")
    assert code == 2 and "--tolerance must be a finite number >= 0 (got inf)" in err


@pytest.mark.parametrize(
    ("command", "message", "code"),
    [
        (["noise", "attributes", "-C", "0"], "--confidence: confidence must be", 2),
        (["noise", "class", "-M", "0"], "--min-leaf: min_leaf must be", 2),
        (["noise", "attributes", "--threshold", "1.5"], "--threshold must be a probability", 2),
        (["noise", "attributes", "--sd-fraction", "5"], "--sd-fraction: sd_fraction must be", 2),
        (["noise", "attributes", "--attribute", "nope"], "--attribute names ['nope'], not", 2),
        (["tree", "train", "--categorical", "nope"], "--categorical names ['nope'], not", 2),
        (["tree", "train", "--categorical", "class"], "names ['class'], the class column of", 2),
    ],
)
def test_tree_and_noise_flags_are_named_before_any_work(run_cli, table, tmp_path, command,
                                                        message, code):  # fmt: skip
    out = tmp_path / "out.csv"
    code_, _, err = run_cli(*command[:2], table, "--class", "class", "--out", out, *command[2:])
    assert code_ == code and message in _one_error_line(err), err
    assert not out.exists()


def test_a_continuous_class_or_no_attribute_is_named(run_cli, table, tmp_path):
    frame = pd.read_csv(table)
    floats = tmp_path / "f.csv"
    frame.assign(score=frame["clump_thickness"] / 3).to_csv(floats, index=False)
    code, _, err = run_cli("tree", "train", floats, "--class", "score", "--out", tmp_path / "m")
    assert code == 1 and "class column 'score' of" in err and "holds continuous numbers" in err
    only = tmp_path / "only.csv"
    frame[["class"]].to_csv(only, index=False)
    code, _, err = run_cli("tree", "train", only, "--class", "class", "--out", tmp_path / "m")
    assert code == 1 and "has no column but the class 'class'" in _one_error_line(err)


@pytest.mark.parametrize("minutes", ["nan", "0", "-1", "inf"])
def test_reproduce_max_minutes_must_be_positive(run_cli, tmp_path, minutes):
    code, _, err = run_cli("reproduce", "fig4", "--quick", "--max-minutes", minutes,
                           "--out", tmp_path / "r")  # fmt: skip
    assert code == 2 and "--max-minutes must be a number of minutes > 0" in err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("edit", ["outside", "missing"])
def test_audit_names_the_original_file_not_perturbs_flags(run_cli, release, table, tmp_path,
                                                          edit):  # fmt: skip
    # the message told to 'use --out-of-bounds clip' or '--missing category', flags of
    # perturb, and named no file
    frame = pd.read_csv(table)
    frame.loc[3, "clump_thickness"] = 99 if edit == "outside" else None
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    code, _, err = run_cli("audit", release, "--original", bad)
    line = _one_error_line(err)
    assert code == 1 and f"original data file {str(bad)!r}: column 'clump_thickness'" in line
    assert "data row 4" in line and "--out-of-bounds" not in line and "--missing" not in line


@pytest.mark.parametrize("group", ["spec", "datasets", "tree", "bn", "noise"])
def test_a_group_without_a_command_shows_its_help_and_no_empty_error(run_cli, group):
    # it printed the help, then "error:  (see: ppdm spec -h)"
    code, out, err = run_cli(group)
    assert code == 2 and f"{group} [O" in out + err and "error:" not in out + err


def test_reproduce_without_a_name_is_a_usage_error(run_cli):
    code, _, err = run_cli("reproduce")
    assert code == 2 and "missing experiment NAME" in _one_error_line(err)


def test_demo_names_bins_too_many_to_reconstruct(run_cli):
    code, _, err = run_cli("demo", "--bins", "65536")
    assert code == 2 and "--bins 65536: the demo reconstructs" in _one_error_line(err)


def test_advise_names_a_missing_value_by_its_row_in_the_file(run_cli, tmp_path):
    """The advisor shuffles and splits the rows: its error named row 7 of the training
    split for a value missing at row 11, and a --missing flag advise does not have."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 60), "c": rng.integers(0, 2, 60)})
    frame.loc[10, "x"] = np.nan
    src = tmp_path / "na.csv"
    frame.to_csv(src, index=False)
    code, _, err = run_cli("advise", src, "--class", "c", "--out", tmp_path / "adv")
    assert code == 1 and not (tmp_path / "adv").exists()
    line = err.strip()
    assert "na.csv': column 'x' data row 11 has no value" in line and "--missing" not in line


def test_mine_names_the_test_file_a_release_learner_cannot_predict(run_cli, tmp_path):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(
        {
            "x": rng.uniform(0, 1, 300),
            "k": rng.choice(["u", "v"], 300),
            "c": rng.integers(0, 2, 300),
        }
    )
    src = tmp_path / "t.csv"
    frame.to_csv(src, index=False)
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", rel, "--class", "c", "--bounds", "x=0:1")
    assert code == 0, err
    for change, what in [
        ({"x": np.nan}, "'x' has a missing value at data row 4"),
        ({"k": "w"}, "'k'"),
    ]:
        test = frame.head(10).copy()
        for column, value in change.items():
            test[column] = test[column].astype(object)
            test.loc[3, column] = value
        path = tmp_path / "test.csv"
        test.to_csv(path, index=False)
        for learner in ("release-tree", "c45"):  # C4.5 too reads the release's codes
            code, _, err = run_cli("mine", rel, "--test", path, "--learner", learner)
            line = err.strip().splitlines()[-1]
            assert code == 1 and line.startswith(f"error: --test {str(path)!r}: column "), line
            assert what in line and "--missing" not in line and "drop or fill" in line, line


def test_an_out_that_cannot_be_made_fails_before_the_data_is_read(run_cli, tmp_path):
    """The release's hidden directory is made first (it was made after the planning pass,
    whose privacy warnings then came before the error)."""
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 30), "c": [0, 1] * 15}).to_csv(src, index=False)
    code, _, err = run_cli("perturb", src, "--out", "/proc/ppdm-release", "--class", "c")
    assert (
        code == 1 and err == "error: cannot write '/proc/ppdm-release': No such file or directory\n"
    )


def test_a_semicolon_csv_with_decimal_commas_gets_the_separator_hint(run_cli, tmp_path):
    """The commonest European CSV has commas in its decimals, so its second line splits
    into fields while its header does not: the hint named only the field counts."""
    src = tmp_path / "eu.csv"
    src.write_text("x;y;c\n1,5;2,25;a\n3,5;4,0;b\n", encoding="utf-8")
    code, _, err = run_cli("perturb", src, "--out", tmp_path / "rel", "--class", "c")
    line = _one_error_line(err)
    assert code == 1 and "line 2 has 3 fields; the header has 1" in line
    assert "separated by semicolons" in line


@pytest.mark.parametrize("value, why", [("inf", "must be a finite number"), ("1.0", "must be > 1")])
def test_gamma_out_of_range_says_why(run_cli, tmp_path, value, why):
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 30), "c": [0, 1] * 15}).to_csv(src, index=False)
    code, _, err = run_cli(
        "perturb", src, "--out", tmp_path / "r", "--class", "c", "--gamma", value
    )
    assert code == 2 and f"--gamma {why} (got {value})" in err


def test_errors_name_their_file_flag_or_release(run_cli, tmp_path):
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 60), "c": rng.integers(0, 2, 60)})
    src = tmp_path / "t.csv"
    frame.to_csv(src, index=False)
    # a table of one class: named with its file (was "y has one class, 'only'")
    one = tmp_path / "one.csv"
    frame.assign(c="only").to_csv(one, index=False)
    code, _, err = run_cli("tree", "train", one, "--class", "c", "--out", tmp_path / "m.json")
    assert code == 1 and "class column 'c' of " in err and "one.csv' has one value, 'only'" in err
    # --by-class on a release made without --class: names the flag and the release
    rel = tmp_path / "nocls"
    code, _, err = run_cli(
        "perturb", src, "--out", rel, "--bounds", "x=0:1", "--allow-unprotected", "--seed", "1"
    )
    assert code == 0, err
    for args in (["estimate", rel], ["reconstruct", rel, "--out", tmp_path / "r.csv"]):
        code, _, err = run_cli(*args, "--by-class")
        assert code == 2 and f"--by-class: release {str(rel)!r} has no class attribute" in err
    # the audit's original without the release's columns: names the file
    rel2 = tmp_path / "rel2"
    code, _, err = run_cli("perturb", src, "--out", rel2, "--class", "c", "--bounds", "x=0:1")
    other = tmp_path / "other.csv"
    frame.rename(columns={"x": "z"}).to_csv(other, index=False)
    code, _, err = run_cli("audit", rel2, "--original", other)
    assert code == 1 and f"original data file {str(other)!r} lacks the release's columns" in err


def test_advise_says_its_rule_and_which_gammas_it_left_out(run_cli, tmp_path, monkeypatch):
    """A gamma whose cells are not clearly above the majority rate vanished from the
    list without a word; the rule was named, not said."""
    import ppdm.advise.advice as advisor

    def scores(tasks, specs, learners, description, **_):
        rows = []
        for key, rep in tasks:
            if key == "original":
                rows += [{"key": key, "rep": rep, "learner": "majority class", "accuracy": 0.5},
                         {"key": key, "rep": rep, "learner": "c45 on the original",
                          "accuracy": 0.95}]  # fmt: skip
                continue
            acc = 0.52 if isinstance(key, tuple) and key[0] == 5 else 0.9 + 0.001 * rep
            rows += [
                {"key": key, "rep": rep, "learner": c.label, "accuracy": acc} for c in learners
            ]
        return pd.DataFrame(rows)

    monkeypatch.setattr(advisor, "run_designs", lambda tasks, specs, learners, d, **kw: scores(
        tasks, specs, learners, d))  # fmt: skip
    rng = np.random.default_rng(0)
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": rng.uniform(0, 1, 200), "c": rng.integers(0, 2, 200)}).to_csv(
        src, index=False
    )
    args = ("--class", "c", "--out", tmp_path / "adv", "--gamma", "5,9", "--ns", "5,10")
    code, out, err = run_cli("advise", src, *args, "--no-progress")
    assert code == 0, err
    assert "clearly above the majority-class rate (by 2 standard errors)" in out
    assert "gamma=9  N=5  release-forest 90.05%" in out
    assert "gamma=5  left out: no N clearly above the majority rate (best N=5, " in out
    assert "recommended (rule 7.1): gamma=9, N=5, learner release-forest" in out
    assert "for a release of all 200 records" in out


def test_names_with_commas_or_spaces_can_be_chosen_by_quoting(run_cli, tmp_path):
    """--attributes split 'a,b' at its comma and stripped ' sp ', with no way to name them."""
    from ppdm.cli._common import column_names

    assert column_names('"a,b", c ,"sp "', "--attributes") == ["a,b", "c", "sp "]
    assert column_names('"say ""hi"""', "--keys") == ['say "hi"']
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"a,b": rng.uniform(0, 1, 40), " sp ": rng.uniform(0, 1, 40), "c": [0, 1] * 20}
    )
    src = tmp_path / "t.csv"
    frame.to_csv(src, index=False)
    rel = tmp_path / "rel"
    args = ["--class", "c", "--bounds", "a,b=0:1", "--seed", "1", "--allow-unprotected"]
    code, _, err = run_cli("perturb", src, "--out", rel, "--attributes", '"a,b"', *args)
    assert code == 0, err
    assert "released without protection:  sp , c" in err  # only 'a,b' was perturbed
    for bad, why in [("a,,c", "name 2 of 'a,,c' is empty"), ('"a', "never closed")]:
        code, _, err = run_cli("perturb", src, "--out", tmp_path / "r2", "--attributes", bad)
        assert code == 2 and "--attributes: " in err and why in err, err


def test_text_in_a_numeric_column_is_named_by_column_and_row(run_cli, tmp_path):
    """Arrow's conversion error names neither (it said 'column #2 has value ...')."""
    rel = _small_release(run_cli, tmp_path)
    data = rel / "data.csv"
    lines = data.read_text().splitlines()
    cells = lines[37].split(",")  # data row 37
    cells[0] = "foo"
    lines[37] = ",".join(cells)
    data.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli("estimate", rel)
    assert code == 1 and "column 'x' data row 37 has value 'foo'" in err, err


def test_mine_refuses_a_test_table_whose_classes_the_release_never_shows(run_cli, tmp_path):
    """Labels spelt otherwise ('SETOSA' for 'setosa') scored 0.0 % without a word."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 200), "c": rng.choice(["no", "yes"], 200)})
    src = tmp_path / "t.csv"
    frame.to_csv(src, index=False)
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", rel, "--class", "c", "--bounds", "x=0:1")
    assert code == 0, err
    upper = tmp_path / "upper.csv"
    frame.assign(c=frame["c"].str.upper()).to_csv(upper, index=False)
    code, _, err = run_cli("mine", rel, "--test", upper)
    assert code == 1 and "none of its classes ['NO', 'YES'] is one of the release's" in err
    some = tmp_path / "some.csv"
    frame.head(10).assign(c=["maybe"] + ["no"] * 9).to_csv(some, index=False)
    code, out, err = run_cli("mine", rel, "--test", some)
    assert code == 0 and "1 of the 10 records of --test" in err, err


def test_compressed_or_sparse_data_named_csv_is_refused_at_once(run_cli, tmp_path):
    """gzip data named .csv was 'line 2 has 2 fields ... separated by semicolons'; a
    sparse 50 GB data.csv was searched through for its last quote (a minute, 21 GB)."""
    import gzip

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 40), "c": [0, 1] * 20})
    packed = tmp_path / "packed.csv"
    packed.write_bytes(gzip.compress(frame.to_csv(index=False).encode()))
    code, _, err = run_cli("perturb", packed, "--out", tmp_path / "r1", "--class", "c")
    assert code == 1 and "is not CSV text but gzip-compressed data: name it .csv.gz" in err
    sparse = tmp_path / "sparse.csv"
    sparse.write_text(frame.to_csv(index=False))
    with sparse.open("r+b") as fh:
        fh.truncate(1 << 33)  # 8 GiB of holes after the table: nothing to read on disk
    code, _, err = run_cli("perturb", sparse, "--out", tmp_path / "r2", "--class", "c")
    assert code == 1 and "has a row longer than 1 MiB" in err


@pytest.mark.parametrize(
    "tamper, why",
    [
        (lambda s: s.update(class_perturbed=True), "class_perturbed is true but the class"),
        (lambda s: s.update(class_attribute="x"), "class_perturbed is false but the class"),
        (lambda s: s.update(n_records=str(s["n_records"])), "n_records: Input should be"),
        (lambda s: s.update(n_records=float(s["n_records"])), "n_records: Input should be"),
        (lambda s: s.update(class_perturbed="false"), "class_perturbed: Input should be"),
        (None, "gives the key 'copies' twice"),
    ],
)
def test_a_spec_that_contradicts_itself_or_bends_its_types_is_refused(
    run_cli, tmp_path, tamper, why
):
    """Each was read as something else: the class taken for perturbed (mine switched to
    global reconstruction), a perturbed attribute taken for the class, '178' for 178, the
    last of two keys."""
    import json

    rel = _small_release(run_cli, tmp_path)
    path = rel / "spec.json"
    spec = json.loads(path.read_text())
    if tamper is None:
        path.write_text(json.dumps(spec).replace('"copies": 1', '"copies": 1, "copies": 2'))
    else:
        tamper(spec)
        path.write_text(json.dumps(spec))
    for args in (["estimate", rel], ["report", rel]):
        code, _, err = run_cli(*args)
        assert code == 1 and why in err and "spec.json" in err, err


def _small_release(run_cli, tmp_path):
    """A release of 50 records: x in [0, 1] perturbed, class c kept."""
    rng = np.random.default_rng(0)
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": rng.uniform(0, 1, 50), "c": rng.integers(0, 2, 50)}).to_csv(src, index=False)
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", rel, "--class", "c", "--bounds", "x=0:1")
    assert code == 0, err
    return rel
