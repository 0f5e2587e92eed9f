"""The Sec. 7 parameter advisor: run the (gamma, N) grid on the owner's data and choose.

The owner's table (or a sample of it) is split into train and test; for each (gamma, N)
every non-class attribute is encoded as the release pipeline would encode it with
``n_bins = N`` (:func:`ppdm.domain.infer_domain`: integer attributes with d <= N values
keep N = d), perturbed, reconstructed (Algorithm 2, set-scale) and a tree is learned;
its test accuracy, averaged over repetitions, fills the Fig. 6-style table. Two rules
then pick a design:

- **7.1** (:func:`rule_best_n_per_gamma`): for each gamma, the N with the highest
  accuracy (the smallest N among ties); among those, the smallest N (then the smallest
  gamma, for privacy).
- **7.2** (:func:`rule_min_accuracy`): among cells with accuracy >= A and gamma no
  greater than the desired gamma, the smallest N, then the smallest gamma; if none
  qualifies, the most accurate cell (the paper: "settle with the highest accuracy").

Skipping with Kang's bound (only when a minimum accuracy is given): Kang's bound on
the relative estimation error, ``sqrt(N(N-1)(N+2(gamma-1))) / ((gamma-1) sqrt(n))``,
grows as gamma falls at fixed N, and Fig. 6 shows accuracy falling along each N band as
gamma falls. So the grid is evaluated in waves, gamma from largest to smallest, all N
at once; once a cell misses the target, every cell with the same N and a larger Kang
bound (a smaller gamma) is skipped as unable to meet it. The bound is an *upper*
bound on the error, so this is a pruning heuristic resting on that monotone trend, not
a proof; ``skip=False`` (CLI ``--no-skip``) evaluates every cell. Cells are never
skipped across N, because accuracy is not monotone in N (small N loses detail to
coarse bins, Sec. 6.2).

References
----------
Dowd, Xu & Zhang, Sec. 7.1 and 7.2 (and Fig. 6); Kang, Theorem 1.
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..cells import cell_rng, run_cells
from ..exceptions import DataError, ParameterError
from ..matrix import GammaDiagonal
from ..privacy import attribute_privacy, kang_bound
from ..validation import check_choice, check_int, check_probability, show
from .core import MODES, EncodedTable, encode_table, perturb_table, reconstruct_table
from .grid import ADVISOR_GAMMAS, PAPER_NS
from .learners import make_learner

__all__ = [
    "Recommendation",
    "advisor_grid",
    "rule_best_n_per_gamma",
    "rule_min_accuracy",
    "recommend",
    "recommended_spec",
    "clearly_above_majority",
    "split_owner_data",
]


def _check_gammas(gammas) -> tuple[float, ...]:
    out = tuple(float(g) for g in gammas)
    if not out or any(not math.isfinite(g) or g <= 1 for g in out):
        raise ParameterError(
            f"gammas must be a non-empty list of numbers > 1 (got {list(gammas)!r})"
        )
    return tuple(sorted(set(out)))


def _check_ns(ns) -> tuple[int, ...]:
    out = tuple(ns)
    if not out or any(
        isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2 for n in out
    ):
        raise ParameterError(f"ns must be a non-empty list of integers >= 2 (got {list(ns)!r})")
    return tuple(sorted({int(n) for n in out}))


def _check_accuracy(a: float | None) -> float | None:
    if a is None:
        return None
    if not (isinstance(a, (int, float)) and 0.0 < float(a) <= 1.0):
        raise ParameterError(f"min_accuracy must be a fraction in (0, 1] (got {show(a)})")
    return float(a)


def split_owner_data(
    frame: pd.DataFrame,
    class_column: str,
    *,
    sample: int | None = None,
    test_fraction: float = 1 / 3,
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Optionally sample the owner's table, then split it into train and test (seeded).

    Parameters
    ----------
    frame : DataFrame
        The owner's table, with the class column.
    class_column : str
    sample : int, optional
        Use a random sample of this many rows.
    test_fraction : float, default=1/3
    seed : int, default=0

    Returns
    -------
    train, test : DataFrame
    """
    if class_column not in frame.columns:
        raise DataError(
            f"class column {class_column!r} is not in the data; it has {list(frame.columns)}"
        )
    if frame.shape[1] < 2:
        raise DataError("the data needs at least one attribute besides the class")
    if frame[class_column].isna().any():
        raise DataError(f"class column {class_column!r} has missing values")
    check_probability(test_fraction, "test_fraction", error=ParameterError)
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), 7]))
    n = len(frame)
    if sample is not None:
        check_int(sample, "sample", low=10, error=ParameterError)
        if sample < n:
            frame = frame.iloc[np.sort(rng.choice(n, int(sample), replace=False))]
            n = len(frame)
    n_test = int(round(n * test_fraction))
    if n_test < 1 or n - n_test < 2:
        raise DataError(f"the data has {n} rows: too few to split into train and test")
    perm = rng.permutation(n)
    test = frame.iloc[np.sort(perm[:n_test])].reset_index(drop=True)
    train = frame.iloc[np.sort(perm[n_test:])].reset_index(drop=True)
    return train, test


