"""A decision tree learnt from the release itself: unbiased split statistics, no reconstruction.

Every node of the tree is a box ``R = I_1 x ... x I_d`` of original codes. The number of
class-c records in R is estimated without bias from the perturbed codes
(:mod:`ppdm.boxcounts`): each record carries the weight ``prod_j v_{I_j}(p_rj)`` with
``v_I = M_j^-T 1_I``. Records are never routed down the tree; every node weighs all of
them, so a node costs O(n d).

Split search at a node, for attribute j: per-class histograms of the perturbed codes of j,
each record weighted by the product of the *other* attributes' factors, are mapped
through ``M_j^-1``; the part inside ``I_j`` gives estimated class counts per original
code, and cumulative sums give both sides of every threshold at once. A repeated split
on the same attribute shrinks ``I_j``; it does not multiply factors.

Variance control (the estimate's variance grows with every constrained attribute):

- **Significance.** A split is taken only if its G statistic ``2 ln2 n_eff gain`` exceeds
  the chi-square quantile at level ``alpha`` with ``C - 1`` degrees of freedom, where
  ``n_eff`` is the sum of the two sides' Kish effective sample sizes
  ``(sum w)^2 / sum w^2`` (a split on a noisy attribute shrinks them at once), and
  each side must keep at least ``min_effective_leaf`` effective records.
- **Support.** Both sides must hold at least ``min_leaf`` estimated records, and their
  estimated totals must exceed ``z_alpha`` standard errors (they are really non-empty).
- **Negative estimates** are clipped at 0 before any entropy or class choice (the
  clipped count is never further from the truth than a negative one, Dowd et al.,
  Proposition 1).
- **Leaf classes** are chosen from the clipped counts shrunk towards the parent's
  class distribution (``prior_strength`` pseudo-records), so a leaf whose own counts
  are noise falls back on its parent's majority.
- **Pruning** is C4.5's pessimistic error, computed on ``n_eff`` instead of n, so an
  uncertain leaf carries its uncertainty into the pruning decision.

Categorical attributes take binary *value-subset* splits: the node's codes are ordered
by the estimated proportion of the node's majority class and split by threshold on
that order (optimal for two classes, Breiman et al. 1984). A multiway split would divide
the signal among N children while each child's estimate keeps the variance of the whole
matrix inverse; binary subsets keep the children large.

References
----------
Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3 (estimation and the zero fix); Ma & Sivakumar,
Sec. 4 and concluding remarks (learning from estimated sufficient statistics);
Quinlan (1993), C4.5, ch. 2 and 4 (gain ratio, pessimistic pruning).
"""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import BaseEstimator, ClassifierMixin

from ..domain import BinnedDomain
from ..exceptions import DataError, NotFittedError, SpecError
from .criterion import info_gain, split_info
from .pruning import added_errors
from .release_nb import class_conditionals, coarsen

__all__ = ["ReleaseTreeClassifier"]

_LN2 = np.log(2.0)
#: Pseudo-records (per code of the attribute) of the root distribution in a deeper leaf.
NB_PRIOR_WEIGHT = 20.0


class _Data:
    """Codes and matrices of a release, ready for split search."""

    def __init__(self, names, domains, matrices, codes: np.ndarray, y: np.ndarray):
        if not names:
            raise SpecError("the release has no perturbed attribute to learn from")
        self.names = list(names)
        self.domains = list(domains)
        self.matrices = list(matrices)
        self.codes = np.asarray(codes, dtype=np.int64)
        self.n_values = [d.n_values for d in self.domains]
        self.inv_t = [m.inverse_transpose_apply(np.eye(m.n_values)) for m in self.matrices]
        self.ordered = [isinstance(d, BinnedDomain) or _numeric_values(d) for d in self.domains]
        self.y = y

    @classmethod
    def from_release(cls, spec, frame: pd.DataFrame, y: np.ndarray) -> _Data:
        names = [a.name for a in spec.perturbed_attributes() if a.name != spec.class_attribute]
        if not names:
            raise SpecError("the release has no perturbed attribute to learn from")
        domains = [spec.attribute(n).get_domain() for n in names]
        matrices = [spec.attribute(n).get_matrix() for n in names]
        codes = np.column_stack([d.encode(frame[n], column=n) for n, d in zip(names, domains)])
        return cls(names, domains, matrices, codes, y)


