"""The owner's advice: :func:`advise` scores the grid and applies the rules; the
recommended release and its figures, as text.

References
----------
Dowd, Xu & Zhang, Sec. 7.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import pandas as pd

from ..exceptions import DataError, ParameterError
from ..matrix import GammaDiagonal
from ..privacy import attribute_privacy
from ..release import ReleaseSpec
from ..validation import check_int, check_probability, show
from .grid import (
    ADVISOR_GAMMAS,
    ADVISOR_NS,
    CLEAR_MARGIN_SE,
    DEFAULT_LEARNERS,
    PAPER_PIPELINE,
    POLICY_GAMMA,
    check_accuracy,
    check_grid,
)
from .rules import best_per_cell, choose, clearly_above_majority, pooled_se, summary_stats
from .scoring import (
    confirm_advice,
    confirm_paper,
    grid_table,
    learner_candidates,
    owner_table,
    plan,
    run_designs,
)


@dataclass(frozen=True)
class Advice:
    """The advisor's answer (:meth:`summary` is its ``advice.json``).

    ``gamma``, ``N`` (one number, or attribute -> N when per-attribute N won) and
    ``learner`` are None when nothing is recommended (``reason`` says why). ``accuracy`` is
    the mean over ``reps`` fresh releases, ``se`` its standard error, ``sd`` one release's,
    ``release_se = sqrt(sd^2 + se^2)`` the error for one release; ``met``: the target is
    met; ``paper``: the paper pipeline's own advice, confirmed; ``spec``: the release spec;
    ``table``: the screening grid, one row per (gamma, N, learner); ``privacy``:
    :func:`ppdm.privacy.attribute_privacy` of the design for all records.
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

    @property
    def release_range(self) -> tuple[float, float] | None:
        """Where one release mined this way should score: ``accuracy`` ± 2 ``release_se``,
        cut to [0, 1] (an accuracy lies there)."""
        if self.accuracy is None or self.release_se is None:
            return None
        spread = 2 * self.release_se
        return max(0.0, self.accuracy - spread), min(1.0, self.accuracy + spread)

    def summary(self) -> dict:
        """The JSON summary (``advice.json``); the command line and the app read these keys."""
        evaluated, cells = self.table["status"] == "evaluated", self.table[["gamma", "N"]]
        same = ("rule", "gamma", "N", "learner", "accuracy", "se", "sd", "release_se")
        same += ("release_range", "reps")
        same += ("met", "min_accuracy", "max_gamma", "paper")
        return {
            "recommended": self.recommended,
            **{key: getattr(self, key) for key in same},
            "majority_rate": self.majority,
            "original_accuracy": self.original_accuracy,
            "privacy": self.privacy,
            "cells_evaluated": len(cells[evaluated].drop_duplicates()),
            "cells_left_out": len(cells[~evaluated].drop_duplicates()),
            "notes": list(self.notes),
            "reason": self.reason,
        }


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
    gammas, ns = check_grid(gammas, ns)
    min_accuracy = check_accuracy(min_accuracy)
    cands = learner_candidates(learners)
    check_int(reps, "reps", error=ParameterError)
    check_int(confirm, "confirm", low=2, error=ParameterError)
    check_probability(test_fraction, "test_fraction", error=ParameterError)
    if max_gamma is not None and not (math.isfinite(max_gamma) and max_gamma > 1):
        raise ParameterError(f"max_gamma must be a number > 1 (got {show(max_gamma)})")
    frame = owner_table(frame, class_column, sample, seed)
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
    specs = {(g, n): plan(frame, class_column, g, n) for g in allowed for n in ns}
    run = functools.partial(
        run_designs, frame=frame, target=class_column, test_fraction=test_fraction, seed=seed,
        jobs=jobs, mapper=mapper, progress=progress,
    )  # fmt: skip
    tasks = [("original", r) for r in range(reps)] + [(k, r) for k in specs for r in range(reps)]
    rows = run(tasks, specs, (*cands, PAPER_PIPELINE), "advise: grid")
    base = rows[rows["key"] == "original"].groupby("learner")["accuracy"].mean()
    majority, original = float(base["majority class"]), float(base["c45 on the original"])
    table = grid_table(rows[rows["key"] != "original"], gammas, ns, above, max_gamma, len(frame))
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
    paper = confirm_paper(paper_rows, min_accuracy, tolerance, run, fresh, frame, class_column)
    row, _ = choose(useful, min_accuracy, tolerance)
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
        confirm_advice, frame=frame, target=class_column, cands=cands, run=run, fresh=fresh,
        ns=ns if per_attribute else (), n_train=len(frame) - n_test,
    )  # fmt: skip
    (gamma, n_bins, label), conf, chosen, vspecs, variants, more = confirm_run(row, top)
    notes += more
    stats = summary_stats(conf.loc[conf["key"] == chosen, "accuracy"])
    met = min_accuracy is None or stats["accuracy"] >= min_accuracy
    if min_accuracy is not None and not met and float(row["accuracy"]) >= min_accuracy:
        notes.append(
            f"the screened cell met {min_accuracy:.3f} ({float(row['accuracy']):.4f}); its "
            f"{confirm} fresh releases average {stats['accuracy']:.4f}: below the target"
        )
    n_out = variants[chosen][1]
    n_max = max(n_out.values()) if isinstance(n_out, dict) else n_out
    spec = vspecs[chosen]
    notes += _record_notes(spec)
    return Advice(
        gamma=gamma, N=n_out, learner=label, accuracy=stats["accuracy"], se=stats["se"],
        sd=stats["sd"], release_se=math.hypot(stats["sd"], stats["se"]), reps=confirm,
        met=bool(met), paper=paper, notes=tuple(notes), spec=spec,
        privacy=attribute_privacy(GammaDiagonal(n_max, gamma), len(frame)), **common,
    )  # fmt: skip


def _record_notes(spec: ReleaseSpec) -> list[str]:
    """The recommended release's guarantee per record, and its attributes past the point
    where unary encoding estimates frequencies with less variance (N > 3 gamma + 2).

    References
    ----------
    Wang, Blocki, Li & Jha (2017), Sec. 4.4.
    """
    from ..report import past_the_crossover, per_record_lines, privacy_report

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
    lo, hi = advice.release_range
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
