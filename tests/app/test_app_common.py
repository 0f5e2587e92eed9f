"""Helpers of the app that need no browser: messages, bounds, release zips, jobs."""

from __future__ import annotations

import io
import time
import zipfile

import numpy as np
import pytest

from ppdm.app._common import Workspace, extract_release, message, parse_bounds, plain
from ppdm.exceptions import DataError, DomainError, ParameterError


def test_parse_bounds_and_messages():
    assert parse_bounds("20:81", "age") == (20.0, 81.0)
    assert parse_bounds("  ", "age") is None
    with pytest.raises(ParameterError, match="bounds of column 'age' must have low < high"):
        parse_bounds("5:5", "age")
    assert message(DomainError("column 'x' row 3 bad\nmore"), "release") == (
        "release: column 'x' row 3 bad"
    )
    assert len(message(ValueError("x" * 1000))) == 400
    assert plain(np.int64(3)) == 3 and type(plain(np.int64(3))) is int


def test_extract_release_rejects_unsafe_and_foreign_zips(tmp_path):
    ws = Workspace()
    try:
        for members, expected in (
            ({"../evil/spec.json": "{}"}, "unsafe path"),
            ({"readme.txt": "hi"}, "holds no spec.json"),
        ):
            buf = io.BytesIO()
            with zipfile.ZipFile(buf, "w") as zf:
                for name, text in members.items():
                    zf.writestr(name, text)
            up = tmp_path / f"upload{len(expected)}" / "up.zip"  # one folder per upload
            up.parent.mkdir()
            up.write_bytes(buf.getvalue())
            with pytest.raises(DataError, match=expected):
                extract_release({"name": "r.zip", "datapath": str(up)}, ws)
            assert not up.parent.exists()  # the upload and its folder are gone
        assert not (tmp_path / "evil").exists()
    finally:
        ws.remove()
    assert not ws.path.exists()


def test_job_runs_in_a_child_and_cancels(tmp_path):
    pytest.importorskip("shiny")
    import pandas as pd

    from ppdm.app._jobs import start_job

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.integers(0, 5, 300), "y": rng.integers(0, 2, 300)})
    job = start_job(
        "advisor",
        tmp_path,
        "advise",
        frame=frame,
        class_column="nope",
        gammas=[9.0],
        ns=[5],
        reps=1,
        min_accuracy=None,
    )
    job.process.wait(timeout=60)
    result, err = job.outcome()
    assert result is None and "class column 'nope' is not in the data" in err
    job = start_job(
        "advisor",
        tmp_path,
        "advise",
        frame=frame,
        class_column="y",
        gammas=[5.0, 6.0, 7.0, 8.0, 9.0],
        ns=[5, 10, 20],
        reps=20,
        min_accuracy=None,
    )
    time.sleep(0.5)
    job.cancel()
    assert not job.running() and job.outcome() == (None, "advisor cancelled")


def test_app_command_checks_port_and_extra(monkeypatch):
    import importlib.util

    from typer.testing import CliRunner

    from ppdm.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["app", "--port", "70000", "--no-browser"])
    assert r.exit_code == 2 and "--port must be in 1..65535 (got 70000)" in r.output
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "shiny" else real(name, *a)
    )
    r = runner.invoke(app, ["app", "--no-browser"])
    assert r.exit_code == 1 and "pip install 'ppdm[app]'" in r.output


def test_a_typed_path_reads_compressed_csv_and_names_what_it_cannot(tmp_path):
    import gzip

    from ppdm.app._common import read_path

    (tmp_path / "t.csv.gz").write_bytes(gzip.compress(b"a,b\n1,x\n2,y\n"))
    frame, name = read_path(str(tmp_path / "t.csv.gz"))
    assert name == "t.csv.gz" and frame.shape == (2, 2)
    (tmp_path / "t.xlsx").write_bytes(b"PK")
    with pytest.raises(
        DataError, match=r"'.*t\.xlsx' is not a table ppdm reads: .*\(got '\.xlsx'\)"
    ):
        read_path(str(tmp_path / "t.xlsx"))