def _numeric_values(domain) -> bool:
    return all(isinstance(v, (int, float, np.number)) for v in domain.values)


class ReleaseTreeClassifier(ClassifierMixin, BaseEstimator):
    """Decision tree learnt from a random-substitution release, with no reconstruction.

    Parameters
    ----------
    spec : ReleaseSpec, path or None, default=None
        The release spec (or a release directory / spec file). Needed by :meth:`fit`;
        :meth:`fit_release` reads it from the release.
    max_depth : int, default=12
        Deepest node (the root has depth 0).
    min_leaf : int or float, default=0.005
        Least estimated records per leaf; a float in (0, 1) is a fraction of n.
    alpha : float, default=0.001
        Significance level of the split test and of the support test.
    confidence : float, default=0.25
        C4.5's pruning confidence factor; pruning uses the effective sample size.
    prune : bool, default=True
    prior_strength : float, default=1.0
        Pseudo-records of the parent's class distribution added to every leaf.
    criterion : {"gini", "gain_ratio"}, default="gini"
        ``"gini"``: Gini decrease with bias-corrected squared counts (an unbiased
        estimate of the true decrease's numerator, so noise does not look like purity).
        ``"gain_ratio"``: C4.5's gain ratio on clipped estimated counts, with the
        average-gain filter. The significance test uses the entropy gain either way.
    min_effective_leaf : float, default=30
        Least Kish effective sample size ``(sum w)^2 / sum w^2`` of each side of a split:
        a side whose estimated counts rest on fewer effective records is noise. With
        naive Bayes leaves, which estimate C x N probabilities per attribute, the
        requirement is scaled by ``C * mean(N) / 10``.
    leaf_model : {"auto", "majority", "naive-bayes"}, default="auto"
        ``"majority"``: every leaf predicts its estimated class distribution.
        ``"naive-bayes"`` makes every leaf a naive Bayes classifier (as in Kohavi's
        NBTree). The root's class-conditional distributions are the iterative Bayesian
        update's, with adjacent codes of ordered attributes merged as a cross-validation
        on the release chooses (:mod:`ppdm.tree.release_nb`); a deeper leaf's are
        estimated without bias inside its box and shrunk towards the root's. With
        ``max_depth=0`` this is a plain naive Bayes classifier learnt from the release.
        ``"auto"`` uses naive Bayes leaves with more than two classes and majority
        leaves otherwise (see REPRODUCTION.md, "Beyond the papers").

    Attributes
    ----------
    classes_ : ndarray
    feature_names_in_ : list of str
        The perturbed attributes used, in spec order.
    leaf_model_ : str
        The leaf model used (``"auto"`` resolved).
    tree_ : dict of ndarray
        ``feature``, ``left``, ``right``, ``mask`` (codes going left), ``value``
        (class distribution), ``n_eff`` per node; leaves have ``feature == -1``.

    Examples
    --------
    >>> import warnings
    >>> from ppdm.datasets import agrawal
    >>> from ppdm.perturb import plan_release, perturb_frame
    >>> df = agrawal(4000, function=1, random_state=0)[["age", "salary", "group"]]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     spec = plan_release(df, class_attribute="group", gamma=19, n_bins=10,
    ...                         bounds={"age": (20, 81), "salary": (20e3, 150e3)})
    ...     rel = perturb_frame(df, spec, random_state=0)
    >>> clf = ReleaseTreeClassifier(spec=spec).fit(rel)
    >>> clf.score(df.drop(columns="group"), df["group"]) > 0.85
    True

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1); Ma & Sivakumar, Sec. 4; Quinlan (1993), C4.5.
    """

    def __init__(
        self,
        *,
        spec=None,
        max_depth: int = 12,
        min_leaf: float = 0.005,
        alpha: float = 0.001,
        confidence: float = 0.25,
        prune: bool = True,
        prior_strength: float = 1.0,
        criterion: str = "gini",
        leaf_model: str = "auto",
        min_effective_leaf: float = 30.0,
    ) -> None:
        self.spec = spec
        self.criterion = criterion
        self.leaf_model = leaf_model
        self.min_effective_leaf = min_effective_leaf
        self.max_depth = max_depth
        self.min_leaf = min_leaf
        self.alpha = alpha
        self.confidence = confidence
        self.prune = prune
        self.prior_strength = prior_strength

    # -- fitting -----------------------------------------------------------------------
    def _resolve_spec(self):
        from ..release import ReleaseSpec, read_spec

        if self.spec is None:
            raise SpecError("ReleaseTreeClassifier needs spec= (a ReleaseSpec or a release path)")
        if isinstance(self.spec, ReleaseSpec):
            return self.spec
        if isinstance(self.spec, (str, os.PathLike)):
            return read_spec(self.spec)
        raise SpecError(f"spec must be a ReleaseSpec or a path (got {type(self.spec).__name__})")

    def _check_params(self, n: int) -> float:
        if not (isinstance(self.max_depth, (int, np.integer)) and self.max_depth >= 0):
            raise ValueError(f"max_depth must be an integer >= 0 (got {self.max_depth!r})")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must be in (0, 0.5) (got {self.alpha!r})")
        if not 0 < self.confidence <= 0.5:
            raise ValueError(f"confidence must be in (0, 0.5] (got {self.confidence!r})")
        if self.leaf_model not in ("auto", "majority", "naive-bayes"):
            raise ValueError(
                f"leaf_model must be 'auto', 'majority' or 'naive-bayes' (got {self.leaf_model!r})"
            )
        if self.criterion not in ("gini", "gain_ratio"):
            raise ValueError(f"criterion must be 'gini' or 'gain_ratio' (got {self.criterion!r})")
        if self.prior_strength < 0:
            raise ValueError(f"prior_strength must be >= 0 (got {self.prior_strength!r})")
        if isinstance(self.min_leaf, float) and 0 < self.min_leaf < 1:
            return max(2.0, self.min_leaf * n)
        if self.min_leaf >= 1:
            return float(self.min_leaf)
        raise ValueError(
            f"min_leaf must be a count >= 1 or a fraction in (0, 1) (got {self.min_leaf!r})"
        )

    def fit(self, X: pd.DataFrame, y=None) -> ReleaseTreeClassifier:
        """Learn from the perturbed table ``X`` (the release data) and its spec.

        Parameters
        ----------
        X : DataFrame
            The release's data; may include the class column.
        y : array-like, optional
            Class labels; default: the spec's (unperturbed) class column of ``X``.
        """
        return self._fit(X, y, self._resolve_spec())

    def _fit(self, X: pd.DataFrame, y, spec) -> ReleaseTreeClassifier:
        if not isinstance(X, pd.DataFrame):
            raise DataError("X must be a DataFrame with the release's column names")
        if spec.class_perturbed:
            raise SpecError(
                f"the class {spec.class_attribute!r} was perturbed; the release tree needs it unperturbed"
            )
        if y is None:
            if spec.class_attribute is None or spec.class_attribute not in X:
                raise DataError("give y, or a release whose spec names a class column present in X")
            y = X[spec.class_attribute]
        y = np.asarray(y)
        if len(y) != len(X):
            raise DataError(f"X has {len(X)} rows but y has {len(y)}")
        if len(X) == 0:
            raise DataError("cannot learn from an empty release")
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise DataError(f"the class has a single value {self.classes_[0]!r}: nothing to learn")
        data = _Data.from_release(spec, X, y_codes)
        min_leaf = self._check_params(len(X))
        self.feature_names_in_ = data.names
        self.n_features_in_ = len(data.names)
        self.domains_ = data.domains
        self.spec_ = spec
        self.tree_ = self._grow(data, min_leaf)
        return self

    def fit_codes(self, codes, y, domains, matrices, names=None) -> ReleaseTreeClassifier:
        """Learn from perturbed codes directly (experiments work at the code level).

        Parameters
        ----------
        codes : int array (n, d)
            Perturbed codes of the d attributes.
        y : array (n,)
            Unperturbed class labels.
        domains, matrices : sequences of length d
            Each attribute's domain and perturbation matrix.
        names : list of str, optional
        """
        y = np.asarray(y)
        self.classes_, y_codes = np.unique(y, return_inverse=True)
        if len(self.classes_) < 2:
            raise DataError(f"the class has a single value {self.classes_[0]!r}: nothing to learn")
        names = list(names) if names is not None else [f"a{j}" for j in range(len(domains))]
        data = _Data(names, domains, matrices, codes, y_codes)
        min_leaf = self._check_params(len(y))
        self.feature_names_in_ = data.names
        self.n_features_in_ = len(data.names)
        self.domains_ = data.domains
        self.spec_ = None
        self.tree_ = self._grow(data, min_leaf)
        return self

    def _grow(self, data: _Data, min_leaf: float) -> dict:
        auto = "naive-bayes" if len(self.classes_) > 2 else "majority"
        self.leaf_model_ = auto if self.leaf_model == "auto" else self.leaf_model
        return _Builder(
            data, len(self.classes_), min_leaf, self, self.leaf_model_, self.max_depth
        ).build()

    def predict_codes(self, codes) -> np.ndarray:
        """Predicted classes for rows already encoded into original codes."""
        if not hasattr(self, "tree_"):
            raise NotFittedError("this ReleaseTreeClassifier is not fitted yet; call fit first")
        proba = self._proba_codes(np.asarray(codes, dtype=np.int64))
        return self.classes_[np.argmax(proba, axis=1)]

    def fit_release(self, release) -> ReleaseTreeClassifier:
        """Learn from a release directory (or :class:`ppdm.pipeline.Release`)."""
        from ..pipeline import Release, load_release

        rel = release if isinstance(release, Release) else load_release(release)
        return self._fit(rel.frame(), None, rel.spec)

    # -- prediction --------------------------------------------------------------------
    def _codes(self, X) -> np.ndarray:
        if not hasattr(self, "tree_"):
            raise NotFittedError("this ReleaseTreeClassifier is not fitted yet; call fit first")
        if not isinstance(X, pd.DataFrame):
            X = pd.DataFrame(np.asarray(X), columns=self.feature_names_in_)
        missing = [n for n in self.feature_names_in_ if n not in X.columns]
        if missing:
            raise DataError(f"X lacks the columns the tree was fitted on: {missing}")
        cols = []
        for n, d in zip(self.feature_names_in_, self.domains_):
            dom = replace(d, out_of_bounds="clip") if isinstance(d, BinnedDomain) else d
            cols.append(dom.encode(X[n], column=n))
        return np.column_stack(cols).astype(np.int64)

    def apply(self, X) -> np.ndarray:
        """Index of the leaf every row of ``X`` (original domain) lands in."""
        return self._apply_codes(self._codes(X))

    def _apply_codes(self, codes: np.ndarray) -> np.ndarray:
        return _tree_apply(self.tree_, codes)

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities of the leaves reached by ``X`` (original domain)."""
        return self._proba_codes(self._codes(X))

    def _proba_codes(self, codes: np.ndarray) -> np.ndarray:
        return _tree_proba(self.tree_, codes)

    def predict(self, X) -> np.ndarray:
        """Predicted classes for rows of ``X`` in the original domain."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    @property
    def n_leaves_(self) -> int:
        return int((self.tree_["feature"] < 0).sum())

    def _test_text(self, j: int, side: np.ndarray) -> str:
        dom = self.domains_[j]
        name = self.feature_names_in_[j]
        codes = np.flatnonzero(side)
        contiguous = len(codes) > 0 and bool(np.all(np.diff(codes) == 1))
        if isinstance(dom, BinnedDomain) and contiguous:
            edges = dom.edges
            lo, hi = edges[codes[0]], edges[codes[-1] + 1]
            if codes[0] == 0:
                return f"{name} < {hi:.6g}"
            if codes[-1] == dom.n_bins - 1:
                return f"{name} >= {lo:.6g}"
            return f"{lo:.6g} <= {name} < {hi:.6g}"
        labels = dom.labels()
        if contiguous and _numeric_values(dom) and len(codes) > 1:
            return f"{labels[codes[0]]} <= {name} <= {labels[codes[-1]]}"
        return f"{name} in {{{', '.join(labels[i] for i in codes)}}}"

    def export_text(self) -> str:
        """The tree as indented tests, leaves with their class, estimated count and n_eff.

        Examples
        --------
        >>> print(ReleaseTreeClassifier.__name__)
        ReleaseTreeClassifier
        """
        if not hasattr(self, "tree_"):
            raise NotFittedError("this ReleaseTreeClassifier is not fitted yet; call fit first")
        t = self.tree_
        lines: list[str] = []
        boxes = [np.ones(d.n_values, bool) for d in self.domains_]

        def walk(node: int, depth: int) -> None:
            j = int(t["feature"][node])
            allowed = boxes[j]
            go_left = t["mask"][node, : len(allowed)]
            for left in (True, False):
                child = int(t["left"][node] if left else t["right"][node])
                boxes[j] = allowed & (go_left if left else ~go_left)
                head = "|   " * depth + self._test_text(j, boxes[j])
                if t["feature"][child] < 0:
                    cls = self.classes_[int(np.argmax(t["value"][child]))]
                    lines.append(
                        f"{head}: {cls} (est. {t['count'][child]:.1f}, n_eff {t['n_eff'][child]:.1f})"
                    )
                else:
                    lines.append(head)
                    walk(child, depth + 1)
            boxes[j] = allowed

        if t["feature"][0] < 0:
            lines.append(f": {self.classes_[int(np.argmax(t['value'][0]))]}")
        else:
            walk(0, 0)
        lines += [
            "",
            f"Number of Leaves  : {self.n_leaves_}",
            f"Size of the tree : {len(t['feature'])}",
        ]
        return "\n".join(lines)


