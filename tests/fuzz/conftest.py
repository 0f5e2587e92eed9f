"""Fixtures of the fuzz suite: an in-process ``ppdm``, small valid inputs to start from."""

from __future__ import annotations

import shutil
import signal
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fuzzkit import BN_SCHEME
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fuzz",
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "fuzz_class(name, examples=1): the class of hostile input a fuzz case covers"
    )
    config.addinivalue_line("markers", "fuzz_meta: a check of the suite itself, not a case")


@pytest.fixture
def cli(monkeypatch, capsys):
    """Run ``ppdm ARGS`` through the real entry point, as a fresh process would.

    Returns (exit code, stdout, stderr). The inputs a run registers, the warning
    printer and the signal handlers it installs are reset after every run, so one
    run never sees another's state.
    """
    from ppdm import publish
    from ppdm.cli import main

    def run(*args, cwd: Path | None = None) -> tuple[int, str, str]:
        saved_inputs = set(publish._INPUTS)
        publish._INPUTS.clear()
        saved_signals = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
        saved_show = warnings.showwarning
        monkeypatch.setattr(sys, "argv", ["ppdm", *map(str, args)])
        if cwd is not None:
            monkeypatch.chdir(cwd)
        code = 0
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("always")
                main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException as exc:  # an escaped exception is a traceback in a real run
            import traceback

            code = 1
            sys.stderr.write("Traceback (escaped the entry point)\n")
            sys.stderr.write("".join(traceback.format_exception(exc)))
        finally:
            publish._INPUTS.clear()
            publish._INPUTS.update(saved_inputs)
            for s, h in saved_signals.items():
                signal.signal(s, h)
            warnings.showwarning = saved_show
            if cwd is not None:
                monkeypatch.undo()
        out = capsys.readouterr()
        return code, out.out, out.err

    return run


def small_frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """A table with one continuous, one categorical attribute and a two-valued class."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x": rng.uniform(0, 10, n).round(3),
            "k": rng.choice(["a", "b", "c"], n),
            "y": rng.choice(["no", "yes"], n),
        }
    )


@pytest.fixture(scope="session")
def _templates(tmp_path_factory) -> dict[str, Path]:
    """Valid inputs built once per session; tests get fresh copies."""
    from ppdm.cli._tree import _save_model
    from ppdm.pipeline import make_release
    from ppdm.tree import C45Classifier

    base = tmp_path_factory.mktemp("templates")
    table = base / "table.csv"
    frame = small_frame()
    frame.to_csv(table, index=False)
    rel = base / "rel"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(
            table, rel, class_attribute="y", bounds={"x": (0.0, 10.0)}, n_bins=5, random_state=1
        )
    model = base / "model.pkl"
    clf = C45Classifier().fit(frame.drop(columns=["y"]), frame["y"])
    _save_model(clf, "y", model)
    return {"table": table, "release": rel, "model": model}


@pytest.fixture
def table(tmp_path, _templates) -> Path:
    """A small valid CSV table (x in 0..10, k in a/b/c, class y) in its own directory."""
    d = tmp_path / "in"
    d.mkdir()
    path = d / "table.csv"
    shutil.copyfile(_templates["table"], path)
    return path


@pytest.fixture
def release(tmp_path, _templates) -> Path:
    """A valid substitution release of :func:`table` (x bounded 0..10 in 5 bins, class y)."""
    out = tmp_path / "rel"
    shutil.copytree(_templates["release"], out)
    return out


@pytest.fixture
def model(tmp_path, _templates) -> Path:
    """A tree model written by ``ppdm tree train`` (class y)."""
    path = tmp_path / "model.pkl"
    shutil.copyfile(_templates["model"], path)
    return path


@pytest.fixture
def network(tmp_path) -> Path:
    """A complete network file (Ma & Sivakumar's Fig. 2 network, YAML)."""
    from ppdm.bayesnet import write_network
    from ppdm_papers.bn_networks import fig2_network

    path = tmp_path / "net.yaml"
    write_network(fig2_network(), path)
    return path


@pytest.fixture
def codes(tmp_path, network) -> Path:
    """A table of 300 state codes sampled from :func:`network`."""
    from ppdm.bayesnet import read_network
    from ppdm.bayesnet.sampling import forward_sample

    path = tmp_path / "codes.csv"
    forward_sample(read_network(network), 300, random_state=2).to_csv(path, index=False)
    return path


@pytest.fixture
def bn_release(tmp_path, codes) -> Path:
    """A post-randomized release of :func:`codes` (``ppdm bn randomize``)."""
    from ppdm.bayesnet.parties import Release, write_release
    from ppdm.bayesnet.pram import PramScheme

    pram = PramScheme.from_spec(BN_SCHEME)
    frame = pd.read_csv(codes)
    released = pram.randomize(frame[list(pram.variables)], random_state=0)
    out = tmp_path / "bnrel"
    write_release(Release("site1", released, pram, None), out, fmt="csv")
    return out
