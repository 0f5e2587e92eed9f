"""Accuracy on the *original* data, estimated from a perturbed held-out fold.

For a model whose decision regions are boxes of original codes,
``s_r = sum_leaves [y_r = class(leaf)] prod_j v_{I_j}(p_rj)`` is unbiased for "record r
is classified correctly"; ``mean(s)`` estimates the accuracy and ``sd(s) / sqrt(n)`` its
standard error (docs/release_learners.md derives it).

References
----------
Dowd, Xu & Zhang, Eq. (1); Ma & Sivakumar, Sec. 4 and Theorems 1-2 (unbiased statistics
from randomized data); Stone (1974) and Hastie, Tibshirani & Friedman (2009), Sec. 7.10
(cross-validation and the one-standard-error rule).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..exceptions import DataError

__all__ = [
    "MAX_CELLS",
    "release_accuracy",
    "release_accuracy_score",
    "release_accuracy_se",
    "mean_and_se",
    "release_correct",
]

#: Most cells of the code grid enumerated in one naive Bayes leaf.
MAX_CELLS = 4096


def _final_step(estimator, X):
    """The release learner at the end of ``estimator`` (a Pipeline's last step) and
    ``X`` transformed by the steps before it."""
    if hasattr(estimator, "steps"):
        for _, step in estimator.steps[:-1]:
            if step is not None and step != "passthrough":
                X = step.transform(X)
        estimator = estimator.steps[-1][1]
    fitted = hasattr(estimator, "tree_") or hasattr(estimator, "trees_")
    if not (fitted and all(hasattr(estimator, a) for a in ("coders_", "matrices_"))):
        raise DataError(
            f"release_accuracy needs a fitted release learner (ReleaseTreeClassifier, "
            f"ReleaseForestClassifier or LocalReconstructionClassifier); "
            f"got {type(estimator).__name__}"
        )
    return estimator, X


def _labels(estimator, X, y) -> np.ndarray:
    if y is None:
        spec = estimator.spec_
        if spec is None or not isinstance(X, pd.DataFrame) or spec.class_attribute not in X:
            raise DataError("give y, or a perturbed fold holding the spec's class column")
        y = X[spec.class_attribute]
    y = np.asarray(y)
    pos = np.searchsorted(estimator.classes_, y)
    pos = np.clip(pos, 0, len(estimator.classes_) - 1)
    known = estimator.classes_[pos] == y
    return np.where(known, pos, -1)


def _leaf_regions(estimator, leaf: int, box: list, n_values: list[int]):
    """``(masks, class)`` regions of one leaf that are constant in prediction."""
    tree = estimator.tree_
    if tree.nb_logp is None:
        return [(box, int(np.argmax(tree.value[leaf])))]
    # naive Bayes leaf: its prediction varies with every attribute's code; enumerate
    # the cells of the leaf's box
    allowed = [np.arange(n) if m is None else np.flatnonzero(m) for n, m in zip(n_values, box)]
    n_cells = int(np.prod([len(a) for a in allowed], dtype=float))
    if n_cells > MAX_CELLS:
        raise DataError(
            f"a naive Bayes leaf spans {n_cells} cells of the code grid (at most {MAX_CELLS}); "
            "release_accuracy needs decision regions that are few boxes"
        )
    grid = np.stack(np.meshgrid(*allowed, indexing="ij"), axis=-1).reshape(-1, len(allowed))
    cls = np.argmax(tree.proba(grid), axis=1)
    return [
        ([np.arange(n) == code for n, code in zip(n_values, row)], int(c))
        for row, c in zip(grid, cls)
    ]


def _atoms(trees, j: int, n_values: int) -> np.ndarray:
    """Atom of every code of attribute ``j``: codes that every test of ``j`` in
    ``trees`` sends the same way share an atom (numbered 0, 1, ...)."""
    sides = [t.mask[t.feature == j, :n_values] for t in trees]
    sig = np.concatenate(sides, axis=0).T if sides else np.zeros((n_values, 0), bool)
    return np.unique(sig, axis=0, return_inverse=True)[1].reshape(-1)


def _forest_correct(est, codes: np.ndarray, y_idx: np.ndarray, n_values: list[int]) -> np.ndarray:
    """``release_correct`` of a forest: its prediction is constant on the cells of the
    common refinement of its trees' tests, so the cells are its box-shaped regions."""
    if any(t.nb_logp is not None for t in est.trees_):
        raise DataError(
            "a forest with naive Bayes leaves predicts differently in every cell of the code "
            "grid; release_accuracy needs decision regions that are few boxes"
        )
    atoms = [_atoms(est.trees_, j, n) for j, n in enumerate(n_values)]
    sizes = [int(a.max()) + 1 for a in atoms]
    n_cells = int(np.prod(sizes, dtype=float))
    if n_cells > MAX_CELLS:
        raise DataError(
            f"the forest's trees cut the code grid into {n_cells} cells (at most {MAX_CELLS}); "
            "release_accuracy needs decision regions that are few boxes"
        )
    # attributes no tree tests are one atom (factor 1); enumerate the others' atoms,
    # one representative code per atom, and the forest's class in every cell
    active = [j for j, m in enumerate(sizes) if m > 1]
    shape = [sizes[j] for j in active]
    grid = np.zeros((int(np.prod(shape, dtype=float)), len(n_values)), dtype=np.int64)
    if active:
        cell_atoms = np.indices(shape).reshape(len(active), -1).T
        for k, j in enumerate(active):
            first = np.array([np.flatnonzero(atoms[j] == a)[0] for a in range(sizes[j])])
            grid[:, j] = first[cell_atoms[:, k]]
    cls = np.argmax(est._proba_codes(grid), axis=1)
    # per record and active attribute, v_atom(p_rj) for every atom: (n, atoms_j)
    inv_t = [est.matrices_[j].inverse_transpose_apply(np.eye(n_values[j])) for j in active]
    factors = []
    for k, j in enumerate(active):
        onehot = np.zeros((n_values[j], sizes[j]))
        onehot[np.arange(n_values[j]), atoms[j]] = 1.0
        factors.append((inv_t[k] @ onehot)[codes[:, j]])
    s = np.zeros(len(codes))
    for c in range(len(est.classes_)):
        rows = np.flatnonzero(y_idx == c)
        if not rows.size:
            continue
        # contract the indicator of class c's cells with the records' factors, attribute
        # by attribute: sum over cells of prod_j v_{atom_j}(p_rj)
        acc = np.broadcast_to((cls == c).astype(float), (rows.size, len(cls)))
        for k, f in enumerate(factors):
            acc = acc.reshape(rows.size, shape[k], -1)
            acc = np.einsum("rak,ra->rk", acc, f[rows])
        s[rows] = acc.reshape(-1)
    return s


def release_correct(estimator, X, y=None) -> np.ndarray:
    """Per perturbed record, an unbiased estimate of "its original is classified correctly".

    Parameters
    ----------
    estimator : fitted ReleaseTreeClassifier, ReleaseForestClassifier or
        LocalReconstructionClassifier (or a Pipeline ending in one). A forest is scored
        on the cells of the common refinement of its trees' tests (at most
        ``MAX_CELLS``; not with naive Bayes leaves).
    X : DataFrame or array
        Perturbed records (a held-out fold of the release), as ``fit`` takes them.
    y : array-like, optional
        Their (unperturbed) classes; default: the spec's class column of ``X``.

    Returns
    -------
    ndarray of shape (n_samples,)
        ``s_r`` with ``E[s_r | original record] = [prediction == y_r]``.
    """
    est, Xt = _final_step(estimator, X)
    y_idx = _labels(est, Xt, y)
    codes = est._encode(Xt)
    n_values = [c.n_values for c in est.coders_]
    if hasattr(est, "trees_"):
        return _forest_correct(est, codes, y_idx, n_values)
    # v_I(h) = sum_{o in I} (M^-T)[h, o], per attribute
    inv_t = [m.inverse_transpose_apply(np.eye(m.n_values)) for m in est.matrices_]
    s = np.zeros(len(codes))
    for leaf, box in est.tree_.leaf_boxes(n_values):
        for masks, cls in _leaf_regions(est, leaf, box, n_values):
            hit = y_idx == cls
            if not hit.any():
                continue
            w = hit.astype(float)
            for j, mask in enumerate(masks):
                if mask is not None and not mask.all():
                    w *= (inv_t[j] @ mask.astype(float))[codes[:, j]]
            s += w
    return s


def release_accuracy_score(estimator, X, y=None) -> tuple[float, float]:
    """Accuracy on the original distribution, estimated from perturbed records, and its
    standard error.

    Returns
    -------
    (accuracy, standard error) : tuple of float
        ``mean(s)`` and ``sd(s) / sqrt(n)`` of :func:`release_correct`'s ``s``. The
        estimate is unbiased and may leave [0, 1] on a small fold.

    Examples
    --------
    >>> import warnings
    >>> from ppdm.datasets import agrawal
    >>> from ppdm.demo import agrawal_spec
    >>> from ppdm.perturbation import perturb_frame
    >>> from ppdm.tree import ReleaseTreeClassifier
    >>> df = agrawal(6000, function=1, random_state=0)[["age", "salary", "group"]]
    >>> spec = agrawal_spec(df, 19.0, 10)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     rel = perturb_frame(df, spec, random_state=0)
    >>> clf = ReleaseTreeClassifier(spec=spec).fit(rel.iloc[:4000])
    >>> acc, se = release_accuracy_score(clf, rel.iloc[4000:])
    >>> truth = clf.score(df.iloc[4000:].drop(columns="group"), df["group"].iloc[4000:])
    >>> abs(acc - truth) < 4 * se
    True
    """
    return mean_and_se(release_correct(estimator, X, y))


def mean_and_se(s: np.ndarray, copies: int = 1) -> tuple[float, float]:
    """Mean of per-row scores ``s`` and its standard error over records.

    With ``copies`` per record, their rows in a row (as a release holds them), a record's
    rows share its original: the mean of its ``copies`` scores is one record's score.
    """
    rec = np.asarray(s, dtype=np.float64).reshape(-1, copies).mean(axis=1)
    if len(rec) < 2:
        raise DataError(f"release_accuracy needs at least 2 held-out records (got {len(rec)})")
    return float(rec.mean()), float(rec.std(ddof=1) / np.sqrt(len(rec)))


def release_accuracy(estimator, X, y=None) -> float:
    """Scorer (``scoring=release_accuracy``): estimated accuracy on the original data.

    See :func:`release_accuracy_score`.
    """
    return release_accuracy_score(estimator, X, y)[0]


def release_accuracy_se(estimator, X, y=None) -> float:
    """Scorer of the standard error of :func:`release_accuracy` on one fold.

    Use both in ``scoring={"acc": release_accuracy, "se": release_accuracy_se}``.
    """
    return release_accuracy_score(estimator, X, y)[1]
