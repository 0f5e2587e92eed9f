import sys

import pytest

#: Learner of the shared ``ppdm reproduce all --quick`` run: a fast stand-in; the
#: committed results use ppdm's C4.5.
QUICK_LEARNER = "cart-entropy"

#: Session fixtures whose tests must share one xdist worker, so that the fixture is
#: built once per test run (``--dist loadgroup`` in pyproject.toml).
_GROUPS = {"reproduce_quick": "reproduce-quick", "cluster": "dask-cluster"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        for fixture, group in _GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.fixture
def run_cli(monkeypatch, capsys):
    """Run ``ppdm ARGS`` through the real entry point; return (exit code, stdout, stderr)."""
    from ppdm.cli import main

    def run(*args: str):
        monkeypatch.setattr(sys, "argv", ["ppdm", *map(str, args)])
        code = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


@pytest.fixture(scope="session")
def reproduce_quick(tmp_path_factory):
    """The output directory of one ``ppdm reproduce all --quick --jobs 2`` run.

    Built once per test run and shared read-only by every test that checks what it
    wrote; a test that needs to change files copies them first.
    """
    from typer.testing import CliRunner

    from ppdm.cli import app

    out = tmp_path_factory.mktemp("quick")
    res = CliRunner().invoke(
        app,
        ["reproduce", "all", "--quick", "--jobs", "2", "--out", str(out), "--no-progress"]
        + ["--learner", QUICK_LEARNER],
    )
    assert res.exit_code == 0, res.output
    return out
