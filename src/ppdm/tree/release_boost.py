"""Squared-loss boosting of stumps learnt from a release: unbiased statistics, no reconstruction.

The model is additive in the attributes. One-hot class targets ``Y_k`` are fitted by
``K`` independent squared-loss (L2) boosters of depth-1 trees (stumps); since every
stump tests one attribute, the model of class k is

    ``F_k(x) = c_k + sum_j h_kj[x_j]``,

with ``h_kj`` a table over attribute j's codes (the sum of the stumps on j). A boosting
round of class k fits a stump to the residuals ``Y_k - F_k``. For a stump on attribute
j, the residual sum of class k over the records whose code of j is u is

    ``r_kj[u] = C_kj[u] - c_k n_j[u] - h_kj[u] n_j[u] - sum_{j' != j} sum_v h_kj'[v] T_jj'[u, v]``

where ``C_kj[u]`` counts class-k records with code u, ``n_j[u]`` all records with code
u and ``T_jj'[u, v]`` the records with codes u and v of j and j'. Every one of these is
estimated without bias from the release (:mod:`ppdm.boxcounts`): ``C_kj = M_j^-1 p_kj``
(the class is released as is), ``n_j = sum_k C_kj`` and
``T_jj' = M_j^-1 P_jj' M_j'^-T`` (``P_jj'``: the perturbed two-way counts; attributes
are perturbed independently, so the product of the two inverses is unbiased). The
residual sums are linear in them, so they are unbiased too, and a round costs
``O(sum_j N_j)`` per class: the last term (the *interaction*) is kept per class and
code and updated, when a stump changes ``h_kj``, by one matrix product with the
column block ``T_.j`` (computed from the release once per attribute used).

Split of attribute j: ordered attributes split by threshold (left: codes <= t); the
codes of an unordered (nominal) attribute are ordered by their mean residual
``r_kj[u] / n_j[u]`` and split by threshold on that order, which is the best binary
subset split under squared loss (Breiman et al. 1984, Sec. 9.4; the release tree orders
nominal codes by class share for the same reason). The gain of a split is the
squared-error decrease ``S_L^2 / n_L + S_R^2 / n_R - S^2 / n`` from the estimated sums;
the stump's leaves add ``learning_rate * S / n`` of their side to ``h_kj``.

Variance control: each side of a split must hold at least ``min_leaf`` estimated
records and ``min_effective_leaf`` Kish effective records ``(sum w)^2 / sum w^2``
(the per-record weights of "the original code of j lies in this side",
``v = M_j^-T 1_side``), as in the release tree. The number of rounds and the learning
rate bound how far the booster follows the noise of the estimates.

Without a spec (the identity channel) every statistic is exact, and with
``pair_weight=1`` the learner is an ordinary L2 stump booster: class by class, it grows
the stumps scikit-learn's ``GradientBoostingRegressor(loss="squared_error",
max_depth=1)`` grows on the codes.

References
----------
Friedman (2001), Greedy function approximation: a gradient boosting machine, Ann.
Statist. 29, Sec. 4.1 (L2 boosting) and Sec. 5 (shrinkage); Breiman et al. (1984),
Sec. 9.4 (subset splits of categorical attributes under squared error); Dowd, Xu &
Zhang, Eq. (1) (the matrix inverse); Ma & Sivakumar, Sec. 4 (estimated sufficient
statistics).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .release_base import BASE_CONSTRAINTS, ReleaseLearner, is_number
from .release_coding import ReleaseData

__all__ = ["ReleaseBoostingClassifier", "ReleaseStatistics"]

_PARAMETER_CONSTRAINTS = {
    **{k: v for k, v in BASE_CONSTRAINTS.items() if k != "max_depth"},
    "n_estimators": (
        lambda v: isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1,
        "an integer >= 1",
    ),
    "learning_rate": (lambda v: is_number(v) and 0 < v <= 1, "a number in (0, 1]"),
    "min_effective_leaf": (lambda v: is_number(v) and v >= 0, "a number >= 0"),
    "pair_weight": (lambda v: is_number(v) and 0 <= v <= 1, "a number in [0, 1]"),
    "early_stopping": (lambda v: isinstance(v, (bool, np.bool_)), "True or False"),
}


class ReleaseStatistics:
    """Unbiased one- and two-way counts of a release, per attribute and original code.

    Arrays are padded to the widest domain ``W``; padded codes have count 0.

    Parameters
    ----------
    data : ReleaseData
    n_classes : int

    Attributes
    ----------
    n_values : int ndarray (d,)
    hist : ndarray (d, W)
        Perturbed counts per code.
    class_counts : ndarray (K, d, W)
        ``C_kj = M_j^-1 p_kj``: estimated class-k records per original code of j.
    counts : ndarray (d, W)
        ``n_j``: estimated records per original code of j (sums to n over the codes).
    """

    def __init__(self, data: ReleaseData, n_classes: int) -> None:
        self.data = data
        self.n_classes = int(n_classes)
        self.n_values = np.asarray(data.n_values, dtype=np.int64)
        d, W, K = len(self.n_values), int(self.n_values.max()), self.n_classes
        self.width = W
        self.n_records = len(data.y)
        self.hist = np.zeros((d, W))
        self.class_counts = np.zeros((K, d, W))
        for j, n_j in enumerate(self.n_values):
            key = data.y * n_j + data.codes[:, j]
            p = np.bincount(key, minlength=K * n_j).reshape(K, n_j).astype(np.float64)
            self.hist[j, :n_j] = p.sum(axis=0)
            self.class_counts[:, j, :n_j] = p @ data.inv_t[j]  # (M^-1 p)^T = p^T M^-T
        self.counts = self.class_counts.sum(axis=0)
        self._blocks: dict[int, np.ndarray] = {}

    def pair_block(self, j: int) -> np.ndarray:
        """``T_j'j[u, v]`` for every attribute j' (zero for ``j' == j``), shape (d, W, N_j).

        Computed from the release on first use and kept.
        """
        block = self._blocks.get(j)
        if block is not None:
            return block
        data, nv = self.data, self.n_values
        n_j = int(nv[j])
        block = np.zeros((len(nv), self.width, n_j))
        right = data.inv_t[j]
        for i, n_i in enumerate(nv):
            if i == j:
                continue
            key = data.codes[:, i] * n_j + data.codes[:, j]
            p = np.bincount(key, minlength=int(n_i) * n_j).reshape(int(n_i), n_j)
            block[i, :n_i] = data.inv_t[i].T @ (p @ right)
        self._blocks[j] = block
        return block

    def interaction(self, tables: np.ndarray) -> np.ndarray:
        """``sum_{j' != j} sum_v h_kj'[v] T_jj'[u, v]`` for every k, j, u.

        Parameters
        ----------
        tables : ndarray (K, d, W)
            ``h_kj`` (padded codes ignored).
        """
        out = np.zeros_like(tables)
        for j, n_j in enumerate(self.n_values):
            if np.any(tables[:, j, :n_j]):
                out += np.einsum("iwv,kv->kiw", self.pair_block(j), tables[:, j, :n_j])
        return out

    def residual_sums(self, intercept: np.ndarray, tables: np.ndarray) -> np.ndarray:
        """Estimated residual sums ``r_kj[u]`` of the model ``(intercept, tables)``.

        Returns
        -------
        ndarray (K, d, W)
            Unbiased for the sum of ``Y_k - F_k(x)`` over the records whose original
            code of attribute j is u.
        """
        c = np.asarray(intercept, dtype=np.float64)[:, None, None]
        return self.class_counts - c * self.counts - tables * self.counts - self.interaction(tables)

    def side_sizes(self, j: int, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Kish effective sizes of the left and right side of every threshold of ``order``.

        Column t: left = ``order[: t + 1]``; per-record weight ``v = M_j^-T 1_left``.
        """
        inv_t = self.data.inv_t[j]
        n_j = int(self.n_values[j])
        cnt = self.hist[j, :n_j]
        v = np.cumsum(inv_t[:, order], axis=1)
        left = cnt @ v
        right = self.n_records - left
        sq_l, sq_r = cnt @ v**2, cnt @ (1.0 - v) ** 2
        neff_l = np.where(sq_l > 0, left**2 / np.maximum(sq_l, 1e-300), 0.0)
        neff_r = np.where(sq_r > 0, right**2 / np.maximum(sq_r, 1e-300), 0.0)
        return neff_l, neff_r


def _subset(data: ReleaseData, rows: np.ndarray) -> ReleaseData:
    return ReleaseData(data.names, data.coders, data.matrices, data.codes[rows], data.y[rows])


class _Residuals:
    """An additive model ``(intercept, tables)`` and its estimated residual sums on a
    release, kept up to date as stumps are added (the interaction term by one product
    with the stump attribute's pair block)."""

    def __init__(
        self, stats: ReleaseStatistics, intercept: np.ndarray, pair_weight: float = 1.0
    ) -> None:
        self.stats = stats
        self.intercept = intercept
        self.pair_weight = float(pair_weight)
        K, d, W = stats.class_counts.shape
        self.tables = np.zeros((K, d, W))
        self.inter = np.zeros((K, d, W))

    def residuals(self) -> np.ndarray:
        s = self.stats
        out = s.class_counts - self.intercept[:, None, None] * s.counts
        out -= self.tables * s.counts + self.inter
        return out

    def loss_change(self, k: int, j: int, delta: np.ndarray) -> float:
        """Estimated change of class k's squared error when ``delta`` is added on j:
        ``sum_u (delta[u]^2 n_j[u] - 2 delta[u] r_kj[u])``."""
        n_j = len(delta)
        s = self.stats
        r = s.class_counts[k, j, :n_j] - self.intercept[k] * s.counts[j, :n_j]
        r = r - self.tables[k, j, :n_j] * s.counts[j, :n_j] - self.inter[k, j, :n_j]
        return float(np.dot(delta**2, s.counts[j, :n_j]) - 2.0 * np.dot(delta, r))

    def add(self, k: int, j: int, delta: np.ndarray) -> None:
        s, lam, n_j = self.stats, self.pair_weight, len(delta)
        self.tables[k, j, :n_j] += delta
        if lam > 0:
            self.inter[k] += lam * (s.pair_block(j) @ delta)
        if lam < 1:  # the independence model's pair tables n_i[u] n_j[v] / n
            indep = s.counts * (np.dot(s.counts[j, :n_j], delta) / s.n_records)
            indep[j] = 0.0
            self.inter[k] += (1.0 - lam) * indep


@dataclass(eq=False, repr=False, kw_only=True)
class ReleaseBoostingClassifier(ReleaseLearner):
    """Squared-loss boosting of stumps learnt from a random-substitution release.

    One booster per class fits the one-hot target ``Y_k`` (``K`` independent L2
    boosters, as scikit-learn's gradient boosting grows one tree per class per round)
    from unbiased one- and two-way counts of the release (see the module text). Each
    class picks its own attribute per round; for two classes the two boosters choose the
    same stumps (their residuals are opposite).

    Parameters
    ----------
    spec : ReleaseSpec, path or None, default=None
        As for :class:`ReleaseTreeClassifier`; None: the input is an unperturbed table
        (identity channel; with ``pair_weight=1`` an ordinary L2 stump booster).
    n_estimators : int, default=100
        Boosting rounds (one stump per class per round). A class stops early when no
        admissible split improves its estimated squared error.
    learning_rate : float, default=0.1
        Shrinkage of every stump's leaf values.
    min_leaf : int or float, default=1
        Least estimated records per side of a split; a float in (0, 1) is a fraction of n.
    min_effective_leaf : float, default=30
        Least Kish effective size ``(sum w)^2 / sum w^2`` per side of a split.
    pair_weight : float, default=0.5
        Weight ``lambda`` of the release's two-way tables in the interaction term:
        ``T_jj'`` is replaced by ``lambda T_jj' + (1 - lambda) n_j n_j'^T / n``, the
        independence model's tables, which rest on one inverse factor per entry instead
        of two. 1 keeps every statistic unbiased; smaller values trade that for far less
        noise (with 0 the estimated squared error is a convex function of the tables, so
        boosting cannot follow a noise direction without bound). The held-out error of
        ``early_stopping`` always uses the unbiased tables.
    early_stopping : bool, default=False
        Choose every class's number of rounds (at most ``n_estimators``) by two-fold
        cross-validation on the release: a booster fitted on one half, its squared error
        on the other half estimated without bias after every round (the loss is
        quadratic in the scores, so it needs only the half's one- and two-way counts);
        the rounds with the least sum over both halves are then boosted on the whole
        release. False: ``n_estimators`` rounds.
    max_bins : int, default=255
        Without a spec: most codes of a numeric column.

    Attributes
    ----------
    classes_ : ndarray
    n_features_in_ : int
    feature_names_in_ : ndarray of str
    spec_, domains_, coders_, matrices_
        As for :class:`ReleaseTreeClassifier`.
    intercept_ : ndarray (K,)
        ``c_k``, the class shares (squared loss's best constant).
    tables_ : ndarray (K, d, W)
        ``h_kj[u]``: what code u of attribute j adds to class k's score.
    stump_feature_ : int ndarray (K, n_estimators)
        Attribute of the stump of every class and round (-1 after the class stopped).
    stump_values_ : ndarray (K, n_estimators, W)
        What every stump adds per code of its attribute.
    n_estimators_ : int ndarray (K,)
        Rounds each class ran.
    cv_loss_ : ndarray (K, n_estimators + 1)
        With ``early_stopping``: column m, the estimated held-out squared error after m
        rounds minus that of the constant model, summed over both halves.
    feature_importances_ : ndarray
        Estimated squared-error decrease per attribute, summed over stumps, summing to 1.

    Notes
    -----
    The defaults are the setting chosen on repetition 0 of the beyond check cells
    (REPRODUCTION.md, "Beyond the papers", "Closing the gap", item 5).
    ``predict`` returns the class of the largest score ``F_k``; ``predict_proba`` clips
    the scores to [0, 1] and divides by their sum (uniform when all are 0). Clipping
    keeps the order of the scores but may tie two scores above 1: the class predicted
    is then the one with the larger score.

    Examples
    --------
    >>> from ppdm.examples import agrawal_release
    >>> df, spec, rel = agrawal_release()
    >>> clf = ReleaseBoostingClassifier(spec=spec).fit(rel)
    >>> clf.score(df.drop(columns="group"), df["group"]) > 0.85
    True

    References
    ----------
    Friedman (2001), Sec. 4.1 and 5; Breiman et al. (1984), Sec. 9.4; Dowd, Xu & Zhang,
    Eq. (1).
    """

    _parameter_constraints = _PARAMETER_CONSTRAINTS

    n_estimators: int = 100
    learning_rate: float = 0.1
    min_leaf: float = 1
    min_effective_leaf: float = 30.0
    pair_weight: float = 0.5
    early_stopping: bool = False

    # -- fitting -----------------------------------------------------------------------
    def _grow(self, data: ReleaseData, min_leaf: float) -> ReleaseBoostingClassifier:
        K, rounds = len(self.classes_), int(self.n_estimators)
        n = len(data.y)
        if self.early_stopping:
            fold = np.random.default_rng(0).integers(0, 2, size=n)
            halves = [_subset(data, fold == f) for f in (0, 1)]
            curve = np.zeros((K, rounds + 1))
            if min(len(h.y) for h in halves) > 0:
                for a in (0, 1):
                    fit = self._boost(halves[a], K, np.full(K, rounds), min_leaf / 2, halves[1 - a])
                    curve[:, 1:] += np.cumsum(fit["heldout"], axis=1)
                limit = np.argmin(curve, axis=1)
            else:  # too few records to hold any out
                limit = np.full(K, rounds)
            self.cv_loss_ = curve
        else:
            limit = np.full(K, rounds)
        fit = self._boost(data, K, limit, min_leaf, None)
        self.intercept_ = fit["intercept"]
        self.tables_ = fit["tables"]
        self.stump_feature_ = fit["feature"]
        self.stump_values_ = fit["values"]
        self.n_estimators_ = fit["done"]
        self._gains = fit["gains"]
        self.matrices_ = data.matrices
        return self

    def _boost(self, data, K, limit, min_leaf, heldout) -> dict:
        """Boost class k for ``limit[k]`` rounds (fewer when no split is admissible); with
        ``heldout`` data, the change of its estimated squared error after every stump."""
        rounds = int(self.n_estimators)
        stats = ReleaseStatistics(data, K)
        nv = stats.n_values
        d, W, n = len(nv), stats.width, stats.n_records
        lr, min_eff = float(self.learning_rate), float(self.min_effective_leaf)
        intercept = np.bincount(data.y, minlength=K) / n
        model = _Residuals(stats, intercept, float(self.pair_weight))
        held = _Residuals(ReleaseStatistics(heldout, K), intercept) if heldout is not None else None
        ordered = np.asarray(data.ordered, dtype=bool)
        # ordered attributes: the threshold order and its effective sizes never change
        neff_l = np.zeros((d, W))
        neff_r = np.zeros((d, W))
        for j in np.flatnonzero(ordered):
            neff_l[j, : nv[j]], neff_r[j, : nv[j]] = stats.side_sizes(j, np.arange(nv[j]))
        last = np.arange(W)[None, :] < nv[:, None] - 1  # thresholds with a right side
        feature = np.full((K, rounds), -1, dtype=np.int64)
        values = np.zeros((K, rounds, W))
        loss = np.zeros((K, rounds))
        gains = np.zeros(d)
        active = np.asarray(limit) > 0
        done = np.zeros(K, dtype=np.int64)
        for r in range(rounds):
            active &= np.asarray(limit) > r
            if not active.any():
                break
            resid = model.residuals()
            for k in np.flatnonzero(active):
                best = self._best_stump(
                    stats, resid[k], ordered, neff_l, neff_r, last, min_leaf, min_eff
                )
                if best is None:
                    active[k] = False
                    continue
                j, left, gain, s_l, n_l, s_r, n_r = best
                n_j = int(nv[j])
                delta = np.where(left[:n_j], lr * s_l / n_l, lr * s_r / n_r)
                if held is not None:
                    loss[k, r] = held.loss_change(k, j, delta)
                    held.add(k, j, delta)
                model.add(k, j, delta)
                feature[k, r] = j
                values[k, r, :n_j] = delta
                gains[j] += gain
                done[k] = r + 1
        return {
            "intercept": intercept,
            "tables": model.tables,
            "feature": feature,
            "values": values,
            "done": done,
            "gains": gains,
            "heldout": loss,
        }

    @staticmethod
    def _best_stump(stats, resid, ordered, neff_l, neff_r, last, min_leaf, min_eff):
        """Best admissible stump of one class: (j, left mask (W,), gain, S_L, n_L, S_R, n_R)."""
        nv = stats.n_values
        d, W = resid.shape
        counts = stats.counts
        order = np.broadcast_to(np.arange(W), (d, W)).copy()
        nl_eff, nr_eff = neff_l.copy(), neff_r.copy()
        for j in np.flatnonzero(~ordered):
            n_j = int(nv[j])
            mean = resid[j, :n_j] / np.maximum(counts[j, :n_j], 1.0)
            o = np.argsort(mean, kind="stable")
            order[j, :n_j] = o
            nl_eff[j, :n_j], nr_eff[j, :n_j] = stats.side_sizes(j, o)
        r_sorted = np.take_along_axis(resid, order, axis=1)
        n_sorted = np.take_along_axis(counts, order, axis=1)
        s_l = np.cumsum(r_sorted, axis=1)
        n_l = np.cumsum(n_sorted, axis=1)
        s_tot = s_l[:, -1:]
        n_tot = n_l[:, -1:]
        s_r, n_r = s_tot - s_l, n_tot - n_l
        ok = last & (n_l >= min_leaf) & (n_r >= min_leaf)
        ok &= (nl_eff >= min_eff) & (nr_eff >= min_eff)
        if not ok.any():
            return None
        with np.errstate(divide="ignore", invalid="ignore"):
            gain = s_l**2 / n_l + s_r**2 / n_r - s_tot**2 / n_tot
        gain = np.where(ok, gain, -np.inf)
        flat = int(np.argmax(gain))
        j, t = divmod(flat, W)
        if not gain[j, t] > 0:
            return None
        left = np.zeros(W, bool)
        left[order[j, : t + 1]] = True
        return (
            j,
            left,
            float(gain[j, t]),
            float(s_l[j, t]),
            float(n_l[j, t]),
            float(s_r[j, t]),
            float(n_r[j, t]),
        )

    # -- prediction --------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if not hasattr(self, "tables_"):
            from .classifier import _NotFitted

            raise _NotFitted(
                f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first"
            )

    def _scores_codes(self, codes: np.ndarray) -> np.ndarray:
        self._check_fitted()
        codes = np.asarray(codes, dtype=np.int64)
        F = np.tile(self.intercept_, (len(codes), 1))
        for j in range(codes.shape[1]):
            F += self.tables_[:, j, codes[:, j]].T
        return F

    @staticmethod
    def _proba_from_scores(F: np.ndarray) -> np.ndarray:
        p = np.clip(F, 0.0, 1.0)
        total = p.sum(axis=1, keepdims=True)
        uniform = np.full_like(p, 1.0 / p.shape[1])
        return np.where(total > 0, p / np.where(total > 0, total, 1.0), uniform)

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        return self._proba_from_scores(self._scores_codes(codes))

    def decision_scores(self, X) -> np.ndarray:
        """The scores ``F_k(x)`` of the rows of ``X`` (original domain), columns ``classes_``."""
        return self._scores_codes(self._encode(X))

    def predict(self, X) -> np.ndarray:
        """The class of the largest score of every row of ``X`` (original domain)."""
        F = self.decision_scores(X)
        return self.classes_[np.argmax(F, axis=1)]

    def predict_codes(self, codes) -> np.ndarray:
        """Predicted classes for rows already encoded into original codes."""
        F = self._scores_codes(codes)
        return self.classes_[np.argmax(F, axis=1)]

    def staged_scores_codes(self, codes) -> Iterator[np.ndarray]:
        """Scores after every round (1, 2, ..., n_estimators) for rows in original codes."""
        self._check_fitted()
        codes = np.asarray(codes, dtype=np.int64)
        F = np.tile(self.intercept_, (len(codes), 1))
        for r in range(self.stump_feature_.shape[1]):
            for k, j in enumerate(self.stump_feature_[:, r]):
                if j >= 0:
                    F[:, k] += self.stump_values_[k, r, codes[:, j]]
            yield F.copy()

    def staged_predict(self, X) -> Iterator[np.ndarray]:
        """Predicted classes of the rows of ``X`` after every round."""
        for F in self.staged_scores_codes(self._encode(X)):
            yield self.classes_[np.argmax(F, axis=1)]

    # -- what a boosted additive model does not have -----------------------------------
    @property
    def apply(self):
        raise AttributeError("a boosted additive model has no leaves to apply rows to")

    @property
    def decision_path(self):
        raise AttributeError("a boosted additive model has no decision path")

    @property
    def n_leaves_(self) -> int:
        """Leaves of all stumps (two per stump)."""
        self._check_fitted()
        return int(2 * np.sum(self.stump_feature_ >= 0))

    def get_depth(self) -> int:
        """1 (stumps), or 0 when no stump was grown."""
        self._check_fitted()
        return int(np.any(self.stump_feature_ >= 0))

    @property
    def feature_importances_(self) -> np.ndarray:
        """Estimated squared-error decrease per attribute over all stumps, summing to 1."""
        self._check_fitted()
        total = self._gains.sum()
        return self._gains / total if total > 0 else self._gains.copy()
