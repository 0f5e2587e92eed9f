"""Comparing two C4.5 trees by their logic rules (Islam & Brankovic).

E.g. a tree learnt from the original data against one from a perturbed or reconstructed
release: roots, shared attributes, matching rules and prediction agreement (docs/tree.md).

References
----------
Islam, M. Z. & Brankovic, L. (2011). Privacy preserving data mining: a noise
addition framework using a novel clustering technique. Knowledge-Based Systems 24(8)
(comparison of the logic rules of decision trees).
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, ch. 5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import zip_longest

import numpy as np

from ..exceptions import ParameterError
from ..fields import fields_dict
from ..validation import check_at_least
from .export import Rule, _format_count, extract_rules

__all__ = ["TreeComparison", "compare_trees", "rules_match"]


def rules_match(a: Rule, b: Rule, scales: dict[str, float], tolerance: float) -> bool:
    """Whether two rules have the same path, operators, categories and class, and
    thresholds within ``tolerance`` times the attribute's value range in ``scales``."""
    if a.label != b.label or a.path != b.path:
        return False
    for ca, cb in zip(a.conditions, b.conditions):
        if ca.op == "=":
            if ca.value != cb.value:
                return False
        else:
            scale = scales.get(ca.attribute) or max(abs(ca.value), abs(cb.value), 1.0)
            if abs(ca.value - cb.value) > tolerance * scale:
                return False
    return True


@dataclass
class TreeComparison:
    """How similar two trees are (:func:`compare_trees`).

    ``root_a``/``root_b`` is None for a one-leaf tree; ``matches`` pairs indices into
    ``rules_a`` and ``rules_b``; ``agreement`` is the share of the ``n_rows`` given rows on
    which both predict the same class.
    """

    root_a: str | None
    root_b: str | None
    same_root: bool
    attributes_a: list[str]
    attributes_b: list[str]
    shared_attributes: list[str]
    rules_a: list[Rule]
    rules_b: list[Rule]
    matches: list[tuple[int, int]] = field(default_factory=list)
    tolerance: float = 0.05
    agreement: float | None = None
    n_rows: int | None = None

    @property
    def matched_fraction(self) -> float:
        """Matched rules over the rules of the larger tree."""
        n = max(len(self.rules_a), len(self.rules_b))
        return len(self.matches) / n if n else 1.0

    def to_dict(self) -> dict:
        """A JSON-ready summary (rules as strings)."""
        return {
            **fields_dict(
                self, "root_a root_b same_root attributes_a attributes_b shared_attributes"
            ),
            "n_rules_a": len(self.rules_a),
            "n_rules_b": len(self.rules_b),
            "matching_rules": [
                [str(self.rules_a[i]), str(self.rules_b[j])] for i, j in self.matches
            ],
            "matched_fraction": self.matched_fraction,
            "threshold_tolerance": self.tolerance,
            "prediction_agreement": self.agreement,
            "n_rows": self.n_rows,
            "rules_a": [str(r) for r in self.rules_a],
            "rules_b": [str(r) for r in self.rules_b],
        }

    def to_text(self, width: int = 60) -> str:
        """A similarity report with the two rule sets side by side."""
        lines = [
            f"root:               {self.root_a or '(leaf)'} | {self.root_b or '(leaf)'}"
            f"  -> {'same' if self.same_root else 'different'}",
            f"shared attributes:  {', '.join(self.shared_attributes) or '(none)'}",
            f"only in A:          {', '.join(sorted(set(self.attributes_a) - set(self.attributes_b))) or '(none)'}",
            f"only in B:          {', '.join(sorted(set(self.attributes_b) - set(self.attributes_a))) or '(none)'}",
            f"rules:              {len(self.rules_a)} | {len(self.rules_b)}; "
            f"{len(self.matches)} match (thresholds within {self.tolerance:g} of the range)",
        ]
        if self.agreement is not None:
            lines.append(f"prediction agreement: {self.agreement:.4f} on {self.n_rows} rows")
        lines.append("")
        matched_a = {i for i, _ in self.matches}
        matched_b = {j for _, j in self.matches}
        pairs = [(self.rules_a[i], self.rules_b[j], "=") for i, j in self.matches]
        rest_a = [r for i, r in enumerate(self.rules_a) if i not in matched_a]
        rest_b = [r for j, r in enumerate(self.rules_b) if j not in matched_b]
        pairs += [(ra, rb, " ") for ra, rb in zip_longest(rest_a, rest_b)]
        lines.append(f"{'A':<{width}}   B")
        lines.append("-" * (2 * width + 3))
        for ra, rb, mark in pairs:
            rows = zip_longest(_rule_lines(ra), _rule_lines(rb), fillvalue="")
            for k, (la, lb) in enumerate(rows):
                lines.append(f"{la:<{width}} {mark if k == 0 else ' '} {lb}")
        return "\n".join(lines)


