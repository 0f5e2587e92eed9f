"""Text export of a fitted C4.5 tree in J48's layout, and rule extraction.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 5 (rules).
Weka J48 (``ClassifierTree.toString``), Weka 3.6; C5.0 rule output ("(248/8)").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import ParameterError
from ..validation import check_choice
from ._compare import SMALL, gr
from .splitter import _max_class

__all__ = [
    "Condition",
    "Rule",
    "export_release_text",
    "export_text",
    "extract_rules",
    "format_rules",
]


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
    >>> import pandas as pd
    >>> from ppdm.tree import C45Classifier
    >>> X = pd.DataFrame({"age": [23, 35, 41, 52, 60, 67]})
    >>> clf = C45Classifier(min_leaf=1).fit(X, ["low", "low", "low", "high", "high", "high"])
    >>> print(export_text(clf, header=False))
    age <= 41: low (3.0)
    age > 41: high (3.0)
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
    >>> from ppdm.tree import C45Classifier
    >>> X = [[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]]
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


def _label(value) -> str:
    return str(value.item() if isinstance(value, np.generic) else value)


def _class_counts(clf, node: int, parent: int | None) -> str:
    """``{c: estimated count, ...}`` of a leaf, recovered from its stored distribution
    ``(counts + s * parent) / (total + s)``, ``s = prior_strength``."""
    t = clf.tree_
    dist = np.asarray(t.value[node], dtype=float)
    if parent is None:
        counts = dist * t.count[node]
    else:
        s = float(getattr(clf, "prior_strength", 0.0))
        counts = dist * (t.count[node] + s) - s * np.asarray(t.value[parent], dtype=float)
    counts = np.clip(counts, 0.0, None) + 0.0
    return "{" + ", ".join(f"{_label(c)}: {x:.1f}" for c, x in zip(clf.classes_, counts)) + "}"


def _class_shares(classes, dist: np.ndarray) -> str:
    return "{" + ", ".join(f"{_label(c)}: {p:.3f}" for c, p in zip(classes, dist)) + "}"


def _code_groups(probs: np.ndarray, allowed: np.ndarray) -> list[np.ndarray]:
    """Runs of adjacent allowed codes whose probabilities agree in every class: the groups
    :func:`~ppdm.tree.release_nb.coarsen` made."""
    codes = np.flatnonzero(allowed)
    close = np.isclose(probs[:, codes[1:]], probs[:, codes[:-1]], rtol=1e-9, atol=1e-15)
    joined = (np.diff(codes) == 1) & close.all(axis=0)
    return np.split(codes, np.flatnonzero(~joined) + 1)


def _nb_lines(clf, node: int, box: list, path: str, detail: str) -> list[str]:
    """The naive Bayes model of one leaf: per attribute its code groups and what they say."""
    t = clf.tree_
    names = clf.feature_names_
    classes = clf.classes_
    prior = np.asarray(t.value[node], dtype=float)
    logp = t.nb_logp[t.nb_slot[node]]
    lines = [f"[{int(t.nb_slot[node]) + 1}] {path or 'all records'}"]
    lines.append(f"    class prior: {_class_shares(classes, prior)}")
    for j, coder in enumerate(clf.coders_):
        n_j = coder.n_values
        allowed = np.ones(n_j, bool) if box[j] is None else box[j][:n_j]
        probs = np.exp(logp[j, :, :n_j]) * allowed
        groups = _code_groups(probs, allowed)
        if len(groups) <= 1:
            where = "any value" if box[j] is None else coder.test_text(names[j], allowed)
            lines.append(f"    {names[j]}: one group ({where}), no information")
            continue
        texts = [coder.test_text(names[j], np.isin(np.arange(n_j), g)) for g in groups]
        # P(group | class): the codes' probabilities summed over the group
        pg = np.stack([probs[:, g].sum(axis=1) for g in groups], axis=1)  # (C, G)
        if detail == "table":
            width = max(len(x) for x in texts)
            cw = max(6, *(len(_label(c)) for c in classes))
            head = " " * (8 + width) + " ".join(f"{_label(c):>{cw}}" for c in classes)
            lines.append(f"    {names[j]}: P(group | class), {len(groups)} groups")
            lines.append(head)
            for i, text in enumerate(texts):
                row = " ".join(f"{pg[c, i]:>{cw}.3f}" for c in range(len(classes)))
                lines.append(f"        {text:<{width}}{row}")
            continue
        # the class each group favours: P(class | group) from the leaf's prior
        post = prior[:, None] * pg
        post = post / np.maximum(post.sum(axis=0, keepdims=True), 1e-300)
        parts = [
            f"{text} -> {_label(classes[int(np.argmax(post[:, i]))])} ({post[:, i].max():.2f})"
            for i, text in enumerate(texts)
        ]
        lines.append(f"    {names[j]} ({len(groups)} groups): " + "; ".join(parts))
    return lines


def export_release_text(clf, *, conditionals: str = "summary") -> str:
    """:meth:`ppdm.tree.ReleaseTreeClassifier.export_text` of the fitted release tree ``clf``.

    References
    ----------
    Kohavi (1996), NBTree (naive Bayes leaves); Dowd, Xu & Zhang, Eq. (1) (estimated
    counts); Weka J48 ``ClassifierTree.toString`` (layout).
    """
    check_choice(conditionals, "conditionals", ("summary", "table", "none"), error=ParameterError)
    t = clf.tree_
    names = clf.feature_names_
    classes = clf.classes_
    nb = t.nb_logp is not None
    lines: list[str] = []
    models: list[str] = []
    boxes: list = [None] * len(clf.coders_)

    def leaf(node: int, path: str, parent: int | None) -> str:
        size = f"est. {t.count[node]:.1f}, n_eff {t.n_eff[node]:.1f}"
        if nb:
            if conditionals != "none":
                models.extend(_nb_lines(clf, node, list(boxes), path, conditionals))
            k = int(t.nb_slot[node]) + 1
            return f"naive Bayes [{k}] ({size}) prior {_class_shares(classes, t.value[node])}"
        cls = _label(classes[int(np.argmax(t.value[node]))])
        return f"{cls} ({size}) {_class_counts(clf, node, parent)}"

    def walk(node: int, depth: int, path: list[str]) -> None:
        j = int(t.feature[node])
        n_j = clf.coders_[j].n_values
        allowed = np.ones(n_j, bool) if boxes[j] is None else boxes[j]
        saved = boxes[j]
        go_left = t.mask[node, :n_j]
        for left in (True, False):
            child = int(t.left[node] if left else t.right[node])
            boxes[j] = allowed & (go_left if left else ~go_left)
            test = clf.coders_[j].test_text(names[j], boxes[j])
            head = "|   " * depth + test
            if t.feature[child] < 0:
                lines.append(f"{head}: {leaf(child, ' and '.join(path + [test]), node)}")
            else:
                lines.append(head)
                walk(child, depth + 1, path + [test])
        boxes[j] = saved

    if t.feature[0] < 0:
        lines.append(f": {leaf(0, '', None)}")
    else:
        walk(0, 0, [])
    lines += ["", f"Number of Leaves  : {t.n_leaves}", f"Size of the tree : {t.n_nodes}"]
    if models:
        what = (
            "per attribute, P(group | class)"
            if conditionals == "table"
            else "per attribute, group -> the class it favours (P(class | group) in the leaf)"
        )
        lines += [
            "",
            "Naive Bayes leaves: P(class | x) ~ prior(class) * prod_j P(x_j | class);",
            f"{what}; adjacent codes with equal probabilities form a group.",
        ]
        lines += models
    return "\n".join(lines)
