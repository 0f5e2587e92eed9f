"""Run Weka's J48 on a table and read its tree back (the ``weka-j48`` reading, the tests).

Needs Java and ``weka.jar`` (Debian package ``weka``: ``/usr/share/java/weka.jar``).

References
----------
Weka 3.6, ``weka.classifiers.trees.J48``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ppdm.exceptions import DataError
from ppdm.io import write_arff as io_write_arff

__all__ = [
    "WEKA_JAR",
    "weka_available",
    "write_arff",
    "run_j48",
    "parse_j48_tree",
    "ParsedNode",
    "J48Run",
]

WEKA_JAR = Path(os.environ.get("PPDM_WEKA_JAR", "/usr/share/java/weka.jar"))


def weka_available() -> bool:
    """True when ``java`` and Weka's jar are both present."""
    return WEKA_JAR.is_file() and shutil.which("java") is not None


def write_arff(
    frame: pd.DataFrame,
    target: str,
    path: str | os.PathLike,
    *,
    categories: dict | None = None,
    classes=None,
    weights=None,
) -> None:
    """Write ``frame`` as ARFF with nominal values declared in a given order.

    Non-numeric columns are nominal, declared in ``categories[col]`` order (sorted
    values by default); the class column ``target`` is nominal, in ``classes``
    order.  Numbers are written with full precision; ``weights`` adds Weka's
    ``{w}`` instance weights. The file is written by :func:`ppdm.io.write_arff`.
    """
    cats = dict(categories or {})
    if classes is not None:
        cats[target] = list(classes)
    io_write_arff(frame, path, nominal=[target], categories=cats, weights=weights)


@dataclass
class ParsedNode:
    """A node of a tree read from J48's text: a test or a leaf."""

    attribute: str | None = None
    branches: list[tuple[str, str, ParsedNode]] = field(default_factory=list)
    label: str | None = None
    weight: float = 0.0
    errors: float = 0.0

    @property
    def is_leaf(self) -> bool:
        return self.attribute is None

    def n_nodes(self) -> int:
        return 1 + sum(b[2].n_nodes() for b in self.branches)

    def n_leaves(self) -> int:
        return 1 if self.is_leaf else sum(b[2].n_leaves() for b in self.branches)


_LINE = re.compile(
    r"^(?P<indent>(\|   )*)(?P<attr>.+?) (?P<op><=|>|=) (?P<value>.+?)(: (?P<leaf>.+))?$"
)
_LEAF = re.compile(r"^(?P<label>.+) \((?P<w>[-0-9.Ee]+)(/(?P<e>[-0-9.Ee]+))?\)$")


def _leaf(text: str) -> ParsedNode:
    m = _LEAF.match(text.strip())
    if not m:
        raise DataError(f"cannot read J48 leaf {text!r}")
    return ParsedNode(label=m["label"], weight=float(m["w"]), errors=float(m["e"] or 0.0))


def parse_j48_tree(text: str) -> ParsedNode:
    """Read the tree part of J48's output (or :func:`~ppdm.tree.export_text`) into nodes."""
    lines = text.splitlines()
    start = 0
    for i, line in enumerate(lines):
        if line.startswith("----------"):
            start = i + 1
            break
    body = []
    for line in lines[start:]:
        if line.startswith("Number of Leaves"):
            break
        if line.strip():
            body.append(line.rstrip())
    if len(body) == 1 and body[0].startswith(": "):
        return _leaf(body[0][2:])
    root = ParsedNode()
    stack = [root]  # stack[d] = node whose branches are at depth d
    for line in body:
        m = _LINE.match(line)
        if not m:
            raise DataError(f"cannot read J48 line {line!r}")
        depth = len(m["indent"]) // 4
        del stack[depth + 1 :]
        parent = stack[depth]
        parent.attribute = m["attr"]
        child = _leaf(m["leaf"]) if m["leaf"] is not None else ParsedNode()
        parent.branches.append((m["op"], m["value"], child))
        if m["leaf"] is None:
            stack.append(child)
    return root


