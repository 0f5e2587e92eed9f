"""The owner's advisor: which (gamma, N, learner) to release with, scored as miners mine.

The owner holds the original table, so every design is scored the way it will be used:
for each repetition the table is split afresh into train and test, the training part is
released in memory exactly as ``ppdm perturb`` would release it (the spec of
:func:`ppdm.perturbation.plan_release` on the owner's whole table, drawn by
:func:`ppdm.perturbation.perturb_frame`), each learner a miner can choose
(:data:`ppdm.mining.CANDIDATES`, fitted by :func:`ppdm.mining.fit_candidate`) learns from
that release, and its accuracy is counted on the ORIGINAL test part. Beside them the
paper's pipeline (global Algorithm 2, then C4.5) is scored on the same releases.

The grid is screened with a few repetitions; a rule then picks a cell over the best
learner of each cell, within the owner's policy (the largest gamma allowed: cells above
it are left out and the advice says so):

- **7.1**: among the cells within one standard error of the most accurate (the s.e. of
  a cell's mean pooled over the grid), the smallest gamma (the strongest privacy), then
  the smallest N. The screening's most accurate cell is confirmed beside it on the same
  fresh splits, and recommended instead if the rule's cell falls more than one s.e. of
  the paired difference below it. (The paper's 7.1, each gamma's best N and then the
  smallest N, gives the paper pipeline's advice shown beside it.)
- **7.2** (a target accuracy): the smallest gamma whose best cell meets the target, at
  its most accurate N; if no cell meets it, the most accurate cell, flagged.

The chosen (gamma, N, learner) is then confirmed on fresh releases of fresh splits
(``confirm`` repetitions): its figure is their mean, with the standard error of that
mean and the standard deviation of one release's accuracy. The owner makes ONE release,
so the honest claim for it is ``accuracy ± 2 * release_se``, with
``release_se = sqrt(sd^2 + se^2)`` (the spread of one release plus the error of the
advisor's mean). Confirming on fresh draws also removes the optimism of picking the
best of many screened cells. The same rule applied to the paper's pipeline gives the
advice the paper's method would give, confirmed the same way, for comparison.

N may differ per attribute: for each perturbed attribute the N of the grid that carries
the most class information through its channel (the mutual information of the class
and the perturbed value, less its finite-sample bias) is tried against the common N;
it is kept only when it wins clearly (by two standard errors of the paired difference)
and the advice says which was kept.

References
----------
Dowd, Xu & Zhang, Sec. 6 (the release, Algorithm 2 and C4.5) and Sec. 7 (the rules).
"""

from __future__ import annotations

import functools
import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .cells import cell_seed_sequence, run_cells
from .exceptions import DataError, ParameterError
from .matrix import GammaDiagonal
from .mining import CANDIDATES, Candidate, fit_candidate
from .perturbation import perturb_frame, plan_release
from .privacy import attribute_privacy, gamma_from_rho, kang_bound
from .release import ReleaseSpec
from .validation import check_int, check_probability, show

__all__ = [
    "Advice",
    "ADVISOR_GAMMAS",
    "ADVISOR_NS",
    "DEFAULT_LEARNERS",
    "PAPER_PIPELINE",
    "POLICY_GAMMA",
    "advise",
    "best_per_cell",
    "clearly_above_majority",
    "evaluate_designs",
    "format_advice",
    "plot_advice",
    "rule_best_n_per_gamma",
    "rule_min_accuracy",
    "rule_within_one_se",
]

#: The range Sec. 7 suggests for gamma.
ADVISOR_GAMMAS: tuple[int, ...] = tuple(range(5, 13))
#: N of the default grid: coarse to fine (the paper's 12 values cost 3x the time and
#: add cells between these that rarely win).
ADVISOR_NS: tuple[int, ...] = (5, 10, 20, 40)
#: The default policy: the audit's rho1 = 0.1 -> rho2 = 0.5, gamma 9.
POLICY_GAMMA: float = gamma_from_rho(0.1, 0.5)
#: The learners scored by default (labels of :data:`ppdm.mining.CANDIDATES`): the forest,
#: the release tree at depth 8 and C4.5 on the by-class reconstruction; ``learners="all"``
#: scores every candidate (on a 20,000-record table the release tree's other depths and
#: leaf sizes gave the same accuracy as depth 8 in every cell).
DEFAULT_LEARNERS: tuple[str, ...] = (
    "release-forest",
    "release-tree depth 8, leaf 0.02",
    "c45 on the by-class reconstruction",
)
#: The paper's pipeline: Algorithm 2 on the whole table, then C4.5 (Sec. 6).
PAPER_PIPELINE = Candidate("c45 on the global reconstruction (the paper's)", "c45", (), "global")
#: A cell is recommended only if its accuracy beats the majority-class rate by this many
#: binomial standard errors of an accuracy measured on the test part.
CLEAR_MARGIN_SE = 2.0


@dataclass(frozen=True)
class _MemoryRelease:
    """A release held in memory: what :func:`ppdm.mining.fit_candidate` reads."""

    spec: ReleaseSpec
    data: pd.DataFrame

    def frame(self, *, check_values: bool = False) -> pd.DataFrame:
        return self.data  # drawn by perturb_frame: every value is one of its domain's


