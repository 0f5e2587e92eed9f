"""Conventions of the command line: choices, flags, metavars, errors, progress, precision."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ppdm.cli._common import EXIT_USAGE
from ppdm.domain import BinnedDomain

ANSI = re.compile(r"\x1b\[[0-9;]*m")

#: command, flag, the values help must list, one bad value
CHOICES = [
    (["perturb"], "--missing", ["error", "category"], "ignore"),
    (["perturb"], "--out-of-bounds", ["error", "clip"], "wrap"),
    (["perturb"], "--representative", ["center", "left", "right", "random"], "median"),
    (["perturb"], "--format", ["csv", "parquet"], "xlsx"),
    (["perturb"], "--engine", ["local", "dask"], "spark"),
    (["perturb"], "--method", ["substitution", "additive"], "swap"),
    (["perturb"], "--noise", ["uniform", "gaussian"], "laplace"),
    (["estimate"], "--method", ["inverse", "zero", "set-scale", "norm-sub", "ibu"], "magic"),
    (["reconstruct"], "--method", ["set-scale", "ibu"], "magic"),
    (["reconstruct"], "--engine", ["local", "dask"], "spark"),
    (["noise", "class"], "--technique", ["random", "probabilistic", "all-leaves"], "some"),
    (["noise", "attributes"], "--target", ["lia", "tia", "both"], "all"),
    (["noise", "attributes"], "--scope", ["all", "heterogeneous"], "some"),
    (["noise", "attributes"], "--boundary", ["reflect", "resample"], "clip"),
    (["bn", "randomize"], "--format", ["csv", "parquet"], "xlsx"),
    (["bn", "learn"], "--fix", ["norm-sub", "zero"], "clip"),
]


def _command_paths() -> list[tuple[str, ...]]:
    """Every command and command group of ``ppdm`` (the root too), from the app itself."""
    import typer.main

    from ppdm.cli import app

    paths: list[tuple[str, ...]] = []

    def walk(command, path: tuple[str, ...]) -> None:
        paths.append(path)
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            if not getattr(sub, "hidden", False):
                walk(sub, (*path, name))

    walk(typer.main.get_command(app), ())
    return paths


COMMANDS = _command_paths()


def _help(run_cli, monkeypatch, *command: str) -> str:
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(*command, "--help")
    assert code == 0, err
    return ANSI.sub("", out)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "ppdm")
def test_help_text_is_wrapped_to_the_terminal_not_the_source(run_cli, monkeypatch, command):
    # typer keeps a docstring's line breaks: on 80 columns a 88-column source line broke
    # twice, leaving a line of one word; each paragraph is now wrapped by the terminal
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli(*command, "--help")
    assert code == 0, err
    text = ANSI.sub("", out).splitlines()
    usage = next(i for i, line in enumerate(text) if "Usage:" in line)
    end = next((i for i, line in enumerate(text) if line.startswith("╭")), len(text))
    paragraphs = "\n".join(line.strip() for line in text[usage + 1 : end]).split("\n\n")
    for para in filter(None, (p.strip() for p in paragraphs)):
        lines = para.splitlines()
        for line, after in zip(lines, lines[1:]):
            # rich breaks a line only where the next word would pass the edge
            assert len(line) + 1 + len(after.split()[0]) > 78 - 2, (command, line, after)


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "ppdm")
def test_help_keeps_every_bracketed_text(run_cli, monkeypatch, command):
    # rich reads "[min, max]" in a help text as a markup tag and drops it: "values stay
    # within each attribute's ." was printed
    import typer.main

    from ppdm.cli import app

    node = typer.main.get_command(app)
    for name in command:
        node = node.commands[name]
    flat = " ".join(_help(run_cli, monkeypatch, *command).replace("│", " ").split())
    for text in [node.help or "", *(getattr(p, "help", None) or "" for p in node.params)]:
        for bracketed in re.findall(r"\[[^\]]*\]", text):
            assert " ".join(bracketed.split()) in flat, (command, bracketed)


@pytest.mark.parametrize(("command", "flag", "values", "bad"), CHOICES)
def test_help_lists_the_choices(run_cli, monkeypatch, command, flag, values, bad):
    text = _help(run_cli, monkeypatch, *command)
    line = next(x for x in text.splitlines() if re.search(rf"│\s+(-\w\s+)?{re.escape(flag)}\s", x))
    for value in values:
        assert value in line, (flag, line)


@pytest.mark.parametrize(("command", "flag", "values", "bad"), CHOICES)
def test_a_bad_choice_is_a_usage_error_naming_the_flag(
    run_cli, tmp_path, command, flag, values, bad
):
    code, out, err = run_cli(*command, tmp_path / "in.csv", flag, bad)
    assert code == EXIT_USAGE, err
    assert f"'{flag}'" in err and repr(bad) in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "ppdm")
def test_help_has_readable_metavars_and_no_raw_markup(run_cli, monkeypatch, command):
    text = _help(run_cli, monkeypatch, *command)
    for raw in ("`", "``"):
        assert raw not in text, (command, raw)
    # a type column is either a list of choices (<a|b>) or absent; never a Python type name
    # such as <str>, <float> or <function> (<ext> is a placeholder in prose: data.<ext>)
    type_names = set(re.findall(r"<[A-Za-z_]+>", text)) - {"<ext>"}
    assert not type_names, (command, type_names)


def test_the_cli_needs_no_separate_click():
    """typer parses with its own click; ppdm's parameter types must come from that one."""
    code = (
        "import sys; sys.modules['click'] = None\n"
        "from ppdm.cli import app\n"
        "import typer.main\n"
        "cmd = typer.main.get_command(app)\n"
        "arg = cmd.commands['estimate'].params[0]\n"
        "print(type(arg.type).__name__)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "_PathArgument"


def test_flags_show_as_flags(run_cli, monkeypatch, tmp_path):
    text = _help(run_cli, monkeypatch, "estimate")
    line = next(x for x in text.splitlines() if "--by-class" in x)
    assert re.search(r"--by-class\s+Also estimate per class", line), line
    code, _, err = run_cli("estimate", tmp_path, "--by-class", "true")
    assert code == EXIT_USAGE and "true" in err


def test_defaults_are_shown_whole(run_cli, monkeypatch):
    text = _help(run_cli, monkeypatch, "perturb")
    assert re.search(r"--gamma\s+GAMMA\s+Amplification gamma > 1\. \[default: \(?9\)?\]", text)
    assert re.search(r"--bins\s+N\s+.*\[default: \(?20\)?\]", text)


# --- errors in the command line's words ---------------------------------------------


@pytest.fixture
def table(tmp_path):
    frame = pd.DataFrame({"x": np.linspace(0.0, 10.0, 40), "y": [0, 1] * 20})
    frame.loc[17, "x"] = np.nan  # the 18th data row, line 19 of the file
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return path


def test_rows_are_counted_from_one_and_options_named_as_flags(run_cli, tmp_path, table):
    code, _, err = run_cli("perturb", table, "--out", tmp_path / "r", "--class", "y")
    assert code == 1
    assert f"input file {str(table)!r}: column 'x' has a missing value at data row 18" in err
    assert "--missing category" in err
    text = table.read_text().splitlines()
    assert text[18].startswith(",")  # line 19 of the file is that record
    frame = pd.DataFrame({"x": [1.0, 2.0, 42.0], "y": [0, 1, 0]})
    frame.to_csv(table, index=False)
    args = ["perturb", table, "--out", tmp_path / "r", "--class", "y", "--bounds", "x=0:10"]
    code, _, err = run_cli(*args)
    assert code == 1
    assert f"{str(table)!r}: column 'x' data row 3 has value 42.0 outside its bounds" in err
    assert "--out-of-bounds clip" in err


@pytest.mark.parametrize(
    ("values", "why"),
    [([3, 3, 3], "has a single value 3"), ([2.5, 2.5, 2.5], "is constant (2.5)"),
     ([None, None, None], "has only missing values")],
    ids=["integer", "float", "missing"],
)  # fmt: skip
def test_a_column_of_one_value_says_how_to_release_the_rest(run_cli, tmp_path, values, why):
    table = tmp_path / "t.csv"
    pd.DataFrame({"x": [1.0, 2.0, 5.0], "c": values, "y": [0, 1, 0]}).to_csv(table, index=False)
    code, _, err = run_cli("perturb", table, "--out", tmp_path / "r", "--class", "y")
    line = " ".join(err.split())
    assert code == 1 and f"input file {str(table)!r}: column 'c' {why}" in line, err
    assert "name the other columns in --attributes" in line
    code, _, err = run_cli(
        "perturb", table, "--out", tmp_path / "r", "--class", "y", "--attributes", "x",
        "--bounds", "x=0:10", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    released = pd.read_csv(tmp_path / "r" / "data.csv")
    assert released["c"].equals(pd.read_csv(table)["c"])  # released as it is, as told


# --- progress over every pass ---------------------------------------------------------


class _Recorder:
    def __init__(self):
        self.events = []

    def __call__(self, k):
        self.events.append(("advance", k))

    def reset(self, label, total):
        self.events.append(("pass", label, total))


def test_perturb_moves_the_bar_in_every_pass(tmp_path, table, monkeypatch):
    from ppdm.cli import _estimate, _perturb, _release

    recorders = []

    def fake_bar(label, total=None):
        from contextlib import contextmanager

        @contextmanager
        def bar():
            rec = _Recorder()
            recorders.append(rec)
            yield rec

        return bar()

    for module in (_perturb, _estimate, _release):
        monkeypatch.setattr(module, "progress_bar", fake_bar)
    frame = pd.DataFrame({"x": np.arange(1000.0), "y": [0, 1] * 500})
    frame.to_csv(table, index=False)
    from typer.testing import CliRunner

    from ppdm.cli import app

    args = ["perturb", str(table), "--out", str(tmp_path / "rel"), "--class", "y"]
    result = CliRunner().invoke(app, [*args, "--batch-size", "300", "--seed", "1"])
    assert result.exit_code == 0, result.output
    events = recorders[0].events
    passes = [e for e in events if e[0] == "pass"]
    assert [p[1] for p in passes] == ["reading", "perturbing", "checking"]
    # CSV: the first pass counts the rows; later passes know their length
    assert passes[0][2] is None and passes[1][2] == 1000 and passes[2][2] == 1000
    per_pass = []
    for e in events:
        if e[0] == "pass":
            per_pass.append(0)
        else:
            per_pass[-1] += e[1]
    assert per_pass == [1000, 1000, 1000]

    recorders.clear()
    result = CliRunner().invoke(
        app, ["reconstruct", str(tmp_path / "rel"), "--out", str(tmp_path / "r.csv")]
    )
    assert result.exit_code == 0, result.output
    events = recorders[0].events
    assert [e[1:] for e in events if e[0] == "pass"] == [
        ("counting", 1000),
        ("reconstructing", 1000),
    ]
    assert sum(e[1] for e in events if e[0] == "advance") == 2000

    recorders.clear()
    result = CliRunner().invoke(app, ["estimate", str(tmp_path / "rel"), "--json"])
    assert result.exit_code == 0, result.output
    events = recorders[0].events
    assert [e[1:] for e in events if e[0] == "pass"] == [("counting", 1000)]
    assert sum(e[1] for e in events if e[0] == "advance") == 1000


# --- released numbers at the precision of the domain ----------------------------------


def test_representatives_are_written_at_the_precision_of_the_domain():
    d = BinnedDomain(30.0, 31.5, 10)
    assert d.representatives()[4] == 30.675  # not 30.674999999999997
    assert repr(float(d.decode(np.array([4]))[0])) == "30.675"
    assert BinnedDomain(0.0, 0.3, 3).representatives().tolist() == [0.05, 0.15, 0.25]
    assert BinnedDomain(0.1, 0.4, 3).labels() == ["[0.1, 0.2)", "[0.2, 0.3)", "[0.3, 0.4]"]
    # a width without a short decimal form: 12 significant digits
    reps = BinnedDomain(20.01, 80.97, 7).representatives()
    assert all(len(repr(float(v)).replace(".", "").lstrip("0")) <= 12 for v in reps)
    # the value is still inside its bin, within the rounding
    edges = BinnedDomain(20.01, 80.97, 7).edges
    assert np.all((reps > edges[:-1]) & (reps < edges[1:]))


@pytest.mark.parametrize("representative", ["left", "center", "right"])
def test_short_representatives_stay_in_their_bins(representative):
    rng = np.random.default_rng(7)
    for _ in range(300):
        low = float(np.round(rng.uniform(-1e4, 1e4), rng.integers(0, 6)))
        high = low + float(np.round(rng.uniform(1e-3, 1e4), rng.integers(0, 6)))
        if not high > low:
            continue
        d = BinnedDomain(low, high, int(rng.integers(2, 60)), representative=representative)
        codes = np.arange(d.n_bins)
        exact = d.low + (codes + {"left": 0, "center": 0.5, "right": 1}[representative]) * d.width
        # the short values encode to the bins the exact ones do
        np.testing.assert_array_equal(
            d.encode(d.decode(codes)), d.encode(np.clip(exact, d.low, d.high))
        )
        # 12 significant digits of the width and of the value
        np.testing.assert_allclose(d.decode(codes), exact, rtol=1e-11, atol=1e-10 * d.width)


def test_released_data_holds_short_numbers(run_cli, tmp_path):
    src = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.uniform(30.0, 31.5, 500), "y": rng.integers(0, 2, 500)}).to_csv(
        src, index=False
    )
    args = ["perturb", src, "--out", tmp_path / "rel", "--class", "y", "--bins", "10"]
    code, _, err = run_cli(*args, "--bounds", "x=30:31.5", "--seed", "4")
    assert code == 0, err
    released = pd.read_csv(tmp_path / "rel" / "data.csv")["x"]
    assert set(released.round(3)) <= set(BinnedDomain(30.0, 31.5, 10).representatives())
    text = (tmp_path / "rel" / "data.csv").read_text()
    assert "99999" not in text and "00000" not in text
    code, out, err = run_cli("reconstruct", tmp_path / "rel", "--out", tmp_path / "r.csv")
    assert code == 0, err
    assert "99999" not in (tmp_path / "r.csv").read_text()


