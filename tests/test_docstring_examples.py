"""Every ``Examples`` section in ppdm's docstrings runs and prints what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import ppdm

OPTIONAL = ("dask", "distributed", "pgmpy", "shiny")


def _modules() -> list[str]:
    return sorted(
        m.name
        for m in pkgutil.walk_packages(ppdm.__path__, "ppdm.")
        if not m.name.endswith("__main__")
    )


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    try:
        module = importlib.import_module(name)
    except ImportError as exc:  # an optional extra that is not installed
        if exc.name and exc.name.split(".")[0] in OPTIONAL:
            pytest.skip(f"{name} needs {exc.name}")
        raise
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