@dataclass(frozen=True)
class Advice:
    """The advisor's answer.

    Attributes
    ----------
    gamma, N, learner : the recommended design (None when nothing is recommended);
        ``N`` is one number, or a dict attribute -> N when per-attribute N won
    accuracy, se, sd, release_se, reps : the confirmed figure, the standard error of
        that mean, the sd of one release's accuracy, ``sqrt(sd^2 + se^2)`` (the error
        of the figure as a prediction of one fresh release) and the fresh releases
    rule : "7.1" or "7.2"; met : whether the confirmed accuracy meets the target
    table : one row per (gamma, N, learner) of the screening grid
    paper : the paper pipeline's own advice under the same rule and policy, confirmed
    majority, original_accuracy : baselines on the same test parts
    privacy : :func:`ppdm.privacy.attribute_privacy` of the design, for all records
    notes : what was left out and why, what per-attribute N did
    spec : the release spec to publish with (``ppdm perturb --spec``)
    reason : why nothing is recommended
    """

    gamma: float | None
    N: int | dict | None
    learner: str | None
    accuracy: float | None
    se: float | None
    sd: float | None
    release_se: float | None
    reps: int
    rule: str
    met: bool
    table: pd.DataFrame
    paper: dict
    majority: float
    original_accuracy: float
    max_gamma: float | None
    min_accuracy: float | None
    privacy: dict = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    spec: ReleaseSpec | None = None
    reason: str = ""

    @property
    def recommended(self) -> bool:
        """Whether a design is recommended."""
        return self.gamma is not None

    def summary(self) -> dict:
        """The JSON summary (``advice.json``); the command line and the app read these keys."""
        done = self.table[self.table["status"] == "evaluated"]
        return {
            "recommended": self.recommended,
            "rule": self.rule,
            "gamma": self.gamma,
            "N": self.N,
            "learner": self.learner,
            "accuracy": self.accuracy,
            "se": self.se,
            "sd": self.sd,
            "release_se": self.release_se,
            "reps": self.reps,
            "met": self.met,
            "min_accuracy": self.min_accuracy,
            "max_gamma": self.max_gamma,
            "paper": self.paper,
            "majority_rate": self.majority,
            "original_accuracy": self.original_accuracy,
            "privacy": self.privacy,
            "cells_evaluated": int(done[["gamma", "N"]].drop_duplicates().shape[0]),
            "cells_left_out": int(
                self.table.loc[self.table["status"] != "evaluated", ["gamma", "N"]]
                .drop_duplicates()
                .shape[0]
            ),
            "notes": list(self.notes),
            "reason": self.reason,
        }


def _check_grid(gammas, ns) -> tuple[tuple[float, ...], tuple[int, ...]]:
    gs = tuple(float(g) for g in gammas)
    if not gs or any(not math.isfinite(g) or g <= 1 for g in gs):
        raise ParameterError(f"gammas must be a non-empty list of numbers > 1 (got {list(gammas)})")
    bad = [n for n in ns if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2]
    if not ns or bad:
        raise ParameterError(f"ns must be a non-empty list of integers >= 2 (got {list(ns)})")
    return tuple(sorted(set(gs))), tuple(sorted({int(n) for n in ns}))


def _check_accuracy(a: float | None) -> float | None:
    if a is None:
        return None
    if not (isinstance(a, (int, float)) and 0.0 < float(a) <= 1.0):
        raise ParameterError(f"min_accuracy must be a fraction in (0, 1] (got {show(a)})")
    return float(a)


def _learners(learners) -> tuple[Candidate, ...]:
    by_label = {c.label: c for c in CANDIDATES}
    if learners == "all":
        return CANDIDATES
    unknown = [name for name in learners if name not in by_label]
    if unknown or not learners:
        raise ParameterError(
            f"learners must be labels of ppdm.mining.CANDIDATES ({', '.join(by_label)}) "
            f"or 'all' (got {list(learners)})"
        )
    return tuple(by_label[name] for name in learners)


def _split(n: int, test_fraction: float, seed: int, rep: int) -> tuple[np.ndarray, np.ndarray]:
    """Train and test row numbers of repetition ``rep`` (a fresh split each)."""
    rng = np.random.default_rng(cell_seed_sequence(seed, ("split", rep)))
    perm = rng.permutation(n)
    n_test = int(round(n * test_fraction))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


def _score(
    task: tuple,
    *,
    frame: pd.DataFrame,
    target: str,
    specs: dict,
    learners: tuple[Candidate, ...],
    test_fraction: float,
    seed: int,
) -> list[dict]:
    """One repetition of one spec: release the training part, score every learner.

    ``task`` is ``(spec key, rep)``; the key ``"original"`` scores C4.5 on the original
    training part and the majority class instead (the baselines).
    """
    key, rep = task
    train_rows, test_rows = _split(len(frame), test_fraction, seed, rep)
    train, test = frame.iloc[train_rows], frame.iloc[test_rows]
    y_test = test[target].to_numpy()
    X_test = test.drop(columns=[target])
    if key == "original":
        from .mining import make_learner

        values, counts = np.unique(train[target].to_numpy(), return_counts=True)
        model = make_learner("c45").fit(train.drop(columns=[target]), train[target])
        return [
            {"key": key, "rep": rep, "learner": "majority class",
             "accuracy": float(np.mean(y_test == values[np.argmax(counts)]))},
            {"key": key, "rep": rep, "learner": "c45 on the original",
             "accuracy": float(np.mean(model.predict(X_test) == y_test))},
        ]  # fmt: skip
    spec = specs[key].model_copy(update={"n_records": len(train)})
    state = cell_seed_sequence(seed, ("release", key, rep))
    release = _MemoryRelease(spec, perturb_frame(train, spec, state, warn=False))
    fit_seed = int(state.generate_state(1)[0])
    rows = []
    for cand in learners:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = fit_candidate(cand, release, random_state=fit_seed)
            pred = model.predict(X_test[[n for n in spec.names if n != target]])
        rows.append(
            {
                "key": key,
                "rep": rep,
                "learner": cand.label,
                "accuracy": float(np.mean(pred == y_test)),
            }
        )
    return rows