_CACHE: dict[tuple[str, int], EncodedTable] = {}


def _encoded(token: str, train: pd.DataFrame, class_column: str, n_bins: int) -> EncodedTable:
    key = (token, int(n_bins))
    if key not in _CACHE:
        if len(_CACHE) > 32:
            _CACHE.clear()
        X = train.drop(columns=[class_column])
        _CACHE[key] = encode_table(X, train[class_column].to_numpy(), int(n_bins), rule="infer")
    return _CACHE[key]


def _test_frame(table: EncodedTable, X_test: pd.DataFrame) -> pd.DataFrame:
    """Test attributes as the learner sees them: raw numbers, category codes.

    A categorical attribute with numeric values (integers with at most N distinct values
    in the training part) keeps its order: an unseen test value gets the code of the
    next larger training value (the largest code if none), so a split on codes is a
    split on values. An unseen non-numeric category gets -1.
    """
    from ..domain import CategoricalDomain

    out = {}
    for name, dom in zip(table.columns, table.domains):
        col = X_test[name]
        if isinstance(dom, CategoricalDomain):
            values = np.asarray(dom.values)
            if values.dtype.kind in "iuf" and pd.api.types.is_numeric_dtype(col):
                order = np.argsort(values, kind="stable")
                pos = np.searchsorted(values[order], col.to_numpy(np.float64), side="left")
                out[name] = order[np.minimum(pos, len(values) - 1)].astype(np.int64)
            else:
                index = {v: i for i, v in enumerate(dom.values)}
                out[name] = np.array([index.get(v, -1) for v in col.tolist()], dtype=np.int64)
        else:
            out[name] = col.to_numpy(np.float64)
    return pd.DataFrame(out)


def _advisor_cell(
    cell: tuple,
    *,
    train: pd.DataFrame,
    test: pd.DataFrame,
    class_column: str,
    token: str,
    seed: int,
    learner: str,
    mode: str,
) -> list[dict]:
    gamma, n_bins, rep = cell
    table = _encoded(token, train, class_column, n_bins)
    rng = cell_rng(seed, ("advise", token, *cell))
    rec = reconstruct_table(table, perturb_table(table, gamma, rng), gamma, rng, mode=mode)
    labels = np.unique(train[class_column].to_numpy())
    model = make_learner(learner).fit(table.decode(rec), labels[table.classes])
    pred = model.predict(_test_frame(table, test.drop(columns=[class_column])))
    acc = float(np.mean(pred == test[class_column].to_numpy()))
    return [{"gamma": gamma, "N": int(n_bins), "rep": int(rep), "accuracy": acc}]


def _token(frame: pd.DataFrame) -> str:
    h = pd.util.hash_pandas_object(frame, index=False).to_numpy()
    return hashlib.sha256(h.tobytes() + ",".join(map(str, frame.columns)).encode()).hexdigest()[:16]