def test_every_command_is_in_the_command_line_page():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "cli.md").read_text()
    for path in COMMANDS:
        if path:
            assert f"`ppdm {' '.join(path)}" in page, path


# the estimate tables: a column of lines where nothing wraps, the same characters
_ODD_LABELS = ["[0, 5)", "", "[red]", "日本語の値", "e\u0301t\u00e9", "🙂 smile", "x" * 37, ":ok:"]


def _render(table, width: int) -> str:
    import io

    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=width, markup=False, emoji=False, highlight=False).print(table)
    return out.getvalue()


@pytest.mark.parametrize("labels", [_ODD_LABELS, ["a\tb", "line\nbreak", "c"], ["z"]])
def test_estimate_tables_print_the_same_characters_as_a_row_per_value(labels):
    import io

    from rich.console import Console
    from rich.measure import Measurement
    from rich.table import Table

    from ppdm.cli._estimate import _rows_table

    columns = ("value", "perturbed", "estimated", "stderr (bootstrap, B=200)")
    rows = [(lab, str(10**i), f"{10**i / 3:.1f}", f"{i / 7:.1f}") for i, lab in enumerate(labels)]
    rowwise = Table(title="colour: class [b] (set-scale)")
    for i, col in enumerate(columns):
        rowwise.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        rowwise.add_row(*row)
    console = Console(file=io.StringIO(), width=1000)
    natural = Measurement.get(console, console.options, rowwise).maximum
    printable = all(lab.isprintable() for lab in labels)
    for width in (natural - 3, natural - 1, natural, natural + 1, 200):
        console = Console(file=io.StringIO(), width=width, markup=False, emoji=False)
        table = _rows_table(console, rowwise.title, columns, rows)
        assert _render(table, width) == _render(rowwise, width), width
        # a column of lines when it fits and nothing in it breaks lines
        assert table.row_count == (1 if printable and width >= natural else len(rows))