def tree_differences(
    a: ParsedNode, b: ParsedNode, *, rtol: float = 1e-6, weights: bool = True, path: str = "root"
) -> list[str]:
    """Where two parsed trees differ (attribute, branch test, threshold, leaf class).

    With ``weights``, leaf weights and errors (printed to 2 decimals) must agree too.
    """
    if a.is_leaf != b.is_leaf:
        return [f"{path}: leaf vs test ({a.label or a.attribute} / {b.label or b.attribute})"]
    if a.is_leaf:
        if a.label != b.label:
            return [f"{path}: class {a.label} vs {b.label}"]
        if weights and (abs(a.weight - b.weight) > 0.011 or abs(a.errors - b.errors) > 0.011):
            return [f"{path}: leaf ({a.weight}/{a.errors}) vs ({b.weight}/{b.errors})"]
        return []
    if a.attribute != b.attribute:
        return [f"{path}: attribute {a.attribute} vs {b.attribute}"]
    if len(a.branches) != len(b.branches):
        return [f"{path}: {len(a.branches)} vs {len(b.branches)} branches"]
    out = []
    for (oa, va, ca), (ob, vb, cb) in zip(a.branches, b.branches):
        if oa != ob:
            out.append(f"{path}: op {oa} vs {ob}")
            continue
        if oa == "=":
            same = va == vb
        else:
            fa, fb = float(va), float(vb)
            same = abs(fa - fb) <= rtol * max(1.0, abs(fa), abs(fb))
        if not same:
            out.append(f"{path}: {a.attribute} {oa} {va} vs {vb}")
            continue
        out.extend(
            tree_differences(
                ca, cb, rtol=rtol, weights=weights, path=f"{path}/{a.attribute}{oa}{va}"
            )
        )
    return out


@dataclass
class J48Run:
    """What one J48 run reports."""

    text: str
    tree: ParsedNode
    build_seconds: float
    test_accuracy: float | None
    predictions: list[str] | None = None


def run_j48(
    train: pd.DataFrame,
    target: str,
    test: pd.DataFrame | None = None,
    *,
    options: list[str] | None = None,
    categories: dict | None = None,
    classes=None,
    weights=None,
    timeout: float = 600,
) -> J48Run:
    """Train J48 on ``train`` (class column ``target``), optionally test on ``test``.

    Returns the tree text, the parsed tree, Weka's "Time taken to build model"
    and, with ``test``, the test accuracy.
    """
    if not weka_available():
        raise FileNotFoundError(f"Weka not found ({WEKA_JAR}) or java missing; run `make weka`")
    if classes is None:
        classes = sorted(pd.unique(train[target].dropna()))
    with tempfile.TemporaryDirectory(prefix="ppdm-j48-") as tmp:
        tr = Path(tmp) / "train.arff"
        write_arff(train, target, tr, categories=categories, classes=classes, weights=weights)
        cmd = [
            "java",
            "-Xmx2g",
            "-Dfile.encoding=UTF-8",
            "-cp",
            str(WEKA_JAR),
            "weka.classifiers.trees.J48",
            "-t",
            str(tr),
        ]
        if test is not None:
            te = Path(tmp) / "test.arff"
            cats = dict(categories or {})
            for name in train.columns:
                if (
                    name != target
                    and not pd.api.types.is_numeric_dtype(train[name])
                    and name not in cats
                ):
                    cats[name] = sorted(pd.unique(train[name].dropna()), key=str)
            write_arff(test, target, te, categories=cats, classes=classes)
            cmd += ["-T", str(te)]
        else:
            cmd += ["-no-cv"]
        cmd += list(options or [])
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"J48 failed: {out.stderr.strip()[:2000]}")
    text = out.stdout
    tree_text = text.split("Time taken to build model")[0]
    m = re.search(r"Time taken to build model:\s*([0-9.]+)\s*seconds", text)
    build = float(m.group(1)) if m else float("nan")
    acc = None
    if test is not None:
        section = text.split("=== Error on test data ===")[-1]
        m = re.search(r"Correctly Classified Instances\s+\d+\s+([0-9.]+)\s*%", section)
        acc = float(m.group(1)) / 100 if m else None
    return J48Run(tree_text, parse_j48_tree(tree_text), build, acc)