def advisor_grid(
    train: pd.DataFrame,
    test: pd.DataFrame,
    class_column: str,
    *,
    gammas=ADVISOR_GAMMAS,
    ns=PAPER_NS,
    reps: int = 3,
    min_accuracy: float | None = None,
    skip: bool = True,
    learner: str = "c45",
    mode: str = "global",
    seed: int = 0,
    jobs: int = 1,
    mapper=None,
    progress: bool = False,
) -> pd.DataFrame:
    """Accuracy of trees learned from reconstructed data for every (gamma, N).

    Parameters
    ----------
    train, test : DataFrame
        The owner's data split (see :func:`split_owner_data`), with the class column.
    class_column : str
    gammas : sequence of float, default=5..12
    ns : sequence of int, default=the paper's 12 values of N
    reps : int, default=3
    min_accuracy : float, optional
        Target accuracy (a fraction); enables skipping with Kang's bound.
    skip : bool, default=True
        Skip cells that cannot meet ``min_accuracy`` (module docstring).
    learner : str, default="c45"
    mode : {"global", "by-class"}, default="global"
    seed : int, default=0
    jobs, mapper, progress
        See :func:`ppdm.cells.run_cells`.

    Returns
    -------
    pandas.DataFrame
        One row per (gamma, N): ``entropy``, ``kang_bound``, ``accuracy``, its ``sd``
        over the repetitions and the standard error ``se`` of their mean (NaN when skipped
        or with one repetition), ``status`` (``evaluated`` / ``skipped``) and ``reason``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7; Kang, Theorem 1.
    """
    gammas, ns = _check_gammas(gammas), _check_ns(ns)
    min_accuracy = _check_accuracy(min_accuracy)
    check_choice(mode, "mode", MODES, error=ParameterError)
    check_int(reps, "reps", error=ParameterError)
    make_learner(learner)  # fail early on a bad name
    token = _token(train)
    fn = functools.partial(
        _advisor_cell,
        train=train,
        test=test,
        class_column=class_column,
        token=token,
        seed=seed,
        learner=learner,
        mode=mode,
    )
    n = len(train)
    results: dict[tuple[float, int], list[float]] = {}
    reason: dict[tuple[float, int], str] = {}
    pruning = skip and min_accuracy is not None
    waves = [[g] for g in sorted(gammas, reverse=True)] if pruning else [list(gammas)]
    active = set(ns)
    for wave in waves:
        cells = [(g, nn, r) for g in wave for nn in sorted(active) for r in range(reps)]
        if not cells:
            break
        rows = run_cells(
            fn, cells, mapper=mapper, jobs=jobs, progress=progress, description="advise"
        )
        for (g, nn), part in rows.groupby(["gamma", "N"]):
            results[(float(g), int(nn))] = part["accuracy"].tolist()
        if pruning:
            for nn in sorted(active):
                acc = np.mean(results[(wave[0], nn)])
                if acc < min_accuracy:
                    active.discard(nn)
                    for g in gammas:
                        if g < wave[0]:
                            reason[(g, nn)] = (
                                f"gamma={wave[0]:g} (smaller Kang bound) already missed "
                                f"{min_accuracy:.3f} at N={nn}"
                            )
    majority, original = _baselines(train, test, class_column, token, max(ns), learner)
    out = []
    for g in gammas:
        for nn in ns:
            accs = results.get((g, nn))
            out.append(
                {
                    "gamma": g,
                    "N": nn,
                    "entropy": GammaDiagonal(nn, g).entropy(),
                    "kang_bound": kang_bound(g, nn, n),
                    "accuracy": float(np.mean(accs)) if accs else np.nan,
                    "sd": float(np.std(accs, ddof=1)) if accs and len(accs) > 1 else np.nan,
                    "se": (
                        float(np.std(accs, ddof=1) / np.sqrt(len(accs)))
                        if accs and len(accs) > 1
                        else np.nan
                    ),
                    "status": "evaluated" if accs else "skipped",
                    "reason": "" if accs else reason.get((g, nn), "not evaluated"),
                    "majority": majority,
                    "original_accuracy": original,
                    "n_test": len(test),
                }
            )
    return pd.DataFrame(out)


def _baselines(
    train: pd.DataFrame, test: pd.DataFrame, class_column: str, token: str, n_bins: int, learner
) -> tuple[float, float]:
    """Majority-class rate and the learner's accuracy on the original data (same test set)."""
    y_train = train[class_column].to_numpy()
    y_test = test[class_column].to_numpy()
    values, counts = np.unique(y_train, return_counts=True)
    majority = float(np.mean(y_test == values[np.argmax(counts)]))
    # the original data as they are: numbers as numbers, other values as category codes
    # (so the baseline does not depend on the grid's N)
    X_train, X_test = train.drop(columns=[class_column]), test.drop(columns=[class_column])
    table = _encoded(token, train, class_column, n_bins)
    fit_frame, test_frame = _test_frame(table, X_train), _test_frame(table, X_test)
    for name in X_train.columns:
        if pd.api.types.is_numeric_dtype(X_train[name]) and not pd.api.types.is_bool_dtype(
            X_train[name]
        ):
            fit_frame[name] = X_train[name].to_numpy(np.float64)
            test_frame[name] = X_test[name].to_numpy(np.float64)
    model = make_learner(learner).fit(fit_frame, y_train)
    pred = model.predict(test_frame)
    return majority, float(np.mean(pred == y_test))