def _plan(frame: pd.DataFrame, target: str, gamma: float, n_bins) -> ReleaseSpec:
    """The spec ``ppdm perturb`` plans for the owner's table (``n_bins``: N or attr -> N)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not isinstance(n_bins, dict):
            return plan_release(frame, class_attribute=target, gamma=gamma, n_bins=int(n_bins))
        plans = {n: _plan(frame, target, gamma, n) for n in set(n_bins.values())}
    base = plans[next(iter(plans))]
    attrs = [
        plans[n_bins[a.name]].attribute(a.name) if a.name in n_bins else a for a in base.attributes
    ]
    return base.model_copy(update={"attributes": attrs})


def _stats(values) -> dict:
    a = np.asarray(values, dtype=float)
    sd = float(np.std(a, ddof=1)) if len(a) > 1 else float("nan")
    return {"accuracy": float(a.mean()), "sd": sd, "se": sd / math.sqrt(len(a)), "reps": len(a)}


def clearly_above_majority(accuracy: pd.Series, majority: float, n_test: int) -> pd.Series:
    """Accuracies above the majority-class rate by ``CLEAR_MARGIN_SE`` binomial errors."""
    a = accuracy.astype(float)
    se = np.sqrt(a * (1 - a) / max(n_test, 1))
    return (a - majority) > CLEAR_MARGIN_SE * np.maximum(se, 1e-12)


def rule_best_n_per_gamma(cells: pd.DataFrame, tolerance: float = 0.0) -> pd.DataFrame:
    """Sec. 7.1, first step: for each gamma, the N of highest accuracy (smallest N among ties).

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
    rows = []
    for _, part in cells.groupby("gamma", sort=True):
        ties = part[part["accuracy"] >= part["accuracy"].max() - tolerance]
        rows.append(ties.sort_values("N", kind="stable").head(1))
    return pd.concat(rows, ignore_index=True) if rows else cells.head(0)


def rule_min_accuracy(cells: pd.DataFrame, min_accuracy: float) -> tuple[pd.Series, bool]:
    """Sec. 7.2: the smallest gamma whose best cell meets the target, at its best N.

    Returns the chosen row and whether it meets the target; when no cell does, the most
    accurate cell (smallest gamma, then N, among ties) with ``met=False``.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 9, 5, 9], "N": [10, 10, 20, 20],
    ...                   "accuracy": [0.70, 0.85, 0.90, 0.95]})
    >>> row, met = rule_min_accuracy(t, 0.8)
    >>> (int(row["gamma"]), int(row["N"]), met)
    (5, 20, True)
    """
    target = _check_accuracy(min_accuracy)
    ok = cells[cells["accuracy"] >= target]
    pool, met = (ok, True) if len(ok) else (cells, False)
    if met:
        pool = pool[pool["gamma"] == pool["gamma"].min()]
    top = pool[pool["accuracy"] >= pool["accuracy"].max()]
    return top.sort_values(["gamma", "N"], kind="stable").iloc[0], met


def pooled_se(cells: pd.DataFrame) -> float:
    """The standard error of one cell's mean accuracy, pooled over the grid: the root
    mean square of the cells' s.e. (a cell's own s.e. from two repetitions is too noisy
    to set a width with)."""
    se = cells["se"].astype(float).dropna()
    return float(np.sqrt(np.mean(se**2))) if len(se) else 0.0


def rule_within_one_se(cells: pd.DataFrame, tolerance: float = 0.0) -> pd.Series:
    """Rule 7.1 as the advisor applies it: among the cells within one standard error of
    the most accurate (:func:`pooled_se`, or ``tolerance`` if wider), the smallest gamma
    (the strongest privacy), then the smallest N (the smallest matrix), then the most
    accurate.

    The paper's rule 7.1 takes each gamma's most accurate N and then the smallest N,
    whatever accuracy that costs; its rule 7.2 prefers the smallest gamma among designs
    that reach the accuracy wanted. Here the accuracy wanted is the best the grid shows,
    less what the screening cannot tell apart from it.

    Examples
    --------
    >>> t = pd.DataFrame({"gamma": [5, 7, 9, 9], "N": [5, 10, 5, 20],
    ...                   "accuracy": [0.80, 0.89, 0.90, 0.91], "se": [0.01] * 4})
    >>> r = rule_within_one_se(t)
    >>> (int(r["gamma"]), int(r["N"]))
    (9, 5)

    References
    ----------
    Dowd, Xu & Zhang, Sec. 7.1 and 7.2.
    """
    width = max(pooled_se(cells), float(tolerance))
    near = cells[cells["accuracy"] >= cells["accuracy"].max() - width]
    near = near.sort_values("accuracy", ascending=False, kind="stable")
    return near.sort_values(["gamma", "N"], kind="stable").iloc[0]


def best_per_cell(cells: pd.DataFrame) -> pd.DataFrame:
    """The most accurate learner of each (gamma, N), the paper pipeline left out."""
    mined = cells[cells["learner"] != PAPER_PIPELINE.label]
    return (
        mined.sort_values("accuracy", ascending=False, kind="stable")
        .groupby(["gamma", "N"], sort=False)
        .head(1)
    )


