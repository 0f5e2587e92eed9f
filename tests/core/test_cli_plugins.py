"""Commands installed beside ppdm: the papers' harness adds ``reproduce`` through the
``ppdm.commands`` entry point; without it, each of its commands says how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ppdm.cli import HARNESS_COMMANDS, HARNESS_MISSING, PLUGIN_GROUP

SRC = str(Path(__file__).resolve().parents[2] / "src")

#: entry points seen by the process: none, or one whose package is not installed
ENTRY_POINTS = {
    "none": "[]",
    "package gone": f"[m.EntryPoint('reproduce', 'ppdm_gone.cli:register', {PLUGIN_GROUP!r})]",
}


def _run_without_harness(entry_points: str, argv: list[str]) -> subprocess.CompletedProcess:
    code = (
        "import importlib.metadata as m, sys\n"
        f"m.entry_points = lambda **kw: {entry_points}\n"
        f"sys.argv = ['ppdm', *{argv!r}]\n"
        "from ppdm.cli import script\n"
        "script()"
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("entry_points", ENTRY_POINTS)
@pytest.mark.parametrize("command", HARNESS_COMMANDS, ids=" ".join)
def test_without_the_harness_its_commands_say_how_to_install_it(entry_points, command):
    res = _run_without_harness(ENTRY_POINTS[entry_points], [*command, "fig3", "--quick"])
    assert res.returncode == 2
    expected = HARNESS_MISSING.format(command=" ".join(("ppdm", *command)))
    assert res.stderr == f"error: {expected}\n"
    assert "pip install -e ." in res.stderr


def test_without_the_harness_the_other_commands_run():
    res = _run_without_harness("[]", ["--help"])
    assert res.returncode == 0, res.stderr
    assert "perturb" in res.stdout and "reproduce" in res.stdout


def test_the_harness_adds_its_commands(run_cli):
    from importlib.metadata import entry_points

    assert [e.value for e in entry_points(group=PLUGIN_GROUP)] == ["ppdm_papers.cli:register"]
    code, out, err = run_cli("experiments")
    assert code == 0, err
    assert out.splitlines()[0].split()[0] == "fig2"
