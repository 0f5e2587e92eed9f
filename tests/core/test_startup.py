"""Start-up of the command line: the commands' declarations load without the heavy libraries.

A ``ppdm`` process imports :mod:`ppdm.cli` before it parses a flag; pandas, pyarrow,
SciPy, matplotlib and scikit-learn are imported by the command that needs them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "pyarrow", "scipy", "matplotlib", "sklearn", "rich", "pydantic")

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _loaded(code: str) -> list[str]:
    probe = (
        f"import sys\n{code}\n"
        f"print('loaded:', *(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=_env()
    )
    return out.stderr.strip().splitlines()[-1].split()[1:]


def test_importing_the_command_line_loads_no_heavy_library():
    assert _loaded("import ppdm.cli") == []


def test_version_loads_no_heavy_library():
    code = (
        "import ppdm.cli, sys\n"
        "sys.argv = ['ppdm', '--version']\n"
        "try:\n"
        "    ppdm.cli.main()\n"
        "except SystemExit:\n"
        "    pass"
    )
    assert _loaded(code) == []


@pytest.mark.parametrize("command", ["perturb", "estimate", "reconstruct", "report"])
def test_help_of_the_release_commands_loads_no_heavy_library(command):
    code = (
        "import ppdm.cli, sys\n"
        f"sys.argv = ['ppdm', {command!r}, '--help']\n"
        "try:\n"
        "    ppdm.cli.main()\n"
        "except SystemExit:\n"
        "    pass"
    )
    assert _loaded(code) in ([], ["rich"])  # typer draws its help with rich


def test_the_probe_sees_a_heavy_import():
    # the probe itself would notice: importing the table readers loads pandas and pyarrow
    assert {"pandas", "pyarrow"} <= set(_loaded("import ppdm.io"))


def test_release_commands_off_a_terminal_load_only_what_they_use(tmp_path):
    # no progress bar is drawn off a terminal: SciPy, matplotlib and scikit-learn stay
    # out of perturb, estimate and reconstruct, and rich out of all but estimate's tables
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": rng.uniform(0, 10, 500).round(2), "y": rng.integers(0, 2, 500)}).to_csv(
        src, index=False
    )
    rel, rec = tmp_path / "rel", tmp_path / "rec.csv"
    commands = [
        ["perturb", str(src), "--out", str(rel), "--class", "y", "--bounds", "x=0:10"],
        ["estimate", str(rel), "--by-class"],
        ["reconstruct", str(rel), "--out", str(rec)],
    ]
    for args in commands:
        code = (
            "import ppdm.cli, sys\n"
            f"sys.argv = ['ppdm', *{args!r}]\n"
            "try:\n"
            "    ppdm.cli.main()\n"
            "except SystemExit as done:\n"
            "    assert not done.code, done.code"
        )
        loaded = _loaded(code)
        tables = {"rich"} if args[0] == "estimate" else set()
        assert set(loaded) == {"pandas", "pyarrow", "pydantic"} | tables, (args[0], loaded)
    assert rec.exists()


# -- the end of a process: ppdm.quick_exit ---------------------------------------------


def _run(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=_env()
    )


@pytest.mark.parametrize("code,status", [("3", 3), ("None", 0), ("'stopped here'", 1)])
def test_quick_exit_runs_exit_functions_flushes_and_keeps_the_status(code, status):
    out = _run(
        "import atexit, sys\n"
        "from ppdm.quick_exit import quick_exit\n"
        "atexit.register(lambda: print('exit function ran'))\n"
        "sys.stdout.write('x' * 1_000_000)\n"  # more than a pipe holds: must be flushed
        f"quick_exit({code})\n"
        "print('not reached')\n"
    )
    assert out.returncode == status
    assert out.stdout == "x" * 1_000_000 + "exit function ran\n"
    assert out.stderr == ("stopped here\n" if status == 1 else "")


def test_quick_exit_waits_for_a_thread_still_working(tmp_path):
    done = tmp_path / "done"
    out = _run(
        "import sys, threading, time\n"
        "from pathlib import Path\n"
        "from ppdm.quick_exit import quick_exit\n"
        "def work():\n"
        "    time.sleep(0.3)\n"
        "    Path(sys.argv[1]).write_text('written')\n"
        "threading.Thread(target=work).start()\n"
        "quick_exit(4)\n",
        str(done),
    )
    assert out.returncode == 4, out.stderr
    assert done.read_text() == "written"


def test_the_command_ends_with_its_status_and_all_its_output(tmp_path):
    import json

    import numpy as np
    import pandas as pd

    from ppdm.pipeline import make_release

    rng = np.random.default_rng(0)
    table = pd.DataFrame({f"x{j}": rng.uniform(0, 1, 500) for j in range(30)})
    with pytest.warns(UserWarning):  # seeded
        make_release(table, tmp_path / "rel", bounds={f"x{j}": (0, 1) for j in range(30)},
                     n_bins=40, random_state=0)  # fmt: skip
    ppdm = [sys.executable, "-m", "ppdm"]
    out = subprocess.run([*ppdm, "estimate", str(tmp_path / "rel"), "--json"],
                         capture_output=True, text=True, env=_env())  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert len(out.stdout) > 65536  # more than a pipe holds
    assert len(json.loads(out.stdout)["attributes"]) == 30
    out = subprocess.run([*ppdm, "estimate", str(tmp_path / "nowhere")],
                         capture_output=True, text=True, env=_env())  # fmt: skip
    assert out.returncode == 1 and out.stderr.startswith("error: ") and "nowhere" in out.stderr
    out = subprocess.run([*ppdm, "estimate", "--no-such-flag"],
                         capture_output=True, text=True, env=_env())  # fmt: skip
    assert out.returncode == 2 and out.stderr.startswith("error: ")