class _EndingJob:
    """A job whose process ends between the poll's look at it and the next one."""

    kind, cancelled = "audit", False

    def __init__(self):
        self.looks = 0

    def running(self) -> bool:
        self.looks += 1
        return self.looks == 1

    def progress(self):
        return 0, 0

    def outcome(self):
        return {"verdict": "PASSED"}, None


def test_a_job_ending_during_a_poll_is_still_collected():
    pytest.importorskip("shiny")
    from shiny import reactive

    from ppdm.app._state import JobSlot, poll_slots

    slot = JobSlot("audit")
    slot.job = _EndingJob()
    with reactive.isolate():
        errors, again = poll_slots([slot])  # it looked running: not collected yet
        assert errors == [] and again, "the poll must go on until the result is in"
        errors, again = poll_slots([slot])
        assert errors == [] and not again
        assert slot.result.get() == {"verdict": "PASSED"}
        assert slot.status.get() == "audit finished"


def test_messages_name_the_pages_controls_not_command_line_flags():
    """The page has no --missing or --allow-unprotected: the command line's advice is
    what to do in the page, a flag with no control is said to be the command line's; a
    flag the page has is named by its control; a column's name that looks like a flag is
    data, left as it is; no library keyword, and whole numbers without '.0'."""
    text = message(
        DomainError(
            "column 'a' has a missing value at data row 3; fill it, or use --missing "
            "category (missing='category') to make 'missing' its own category"
        )
    )
    assert text.endswith("data row 3; fill it in your table and open the table again")
    text = message(
        DomainError(
            "column 'x' data row 2 has value 67.0 outside its bounds [20.0, 60.5]; widen the "
            "bounds or use --out-of-bounds clip (out_of_bounds='clip')"
        )
    )
    assert text == (
        "column 'x' data row 2 has value 67 outside its bounds [20, 60.5]; widen 'your "
        "bounds low:high' of that column, or leave them empty to take them from the data"
    )
    assert message(ParameterError("--gamma must be > 1 (got 1.0)")) == "'gamma' must be > 1 (got 1)"
    assert message(ParameterError("version 1.0.2, 2.0e5, '3.0'")) == "version 1.0.2, 2.0e5, '3.0'"
    text = message(DataError("column '--bins' holds --allow-unprotected"))
    assert text == "column '--bins' holds the command line's --allow-unprotected"
    # the per-record budget and the gammas typed per attribute, as the page names them
    from ppdm.exceptions import OptionError
    from ppdm.options import PlanOptions
    from ppdm.perturbation import planned_gammas

    try:
        planned_gammas({"age": 9.0, "car": 9.0}, ["x"], PlanOptions(epsilon_record=4))
    except OptionError as exc:
        text = message(exc)
    assert text == (
        "the gammas typed per attribute give a per-record epsilon of 4.394, over the "
        "per-record budget 4"
    )
    try:
        PlanOptions(epsilon_record=-1)
    except OptionError as exc:
        text = message(exc)
    assert text.startswith("'epsilon per record' must be > 0") and "epsilon_record" not in text


@pytest.mark.parametrize("n, patches, lines", [(20, 20, 0), (201, 0, 1), (65_536, 0, 1)])
def test_a_panel_of_many_values_is_one_line_not_a_bar_per_value(n, patches, lines):
    """At N = 65,536 a bar per value (a patch each) held the app's server for 80 s."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ppdm.figures.histograms import MAX_BARS, _series

    assert MAX_BARS == 200
    fig, ax = plt.subplots()
    _series(ax, np.arange(n), np.ones(n), 0.4, 0.0, label="a")
    assert len(ax.patches) == patches and len(ax.lines) == lines
    plt.close(fig)


def test_the_advisors_target_accuracy_field_names_itself():
    """'abc' gave Python's 'could not convert string to float', 150 the library's
    'min_accuracy must be a fraction in (0, 1] (got 1.5)'."""
    from ppdm.app._advisor import target_accuracy as _target_accuracy

    assert _target_accuracy("") is None
    assert _target_accuracy("0.8") == _target_accuracy("80") == _target_accuracy("80%") == 0.8
    for bad, why in [
        ("abc", "a fraction or a percentage"),
        ("150", "at most 100%"),
        ("0", "above 0"),
    ]:
        with pytest.raises(ParameterError, match=f"target accuracy must be .*{why}.*'{bad}'"):
            _target_accuracy(bad)