def _choose(cells: pd.DataFrame, min_accuracy, tolerance) -> tuple[pd.Series | None, bool]:
    """The advice's cell: rule 7.2 with a target, else rule 7.1 within one s.e."""
    if cells.empty:
        return None, False
    if min_accuracy is not None:
        return rule_min_accuracy(cells, min_accuracy)
    return rule_within_one_se(cells, tolerance), True


def _choose_paper(cells: pd.DataFrame, min_accuracy, tolerance) -> tuple[pd.Series | None, bool]:
    """The paper's rules as written: 7.1 takes each gamma's best N, then the smallest N,
    then the smallest gamma; 7.2 as :func:`rule_min_accuracy`."""
    if cells.empty:
        return None, False
    if min_accuracy is not None:
        return rule_min_accuracy(cells, min_accuracy)
    best = rule_best_n_per_gamma(cells, tolerance)
    return best.sort_values(["N", "gamma"], kind="stable").iloc[0], True


def _channel_n(frame: pd.DataFrame, target: str, gamma: float, ns, n_train: int) -> dict:
    """Per perturbed attribute, the N of ``ns`` whose release carries the most class
    information: I(class; perturbed value) through the gamma-diagonal channel, less the
    ``(N - 1)(C - 1) / (2 n)`` nats a miner's estimate from ``n`` records overstates."""
    y = pd.Categorical(frame[target]).codes.astype(np.int64)  # int8 codes overflow
    n_classes = int(y.max()) + 1
    best: dict[str, tuple[float, int]] = {}
    for n_bins in ns:
        spec = _plan(frame, target, gamma, n_bins)
        for a in spec.perturbed_attributes():
            dom = a.get_domain()
            k = dom.n_values
            codes = np.asarray(dom.encode(frame[a.name], column=a.name), dtype=np.int64)
            joint = np.bincount(y * k + codes, minlength=n_classes * k).reshape(n_classes, k)
            p_c = joint.sum(1) / joint.sum()
            lam = (gamma - 1) / (gamma + k - 1)
            p_yc = lam * joint / np.maximum(joint.sum(1, keepdims=True), 1) + (1 - lam) / k
            p_y = p_c @ p_yc
            info = float(np.sum(p_c[:, None] * p_yc * np.log(p_yc / p_y)))
            info -= (k - 1) * (n_classes - 1) / (2 * n_train)
            if a.name not in best or info > best[a.name][0] + 1e-12:
                best[a.name] = (info, k if dom.kind == "categorical" else int(n_bins))
    return {name: n for name, (_, n) in best.items()}


