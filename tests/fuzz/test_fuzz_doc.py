"""docs/security.md states the suite's case counts: they must be the counts of the suite."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import ppdm

HERE = Path(__file__).parent
DOC = HERE.parents[1] / "docs" / "security.md"


@pytest.mark.fuzz_meta
def test_security_doc_counts_match_the_suite():
    if not DOC.exists():
        pytest.skip("docs/security.md is not in this tree")
    env = dict(os.environ)
    src = str(Path(ppdm.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, str(HERE), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, str(HERE / "count_cases.py")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert len(table) > 3
    doc = DOC.read_text(encoding="utf-8")
    missing = [line for line in table if line not in doc]
    assert not missing, "docs/security.md is out of date; rerun count_cases.py:\n" + "\n".join(
        missing
    )
