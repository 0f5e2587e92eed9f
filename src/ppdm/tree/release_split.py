"""Split search of the release tree: every threshold of an attribute from one histogram.

Cumulative sums of the estimated class counts per original code give both sides of every
threshold at once, with their unbiased variances (docs/release_tree.md, Split search).

References
----------
Dowd, Xu & Zhang, Eq. (1); Ma & Sivakumar, Sec. 4; Quinlan (1993), C4.5, ch. 2;
Breiman et al. (1984), Sec. 4.2.2 (ordering categories for binary subset splits).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .criterion import info_gain, split_info
from .release_coding import ReleaseData

__all__ = ["SplitCandidate", "SplitRules", "best_split", "search_attribute"]

_LN2 = np.log(2.0)


@dataclass(frozen=True)
class SplitRules:
    """What a split must satisfy (see :class:`~ppdm.tree.ReleaseTreeClassifier`)."""

    min_leaf: float
    z: float
    g_crit: float
    min_neff: float
    criterion: str


@dataclass
class SplitCandidate:
    """The best threshold of one attribute at a node.

    Attributes
    ----------
    gain, score : float
        Entropy gain (or Gini decrease) and the score that ranks candidates (gain ratio
        or Gini decrease).
    feature : int
    order : int array
        The node's codes of the attribute, in split order.
    threshold : int
        ``order[:threshold]`` goes left.
    cum : float array (N, k + 1)
        Column t: weights ``v_I`` of the prefix ``order[:t]``.
    others : float array (n,)
        Per record, the product of the other attributes' factors.
    """

    gain: float
    score: float
    feature: int
    order: np.ndarray
    threshold: int
    cum: np.ndarray
    others: np.ndarray

    def masks(self, n_values: int) -> tuple[np.ndarray, np.ndarray]:
        left = np.zeros(n_values, bool)
        left[self.order[: self.threshold]] = True
        right = np.zeros(n_values, bool)
        right[self.order[self.threshold :]] = True
        return left, right

    def factors(self, perturbed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per record, the new factor of the attribute on the left and on the right."""
        f_left = self.cum[perturbed, self.threshold]
        return f_left, self.cum[perturbed, len(self.order)] - f_left


def search_attribute(
    data: ReleaseData,
    n_classes: int,
    j: int,
    allowed: np.ndarray | None,
    others: np.ndarray,
    node_counts: np.ndarray,
    node_neff: float,
    rules: SplitRules,
) -> SplitCandidate | None:
    """Best admissible threshold of attribute ``j`` at a node, or None."""
    C = n_classes
    n_j = data.n_values[j]
    codes_in = np.arange(n_j) if allowed is None else np.flatnonzero(allowed)
    k = len(codes_in)
    if k < 2:
        return None
    key = data.y * n_j + data.codes[:, j]
    H = np.bincount(key, weights=others, minlength=C * n_j).reshape(C, n_j)
    H2 = np.bincount(key, weights=others * others, minlength=C * n_j).reshape(C, n_j)
    inv_t = data.inv_t[j]  # inv_t[h, o] = (M^-T)[h, o]
    if data.ordered[j]:
        order = codes_in
    else:
        per_code = H @ inv_t[:, codes_in]  # estimated class counts per original code in I_j
        major = int(np.argmax(node_counts))
        clipped = np.clip(per_code, 0, None)
        share = clipped[major] / np.maximum(clipped.sum(axis=0), 1e-12)
        order = codes_in[np.argsort(-share, kind="stable")]
    cum = np.zeros((n_j, k + 1))
    cum[:, 1:] = np.cumsum(inv_t[:, order], axis=1)
    inner = cum[:, 1:k]
    L = H @ inner  # (C, k-1)
    T = H @ cum[:, k]
    R = T[:, None] - L
    var_l = H2 @ inner**2 - L
    var_r = H2 @ (cum[:, k : k + 1] - inner) ** 2 - R
    Lp, Rp = np.clip(L, 0, None), np.clip(R, 0, None)
    n_left, n_right = Lp.sum(axis=0), Rp.sum(axis=0)
    se_left = np.sqrt(np.clip(var_l.sum(axis=0), 0, None))
    se_right = np.sqrt(np.clip(var_r.sum(axis=0), 0, None))
    ok = (n_left >= rules.min_leaf) & (n_right >= rules.min_leaf)
    ok &= (L.sum(axis=0) > rules.z * se_left) & (R.sum(axis=0) > rules.z * se_right)
    if not ok.any():
        return None
    bags = np.stack([Lp.T, Rp.T], axis=1)  # (k-1, 2, C)
    gain = np.asarray(info_gain(bags))
    # Kish effective sizes of the two sides: (sum w)^2 / sum w^2, with sum w^2 from the
    # squared-weight histograms (var + count, see ppdm.boxcounts)
    sq_l = (var_l + L).sum(axis=0)
    sq_r = (var_r + R).sum(axis=0)
    neff_l = np.where(sq_l > 0, L.sum(axis=0) ** 2 / np.maximum(sq_l, 1e-300), 0.0)
    neff_r = np.where(sq_r > 0, R.sum(axis=0) ** 2 / np.maximum(sq_r, 1e-300), 0.0)
    ok &= (neff_l >= rules.min_neff) & (neff_r >= rules.min_neff)
    ok &= 2 * _LN2 * node_neff * gain > rules.g_crit
    if not ok.any():
        return None
    if rules.criterion == "gini":
        t, decrease = _gini_choice(L, R, T, var_l, var_r, ok)
        return SplitCandidate(decrease, decrease, j, order, t + 1, cum, others)
    gain = np.where(ok, gain, -np.inf)
    t = int(np.argmax(gain))
    total = n_left[t] + n_right[t]
    si = float(split_info(bags[t])) / total if total > 0 else 0.0
    ratio = gain[t] / si if si > 0 else 0.0
    return SplitCandidate(float(gain[t]), float(ratio), j, order, t + 1, cum, others)


def _gini_choice(L, R, T, var_l, var_r, ok) -> tuple[int, float]:
    """Gini decrease with bias-corrected squares: ``E[c_hat^2] = c^2 + Var(c_hat)``,
    so ``c_hat^2 - Var_hat`` is an unbiased estimate of ``c^2``."""
    n_l, n_r, n = L.sum(axis=0), R.sum(axis=0), max(T.sum(), 1e-9)
    q_l = (L**2 - np.clip(var_l, 0, None)).sum(axis=0)
    q_r = (R**2 - np.clip(var_r, 0, None)).sum(axis=0)
    score = q_l / np.maximum(n_l, 1e-9) + q_r / np.maximum(n_r, 1e-9)
    score = np.where(ok, score, -np.inf)
    t = int(np.argmax(score))
    decrease = (score[t] - (T**2).sum() / n) / n
    return t, float(decrease)


def best_split(candidates: list[SplitCandidate]) -> SplitCandidate | None:
    """C4.5's choice: the best score among candidates whose gain is at least average."""
    if not candidates:
        return None
    mean_gain = np.mean([c.gain for c in candidates])
    eligible = [c for c in candidates if c.gain >= mean_gain - 1e-12]
    # ties go to the later attribute, as they always have
    return max(eligible, key=lambda c: (c.score, c.gain, c.feature))