def advise(
    frame: pd.DataFrame,
    class_column: str,
    *,
    gammas=ADVISOR_GAMMAS,
    ns=ADVISOR_NS,
    max_gamma: float | None = POLICY_GAMMA,
    min_accuracy: float | None = None,
    learners=DEFAULT_LEARNERS,
    reps: int = 2,
    confirm: int = 10,
    per_attribute: bool = True,
    tolerance: float = 0.0,
    sample: int | None = None,
    test_fraction: float = 1 / 3,
    seed: int = 0,
    jobs: int = 1,
    mapper=None,
    progress: bool = False,
) -> Advice:
    """Recommend (gamma, N, learner) for the owner's table, within the owner's policy.

    Parameters
    ----------
    frame : DataFrame
        The owner's table with its class column, complete (no missing values).
    class_column : str
    gammas, ns : sequences
        The grid (default gamma 5..12, N 5, 10, 20, 40).
    max_gamma : float or None, default=POLICY_GAMMA (9)
        The owner's policy: the largest gamma allowed. Cells above it are left out (and
        said so); ``None`` allows the whole grid.
    min_accuracy : float, optional
        Target accuracy (a fraction): rule 7.2; without it rule 7.1.
    learners : sequence of str or "all", default=DEFAULT_LEARNERS
        Labels of :data:`ppdm.mining.CANDIDATES` to score.
    reps : int, default=2
        Repetitions of every grid cell (fresh split and release each) for the screening.
    confirm : int, default=10
        Fresh releases of the chosen design behind its figure and standard errors.
    per_attribute : bool, default=True
        Try a per-attribute N against the common N (kept only when it wins clearly).
    tolerance : float, default=0.0
        Rule 7.1: accuracies this close to the best count as ties, if wider than one
        pooled standard error.
    sample : int, optional
        Advise on a random sample of this many rows.
    test_fraction : float, default=1/3
    seed : int, default=0
        Seeds the splits and the advisor's releases (never a release's).
    jobs, mapper, progress
        See :func:`ppdm.cells.run_cells`.

    Returns
    -------
    Advice

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6-7.
    """
    gammas, ns = _check_grid(gammas, ns)
    min_accuracy = _check_accuracy(min_accuracy)
    cands = _learners(learners)
    check_int(reps, "reps", error=ParameterError)
    check_int(confirm, "confirm", low=2, error=ParameterError)
    check_probability(test_fraction, "test_fraction", error=ParameterError)
    if max_gamma is not None and not (math.isfinite(max_gamma) and max_gamma > 1):
        raise ParameterError(f"max_gamma must be a number > 1 (got {show(max_gamma)})")
    frame = _owner_table(frame, class_column, sample, seed)
    n_test = int(round(len(frame) * test_fraction))
    if n_test < 2 or len(frame) - n_test < 2:
        raise DataError(f"the data has {len(frame)} rows: too few to split into train and test")
    allowed = [g for g in gammas if max_gamma is None or g <= max_gamma + 1e-9]
    notes = [_policy_note(max_gamma)]
    above = [g for g in gammas if g not in allowed]
    if above:
        notes.append(
            f"gamma {', '.join(f'{g:g}' for g in above)} left out: above the policy's "
            f"gamma {max_gamma:g}"
        )
    if not allowed:
        raise ParameterError(
            f"every gamma of the grid ({', '.join(f'{g:g}' for g in gammas)}) is above the "
            f"policy's gamma {max_gamma:g}: give gammas at most {max_gamma:g}"
        )
    specs = {(g, n): _plan(frame, class_column, g, n) for g in allowed for n in ns}
    run = functools.partial(
        _run, frame=frame, target=class_column, test_fraction=test_fraction, seed=seed,
        jobs=jobs, mapper=mapper, progress=progress,
    )  # fmt: skip
    tasks = [("original", r) for r in range(reps)] + [(k, r) for k in specs for r in range(reps)]
    rows = run(tasks, specs, (*cands, PAPER_PIPELINE), "advise: grid")
    base = rows[rows["key"] == "original"].groupby("learner")["accuracy"].mean()
    majority, original = float(base["majority class"]), float(base["c45 on the original"])
    table = _grid_table(rows[rows["key"] != "original"], gammas, ns, above, max_gamma, len(frame))
    done = table[table["status"] == "evaluated"]
    best = best_per_cell(done)
    table["best"] = table.index.isin(best.index)
    useful = best[clearly_above_majority(best["accuracy"], majority, n_test)]
    table["clear"] = table.index.isin(useful.index)  # a best learner clearly above majority
    paper_rows = done[done["learner"] == PAPER_PIPELINE.label]
    paper_rows = paper_rows[clearly_above_majority(paper_rows["accuracy"], majority, n_test)]
    common = dict(
        table=table, majority=majority, original_accuracy=original, max_gamma=max_gamma,
        min_accuracy=min_accuracy, rule="7.2" if min_accuracy is not None else "7.1",
    )  # fmt: skip
    fresh = range(reps, reps + confirm)
    paper = _confirm_paper(paper_rows, min_accuracy, tolerance, run, fresh, frame, class_column)
    row, _ = _choose(useful, min_accuracy, tolerance)
    if row is None:
        top = float(best["accuracy"].max()) if len(best) else float("nan")
        reason = (
            f"no (gamma, N) within the policy beats the majority-class rate {majority:.4f} "
            f"clearly (by {CLEAR_MARGIN_SE:g} standard errors); the best learner's best cell "
            f"reaches {top:.4f}: a model from such a release predicts no better than always "
            "guessing the commonest class"
        )
        return Advice(None, None, None, None, None, None, None, 0, met=False, paper=paper,
                      notes=tuple(notes), reason=reason, **common)  # fmt: skip
    top = useful.loc[useful["accuracy"].idxmax()] if min_accuracy is None else row
    confirm_run = functools.partial(
        _confirm_advice, frame=frame, target=class_column, cands=cands, run=run, fresh=fresh,
        ns=ns if per_attribute else (), n_train=len(frame) - n_test,
    )  # fmt: skip
    (gamma, n_bins, label), conf, chosen, vspecs, variants, more = confirm_run(row, top)
    notes += more
    stats = _stats(conf.loc[conf["key"] == chosen, "accuracy"])
    met = min_accuracy is None or stats["accuracy"] >= min_accuracy
    if min_accuracy is not None and not met and float(row["accuracy"]) >= min_accuracy:
        notes.append(
            f"the screened cell met {min_accuracy:.3f} ({float(row['accuracy']):.4f}); its "
            f"{confirm} fresh releases average {stats['accuracy']:.4f}: below the target"
        )
    n_out = variants[chosen][1]
    spec = vspecs[chosen]
    notes += _record_notes(spec)
    return Advice(
        gamma=gamma, N=n_out, learner=label, accuracy=stats["accuracy"], se=stats["se"],
        sd=stats["sd"], release_se=math.hypot(stats["sd"], stats["se"]), reps=confirm,
        met=bool(met), paper=paper, notes=tuple(notes), spec=spec,
        privacy=attribute_privacy(GammaDiagonal(max(_ns(n_out)), gamma), len(frame)), **common,
    )  # fmt: skip


def _design(row: pd.Series) -> tuple[float, int, str]:
    return float(row["gamma"]), int(row["N"]), str(row["learner"])