def _tree_apply(t: dict, codes: np.ndarray) -> np.ndarray:
    """Leaf reached by every row of original ``codes``."""
    node = np.zeros(len(codes), dtype=np.int64)
    rows = np.arange(len(codes))
    while True:
        feat = t["feature"][node]
        inner = feat >= 0
        if not inner.any():
            return node
        code = codes[rows, np.where(inner, feat, 0)]
        go_left = t["mask"][node, code]
        nxt = np.where(go_left, t["left"][node], t["right"][node])
        node = np.where(inner, nxt, node)


def _tree_proba(t: dict, codes: np.ndarray) -> np.ndarray:
    """Class probabilities: the leaf's distribution, times its naive Bayes likelihoods."""
    leaves = _tree_apply(t, codes)
    value = t["value"][leaves]
    nb = t.get("nb_logp")
    if nb is None:
        return value
    slot = t["nb_slot"][leaves]
    d = codes.shape[1]
    # log P(x_j | c, leaf), gathered per record: (n, d, C)
    logp = nb[slot[:, None], np.arange(d)[None, :], :, codes]
    score = np.log(np.maximum(value, 1e-12)) + logp.sum(axis=1)
    score -= score.max(axis=1, keepdims=True)
    p = np.exp(score)
    return p / p.sum(axis=1, keepdims=True)