#: A cell is recommended only if its accuracy beats the majority-class rate by this many
#: binomial standard errors of an accuracy measured on the test set.
CLEAR_MARGIN_SE = 2.0


def clearly_above_majority(table: pd.DataFrame) -> pd.Series:
    """Cells whose accuracy beats the majority-class rate by ``CLEAR_MARGIN_SE`` errors.

    The standard error is the binomial ``sqrt(a (1 - a) / n_test)`` of an accuracy ``a``
    measured on ``n_test`` test records. A table without a ``majority`` column (made by
    hand) has every cell above it.
    """
    if "majority" not in table.columns:
        return pd.Series(True, index=table.index)
    a = table["accuracy"].astype(float)
    n = table["n_test"].astype(float) if "n_test" in table.columns else np.inf
    se = np.sqrt(a * (1 - a) / n)
    return (a - table["majority"].astype(float)) > CLEAR_MARGIN_SE * np.maximum(se, 1e-12)


def _check_table(table: pd.DataFrame) -> pd.DataFrame:
    need = {"gamma", "N", "accuracy"}
    if not need <= set(table.columns):
        raise DataError(f"the table needs columns {sorted(need)} (got {list(table.columns)})")
    done = table.dropna(subset=["accuracy"])
    if "status" in done.columns:
        done = done[done["status"] == "evaluated"]
    if done.empty:
        raise DataError("the table has no evaluated cells to choose from")
    return done


def rule_best_n_per_gamma(table: pd.DataFrame, tolerance: float = 0.0) -> pd.DataFrame:
    """Sec. 7.1, first step: for each gamma, the N of highest accuracy (smallest N among ties).

    Parameters
    ----------
    table : DataFrame
        Columns ``gamma, N, accuracy`` (and optionally ``status``).
    tolerance : float, default=0.0
        Accuracies within ``tolerance`` of the best count as ties.

    Returns
    -------
    pandas.DataFrame
        One row per gamma: ``gamma, N, accuracy``.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 5, 9, 9], "N": [10, 20, 10, 20],
    ...                   "accuracy": [0.8, 0.8, 0.7, 0.9]})
    >>> rule_best_n_per_gamma(t)[["gamma", "N"]].values.tolist()
    [[5, 10], [9, 20]]

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.1.
    """
    done = _check_table(table)
    rows = []
    for _g, part in done.groupby("gamma", sort=True):
        best = part["accuracy"].max()
        ties = part[part["accuracy"] >= best - tolerance]
        rows.append(ties.sort_values("N", kind="stable").head(1)[["gamma", "N", "accuracy"]])
    if not rows:
        return pd.DataFrame(columns=["gamma", "N", "accuracy"])
    return pd.concat(rows, ignore_index=True)  # keeps the columns' dtypes (N stays an int)


@dataclass(frozen=True)
class Recommendation:
    """A chosen design.

    Attributes
    ----------
    gamma, N : the design
    accuracy : its average accuracy on the owner's data
    rule : "7.1" or "7.2"
    met : whether the accuracy target was met (always True for 7.1)
    privacy : dict of privacy figures (:func:`ppdm.privacy.attribute_privacy`)
    candidates : DataFrame of the rule's candidates
    majority : the majority-class rate on the test set (the trivial model's accuracy)
    original_accuracy : the learner's accuracy on the original data (same test set)
    reason : why nothing is recommended (``gamma`` is then None)
    """

    gamma: float | None
    N: int | None
    accuracy: float | None
    rule: str
    met: bool = True
    privacy: dict = field(default_factory=dict)
    candidates: pd.DataFrame | None = None
    majority: float | None = None
    original_accuracy: float | None = None
    reason: str = ""

    @property
    def recommended(self) -> bool:
        """Whether a design is recommended (some cell beats the majority rate clearly)."""
        return self.gamma is not None


