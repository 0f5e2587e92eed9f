"""``ppdm estimate`` draws its tables off a terminal without rich: the same characters."""

from __future__ import annotations

import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.cli._release import plain_table

TOKEN = st.text(alphabet="abcXYZ019.,()]-+<>_=", min_size=1, max_size=8)
NUMBER = st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: f"{v:.4g}")
PLAIN = st.one_of(
    TOKEN,
    NUMBER,
    st.builds(lambda a, b: f"{a} {b}", TOKEN, TOKEN),
    st.builds(lambda a, b: f"[{a}, {b})", NUMBER, NUMBER),  # a bin
)
ODD = st.text(alphabet="ab :[é\\/#@", min_size=1, max_size=6)  # rich may read these
WORDS = st.one_of(*[PLAIN] * 24, ODD)


def _rich(title, header, rows) -> str:
    from rich.console import Console
    from rich.table import Table

    out = io.StringIO()
    table = Table(title=title)
    for i, col in enumerate(header):
        table.add_column(col, justify="left" if i == 0 else "right")
    for row in rows:
        table.add_row(*row)
    Console(file=out).print(table)
    return out.getvalue()


@settings(max_examples=500, deadline=None)
@given(
    WORDS,
    st.lists(WORDS, min_size=4, max_size=4),
    st.lists(st.lists(WORDS, min_size=4, max_size=4), min_size=1, max_size=5),
    st.sampled_from(["80", "40", "120", "20"]),
)
def test_plain_tables_are_the_tables_rich_prints(title, header, rows, columns):
    mp = pytest.MonkeyPatch()
    mp.setenv("COLUMNS", columns)
    try:
        text = plain_table(title, header, rows)
        if text is not None:
            assert text + "\n" == _rich(title, header, rows)
    finally:
        mp.undo()


def test_an_estimate_table_is_drawn_plain(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    header = ["bin", "perturbed", "estimated", "stderr (bootstrap (B=200))"]
    rows = [["[18, 21.65)", "205272", "218452.0", "1460.4"], ["[87.35, 91]", "9", "1.5", "0.1"]]
    text = plain_table("age: class 0 (set-scale)", header, rows)
    assert text is not None and text + "\n" == _rich("age: class 0 (set-scale)", header, rows)
    # too wide for the console, markup, a styled terminal: rich draws it
    monkeypatch.setenv("COLUMNS", "40")
    assert plain_table("age", header, rows) is None
    monkeypatch.setenv("COLUMNS", "80")
    assert plain_table("age", header, [["[bold]x", "1", "2", "3"]]) is None
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert plain_table("age", header, rows) is None