class _Builder:
    def __init__(
        self,
        data: _Data,
        n_classes: int,
        min_leaf: float,
        params: ReleaseTreeClassifier,
        leaf_model: str,
        max_depth: int,
    ):
        self.d = data
        self.max_depth = max_depth
        self.C = n_classes
        self.min_leaf = min_leaf
        self.p = params
        self.z = float(stats.norm.ppf(1 - params.alpha))
        self.g_crit = float(stats.chi2.ppf(1 - params.alpha, df=n_classes - 1))
        self.max_n = max(data.n_values)
        self.nodes: list[dict] = []
        self.naive_bayes = leaf_model == "naive-bayes"
        # a naive Bayes leaf estimates C x N probabilities per attribute: ask for
        # min_effective_leaf effective records per class and per 10 codes
        scale = n_classes * float(np.mean(data.n_values)) / 10.0 if self.naive_bayes else 1.0
        self.min_neff = params.min_effective_leaf * max(scale, 1.0)

    # each node: factors = {j: per-record factor}, masks = {j: allowed codes}
    def build(self) -> dict:
        n = len(self.d.y)
        root = self._node({}, {}, np.ones(n), None, 0)
        stack = [root]
        while stack:
            idx = stack.pop()
            node = self.nodes[idx]
            split = self._best_split(node) if node["depth"] < self.max_depth else None
            if split is None:
                continue
            j, left_mask, right_mask, f_left, f_right, w_minus = split
            kids = []
            for mask, f in ((left_mask, f_left), (right_mask, f_right)):
                masks = dict(node["masks"])
                masks[j] = mask
                factors = dict(node["factors"])
                factors[j] = f
                kids.append(
                    self._node(masks, factors, w_minus * f, node["dist"], node["depth"] + 1)
                )
            node.update(feature=j, left=kids[0], right=kids[1], go_left=left_mask)
            stack.extend(kids)
        if self.p.prune:
            self._prune(0)
        out = self._arrays()
        if self.naive_bayes:
            self._naive_bayes_leaves(out)
        del out["_order"]
        return out

    def _naive_bayes_leaves(self, out: dict) -> None:
        """Per leaf, attribute and class: log P(code | class, leaf box).

        The root's class-conditional distributions come from the iterative Bayesian
        update with adjacent codes merged as the release's own cross-validation chooses
        (:func:`ppdm.tree.release_nb.class_conditionals`). A deeper leaf estimates its
        own from the release inside its box (``H M^-T`` restricted to the box, clipped at
        0, merged the same way), shrunk towards the root's distribution restricted to the
        box with the weight of ``N_j`` pseudo-records.
        """
        d, C = self.d, self.C
        position = {old: new for new, old in enumerate(out["_order"])}
        leaves = [i for i in out["_order"] if self.nodes[i]["feature"] < 0]
        nb = np.zeros((len(leaves), len(d.names), C, self.max_n))
        slot = np.zeros(len(out["feature"]), dtype=np.int64)
        root = class_conditionals(d.codes, d.y, C, d.matrices, d.ordered)
        for k, old in enumerate(leaves):
            node = self.nodes[old]
            slot[position[old]] = k
            for j in range(len(d.names)):
                probs, ids = root[j]
                if node["factors"] or node["masks"]:
                    probs = self._leaf_conditionals(node, j, probs, ids)
                nb[k, j, :, : d.n_values[j]] = np.log(np.maximum(probs, 1e-12))
        out["nb_logp"] = nb
        out["nb_slot"] = slot

    def _leaf_conditionals(self, node, j, root_probs, ids) -> np.ndarray:
        d, C = self.d, self.C
        n_j = d.n_values[j]
        allowed = node["masks"].get(j)
        live = np.ones(n_j, bool) if allowed is None else allowed
        key = d.y * n_j + d.codes[:, j]
        H = np.bincount(key, weights=self._others(node, j), minlength=C * n_j).reshape(C, n_j)
        est = coarsen(np.clip(H @ d.inv_t[j], 0, None) * live, ids, live)
        prior = root_probs * live
        prior /= np.maximum(prior.sum(axis=1, keepdims=True), 1e-300)
        m = NB_PRIOR_WEIGHT * n_j
        probs = (est + m * prior) / (est.sum(axis=1, keepdims=True) + m)
        return np.where(live, probs, 0.0)

    def _node(self, masks, factors, w, parent_dist, depth) -> int:
        y = self.d.y
        counts = np.bincount(y, weights=w, minlength=self.C)
        clipped = np.clip(counts, 0, None)
        total = clipped.sum()
        sq = float(np.dot(w, w))
        n_eff = float(w.sum() ** 2 / sq) if sq > 0 else 0.0
        if parent_dist is None:
            dist = clipped / total if total > 0 else np.full(self.C, 1.0 / self.C)
        else:
            s = self.p.prior_strength
            dist = (clipped + s * parent_dist) / (total + s) if total + s > 0 else parent_dist
        self.nodes.append(
            dict(
                masks=masks,
                factors=factors,
                w=w,
                counts=clipped,
                total=total,
                n_eff=n_eff,
                dist=dist,
                depth=depth,
                feature=-1,
                left=-1,
                right=-1,
                go_left=None,
            )
        )
        return len(self.nodes) - 1

    def _others(self, node, j) -> np.ndarray:
        w = np.ones(len(self.d.y))
        for k, f in node["factors"].items():
            if k != j:
                w = w * f
        return w

    def _best_split(self, node):
        if node["total"] < 2 * self.min_leaf or np.count_nonzero(node["counts"]) < 2:
            return None
        if node["counts"].max() >= node["total"] * (1 - 1e-9):
            return None
        cands = []
        for j in range(len(self.d.names)):
            c = self._split_attribute(node, j)
            if c is not None:
                cands.append(c)
        if not cands:
            return None
        mean_gain = np.mean([c[0] for c in cands])
        eligible = [c for c in cands if c[0] >= mean_gain - 1e-12]
        gain, ratio, j, order, t, cum, w_minus = max(eligible, key=lambda c: (c[1], c[0]))
        n_j = self.d.n_values[j]
        left_mask = np.zeros(n_j, bool)
        left_mask[order[:t]] = True
        right_mask = np.zeros(n_j, bool)
        right_mask[order[t:]] = True
        p = self.d.codes[:, j]
        f_left = cum[p, t]
        f_right = cum[p, len(order)] - f_left
        return j, left_mask, right_mask, f_left, f_right, w_minus

    def _split_attribute(self, node, j):
        d, C = self.d, self.C
        n_j = d.n_values[j]
        allowed = node["masks"].get(j)
        codes_in = np.arange(n_j) if allowed is None else np.flatnonzero(allowed)
        k = len(codes_in)
        if k < 2:
            return None
        w_minus = self._others(node, j)
        key = d.y * n_j + d.codes[:, j]
        H = np.bincount(key, weights=w_minus, minlength=C * n_j).reshape(C, n_j)
        H2 = np.bincount(key, weights=w_minus * w_minus, minlength=C * n_j).reshape(C, n_j)
        inv_t = d.inv_t[j]  # inv_t[h, o] = (M^-T)[h, o]
        per_code = H @ inv_t[:, codes_in]  # estimated class counts per original code in I_j
        if d.ordered[j]:
            order = codes_in
        else:
            major = int(np.argmax(node["counts"]))
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
        ok = (n_left >= self.min_leaf) & (n_right >= self.min_leaf)
        ok &= (L.sum(axis=0) > self.z * se_left) & (R.sum(axis=0) > self.z * se_right)
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
        ok &= (neff_l >= self.min_neff) & (neff_r >= self.min_neff)
        g_stat = 2 * _LN2 * node["n_eff"] * gain
        ok &= g_stat > self.g_crit
        if not ok.any():
            return None
        if self.p.criterion == "gini":
            return self._gini_choice(L, R, T, var_l, var_r, ok, j, order, cum, w_minus)
        gain = np.where(ok, gain, -np.inf)
        t = int(np.argmax(gain))
        total = n_left[t] + n_right[t]
        si = float(split_info(bags[t])) / total if total > 0 else 0.0
        ratio = gain[t] / si if si > 0 else 0.0
        return float(gain[t]), float(ratio), j, order, t + 1, cum, w_minus

    @staticmethod
    def _gini_choice(L, R, T, var_l, var_r, ok, j, order, cum, w_minus):
        """Gini decrease with bias-corrected squares: ``E[c_hat^2] = c^2 + Var(c_hat)``,
        so ``c_hat^2 - Var_hat`` is an unbiased estimate of ``c^2``."""
        n_l, n_r, n = L.sum(axis=0), R.sum(axis=0), max(T.sum(), 1e-9)
        q_l = (L**2 - np.clip(var_l, 0, None)).sum(axis=0)
        q_r = (R**2 - np.clip(var_r, 0, None)).sum(axis=0)
        score = q_l / np.maximum(n_l, 1e-9) + q_r / np.maximum(n_r, 1e-9)
        score = np.where(ok, score, -np.inf)
        t = int(np.argmax(score))
        decrease = (score[t] - (T**2).sum() / n) / n
        return float(decrease), float(decrease), j, order, t + 1, cum, w_minus

    def _leaf_error(self, node) -> float:
        total = node["total"]
        if total <= 0:
            return 0.0
        n_eff = max(node["n_eff"], 1e-9)
        wrong = total - (node["dist"] * total).max() if node["total"] > 0 else 0.0
        wrong = max(wrong, 0.0)
        e_eff = wrong / total * n_eff
        rate = (e_eff + added_errors(n_eff, e_eff, self.p.confidence)) / n_eff
        return rate * total

    def _prune(self, idx: int) -> float:
        node = self.nodes[idx]
        leaf = self._leaf_error(node)
        if node["feature"] < 0:
            return leaf
        sub = self._prune(node["left"]) + self._prune(node["right"])
        if leaf <= sub + 0.1:
            node.update(feature=-1, left=-1, right=-1, go_left=None)
            return leaf
        return sub

    def _arrays(self) -> dict:
        keep, remap = [], {}
        stack = [0]
        while stack:
            i = stack.pop()
            remap[i] = len(keep)
            keep.append(i)
            nd = self.nodes[i]
            if nd["feature"] >= 0:
                stack.extend([nd["right"], nd["left"]])
        m = len(keep)
        out = {
            "_order": keep,
            "feature": np.full(m, -1, dtype=np.int64),
            "left": np.full(m, -1, dtype=np.int64),
            "right": np.full(m, -1, dtype=np.int64),
            "mask": np.zeros((m, self.max_n), dtype=bool),
            "value": np.zeros((m, self.C)),
            "n_eff": np.zeros(m),
            "count": np.zeros(m),
        }
        for new, old in enumerate(keep):
            nd = self.nodes[old]
            out["value"][new] = nd["dist"]
            out["n_eff"][new] = nd["n_eff"]
            out["count"][new] = nd["total"]
            if nd["feature"] >= 0:
                out["feature"][new] = nd["feature"]
                out["left"][new] = remap[nd["left"]]
                out["right"][new] = remap[nd["right"]]
                out["mask"][new, : len(nd["go_left"])] = nd["go_left"]
        return out
