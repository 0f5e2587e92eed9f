"""Mining a release with no original data: choose a learner and estimate its accuracy.

The candidates of :data:`ppdm.mining.CANDIDATES` are scored over K folds of a selection
part of the release, the one-standard-error rule picks one, and it is scored on a
held-out part never used in the choice (docs/cli.md, ``ppdm mine``, tells the rules).

References
----------
Breiman, Friedman, Olshen & Stone (1984), Sec. 3.4.3 and Hastie, Tibshirani & Friedman
(2009), Sec. 7.10 (cross-validation, one-standard-error rule); Ma & Sivakumar, Sec. 4
(unbiased statistics from randomized data).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from .exceptions import DataError, ParameterError, SpecError
from .fields import fields_dict
from .mining import CANDIDATES, Candidate, _majority_of_release, _plain, fit_candidate
from .pipeline import Release, load_release
from .validation import check_two_classes, show

__all__ = [
    "CandidateScore",
    "MineResult",
    "complexity",
    "estimate_note",
    "fit_scorable",
    "mine",
    "one_leaf_note",
    "one_se_choice",
    "posterior",
    "score_note",
    "scorable_candidate",
    "split_release",
]


@dataclass
class CandidateScore:
    """Cross-validated estimate of one candidate's accuracy on the original data."""

    label: str
    estimate: float | None = None
    stderr: float | None = None
    reason: str = ""
    leaves: float | None = None  # mean over the folds' models (a forest: all its trees')

    @property
    def scorable(self) -> bool:
        return self.estimate is not None


@dataclass
class MineResult:
    """The chosen learner, fitted on the selection part, and its held-out estimate."""

    candidate: Candidate
    model: object
    estimate: float
    stderr: float
    majority_class: object
    majority_rate: float
    candidates: list[CandidateScore] = field(default_factory=list)
    n_selection: int = 0
    n_holdout: int = 0
    folds: int = 0
    measured: float | None = None
    target: str | None = None
    n_test: int = 0
    copies: int = 1  # released copies of every record (Kang): n_selection, n_holdout count records
    note: str = ""  # what one_leaf_note says of the model

    def to_dict(self) -> dict:
        figures = "majority_rate measured n_test n_selection n_holdout folds copies note"
        return {
            "learner": self.candidate.label,
            **fields_dict(self, "estimate stderr"),
            "majority_class": _plain(self.majority_class),
            **fields_dict(self, figures, {"measured": "measured_accuracy"}),
            "model": self.model.export_text(),
            "candidates": [
                fields_dict(c, "label estimate stderr leaves scorable reason", {"label": "learner"})
                for c in self.candidates
            ],
        }


def one_leaf_note(model, classes: pd.Series) -> str:
    """What to say of a model that predicts one class for every record (else nothing): its
    accuracy on the release's original records is that class's share of ``classes`` (the
    release's class column), exactly, where its held-out estimate is the share among the
    held-out records."""
    trees = getattr(model, "trees_", None) or [getattr(model, "tree_", None)]
    if any(t is None or t.n_leaves > 1 for t in trees) or not hasattr(model, "coders_"):
        return ""
    (only,) = set(model.predict_codes(np.zeros((1, len(model.coders_)), dtype=np.int64)))
    share = float(np.mean(classes.to_numpy() == only))
    return (
        f"the chosen model has one leaf: it predicts {_plain(only)!r} for every record (no "
        f"attribute helps from this release); its accuracy on the release's original records "
        f"is that class's share of them, {share:.4f}"
    )


def complexity(candidate: Candidate) -> tuple:
    """Order of simplicity between candidates with as many leaves: a release tree (the
    shallower, then the larger leaf, first), then a forest, then C4.5 (the shallower,
    then the larger leaf, first)."""
    params = dict(candidate.params)
    rank = {"release-tree": 0, "release-forest": 1}.get(candidate.learner, 2)
    return (rank, params.get("max_depth", 99), -float(params.get("min_leaf", 0.0)))