def _confirm_advice(row, top, *, frame, target, cands, run, fresh, ns, n_train):
    """Confirm the rule's cell on fresh releases of fresh splits.

    Under rule 7.1 the screening's most accurate cell ``top`` is confirmed beside it on
    the same splits; the rule's cell is kept when the paired difference is within one of
    its standard errors, else ``top`` is recommended. Then a per-attribute N (``ns``
    empty: not tried) is tried against the common N (:func:`_pick_variant`).
    """
    by_label = {c.label: c for c in cands}
    design, notes = _design(row), []
    conf = run([("common", r) for r in fresh], {"common": _plan(frame, target, *design[:2])},
               (by_label[design[2]],), "advise: confirm")  # fmt: skip
    if _design(top) != design:
        best = _design(top)
        other = run([("common", r) for r in fresh], {"common": _plan(frame, target, *best[:2])},
                    (by_label[best[2]],), "advise: confirm the best")  # fmt: skip
        diff = other.set_index("rep")["accuracy"] - conf.set_index("rep")["accuracy"]
        d, se = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff)))
        shown = f"gamma {best[0]:g}, N {best[1]}, {best[2]}"
        if d > se:
            notes.append(
                f"rule 7.1's cell (gamma {design[0]:g}, N {design[1]}) confirmed {100 * d:.2f} "
                f"points ± {100 * se:.2f} below the grid's best ({shown}): the best recommended"
            )
            design, conf = best, other
        else:
            notes.append(
                f"rule 7.1's cell confirmed within one s.e. of the grid's best ({shown}): "
                f"the best {100 * d:+.2f} points ± {100 * se:.2f} over it on the same fresh "
                "splits"
            )
    gamma, n_bins, label = design
    variants = {"common": (gamma, n_bins)}
    if ns:
        per = _channel_n(frame, target, gamma, ns, n_train)
        if len(set(per.values())) > 1 or any(v != n_bins for v in per.values()):
            variants["per-attribute"] = (gamma, per)
    vspecs = {key: _plan(frame, target, *gn) for key, gn in variants.items()}
    if "per-attribute" in vspecs:
        conf = pd.concat([conf, run([("per-attribute", r) for r in fresh],
                                    {"per-attribute": vspecs["per-attribute"]},
                                    (by_label[label],), "advise: per-attribute N")])  # fmt: skip
    chosen, note = _pick_variant(conf, variants, n_bins)
    return design, conf, chosen, vspecs, variants, [*notes, note]


def evaluate_designs(
    frame: pd.DataFrame,
    class_column: str,
    designs: dict,
    *,
    reps: int = 10,
    seed: int = 1,
    test_fraction: float = 1 / 3,
    jobs: int = 1,
) -> pd.DataFrame:
    """Accuracy of designs mined as advised, on fresh releases of fresh splits.

    ``designs`` maps a name to ``(gamma, N, learner label)`` (N one number or a dict
    attribute -> N; the label one of :data:`ppdm.mining.CANDIDATES` or
    :data:`PAPER_PIPELINE`'s). Every design is released and mined on the same ``reps``
    splits (paired), each tested on its original held-out records; with a seed other
    than the advisor's these are draws the advice was not chosen on.

    Returns
    -------
    DataFrame
        One row per design and repetition: ``design``, ``rep``, ``accuracy``.
    """
    check_int(reps, "reps", low=2, error=ParameterError)
    frame = _owner_table(frame, class_column, None, seed)
    by_label = {c.label: c for c in (*CANDIDATES, PAPER_PIPELINE)}
    out = []
    for name, (gamma, n_bins, label) in designs.items():
        spec = {"design": _plan(frame, class_column, float(gamma), n_bins)}
        rows = _run([("design", r) for r in range(reps)], spec, (by_label[label],), name,
                    frame=frame, target=class_column, test_fraction=test_fraction, seed=seed,
                    jobs=jobs, mapper=None, progress=False)  # fmt: skip
        out.append(rows.assign(design=name)[["design", "rep", "accuracy"]])
    return pd.concat(out, ignore_index=True)


def _record_notes(spec: ReleaseSpec) -> list[str]:
    """The recommended release's guarantee per record, and its attributes past the point
    where unary encoding would estimate frequencies with less variance (N > 3 gamma + 2).

    References
    ----------
    Wang, Blocki, Li & Jha (2017), Sec. 4.4.
    """
    from .report import past_the_crossover, per_record_lines, privacy_report

    report = privacy_report(spec)
    lines = [line.strip() for line in per_record_lines(report)]
    notes = [" ".join(lines[:2])] if len(lines) > 1 else []
    past = past_the_crossover(report)
    if past:
        notes.append(
            f"{'; '.join(past)}: past this many values a frequency estimate is noisier than "
            "unary encoding would give at the same epsilon (docs/oracles.md)"
        )
    return notes


def _policy_note(max_gamma: float | None) -> str:
    if max_gamma is None:
        return (
            "no policy: every gamma of the grid allowed (an audit under the default policy, "
            f"gamma {POLICY_GAMMA:g}, fails a release above it)"
        )
    if math.isclose(max_gamma, POLICY_GAMMA):
        return f"policy: gamma at most {max_gamma:g} (the audit's default, rho1 0.1 -> rho2 0.5)"
    return (
        f"policy: gamma at most {max_gamma:g}, changed from the audit's default "
        f"{POLICY_GAMMA:g}: audit the release under the same policy"
    )


def _ns(n_bins) -> list[int]:
    return list(n_bins.values()) if isinstance(n_bins, dict) else [int(n_bins)]


def _owner_table(frame: pd.DataFrame, target: str, sample: int | None, seed: int) -> pd.DataFrame:
    if target not in frame.columns:
        raise DataError(f"class column {target!r} is not in the data; it has {list(frame.columns)}")
    if frame.shape[1] < 2:
        raise DataError("the data needs at least one attribute besides the class")
    if frame[target].isna().any():
        raise DataError(f"class column {target!r} has missing values")
    if sample is not None:
        check_int(sample, "sample", low=10, error=ParameterError)
        if sample < len(frame):
            rng = np.random.default_rng(cell_seed_sequence(seed, ("sample",)))
            frame = frame.iloc[np.sort(rng.choice(len(frame), int(sample), replace=False))]
    return frame.reset_index(drop=True)


