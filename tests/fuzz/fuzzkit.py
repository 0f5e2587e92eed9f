"""Shared checks of the fuzz suite: what every refused (or accepted) hostile input must leave.

Every case states the files it gives ``ppdm`` and the outputs it names; the checks are

* the exit code (:data:`USAGE` for a bad flag, :data:`FAILURE` for bad input data);
* stderr holds exactly one line starting ``error:`` (besides ``warning:``,
  ``privacy warning:`` and ``note:`` lines) and no ``Traceback`` anywhere;
* every input is byte for byte as before (sha256 of every file under it);
* every output is absent or unchanged, with no hidden ``.NAME.ppdm-*`` work left beside it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "corpus"

#: Exit codes of a usage error (a bad flag or flag value).
USAGE = frozenset({2})
#: Exit codes of a failure on bad input data (files, releases, models).
FAILURE = frozenset({1})
#: Exit codes of a refusal whatever its kind.
REFUSED = USAGE | FAILURE

NOTE_PREFIXES = ("warning:", "privacy warning:", "note:")


def fuzz_class(name: str, examples: int = 1) -> pytest.MarkDecorator:
    """Mark a test as covering the class of hostile input ``name``.

    ``examples`` is the number of inputs one collected item tries (a Hypothesis
    property tries ``max_examples``); :mod:`count_cases` sums them per class.
    """
    return pytest.mark.fuzz_class(name, examples=examples)


#: Reasons of cases that used to fail and pass now: their marks are dropped.
FIXED: set[str] = set()


def xfail_until(reason: str) -> pytest.MarkDecorator:
    """A case that fails today: strict, so it is noticed the day it passes."""
    if reason in FIXED:
        return pytest.mark.fuzz_fixed(reason)  # informational only: the case must pass
    return pytest.mark.xfail(strict=True, reason=reason)


def _digest_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digest(path: str | os.PathLike) -> dict[str, str] | None:
    """A fingerprint of ``path`` and everything under it; ``None`` if it does not exist.

    Files are hashed, links recorded by target (never followed), FIFOs and devices by
    kind, so taking a fingerprint never blocks or reads a device.
    """
    path = Path(path)
    out: dict[str, str] = {}

    def visit(p: Path, rel: str) -> None:
        try:
            st = p.lstat()
        except FileNotFoundError:
            return
        mode = st.st_mode
        if stat.S_ISLNK(mode):
            out[rel] = "link:" + os.readlink(p)
        elif stat.S_ISDIR(mode):
            out[rel] = f"dir:{stat.S_IMODE(mode):o}"
            for child in sorted(p.iterdir()):
                visit(child, f"{rel}/{child.name}")
        elif stat.S_ISREG(mode):
            out[rel] = _digest_file(p)
        else:
            out[rel] = f"special:{stat.S_IFMT(mode):o}"

    visit(path, ".")
    return out or None


def leftovers(path: str | os.PathLike) -> list[str]:
    """Hidden work (``.NAME.ppdm-*``) left beside ``path``."""
    path = Path(os.path.abspath(path))
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    return sorted(e.name for e in entries if e.name.startswith(f".{path.name}.ppdm-"))


@dataclass
class Snapshot:
    """Fingerprints of a command's inputs and outputs, taken before it runs."""

    inputs: Sequence[str | os.PathLike] = ()
    outputs: Sequence[str | os.PathLike] = ()
    before_in: dict = field(init=False)
    before_out: dict = field(init=False)

    def __post_init__(self) -> None:
        self.before_in = {str(p): digest(p) for p in self.inputs}
        self.before_out = {str(p): digest(p) for p in self.outputs}

    def assert_inputs_unchanged(self) -> None:
        for p, before in self.before_in.items():
            assert digest(p) == before, f"input {p} was modified"

    def assert_outputs_unchanged(self) -> None:
        for p, before in self.before_out.items():
            assert digest(p) == before, f"output {p} was written by a refused run"
            assert leftovers(p) == [], f"hidden work left beside {p}: {leftovers(p)}"


def _tail(text: str, lines: int = 2) -> str:
    """The last lines of a traceback: the exception, for a failure message."""
    return "traceback ending: " + " | ".join(text.strip().splitlines()[-lines:])[-600:]


def error_lines(stderr: str) -> list[str]:
    """The lines of ``stderr`` that are not warnings or notes."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    return [line for line in lines if not line.startswith(NOTE_PREFIXES)]


def assert_one_error_line(code: int, stdout: str, stderr: str, codes: Iterable[int]) -> None:
    """Exit code in ``codes``, no traceback, exactly one ``error:`` line on stderr."""
    codes = frozenset(codes)
    assert "Traceback" not in stderr and "Traceback" not in stdout, _tail(stderr)
    assert code in codes, f"exit code {code}, expected one of {sorted(codes)}; stderr: {stderr!r}"
    errors = error_lines(stderr)
    assert len(errors) == 1, f"expected one error line, got {len(errors)}: {stderr[:1500]!r}"
    assert errors[0].startswith("error: "), errors[0]
    assert len(errors[0]) < 2000, f"error line of {len(errors[0])} characters"


def assert_refused(
    result: tuple[int, str, str], snap: Snapshot, codes: Iterable[int] = FAILURE
) -> str:
    """The run was refused cleanly; return its error line."""
    code, stdout, stderr = result
    assert_one_error_line(code, stdout, stderr, codes)
    snap.assert_inputs_unchanged()
    snap.assert_outputs_unchanged()
    return error_lines(stderr)[0]


def assert_clean(
    result: tuple[int, str, str], snap: Snapshot, codes: Iterable[int] = FAILURE
) -> bool:
    """Either success (exit 0, no traceback, inputs unchanged) or a clean refusal.

    Returns True on success, so the caller can check what was written.
    """
    code, stdout, stderr = result
    if code == 0:
        assert "Traceback" not in stderr and "Traceback" not in stdout, _tail(stderr)
        assert error_lines(stderr) == [], stderr[:1500]
        snap.assert_inputs_unchanged()
        for p in snap.outputs:
            assert leftovers(p) == [], f"hidden work left beside {p}: {leftovers(p)}"
        return True
    assert_refused(result, snap, codes)
    return False


#: A PRAM scheme for the Asia network's variables (``ppdm bn randomize --scheme``).
BN_SCHEME = {
    "party": "site1",
    "variables": {
        "A": 2,
        "S": 2,
        "T": 2,
        "L": 3,
        "B": 3,
        "E": 2,
        "X": 2,
        "D": 2,
        "C": 2,
        "F": 2,
        "G": 2,
    },
    "randomize": [{"variables": ["A"], "matrix": {"kind": "symmetric-binary", "p": 0.25}}],
}
