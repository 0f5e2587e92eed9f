import contextlib
import os
import shutil
import sys

import pytest
from hypothesis import settings

# Keep the byte code of the test modules (pytest's rewritten asserts) and of ppdm in
# ``__pycache__`` even where PYTHONDONTWRITEBYTECODE is set: rewriting every test module
# again costs each test process about 2.5 s of its start.
sys.dont_write_bytecode = False

# One BLAS / OpenMP thread per test process (and per ``ppdm`` it starts), unless set
# otherwise: the tests' arrays are small, and with two test workers on two cores the idle
# BLAS threads of each only spin against the other (about a quarter of the CPU of the
# numeric tests). Set before the first import of NumPy, which reads them once.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# no per-example deadline: a deadline is a timing assertion, and this machine's load varies
settings.register_profile("ppdm", deadline=None)
settings.load_profile("ppdm")

#: Learner of the shared ``ppdm reproduce all --quick`` run: a fast stand-in; the
#: committed results use ppdm's C4.5.
QUICK_LEARNER = "cart-entropy"


@pytest.fixture(scope="session")
def fig2_data():
    """20,000 records of Ma & Sivakumar's Fig. 2 network (seeded)."""
    from ppdm.bayesnet import forward_sample
    from ppdm_papers.bn_networks import fig2_network

    return forward_sample(fig2_network(), 20_000, random_state=0)


@pytest.fixture(scope="session")
def fig2_parties(fig2_data):
    """The sites of Fig. 2, each holding its columns of ``fig2_data`` and Table 1's scheme."""
    from ppdm_papers.bn_networks import FIG2_SITES, table1_scheme
    from ppdm_papers.bn_parties import Party

    scheme = table1_scheme()
    return [Party(s, fig2_data[list(vs)], scheme.subset(vs)) for s, vs in FIG2_SITES.items()]


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


@pytest.fixture
def help_page():
    """``help_page(*command)``: the command's ``--help``, checked to show its summary line,
    every visible option and every subcommand; returns the page's text."""
    import click
    import typer
    from typer.testing import CliRunner

    from ppdm.cli import app

    def check(*command: str) -> str:
        result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0, result.output
        cmd = typer.main.get_command(app)
        for name in command:
            cmd = cmd.commands[name]
        text = " ".join(result.output.split())
        if cmd.help:
            assert cmd.help.split("\n")[0].strip() in text
        for param in cmd.params:
            if isinstance(param, click.Option) and not param.hidden:
                assert param.opts[0] in text, (command, param.opts[0])
        for name, sub in getattr(cmd, "commands", {}).items():
            if not sub.hidden:
                assert name in text, (command, name)
        return text

    return check


@pytest.fixture(scope="session")
def reproduce_quick(tmp_path_factory):
    """The output directory of one ``ppdm reproduce all --quick`` run, in process (the
    two pytest workers already keep both cores busy; a pool would only add its own).

    Built once per test run, also under pytest-xdist: the workers share the directory
    beside their own temporary roots, and the first one to get the lock builds it while
    the others wait. Tests only read it; a test that needs to change files copies them.
    """
    import os

    from typer.testing import CliRunner

    from ppdm.cli import app

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # shared by the workers of this run
    out, done = root / "reproduce-quick", root / "reproduce-quick.done"
    with _exclusive(root / "reproduce-quick.lock"):
        if not done.exists():
            shutil.rmtree(out, ignore_errors=True)  # left half-written by a failed build
            res = CliRunner().invoke(
                app,
                ["reproduce", "all", "--quick", "--jobs", "1", "--out", str(out)]
                + ["--no-progress", "--learner", QUICK_LEARNER],
            )
            assert res.exit_code == 0, res.output
            done.touch()
    return out


@contextlib.contextmanager
def _exclusive(path):
    """Hold an exclusive lock on ``path`` (a no-op where ``fcntl`` does not exist)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each worker builds its own copy
        yield
        return
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