def _run(tasks, specs, learners, description, **kw) -> pd.DataFrame:
    """Score ``tasks`` ((spec key, rep) pairs) with ``learners``, in the cell pool."""
    fn = functools.partial(
        _score, frame=kw["frame"], target=kw["target"], specs=specs, learners=learners,
        test_fraction=kw["test_fraction"], seed=kw["seed"],
    )  # fmt: skip
    keyed = dict(enumerate(tasks))  # a cell's key is its task's number
    return run_cells(
        functools.partial(_indexed, fn, keyed), [(i,) for i in keyed], mapper=kw["mapper"],
        jobs=kw["jobs"], progress=kw["progress"], description=description, order="cells",
    )  # fmt: skip


def _indexed(fn, keyed: dict, cell: tuple) -> list[dict]:
    return fn(keyed[cell[0]])


def _grid_table(rows, gammas, ns, above, max_gamma, n_records) -> pd.DataFrame:
    """One row per (gamma, N, learner): its mean, sd and s.e. over the repetitions."""
    out = []
    for (key, learner), part in rows.groupby(["key", "learner"], sort=False):
        g, n = key
        out.append({"gamma": g, "N": n, "learner": learner, **_stats(part["accuracy"]),
                    "status": "evaluated", "reason": ""})  # fmt: skip
    for g in above:
        for n in ns:
            out.append({"gamma": g, "N": n, "learner": "", "accuracy": np.nan, "sd": np.nan,
                        "se": np.nan, "reps": 0, "status": "left out",
                        "reason": f"above the policy's gamma {max_gamma:g}"})  # fmt: skip
    table = pd.DataFrame(out).sort_values(["gamma", "N"], kind="stable").reset_index(drop=True)
    table.insert(
        2,
        "entropy",
        [GammaDiagonal(int(n), g).entropy() for g, n in zip(table["gamma"], table["N"])],
    )
    table.insert(
        3,
        "kang_bound",
        [kang_bound(g, int(n), n_records) for g, n in zip(table["gamma"], table["N"])],
    )
    return table


def _pick_variant(conf: pd.DataFrame, variants: dict, n_bins: int) -> tuple[str, str]:
    """Keep the per-attribute N only when it beats the common N by two paired s.e."""
    if "per-attribute" not in variants:
        return "common", f"per-attribute N: every attribute's best N is the common N {n_bins}"
    wide = conf.pivot_table(index="rep", columns="key", values="accuracy")
    diff = wide["per-attribute"] - wide["common"]
    d, se = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(len(diff)))
    per = variants["per-attribute"][1]
    shown = ", ".join(f"{k} {v}" for k, v in per.items() if v != n_bins)
    shown += f"; the others {n_bins}" if any(v == n_bins for v in per.values()) else ""
    if d > CLEAR_MARGIN_SE * se:
        return "per-attribute", (
            f"per-attribute N kept ({shown}): {100 * d:+.2f} points ± {100 * se:.2f} over "
            f"the common N {n_bins} on the same fresh splits"
        )
    return "common", (
        f"per-attribute N ({shown}) tried: {100 * d:+.2f} points ± {100 * se:.2f} against "
        f"the common N {n_bins} on the same fresh splits, not a clear win: common N kept"
    )


def _confirm_paper(rows, min_accuracy, tolerance, run, fresh, frame, target) -> dict:
    """The paper pipeline's own advice under the same rule and policy, confirmed."""
    row, _ = _choose_paper(rows, min_accuracy, tolerance)
    if row is None:
        return {"learner": PAPER_PIPELINE.label, "gamma": None, "N": None, "accuracy": None}
    g, n = float(row["gamma"]), int(row["N"])
    spec = {"paper": _plan(frame, target, g, n)}
    conf = run([("paper", r) for r in fresh], spec, (PAPER_PIPELINE,), "advise: paper")
    stats = _stats(conf["accuracy"])
    return {"learner": PAPER_PIPELINE.label, "gamma": g, "N": n, **stats,
            "release_se": math.hypot(stats["sd"], stats["se"])}  # fmt: skip


def plot_advice(advice: Advice, path) -> None:
    """Accuracy against gamma: the best learner, one line per N, and the paper pipeline.

    The paper's pipeline (global Algorithm 2 and C4.5) is one dashed line, its best N at
    each gamma; horizontal lines mark the target, the majority-class rate and C4.5 on the
    original; a dotted vertical line the policy's gamma; the recommendation is circled
    with a whisker of two standard errors of one release.
    """
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    from .io import atomic_path

    table = advice.table[advice.table["status"] == "evaluated"]
    fig, ax = plt.subplots(figsize=(8.5, 5.5))
    best = table[table["best"]]
    for n, part in best.groupby("N"):
        part = part.sort_values("gamma")
        ax.errorbar(part["gamma"], 100 * part["accuracy"], yerr=100 * part["se"].fillna(0),
                    marker="o", capsize=2, label=f"best learner, N={n}")  # fmt: skip
    paper = table[table["learner"] == PAPER_PIPELINE.label]
    if len(paper):
        top = paper.loc[paper.groupby("gamma")["accuracy"].idxmax()].sort_values("gamma")
        ax.plot(top["gamma"], 100 * top["accuracy"], "k--", marker="s",
                label="paper pipeline (global Alg. 2 + C4.5), best N")  # fmt: skip
    lines = [(advice.original_accuracy, "C4.5 on the original", "black", "-"),
             (advice.majority, "majority class", "tab:red", ":")]  # fmt: skip
    if advice.min_accuracy is not None:
        lines.append((advice.min_accuracy, "target", "tab:green", "--"))
    for value, label, colour, style in lines:
        ax.axhline(100 * value, color=colour, ls=style, lw=1.2, label=f"{label} {100 * value:.1f}%")
    if advice.max_gamma is not None:
        ax.axvline(
            advice.max_gamma, color="grey", ls=":", label=f"policy gamma {advice.max_gamma:g}"
        )
    if advice.recommended:
        ax.errorbar([advice.gamma], [100 * advice.accuracy], yerr=[200 * advice.release_se],
                    fmt="o", ms=14, mfc="none", mec="red", ecolor="red", capsize=4,
                    label=f"recommended: {advice.learner} (± 2 s.e. of one release)")  # fmt: skip
    ax.set_xlabel("gamma (larger: less privacy)")
    ax.set_ylabel("test accuracy on original records (%)")
    ax.set_title("Accuracy of releases mined by the best learner, per (gamma, N)")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    try:
        with atomic_path(path, suffix=".png") as tmp:
            fig.savefig(tmp, dpi=110, bbox_inches="tight")
    finally:
        plt.close(fig)