def rule_min_accuracy(
    table: pd.DataFrame, min_accuracy: float, max_gamma: float | None = None
) -> tuple[pd.Series, bool]:
    """Sec. 7.2: smallest N, then smallest gamma, among cells meeting the accuracy.

    Parameters
    ----------
    table : DataFrame
        Columns ``gamma, N, accuracy``.
    min_accuracy : float
        Target accuracy, a fraction in (0, 1].
    max_gamma : float, optional
        The desired gamma: only cells with gamma <= max_gamma qualify (default: all).

    Returns
    -------
    (row, met)
        The chosen row and whether it meets the target; when no cell does, the most
        accurate cell (smallest N, then gamma, among ties) with ``met=False``.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 9, 5, 9], "N": [10, 10, 20, 20],
    ...                   "accuracy": [0.70, 0.85, 0.90, 0.95]})
    >>> row, met = rule_min_accuracy(t, 0.8)
    >>> (int(row["gamma"]), int(row["N"]), met)
    (9, 10, True)
    """
    target = _check_accuracy(min_accuracy)
    done = _check_table(table)
    if max_gamma is not None:
        done = done[done["gamma"] <= max_gamma]
        if done.empty:
            raise DataError(f"no evaluated cell has gamma <= {max_gamma}")
    ok = done[done["accuracy"] >= target]
    if len(ok):
        return ok.sort_values(["N", "gamma"], kind="stable").iloc[0], True
    best = done["accuracy"].max()
    top = done[done["accuracy"] >= best]
    return top.sort_values(["N", "gamma"], kind="stable").iloc[0], False


def recommend(
    table: pd.DataFrame,
    *,
    n_records: int,
    min_accuracy: float | None = None,
    max_gamma: float | None = None,
    tolerance: float = 0.0,
) -> Recommendation:
    """Apply 7.2 when a target accuracy is given, else 7.1; attach the privacy figures.

    Only cells whose accuracy is clearly above the majority-class rate
    (:func:`clearly_above_majority`) are candidates: a release whose best tree does no
    better than always guessing the commonest class is not worth recommending. When no
    cell qualifies the recommendation is empty (``gamma is None``) and says why.

    Parameters
    ----------
    table : DataFrame
        From :func:`advisor_grid` (or hand-made: ``gamma, N, accuracy``).
    n_records : int
        Records the release will hold (for Kang's bound in the privacy figures).
    min_accuracy : float, optional
    max_gamma : float, optional
        The desired gamma for 7.2 (default: the largest gamma in the table).
    tolerance : float, default=0.0
        Tie tolerance of 7.1.

    Returns
    -------
    Recommendation

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.1-7.2.
    """
    done = _check_table(table)
    majority = float(done["majority"].iloc[0]) if "majority" in done.columns else None
    original = (
        float(done["original_accuracy"].iloc[0]) if "original_accuracy" in done.columns else None
    )
    rule = "7.2" if min_accuracy is not None else "7.1"
    useful = done[clearly_above_majority(done)]
    if useful.empty:
        best = float(done["accuracy"].max())
        return Recommendation(
            gamma=None,
            N=None,
            accuracy=None,
            rule=rule,
            met=False,
            majority=majority,
            original_accuracy=original,
            reason=(
                f"no (gamma, N) beats the majority-class rate {majority:.4f} clearly (by "
                f"{CLEAR_MARGIN_SE:g} standard errors); the best cell reaches {best:.4f}: a "
                "tree from such a release predicts no better than always guessing the "
                "commonest class"
            ),
        )
    if min_accuracy is not None:
        row, met = rule_min_accuracy(useful, min_accuracy, max_gamma)
        cands = None
    else:
        cands = rule_best_n_per_gamma(useful, tolerance)
        row = cands.sort_values(["N", "gamma"], kind="stable").iloc[0]
        met = True
    gamma, n_bins = float(row["gamma"]), int(row["N"])
    privacy = attribute_privacy(GammaDiagonal(n_bins, gamma), int(n_records))
    return Recommendation(
        gamma=gamma,
        N=n_bins,
        accuracy=float(row["accuracy"]),
        rule=rule,
        met=met,
        privacy=privacy,
        candidates=cands,
        majority=majority,
        original_accuracy=original,
    )


def recommended_spec(frame: pd.DataFrame, class_column: str, rec: Recommendation):
    """A release spec for ``ppdm perturb --spec`` with the recommended gamma and N.

    Domains are those the release pipeline infers with ``n_bins = N`` (integer attributes
    with d <= N values stay categorical with N = d, Sec. 7.1); every non-class attribute
    gets a gamma-diagonal matrix; the class is not perturbed.

    Returns
    -------
    ppdm.release.ReleaseSpec
    """
    from ..perturb import plan_release

    return plan_release(frame, class_attribute=class_column, gamma=rec.gamma, n_bins=rec.N)
