"""Count the fuzz suite's cases per class of hostile input (for docs/security.md).

Usage::

    PYTHONPATH=src python tests/fuzz/count_cases.py [--xfail] [--update-doc]

``--xfail`` also lists the cases expected to fail, with their reasons;
``--update-doc`` rewrites the table in ``docs/security.md``.

Collects ``tests/fuzz`` without running it and sums, per ``fuzz_class`` marker, the
collected items, the inputs they try (a Hypothesis property counts ``max_examples``)
and the items expected to fail today (``xfail``, listed with their reasons).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import pytest

HERE = Path(__file__).parent


class _Counter:
    def __init__(self) -> None:
        self.items: dict[str, int] = defaultdict(int)
        self.inputs: dict[str, int] = defaultdict(int)
        self.xfail: dict[str, list[tuple[str, str]]] = defaultdict(list)
        self.unclassified: list[str] = []

    def pytest_collection_modifyitems(self, session, config, items):
        for item in items:
            if item.get_closest_marker("fuzz_meta") is not None:
                continue
            mark = item.get_closest_marker("fuzz_class")
            if mark is None:
                self.unclassified.append(item.nodeid)
                continue
            name = mark.args[0]
            self.items[name] += 1
            self.inputs[name] += int(mark.kwargs.get("examples", 1))
            xf = item.get_closest_marker("xfail")
            if xf is not None:
                self.xfail[name].append((item.nodeid, xf.kwargs.get("reason", "")))


def count() -> _Counter:
    counter = _Counter()
    code = pytest.main(
        ["--collect-only", "-q", "-p", "no:cacheprovider", str(HERE)], plugins=[counter]
    )
    if code not in (0, 5):
        raise SystemExit(f"collection failed (pytest exit code {code})")
    return counter


def markdown(counter: _Counter) -> str:
    rows = ["| class of bad input | cases (collected) | inputs tried | failing today (xfail) |"]
    rows.append("|---|---:|---:|---:|")
    for name in sorted(counter.items):
        rows.append(
            f"| {name} | {counter.items[name]} | {counter.inputs[name]} | "
            f"{len(counter.xfail[name])} |"
        )
    total_items = sum(counter.items.values())
    total_inputs = sum(counter.inputs.values())
    total_xfail = sum(len(v) for v in counter.xfail.values())
    rows.append(f"| **total** | **{total_items}** | **{total_inputs}** | **{total_xfail}** |")
    return "\n".join(rows)


DOC = HERE.parents[1] / "docs" / "security.md"


def update_doc(table: str, path: Path = DOC) -> None:
    """Replace the case-count table of ``path`` (from its header to its total row)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| class of bad input |"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("| **total**"))
    lines[start : end + 1] = table.splitlines()
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str]) -> None:
    counter = count()
    print()
    table = markdown(counter)
    print(table)
    if "--update-doc" in argv:
        update_doc(table)
    if "--xfail" in argv:
        print()
        for name in sorted(counter.xfail):
            for nodeid, reason in counter.xfail[name]:
                print(f"- [{name}] {nodeid.split('::', 1)[1]}: {reason}")
    if counter.unclassified:
        print("\nunclassified items:", *counter.unclassified, sep="\n  ")
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
