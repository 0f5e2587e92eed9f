import sys

import pytest


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
