"""The mechanisms of a release are one table: no module outside ppdm.mechanism tells them
apart by name, the command line offers the table's names, and a mechanism added to the
table is found by every lookup."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import ppdm
from ppdm.exceptions import OptionError, SpecError
from ppdm.mechanism import MECHANISMS, mechanism_of
from ppdm.mechanism.additive import Additive

SRC = Path(ppdm.__file__).parent
NAMES = {"additive", "substitution"}


def _named_constants(node: ast.AST) -> set[str]:
    """The mechanism names written as constants in ``node`` (alone or in a tuple, list
    or set)."""
    items = node.elts if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]
    return {i.value for i in items if isinstance(i, ast.Constant) and i.value in NAMES}


def test_no_module_outside_the_mechanisms_compares_a_method_with_their_names():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        if (SRC / "mechanism") in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare):
                for side in [node.left, *node.comparators]:
                    for name in _named_constants(side):
                        found.append(f"{path.relative_to(SRC)}:{node.lineno} {name!r}")
    assert found == []


def test_the_scan_sees_a_comparison():
    tree = ast.parse('if spec.method != "substitution" or m in ("additive", "x"): pass')
    sides = [s for n in ast.walk(tree) if isinstance(n, ast.Compare) for s in n.comparators]
    assert set().union(*map(_named_constants, sides)) == NAMES


def test_the_command_line_and_the_options_offer_the_table():
    from ppdm.cli._options import ReleaseMethod
    from ppdm.options import METHODS

    assert [m.value for m in ReleaseMethod] == list(MECHANISMS) == list(METHODS)
    assert list(MECHANISMS) == ["substitution", "additive"]  # the first is the default


class _Toy(Additive):
    name = "toy"
    capabilities = frozenset({"noise", "pairs"})
    refusals = {}


def test_a_mechanism_added_to_the_table_is_found_and_refuses_by_name(monkeypatch):
    toy = _Toy()
    monkeypatch.setitem(MECHANISMS, "toy", toy)
    assert mechanism_of("toy") is toy and mechanism_of({"method": "toy"}) is toy
    assert toy.refusal("pairs") is None
    with pytest.raises(
        SpecError, match=r"^audit: audit needs a substitution release \(this one uses toy\)$"
    ):
        toy.require("audit", "audit")
    with pytest.raises(SpecError, match="unknown method 'toy'"):
        monkeypatch.delitem(MECHANISMS, "toy")
        mechanism_of("toy")


def test_a_spec_and_a_report_name_their_mechanism():
    from ppdm.release import ReleaseSpec

    assert mechanism_of(ReleaseSpec(attributes=[])) is MECHANISMS["substitution"]
    assert mechanism_of({"method": None}) is MECHANISMS["substitution"]
    assert mechanism_of({"method": "additive"}).name == "additive"


@pytest.mark.parametrize(
    ("capability", "values", "words"),
    [
        ("reconstruct", {}, "Algorithm 2 reconstructs substitution releases"),
        ("empirical_epsilon", {}, "the empirical epsilon audits substitution matrices"),
        ("pairs", {}, "pairs: two-way tables are estimated for substitution releases"),
        ("attacks", {}, "the release must use substitution (got method 'additive')"),
        ("audit", {}, "the audit checks substitution releases (this one uses 'additive')"),
        ("copies", {"copies": 2}, "an additive release has one (got 2)"),
        ("budget", {"budget": "1.5"}, "no amplification to budget (got 1.5)"),
        ("estimators", {"method": "ibu", "release": "r"}, "--method ibu applies to substitution"),
        ("matrix", {"flag": "--rho"}, "--rho is for substitution releases"),
    ],
)
def test_every_refusal_of_an_additive_release_is_written_out(capability, values, words):
    additive = MECHANISMS["additive"]
    message = additive.refusal(capability, "pairs", **values)
    assert words in message
    with pytest.raises(OptionError) as caught:
        additive.require(capability, "pairs", error=lambda m: OptionError("x", m), **values)
    assert str(caught.value) == message and MECHANISMS["substitution"].refusal(capability) is None


def test_a_substitution_release_refuses_noise():
    sub = MECHANISMS["substitution"]
    assert sub.refusal("noise") == "--noise and --noise-scale are for --method additive"
    assert MECHANISMS["additive"].has("noise") and not sub.has("noise")