def posterior(estimate: float, stderr: float) -> tuple[float, float]:
    """Mean and s.d. of an accuracy given its fold score ``estimate`` ± ``stderr``.

    The score is unbiased and near normal; the accuracy lies in [0, 1]. Under a flat prior
    on [0, 1] the accuracy's posterior is that normal cut to [0, 1]: a precise score inside
    keeps its value and s.e.; a noisy one (C4.5 with small leaves at a low gamma: 32 ± 30)
    says little more than [0, 1] does, its mean near 0.5 and its s.d. near 1/sqrt(12).
    Computed on a grid of 20,001 points over the part of [0, 1] that holds the mass, which
    stays exact where the closed form of the truncated normal loses its digits (a score
    thousands of s.e. away).

    References
    ----------
    Gelman et al. (2013), *Bayesian Data Analysis*, Sec. 2.5 (a normal likelihood and a
    flat prior on a bounded parameter).
    """
    if not (np.isfinite(estimate) and stderr >= 0):  # an overflowed score says nothing
        return 0.5, 12**-0.5
    mode = min(max(estimate, 0.0), 1.0)
    if stderr == 0:
        return mode, 0.0
    if 8 * stderr <= estimate <= 1 - 8 * stderr:  # the cut moves the moments by < 1e-14
        return estimate, stderr
    # where the density is above e^-40 of its mode's: the mass, to double precision
    reach = np.sqrt((mode - estimate) ** 2 + 80.0 * stderr**2)
    grid = np.linspace(max(estimate - reach, 0.0), min(estimate + reach, 1.0), 20_001)
    log_w = -0.5 * ((grid - estimate) / stderr) ** 2
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    mean = float(w @ grid)
    return mean, float(np.sqrt(w @ (grid - mean) ** 2))


def score_note(estimate: float, stderr: float, percent: bool = False) -> str:
    """What a candidate's line adds where the rule reads its fold score otherwise: the
    accuracy's :func:`posterior` in [0, 1], where it differs as shown (two decimals, or
    percent points to one decimal with ``percent``; else nothing)."""

    def shown(mean: float, sd: float) -> str:
        return f"{100 * mean:.1f}% ± {100 * sd:.1f}" if percent else f"{mean:.2f} ± {sd:.2f}"

    read = shown(*posterior(estimate, stderr))
    return "" if read == shown(estimate, stderr) else f"; in [0, 1]: {read}"


def estimate_note(estimate: float, stderr: float) -> str:
    """What the command line and the app say of a held-out estimate outside [0, 1] (else
    nothing): unbiased, it may leave [0, 1], and then says little beyond its interval."""
    if 0.0 <= estimate <= 1.0:
        return ""
    low, high = max(estimate - 2 * stderr, 0.0), min(estimate + 2 * stderr, 1.0)
    said = (
        f"within 2 s.e. it is {low:.2f} to {high:.2f}"
        if low <= high
        else "it lies more than 2 s.e. outside, which an accuracy cannot: the per-record "
        "scores are too heavy-tailed for their s.e. to hold, and the estimate says nothing"
    )
    return (
        "the estimate lies outside [0, 1]: the held-out records are too few for this "
        f"release's noise to pin the accuracy down; {said}"
    )


def one_se_choice(candidates: list[Candidate], scores: list[CandidateScore]) -> int:
    """Index of the simplest scorable candidate whose mean is within one s.e. of the best.

    The rule reads each fold score as the accuracy it allows in [0, 1] (:func:`posterior`):
    the best has the highest mean - s.d., and the band holds the candidates whose mean
    reaches it. A very noisy score neither wins by its noise nor widens the bar until
    every candidate passes; where the only precise candidates are weak (pendigits at gamma
    5: a 2-leaf release tree, 0.20 to 0.30 measured), a noisy one whose scores allow more
    enters the band. The simplest in the band has the fewest leaves (:func:`complexity`
    breaks ties).

    References
    ----------
    Breiman, Friedman, Olshen & Stone (1984), Sec. 3.4.3; Hastie, Tibshirani & Friedman
    (2009), Sec. 7.10.
    """
    ok = [i for i, s in enumerate(scores) if s.scorable]
    if not ok:
        reasons = list(dict.fromkeys(s.reason for s in scores if s.reason))
        said = f": {'; '.join(reasons[:3])}" if reasons else ""
        raise DataError(f"no candidate learner could be scored on the release{said}")
    read = {i: posterior(scores[i].estimate, scores[i].stderr) for i in ok}
    bar = max(mean - sd for mean, sd in read.values())
    near = [i for i in ok if read[i][0] >= bar]
    leaves = {i: np.inf if scores[i].leaves is None else scores[i].leaves for i in near}
    return min(near, key=lambda i: (leaves[i], complexity(candidates[i])))


