"""Text export of a fitted C4.5 tree in J48's layout, and rule extraction.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 5 (rules).
Weka J48 (``ClassifierTree.toString``), Weka 3.6; C5.0 rule output ("(248/8)").
"""

from __future__ import annotations

from dataclasses import dataclass

from ._compare import SMALL, gr
from .splitter import _max_class

__all__ = ["Condition", "Rule", "export_text", "extract_rules", "format_rules"]


def format_threshold(value: float) -> str:
    """A split point as J48 prints it: rounded to 6 decimals, trailing zeros dropped."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _format_weight(value: float) -> str:
    # Java's Double.toString of Utils.roundDouble(value, 2)
    return repr(round(float(value) + 0.0, 2))


def _leaf_text(tree, node: int, parent: int | None, classes) -> str:
    v = tree.value[node]
    total = float(v.sum())
    if total <= SMALL and parent is not None:
        # an empty leaf is labelled with its parent's majority class
        return f"{classes[_max_class(tree.value[parent])]} ({_format_weight(0.0)})"
    errors = total - float(v[_max_class(v)])
    text = f"{classes[_max_class(v)]} ({_format_weight(total)}"
    if gr(errors, 0.0):
        text += f"/{_format_weight(errors)}"
    return text + ")"


def _branch_text(clf, node: int, k: int) -> str:
    tree = clf.tree_
    f = int(tree.feature[node])
    name = clf.feature_names_[f]
    if tree.categorical[node]:
        return f"{name} = {clf.categories_[f][k]}"
    op = "<=" if k == 0 else ">"
    return f"{name} {op} {format_threshold(tree.threshold[node])}"


def export_text(clf, *, header: bool = True) -> str:
    """The tree as J48 prints it.

    Parameters
    ----------
    clf : C45Classifier
        A fitted classifier.
    header : bool, default=True
        Include J48's "J48 pruned tree" banner and the leaf / size counts.

    Returns
    -------
    str
        One line per branch, ``|   `` per level; each leaf shows
        ``class (n/errors)`` with its training weight and errors.

    References
    ----------
    Weka J48 ``ClassifierTree.toString``.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.tree import C45Classifier
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> clf = C45Classifier(min_leaf=1).fit(X, [0, 0, 0, 1, 1, 1])
    >>> print(export_text(clf, header=False))
    x0 <= 3: 0 (3.0)
    x0 > 3: 1 (3.0)
    """
    tree = clf.tree_
    classes = clf.classes_
    lines: list[str] = []
    if tree.feature[0] < 0:
        lines.append(": " + _leaf_text(tree, 0, None, classes))
    else:
        stack = [(0, 0, 0)]
        while stack:
            node, k, depth = stack.pop()
            kids = tree.child_ids(node)
            if k + 1 < kids.size:
                stack.append((node, k + 1, depth))
            child = int(kids[k])
            text = "|   " * depth + _branch_text(clf, node, k)
            if tree.feature[child] < 0:
                lines.append(text + ": " + _leaf_text(tree, child, node, classes))
            else:
                lines.append(text)
                stack.append((child, 0, depth + 1))
    body = "\n".join(lines)
    if not header:
        return body
    title = "J48 unpruned tree" if getattr(clf, "unpruned", False) else "J48 pruned tree"
    return (
        f"{title}\n------------------\n\n{body}\n\n"
        f"Number of Leaves  : \t{tree.n_leaves}\n\nSize of the tree : \t{tree.n_nodes}\n"
    )


@dataclass(frozen=True)
class Condition:
    """One test on a rule's path: ``attribute op value`` (op is ``<=``, ``>`` or ``=``)."""

    attribute: str
    op: str
    value: object

    def __str__(self) -> str:
        v = format_threshold(self.value) if self.op != "=" else self.value
        return f"{self.attribute} {self.op} {v}"


@dataclass(frozen=True)
class Rule:
    """A root-to-leaf path read as ``if conditions then class``.

    Attributes
    ----------
    conditions : tuple of Condition
    label : object
        The leaf's class.
    coverage : float
        Training weight reaching the leaf (C5's first number in "(248/8)").
    errors : float
        Training weight at the leaf of another class (the second number).
    """

    conditions: tuple[Condition, ...]
    label: object
    coverage: float
    errors: float

    @property
    def path(self) -> tuple[tuple[str, str], ...]:
        """The attributes and operators along the path (thresholds left out)."""
        return tuple((c.attribute, c.op) for c in self.conditions)

    def __str__(self) -> str:
        cond = " and ".join(str(c) for c in self.conditions) or "true"
        return f"if {cond} then {self.label} ({_format_count(self.coverage, self.errors)})"


def _format_count(coverage: float, errors: float) -> str:
    def num(v):
        return f"{v:g}" if abs(v - round(v)) < 1e-9 else f"{v:.1f}"

    return f"{num(coverage)}/{num(errors)}" if errors > SMALL else num(coverage)


def extract_rules(clf, *, include_empty: bool = False) -> list[Rule]:
    """Root-to-leaf rules of a fitted tree, in the order J48 prints the leaves.

    Parameters
    ----------
    clf : C45Classifier
    include_empty : bool, default=False
        Also return rules of leaves no training instance reached.

    Returns
    -------
    list of Rule

    References
    ----------
    Quinlan (1993), C4.5, ch. 5; Islam & Brankovic (logic rules of two trees).

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.tree import C45Classifier
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> clf = C45Classifier(min_leaf=1).fit(X, [0, 0, 0, 1, 1, 1])
    >>> [str(r) for r in extract_rules(clf)]
    ['if x0 <= 3 then 0 (3)', 'if x0 > 3 then 1 (3)']
    """
    tree = clf.tree_
    names = clf.feature_names_
    rules: list[Rule] = []
    stack: list[tuple[int, tuple[Condition, ...], int | None]] = [(0, (), None)]
    while stack:
        node, conds, parent = stack.pop()
        if tree.feature[node] < 0:
            v = tree.value[node]
            total = float(v.sum())
            if total <= SMALL and not include_empty:
                continue
            src = v if total > SMALL or parent is None else tree.value[parent]
            k = _max_class(src)
            rules.append(
                Rule(conds, clf.classes_[k], total, total - float(v[k]) if total > SMALL else 0.0)
            )
            continue
        f = int(tree.feature[node])
        kids = tree.child_ids(node)
        for k in range(kids.size - 1, -1, -1):
            if tree.categorical[node]:
                c = Condition(names[f], "=", clf.categories_[f][k])
            else:
                c = Condition(names[f], "<=" if k == 0 else ">", float(tree.threshold[node]))
            stack.append((int(kids[k]), conds + (c,), node))
    return rules


def format_rules(rules: list[Rule]) -> str:
    """Rules in C5's layout: ``Rule i: (n/errors)``, one condition per line, ``-> class``.

    Examples
    --------
    >>> print(format_rules([Rule((Condition("a", "<=", 2.0),), "x", 248.0, 8.0)]))
    Rule 1: (248/8)
        a <= 2
        ->  class x
    """
    out = []
    for i, r in enumerate(rules, 1):
        out.append(f"Rule {i}: ({_format_count(r.coverage, r.errors)})")
        out.extend(f"    {c}" for c in r.conditions)
        out.append(f"    ->  class {r.label}")
    return "\n".join(out)