@pytest.mark.parametrize("bins", [60, 61, 400])
def test_a_long_estimate_table_shows_its_ends_and_says_so(run_cli, tmp_path, monkeypatch, bins):
    import json

    monkeypatch.setenv("COLUMNS", "200")  # a value's label on one line

    from ppdm.cli._estimate import TABLE_ENDS

    src = tmp_path / "t.csv"
    rng = np.random.default_rng(3)
    pd.DataFrame({"x": rng.uniform(0, 1, 200), "c": rng.integers(0, 2, 200)}).to_csv(
        src, index=False
    )
    rel = tmp_path / "rel"
    args = ("--class", "c", "--bins", bins, "--bounds", "x=0:1", "--seed", "1")
    code, _, err = run_cli("perturb", src, "--out", rel, *args)
    assert code == 0, err
    code, out, err = run_cli("estimate", rel, "--by-class")
    assert code == 0, err
    labels = BinnedDomain(0.0, 1.0, bins).labels()
    code, js, _ = run_cli("estimate", rel, "--json")
    assert json.loads(js)["attributes"][0]["bins"] == labels  # every value
    for table in out.split("(set-scale)")[1:]:  # overall, class 0, class 1
        shown = [lab for lab in labels if f"│ {lab} " in table]
        if bins <= 60:
            assert shown == labels and "shown" not in table
        else:
            assert shown == labels[:TABLE_ENDS] + labels[-TABLE_ENDS:]
            assert f"... {bins - 2 * TABLE_ENDS:,} bins ..." in table
            assert f"{bins:,} bins, the first and last {TABLE_ENDS} shown" in table


def test_the_exit_codes_of_the_help_are_those_of_docs_cli(run_cli, monkeypatch):
    """`ppdm --help` ends with docs/cli.md's table of exit codes, the refused output too."""
    from pathlib import Path

    flat = " ".join(_help(run_cli, monkeypatch).split())
    docs = (Path(__file__).parents[2] / "docs" / "cli.md").read_text(encoding="utf-8")
    table = docs.split("## Exit codes", 1)[1].split("\n\n")[1]
    codes = re.findall(r"^\| (\d+) \|", table, flags=re.M)
    assert codes == ["0", "1", "2", "3", "130"]
    for code in codes:
        assert f" {code} " in flat
    assert "2 usage error (unknown flag, bad option value, an output that would lose or " in flat
    assert "would lose or leak data" in table
