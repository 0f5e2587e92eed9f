"""Every example in README.md and docs/*.md runs as printed.

Fenced blocks are executed in document order, one fresh directory per document:

- ``sh`` / ``bash`` blocks run in bash with ``set -e`` (``make`` and ``pip install`` lines are
  the set-up the test environment has already done, and are skipped);
- ``yaml`` / ``json`` blocks are parsed and validated as what they are (a release spec, a
  Bayesian network or a PRAM scheme); a block whose first line is a comment ``# NAME.yaml``
  is also saved under that name for the commands after it;
- ``python`` blocks are executed, sharing one namespace per document.

Blocks fenced as ``text`` (command synopses, output) are documentation only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(
    r"^(?P<indent>[ \t]*)```(?P<lang>[\w+-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
    re.S | re.M,
)
RUNNABLE = {"sh", "bash", "yaml", "yml", "json", "python"}
SETUP = re.compile(r"^\s*(make\b|pip install\b|python3? -m pip install\b)")


def blocks(path: Path) -> list[tuple[str, str, int]]:
    """(language, code, line) of every fenced block of ``path``."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        indent = m.group("indent")
        body = "\n".join(
            line[len(indent) :] if line.startswith(indent) else line
            for line in m.group("body").splitlines()
        )
        out.append((m.group("lang").lower(), body, text[: m.start()].count("\n") + 1))
    return out


def _validate_yaml(obj, where: str, tmp: Path, name: str | None) -> None:
    from ppdm.release import read_spec

    if not isinstance(obj, dict):
        raise AssertionError(f"{where}: a YAML/JSON example must be a mapping")
    path = tmp / (name or "_example.yaml")
    if name is None:
        path.write_text(json.dumps(obj))
        path = path.with_suffix(".json")
        path.write_text(json.dumps(obj))
    if "attributes" in obj:
        read_spec(path)
    elif "nodes" in obj:
        from ppdm.bayesnet.files import read_network

        read_network(path)
    elif "randomize" in obj or "party" in obj or "variables" in obj:
        from ppdm.bayesnet.network import read_mapping
        from ppdm.bayesnet.pram import PramScheme

        PramScheme.from_spec(read_mapping(path))
    elif "distributed" in obj:  # a Dask configuration: every key must be one Dask has
        import dask
        import distributed  # noqa: F401 - loads the distributed.* defaults

        def keys(d, prefix=""):
            for k, v in d.items():
                yield from keys(v, f"{prefix}{k}.") if isinstance(v, dict) else [prefix + k]

        for key in keys(obj):
            dask.config.get(key)  # KeyError for a key Dask does not have
    else:
        raise AssertionError(f"{where}: unknown kind of YAML/JSON example: {sorted(obj)}")


def _run_doc(path: Path, tmp: Path) -> int:
    import yaml

    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["MPLBACKEND"] = "Agg"
    namespace: dict = {"__name__": "__docs__"}
    ran = 0
    for lang, code, line in blocks(path):
        if lang not in RUNNABLE:
            continue
        where = f"{path.name}:{line}"
        if lang in ("sh", "bash"):
            script = "\n".join(
                "# (set-up, done by the test environment) " + ln if SETUP.match(ln) else ln
                for ln in code.splitlines()
            )
            proc = subprocess.run(
                ["bash", "-e", "-o", "pipefail", "-c", script],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert proc.returncode == 0, (
                f"{where}: shell example failed ({proc.returncode}):\n{script}\n"
                f"--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n{proc.stderr[-3000:]}"
            )
        elif lang in ("yaml", "yml", "json"):
            first = code.lstrip().splitlines()[0] if code.strip() else ""
            m = re.match(r"#\s*([\w.-]+\.(?:ya?ml|json))\s*$", first)
            name = m.group(1) if m else None
            obj = yaml.safe_load(code) if lang != "json" else json.loads(code)
            if name:
                (tmp / name).write_text(code, encoding="utf-8")
            _validate_yaml(obj, where, tmp, name)
        else:
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                exec(compile(code, where, "exec"), namespace)  # noqa: S102
            finally:
                os.chdir(cwd)
        ran += 1
    return ran


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_examples_run(path, tmp_path):
    _run_doc(path, tmp_path)


def test_the_fence_reader_finds_indented_blocks(tmp_path):
    doc = tmp_path / "x.md"
    doc.write_text("- item\n\n  ```yaml\n  a: 1\n  ```\n\n```sh\necho hi\n```\n")
    assert blocks(doc) == [("yaml", "a: 1", 3), ("sh", "echo hi", 7)]