def scorable_candidate(candidate: Candidate) -> Candidate:
    """``candidate`` as mining from the release alone fits it: release learners with
    majority leaves; C4.5 on the by-class reconstruction as is."""
    if candidate.learner in ("release-tree", "release-forest"):
        params = {**dict(candidate.params), "leaf_model": "majority"}
        return replace(candidate, params=tuple(params.items()))
    if candidate.learner == "c45" and candidate.reconstruction == "by-class":
        return candidate
    raise ParameterError(
        f"learner {candidate.label!r} cannot be scored from the release alone (its decision "
        "regions are not boxes of the release's codes): use release-tree, release-forest, c45 "
        "or a candidate's label as ppdm mine lists them"
    )


def fit_scorable(candidate: Candidate, rel: Release, frame, random_state=0, fitted=None):
    """:func:`~ppdm.mining.fit_candidate`, with C4.5 read as a tree over the release's codes
    (:func:`~ppdm.tree.release_c45.c45_on_codes`), so that ``release_correct`` scores it.

    ``fitted``: as :func:`~ppdm.mining.fit_candidate` keeps the models learnt on ``frame``.
    """
    from .tree import C45Classifier
    from .tree.release_c45 import c45_on_codes

    model = fit_candidate(candidate, rel, frame=frame, random_state=random_state, fitted=fitted)
    if not isinstance(model, C45Classifier):
        return model  # a release learner, or C4.5 with a max_depth: already a coded tree
    return c45_on_codes(model, rel.spec)


def _score(candidate, rel, frame, folds, random_state, fitted) -> CandidateScore:
    """``fitted[k]``: the models learnt on fold ``k``'s training part (:func:`fit_scorable`).
    A record's copies fall in one fold."""
    from .tree.release_scoring import mean_and_se, release_correct

    parts, leaves = [], []
    copies = rel.spec.copies
    for k in range(folds):
        held = np.arange(len(frame)) // copies % folds == k
        try:
            model = fit_scorable(candidate, rel, frame[~held], random_state, fitted[k])
            parts.append(release_correct(model, frame[held]))
        except DataError as exc:
            return CandidateScore(candidate.label, reason=str(exc).split(";")[0])
        trees = getattr(model, "trees_", None) or [model.tree_]
        leaves.append(sum(t.n_leaves for t in trees))
    # every record held out once: sd / sqrt(n) of the records' scores, as in Sec. 7.10
    mean, se = mean_and_se(np.concatenate(parts), copies)
    return CandidateScore(candidate.label, mean, se, leaves=float(np.mean(leaves)))


def check_copies_together(rel: Release, frame: pd.DataFrame) -> None:
    """A release of ``m`` copies per record holds each record's copies in ``m`` rows in a
    row (:func:`~ppdm.mechanism.streams.record_major`): their unperturbed columns (the
    class among them) agree. Else :class:`DataError` naming the rows, column and values:
    splitting such a release by record would mix records."""
    m = rel.spec.copies
    if m == 1:
        return
    for a in (a for a in rel.spec.attributes if not a.perturbed):
        values = frame[a.name].to_numpy().reshape(-1, m)
        same = (values == values[:, :1]) | (pd.isna(values) & pd.isna(values[:, :1]))
        bad = np.flatnonzero(~same.all(axis=1))
        if bad.size:
            i = int(bad[0])
            j = int(np.flatnonzero(~same[i])[0])
            raise DataError(
                f"release data {rel.source!r} data rows {i * m + 1}-{i * m + m}, copies of one "
                f"record, differ in column {a.name!r}, which is released as is: "
                f"{show(values[i, 0])} and {show(values[i, j])} (a record's {m} copies must "
                "follow each other; a release written before they did, or an edited one)"
            )


