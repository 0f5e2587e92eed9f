"""Coverage of ``ppdm mine REL`` without a test table: is the estimate within 2 s.e.?

Usage::

    python benchmarks/mine_coverage.py [--sets wisconsin,synth1,...] [--gammas 5,9,12]
        [--repeats 5] [--choice-repeats 1] [--holdout 0.3] [--n-synth 10000]
        [--max-selection 100000]
        [--out results/mine_coverage.csv] [--choice-out results/mine_choice.csv]

Per bundled set and gamma, ``repeats`` fresh releases of a 70 % training split (one
perturbation each) are mined with :func:`ppdm.selection.mine`; the chosen model's
estimate ± s.e. is compared with its accuracy measured on the original 30 % test split.
On the first ``choice-repeats`` repeats of every cell each scorable candidate is also
fitted on the same selection part and measured on the test split: is the chosen one
within one s.e. of the best candidate's measured accuracy? The s.e. is the one printed
with the chosen model's estimate: ``sd(s) / sqrt(n)`` of its per-record unbiased scores
``s`` on the ``n`` held-out released records (``--holdout`` of the release, 30 % by
default), ``stderr`` in the choice rows. Each such case also holds the release's evidence
between the chosen and the best candidate (the best's fold s.e., the paired z of their
fold scores) and, side by side, the choice of the rule before the fold scores were read
as accuracies in [0, 1] (``before*`` columns). Writes one row per release (``--out``)
and one per such case (``--choice-out``) and prints, per cell: repeats, coverage (share
within 2 s.e.), mean estimate, mean measured accuracy, mean s.e.; then the choice table
and both rules' counts.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd


def _split(name: str, n_train: int) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Training and original test split of a bundled set (synth: its own, first rows)."""
    from ppdm import datasets

    if name.startswith("synth"):
        tr, te = datasets.load_synth(int(name[5:]))
        return tr.frame.iloc[:n_train], te.frame.iloc[: n_train // 2], tr.target
    b = getattr(datasets, f"load_{name}")()
    order = np.random.default_rng(0).permutation(len(b.frame))
    cut = int(0.7 * len(b.frame))
    return b.frame.iloc[order[:cut]], b.frame.iloc[order[cut:]], b.target


def _clipped_choice(r) -> str:
    """The rule before the scores were read as accuracies in [0, 1] (kept here as the
    record it is compared with): fold means cut to [0, 1], the best the highest mean -
    s.e., the fewest leaves among the means that reach it."""
    from ppdm.mining import CANDIDATES
    from ppdm.selection import complexity

    kind = {c.label: complexity(c) for c in CANDIDATES}
    ok = [c for c in r.candidates if c.scorable]
    mean = {c.label: min(max(c.estimate, 0.0), 1.0) for c in ok}
    bar = max(mean[c.label] - c.stderr for c in ok)
    near = [c for c in ok if mean[c.label] >= bar]
    leaves = {c.label: np.inf if c.leaves is None else c.leaves for c in near}
    return min(near, key=lambda c: (leaves[c.label], kind[c.label])).label


def _candidates_measured(r, rel, test, target, random_state, max_selection) -> dict:
    """Every scorable candidate fitted on the same selection part as the chosen model:
    its accuracy measured on ``test`` and its held-out estimate ± s.e.; the best one, and
    what the release says of it against the chosen one: both fold s.e. and the paired z of
    their fold scores (the mean of ``s_best - s_chosen`` over the same folded records by
    its s.e.); and the choice of the rule before (:func:`_clipped_choice`)."""
    from ppdm.exceptions import DataError
    from ppdm.mining import CANDIDATES
    from ppdm.selection import fit_scorable, scorable_candidate, split_release
    from ppdm.tree.release_scoring import mean_and_se, release_correct

    frame = rel.frame(check_values=True)
    hold, sel = split_release(frame, r.n_holdout, random_state)
    X, y = test.drop(columns=[target]), test[target].to_numpy()
    scored = {c.label for c in r.candidates if c.scorable}
    pool = {c.label: scorable_candidate(c) for c in CANDIDATES}
    measured, held = {}, {}
    for label in (c.label for c in CANDIDATES if c.label in scored):
        model = fit_scorable(pool[label], rel, sel, random_state)
        measured[label] = float(np.mean(model.predict(X) == y))
        try:
            held[label] = mean_and_se(release_correct(model, hold))
        except DataError:  # the model on the whole selection part has too many cells
            held[label] = (np.nan, np.nan)
    best = max(measured, key=measured.get)
    folded = sel.iloc[:max_selection]
    fold = np.arange(len(folded)) % r.folds

    def fold_scores(label):
        s = np.empty(len(folded))
        for k in range(r.folds):
            model = fit_scorable(pool[label], rel, folded[fold != k], random_state)
            s[fold == k] = release_correct(model, folded[fold == k])
        return s

    s_chosen = fold_scores(r.candidate.label)
    s_best = s_chosen if best == r.candidate.label else fold_scores(best)
    said = {c.label: c.estimate for c in r.candidates}
    if not np.isclose(s_chosen.mean(), said[r.candidate.label]):  # the scores mine chose on
        raise RuntimeError(f"fold scores differ from mine's: {s_chosen.mean()} against {said}")
    d = s_best - s_chosen
    sd = d.std(ddof=1)
    fold_se = {c.label: c.stderr for c in r.candidates}
    before = _clipped_choice(r)
    return dict(best=best, best_measured=measured[best], best_stderr=held[best][1],
                best_fold_stderr=fold_se[best], chosen_fold_stderr=fold_se[r.candidate.label],
                paired_z=float(d.mean() / (sd / np.sqrt(len(d)))) if sd > 0 else 0.0,
                before=before, before_measured=measured[before],
                before_estimate=held[before][0], before_stderr=held[before][1])  # fmt: skip


def main() -> None:
    from ppdm.pipeline import load_release, make_release
    from ppdm.selection import mine

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--sets", default="wisconsin,synth1,synth2,synth3,synth4,synth5,pendigits,spambase"
    )
    p.add_argument("--gammas", default="5,9,12")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--choice-repeats", type=int, default=1, help="repeats whose choice is checked")
    p.add_argument("--holdout", type=float, default=0.3, help="mine's held-out share")
    p.add_argument("--n-synth", type=int, default=10_000, help="training rows of synth sets")
    p.add_argument("--max-selection", type=int, default=100_000, help="mine's folded records")
    p.add_argument("--out", default="results/mine_coverage.csv")
    p.add_argument("--choice-out", default="results/mine_choice.csv")
    a = p.parse_args()
    rows, choice = [], []
    for name in a.sets.split(","):
        train, test, target = _split(name, a.n_synth)
        for gamma in map(float, a.gammas.split(",")):
            for rep in range(a.repeats):
                with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    make_release(train, Path(d) / "r", gamma=gamma, class_attribute=target,
                                 random_state=1000 * rep + int(gamma))  # fmt: skip
                    t = time.perf_counter()
                    rel = load_release(Path(d) / "r")
                    r = mine(
                        rel,
                        test=test,
                        holdout=a.holdout,
                        max_selection=a.max_selection,
                        random_state=rep,
                    )
                    rows.append(dict(set=name, gamma=gamma, repeat=rep, learner=r.candidate.label,
                                     estimate=r.estimate, stderr=r.stderr, measured=r.measured,
                                     majority_rate=r.majority_rate,
                                     seconds=time.perf_counter() - t))  # fmt: skip
                    if rep < a.choice_repeats:
                        b = _candidates_measured(r, rel, test, target, rep, a.max_selection)
                        choice.append(dict(set=name, gamma=gamma, repeat=rep,
                                           chosen=r.candidate.label, chosen_measured=r.measured,
                                           estimate=r.estimate, stderr=r.stderr, **b,
                                           within=b["best_measured"] - r.measured <= r.stderr,
                                           before_within=b["best_measured"]
                                           - b["before_measured"] <= b["before_stderr"]))  # fmt: skip
                print(rows[-1], flush=True)
            Path(a.out).parent.mkdir(parents=True, exist_ok=True)
            pd.DataFrame(rows).to_csv(a.out, index=False)  # every cell, as it ends
            pd.DataFrame(choice).to_csv(a.choice_out, index=False)
    out = pd.DataFrame(rows)
    out["covered"] = (out.estimate - out.measured).abs() <= 2 * out.stderr
    table = out.groupby(["set", "gamma"]).agg(
        repeats=("repeat", "size"), coverage=("covered", "mean"),
        mean_estimate=("estimate", "mean"), mean_measured=("measured", "mean"),
        mean_se=("stderr", "mean"))  # fmt: skip
    print(table.round(4).to_string())
    print(f"overall coverage: {out.covered.mean():.3f} of {len(out)} releases")
    picked = pd.DataFrame(choice)
    if picked.empty:
        return
    print(picked.round(4).to_string(index=False))
    for rule, col in (("in use", "chosen"), ("before (means cut to [0, 1])", "before")):
        se = picked["stderr" if col == "chosen" else "before_stderr"]
        gap = picked.best_measured - picked[f"{col}_measured"]
        est = picked["estimate" if col == "chosen" else "before_estimate"]
        covered = (est - picked[f"{col}_measured"]).abs() <= 2 * se
        print(f"rule {rule}: within one s.e. of the best measured {int((gap <= se).sum())} of "
              f"{len(picked)}, within the smaller of both s.e. "
              f"{int((gap <= np.fmin(se, picked.best_stderr)).sum())}; chosen models measure "
              f"{picked[f'{col}_measured'].mean():.4f} (best {picked.best_measured.mean():.4f}); "
              f"estimates within 2 s.e. {int(covered.sum())}; median s.e. {se.median():.3f}, "
              f"above 0.3: {int((se > 0.3).sum())}")  # fmt: skip
    missed = picked[~picked.within]
    # an accuracy known only to lie in [0, 1] spreads by 1 / sqrt(12): a fold s.e. above it
    # says less of the best candidate than that
    hidden = missed.best_fold_stderr > 1 / np.sqrt(12)
    z = missed.paired_z[~hidden]
    print(
        f"of the {len(missed)} misses: the best's fold s.e. above 1/sqrt(12) {hidden.sum()}; "
        f"else the release's paired scores favour the chosen (z <= 0) {(z <= 0).sum()}, "
        f"0 < z < 1 {((z > 0) & (z < 1)).sum()}, z >= 1 {(z >= 1).sum()}"
    )


if __name__ == "__main__":
    main()