def _rule_lines(rule: Rule | None) -> list[str]:
    if rule is None:
        return []
    head = f"-> {rule.label} ({_format_count(rule.coverage, rule.errors)})"
    return [f"  {c}" for c in rule.conditions] + [head]


def _used_attributes(clf) -> list[str]:
    return sorted({clf.feature_names_[f] for f in clf.tree_.feature if f >= 0})


def compare_trees(a, b, X=None, *, tolerance: float = 0.05) -> TreeComparison:
    """Compare two fitted trees by root, attributes, matching rules and predictions.

    Parameters
    ----------
    a, b : C45Classifier
        Fitted on tables with the same columns (e.g. original vs reconstructed).
    X : DataFrame or array-like, optional
        Rows on which to measure prediction agreement.
    tolerance : float, default=0.05
        Thresholds match when they differ by at most this fraction of the
        attribute's value range (over both training sets).

    Returns
    -------
    TreeComparison

    References
    ----------
    Islam & Brankovic (2011), comparison of decision-tree logic rules.

    Examples
    --------
    >>> import numpy as np
    >>> from ppdm.tree import C45Classifier
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [12.0]])
    >>> a = C45Classifier(min_leaf=1).fit(X, [0, 0, 0, 1, 1, 1])
    >>> b = C45Classifier(min_leaf=1).fit(X + 0.2, [0, 0, 0, 1, 1, 1])
    >>> r = compare_trees(a, b, X)
    >>> r.same_root, len(r.matches), r.agreement
    (True, 2, 1.0)
    """
    check_at_least(tolerance, "tolerance", 0, error=ParameterError)
    rules_a, rules_b = extract_rules(a), extract_rules(b)
    root_a = a.feature_names_[a.tree_.feature[0]] if a.tree_.feature[0] >= 0 else None
    root_b = b.feature_names_[b.tree_.feature[0]] if b.tree_.feature[0] >= 0 else None
    scales: dict[str, float] = {}
    for name in set(a.feature_names_) | set(b.feature_names_):
        ranges = [r for c in (a, b) if (r := getattr(c, "value_ranges_", {}).get(name))]
        if ranges:
            lo = min(r[0] for r in ranges)
            hi = max(r[1] for r in ranges)
            if hi > lo:
                scales[name] = hi - lo
    matches: list[tuple[int, int]] = []
    taken: set[int] = set()
    for i, ra in enumerate(rules_a):
        for j, rb in enumerate(rules_b):
            if j not in taken and rules_match(ra, rb, scales, tolerance):
                matches.append((i, j))
                taken.add(j)
                break
    attrs_a, attrs_b = _used_attributes(a), _used_attributes(b)
    agreement = n_rows = None
    if X is not None:
        pa, pb = a.predict(X), b.predict(X)
        n_rows = int(len(pa))
        agreement = float(np.mean(pa == pb)) if n_rows else None
    return TreeComparison(
        root_a=root_a,
        root_b=root_b,
        same_root=root_a == root_b,
        attributes_a=attrs_a,
        attributes_b=attrs_b,
        shared_attributes=sorted(set(attrs_a) & set(attrs_b)),
        rules_a=rules_a,
        rules_b=rules_b,
        matches=matches,
        tolerance=tolerance,
        agreement=agreement,
        n_rows=n_rows,
    )