def split_release(frame: pd.DataFrame, n_hold: int, random_state=0, copies: int = 1):
    """The held-out part (``n_hold`` records) and the selection part of a release's
    records, shuffled by ``random_state``: what :func:`mine` estimates on and chooses on.

    With ``copies`` per record (their rows in a row), a record's copies stay together, on
    one side: a model never learns from a copy of a record it is scored on."""
    order = np.random.default_rng(random_state).permutation(len(frame) // copies)
    rows = (order[:, None] * copies + np.arange(copies)[None, :]).reshape(-1)
    cut = n_hold * copies
    return frame.iloc[rows[:cut]], frame.iloc[rows[cut:]]


def _forced(learner: str) -> Candidate:
    """The candidate ``--learner`` names: a candidate's label or a learner's name."""
    from .mining import _REGISTERED

    for c in CANDIDATES:
        if learner in (c.label, c.learner if c.learner != "release-tree" else None):
            return c
    if learner not in _REGISTERED and ":" not in learner:  # a module:Class is a learner
        import difflib

        near = difflib.get_close_matches(learner, [*_REGISTERED, *(c.label for c in CANDIDATES)], 1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise ParameterError(
            f"unknown learner {learner[:80]!r}; {hint}use release-tree, release-forest, c45 or a "
            "candidate's label as ppdm mine lists them"
        )
    return Candidate(learner, learner)


def mine(
    release: Release | str | os.PathLike,
    *,
    test: pd.DataFrame | None = None,
    learner: str | None = None,
    folds: int = 3,
    holdout: float = 0.3,
    max_selection: int = 100_000,
    random_state=0,
    test_name: str = "the test table",
) -> MineResult:
    """Choose a learner from a release alone and estimate its accuracy on the original data.

    Parameters
    ----------
    release : Release or path
    test : DataFrame, optional
        Original records with the class: their measured accuracy is added.
    learner : str, optional
        Force one learner (a :data:`~ppdm.mining.RELEASE_LEARNERS` name or a candidate's
        label): no selection, only its held-out estimate.
    folds : int, default=3
        Folds of the selection part.
    holdout : float, default=0.3
        Share of the release kept apart to estimate the chosen model's accuracy.
    max_selection : int, default=100000
        At most this many records of the selection part are folded to choose (the chosen
        model is still fitted on the whole selection part). The fold models should learn
        from nearly as many records as the chosen model: a release tree grows with the
        records (BENCHMARKS.md, "Mining from the release alone").
    random_state : int or None
        Shuffles the records into parts and seeds the learners.
    test_name : str, default="the test table"
        How an error names ``test`` (the command line gives its flag and file).

    Returns
    -------
    MineResult
        ``.model`` predicts original records; ``.estimate`` ± ``.stderr`` is its accuracy
        on the original data estimated from the held-out part.
    """
    rel = load_release(release)
    target = rel.spec.class_attribute
    if target is None:
        raise SpecError("the release names no class attribute: nothing to learn")
    if rel.spec.class_perturbed:
        raise SpecError(
            f"the release perturbed its class {target!r}: choosing and scoring a learner from "
            "the release needs the class as released (ppdm.mining.mine_release learns after a "
            "global reconstruction and measures on an original test table)"
        )
    frame = rel.frame(check_values=True)
    copies = rel.spec.copies
    n_records = len(frame) // copies
    n_hold = int(round(holdout * n_records))
    if n_hold < 2 or n_records - n_hold < 2 * folds:
        raise DataError(
            f"the release has {n_records} records: too few to hold out {holdout:g} of them "
            f"and fold the rest {folds} ways"
        )
    check_two_classes(frame[target], f"the release's class {target!r}")
    check_copies_together(rel, frame)
    hold, sel = split_release(frame, n_hold, random_state, copies)
    if learner is not None:
        chosen = scorable_candidate(_forced(learner))
        scores = [CandidateScore(chosen.label, reason="forced")]
    else:
        pool = [scorable_candidate(c) for c in CANDIDATES]
        folded = sel.iloc[: max(max_selection // copies, 1) * copies]  # whole records
        fitted = [{} for _ in range(folds)]
        scores = [_score(c, rel, folded, folds, random_state, fitted) for c in pool]
        chosen = pool[one_se_choice(pool, scores)]
    from .tree.release_scoring import mean_and_se, release_correct

    model = fit_scorable(chosen, rel, sel, random_state)
    try:
        est, se = mean_and_se(release_correct(model, hold), copies)
    except DataError as exc:
        raise ParameterError(
            f"learner {chosen.label!r} cannot be scored from the release: {exc}"
        ) from None
    majority, rate = _majority_of_release(rel)
    measured, n_test = None, 0
    if test is not None:
        measured, n_test = _measure(model, rel, test, test_name, chosen.label)
    return MineResult(chosen, model, est, se, majority, rate, scores, n_records - n_hold, n_hold,
                      folds if learner is None else 0, measured, target, n_test, copies,
                      one_leaf_note(model, frame[target]))  # fmt: skip


def _measure(model, rel: Release, test: pd.DataFrame, test_name: str, label: str):
    """Accuracy of ``model`` on the original records of ``test`` that have a class."""
    from .mining import _check_test_classes, _predicting, _with_class, check_release_columns

    spec, target = rel.spec, rel.spec.class_attribute
    check_release_columns(spec, test, test_name)
    test = _with_class(test[list(spec.names)], target, "test")
    _check_test_classes(model, test[target], test_name)
    with _predicting(test_name, label, True, c45=False):
        predicted = model.predict(test.drop(columns=[target]))
    return float(np.mean(predicted == test[target].to_numpy())), len(test)
