"""A real headless Chromium (Debian package ``chromium``) driving ``ppdm app``.

The browser tests skip with a warning when Chromium, Playwright or the ``app`` extra is
missing. Set ``PPDM_APP_SCREENSHOTS=DIR`` to save a PNG of every screen into DIR.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SRC = Path(__file__).resolve().parents[2] / "src"


def _missing() -> str | None:
    for module in ("shiny", "uvicorn", "playwright"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (pip install 'ppdm[app,test]')"
    if not os.path.exists(CHROMIUM):
        return "Debian package chromium is not installed (make test installs it as root)"
    return None


def _skip_if_missing() -> None:
    why = _missing()
    if why is not None:
        warnings.warn(f"app browser tests skipped: {why}", stacklevel=2)
        pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_tables(directory: Path) -> dict[str, Path]:
    """A small owner table (train), a test table and a file that is no table."""
    out = {}
    for name, seed, n in (("train", 0, 600), ("test", 1, 300)):
        rng = np.random.default_rng(seed)
        age = rng.uniform(20, 80, n).round(1)
        frame = pd.DataFrame(
            {
                "age": age,
                "salary": rng.uniform(20000, 150000, n).round(0),
                "elevel": rng.integers(0, 5, n),
                "car": rng.choice(["a", "b", "c"], n),
                "group": np.where((age < 40) | (age > 60), "A", "B"),
            }
        )
        out[name] = directory / f"{name}.csv"
        frame.to_csv(out[name], index=False)
    out["bad"] = directory / "bad.csv"
    out["bad"].write_bytes(b"\xff\xfe\x00not a table\x00\x81\x82")
    return out


@pytest.fixture(scope="session")
def tables(tmp_path_factory) -> dict[str, Path]:
    return make_tables(tmp_path_factory.mktemp("app-data"))


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """``ppdm app`` in a child process with its own temporary directory."""
    _skip_if_missing()
    tmp = tmp_path_factory.mktemp("app-tmp")
    port = _free_port()
    env = dict(
        os.environ,
        TMPDIR=str(tmp),
        PYTHONPATH=os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from ppdm.cli import main; main()",
            "app",
            "--port",
            str(port),
            "--no-browser",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            urllib.request.urlopen(url, timeout=1).read()
            break
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stdout.read().decode(errors="replace")) from None
            time.sleep(0.2)
    yield {"url": url, "tmp": tmp, "proc": proc}
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="session")
def browser(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """A fresh browser context (a new session) on the app; records requests leaving it."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    outside: list[str] = []
    pg.on(
        "request",
        lambda r: (
            outside.append(r.url)
            if not r.url.startswith(server["url"]) and not r.url.startswith(("data:", "blob:"))
            else None
        ),
    )
    pg.outside_requests = outside
    pg.goto(server["url"])
    pg.wait_for_selector("#data-o_file")
    yield pg
    context.close()


@pytest.fixture
def shot():
    """``shot(page, name[, selector])``: a PNG of the window (or of the card holding
    ``selector``) when PPDM_APP_SCREENSHOTS is set."""
    target = os.environ.get("PPDM_APP_SCREENSHOTS")

    def take(pg, name: str, selector: str | None = None) -> None:
        if not target:
            return
        Path(target).mkdir(parents=True, exist_ok=True)
        path = str(Path(target) / f"{name}.png")
        pg.wait_for_timeout(300)
        if selector:  # the card holding this element
            card = pg.locator(selector).locator(
                "xpath=ancestor::div[contains(concat(' ', normalize-space(@class), ' '), ' card ')][1]"
            )
            card.screenshot(path=path)
        else:
            pg.evaluate("window.scrollTo(0, 0)")
            pg.screenshot(path=path)

    return take


@pytest.fixture
def fits():
    """``fits(page, selector)``: assert the element's right edge is within its card's
    content and the card within the window."""

    def check(pg, selector: str) -> None:
        right = pg.eval_on_selector(
            selector,
            """t => {
                const body = t.closest('.card-body');
                const pad = parseFloat(getComputedStyle(body).paddingRight);
                return [t.getBoundingClientRect().right,
                        body.getBoundingClientRect().right - pad, window.innerWidth];
            }""",
        )
        element, content, viewport = right
        assert element <= content + 0.5 and content <= viewport, (selector, right)

    return check