def format_advice(advice: Advice, *, n_records: int) -> list[str]:
    """The advice as lines of text: the grid, the rule's candidates, the recommendation
    with its errors beside the paper pipeline's, the baselines and the notes."""
    table, pct = advice.table, lambda a: f"{100 * a:.2f}%"
    done = table[table["status"] == "evaluated"]
    best = done[done["best"]]
    lines = [
        f"grid: {best.shape[0]} (gamma, N) cells within the policy (gamma <= "
        f"{advice.max_gamma if advice.max_gamma is not None else 'any'}), each scored with "
        f"{', '.join(dict.fromkeys(done['learner']))} on {int(done['reps'].max())} fresh "
        "releases of fresh splits, tested on original records"
    ]
    if advice.rule == "7.1":
        clear = best[best["clear"]]
        lines.append(
            "rule 7.1 (Sec. 7.1-7.2) over the best learner of each cell clearly above the "
            f"majority-class rate (by {CLEAR_MARGIN_SE:g} standard errors): among the cells "
            f"within one s.e. ({100 * pooled_se(clear):.2f} points, pooled) of the most "
            "accurate, the smallest gamma, then the smallest N; each gamma's best N:"
        )
    else:
        lines.append(
            f"rule 7.2 (Sec. 7.2) over the best learner of each cell: the smallest gamma whose "
            f"best cell reaches {pct(advice.min_accuracy)}, at its most accurate N:"
        )
    paper = done[done["learner"] == PAPER_PIPELINE.label].set_index(["gamma", "N"])
    for g, part in best.groupby("gamma", sort=True):
        clear = part[part["clear"]]
        r = (clear if len(clear) else part).sort_values("N", kind="stable")
        r = r.loc[r["accuracy"].idxmax()]
        p = paper.loc[(g, r["N"])]
        cell = f"{r['learner']} {pct(r['accuracy'])} ± {100 * r['se']:.2f}"
        if clear.empty:
            lines.append(
                f"  gamma={g:g}  left out: no N clearly above the majority rate (best "
                f"N={int(r['N'])}, {cell})"
            )
            continue
        lines.append(
            f"  gamma={g:g}  N={int(r['N'])}  {cell}  (paper pipeline {pct(p['accuracy'])} ± "
            f"{100 * p['se']:.2f})"
        )
    lines.append(
        f"baselines on the same test records: majority class {pct(advice.majority)}, C4.5 on "
        f"the original data {pct(advice.original_accuracy)}"
    )
    lines += [f"note: {n}" for n in advice.notes]
    if not advice.recommended:
        return [*lines, f"no recommendation: {advice.reason}"]
    verdict = ""
    if advice.min_accuracy is not None and not advice.met:
        verdict = f"  (below the target {pct(advice.min_accuracy)}: the most accurate design)"
    n_text = (
        advice.N
        if not isinstance(advice.N, dict)
        else "per attribute " + ", ".join(f"{k}={v}" for k, v in advice.N.items())
    )
    lines.append(
        f"recommended (rule {advice.rule}): gamma={advice.gamma:g}, N={n_text}, learner "
        f"{advice.learner}: accuracy {pct(advice.accuracy)} ± {100 * advice.se:.2f} (s.e. of "
        f"the mean of {advice.reps} fresh releases){verdict}"
    )
    lo, hi = advice.accuracy - 2 * advice.release_se, advice.accuracy + 2 * advice.release_se
    lines.append(
        f"  one release: sd {100 * advice.sd:.2f} points; with the mean's error, s.e. "
        f"{100 * advice.release_se:.2f}: your release should score {pct(lo)} to {pct(hi)} "
        "(2 s.e.) when mined this way"
    )
    pp = advice.paper
    if pp.get("gamma") is not None:
        lines.append(
            f"  the paper pipeline ({PAPER_PIPELINE.label}) under the same rule and policy: "
            f"gamma={pp['gamma']:g}, N={pp['N']}, {pct(pp['accuracy'])} ± {100 * pp['se']:.2f}; "
            f"the recommendation gains {100 * (advice.accuracy - pp['accuracy']):+.2f} points"
        )
    p = advice.privacy
    lines.append(
        f"privacy: epsilon=ln(gamma)={p['epsilon']:.3f}, rho1=0.1 -> rho2={p['rho2']['0.1']:.3f}, "
        f"entropy={p['entropy_bits']:.3f} of {p['max_entropy_bits']:.3f} bits, "
        f"Kang's bound on relative estimation error={p.get('kang_bound', float('nan')):.4f} "
        f"for a release of all {n_records} records"
    )
    return lines
