"""Scoring a (gamma, N) design: fresh releases of the owner's training part, each mined
by the learners, measured on the original held-out part.

References
----------
Dowd, Xu & Zhang, Sec. 7.
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd

from ..cells import cell_seed_sequence, run_cells
from ..exceptions import DataError, ParameterError
from ..matrix import GammaDiagonal
from ..mining import CANDIDATES, Candidate, fit_candidate
from ..perturbation import perturb_frame, plan_release
from ..pipeline import Release
from ..privacy import kang_bound
from ..release import ReleaseSpec
from ..validation import check_int, check_two_classes
from .grid import CLEAR_MARGIN_SE, PAPER_PIPELINE
from .rules import choose, summary_stats


def learner_candidates(learners) -> tuple[Candidate, ...]:
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
        from ..mining import make_learner

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
    release = Release(spec, table=perturb_frame(train, spec, state, warn=False))
    fit_seed = int(state.generate_state(1)[0])
    rows = []
    for cand in learners:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = fit_candidate(cand, release, random_state=fit_seed)
            pred = model.predict(X_test[[n for n in spec.names if n != target]])
        accuracy = float(np.mean(pred == y_test))
        rows.append({"key": key, "rep": rep, "learner": cand.label, "accuracy": accuracy})
    return rows


def plan(frame: pd.DataFrame, target: str, gamma: float, n_bins) -> ReleaseSpec:
    """The spec ``ppdm perturb`` plans for the owner's table (``n_bins``: N or attr -> N)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not isinstance(n_bins, dict):
            return plan_release(frame, class_attribute=target, gamma=gamma, n_bins=int(n_bins))
        plans = {n: plan(frame, target, gamma, n) for n in set(n_bins.values())}
    base = plans[next(iter(plans))]
    attrs = [
        plans[n_bins[a.name]].attribute(a.name) if a.name in n_bins else a for a in base.attributes
    ]
    return base.model_copy(update={"attributes": attrs})


def _channel_n(frame: pd.DataFrame, target: str, gamma: float, ns, n_train: int) -> dict:
    """Per perturbed attribute, the N of ``ns`` whose release carries the most class
    information: I(class; perturbed value) through the gamma-diagonal channel, less the
    ``(N - 1)(C - 1) / (2 n)`` nats a miner's estimate from ``n`` records overstates."""
    y = pd.Categorical(frame[target]).codes.astype(np.int64)  # int8 codes overflow
    n_classes = int(y.max()) + 1
    best: dict[str, tuple[float, int]] = {}
    for n_bins in ns:
        spec = plan(frame, target, gamma, n_bins)
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


def _design(row: pd.Series) -> tuple[float, int, str]:
    return float(row["gamma"]), int(row["N"]), str(row["learner"])


def confirm_advice(row, top, *, frame, target, cands, run, fresh, ns, n_train):
    """Confirm the rule's cell on fresh releases of fresh splits (docs/advisor.md): beside
    the most accurate cell ``top`` under rule 7.1, then a per-attribute N (``ns`` empty: not
    tried) against the common N.
    """
    by_label = {c.label: c for c in cands}
    design, notes = _design(row), []
    conf = run([("common", r) for r in fresh], {"common": plan(frame, target, *design[:2])},
               (by_label[design[2]],), "advise: confirm")  # fmt: skip
    if _design(top) != design:
        best = _design(top)
        other = run([("common", r) for r in fresh], {"common": plan(frame, target, *best[:2])},
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
    vspecs = {key: plan(frame, target, *gn) for key, gn in variants.items()}
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
    """Accuracy of designs mined as advised, on the same ``reps`` fresh splits (paired).

    ``designs`` maps a name to ``(gamma, N, learner label)``; returns one row per design and
    repetition: ``design``, ``rep``, ``accuracy``.
    """
    check_int(reps, "reps", low=2, error=ParameterError)
    frame = owner_table(frame, class_column, None, seed)
    by_label = {c.label: c for c in (*CANDIDATES, PAPER_PIPELINE)}
    out = []
    for name, (gamma, n_bins, label) in designs.items():
        spec = {"design": plan(frame, class_column, float(gamma), n_bins)}
        rows = run_designs([("design", r) for r in range(reps)], spec, (by_label[label],), name,
                    frame=frame, target=class_column, test_fraction=test_fraction, seed=seed,
                    jobs=jobs, mapper=None, progress=False)  # fmt: skip
        out.append(rows.assign(design=name)[["design", "rep", "accuracy"]])
    return pd.concat(out, ignore_index=True)


def owner_table(frame: pd.DataFrame, target: str, sample: int | None, seed: int) -> pd.DataFrame:
    if target not in frame.columns:
        raise DataError(f"class column {target!r} is not in the data; it has {list(frame.columns)}")
    if frame.shape[1] < 2:
        raise DataError("the data needs at least one attribute besides the class")
    if frame[target].isna().any():
        raise DataError(f"class column {target!r} has missing values")
    check_two_classes(frame[target], f"class column {target!r}")
    if sample is not None:
        check_int(sample, "sample", low=10, error=ParameterError)
        if sample < len(frame):
            rng = np.random.default_rng(cell_seed_sequence(seed, ("sample",)))
            frame = frame.iloc[np.sort(rng.choice(len(frame), int(sample), replace=False))]
    return frame.reset_index(drop=True)


def run_designs(tasks, specs, learners, description, **kw) -> pd.DataFrame:
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


def grid_table(rows, gammas, ns, above, max_gamma, n_records) -> pd.DataFrame:
    """One row per (gamma, N, learner): its mean, sd and s.e. over the repetitions."""
    out = []
    for (key, learner), part in rows.groupby(["key", "learner"], sort=False):
        g, n = key
        out.append({"gamma": g, "N": n, "learner": learner, **summary_stats(part["accuracy"]),
                    "status": "evaluated", "reason": ""})  # fmt: skip
    for g in above:
        for n in ns:
            out.append({"gamma": g, "N": n, "learner": "", "accuracy": np.nan, "sd": np.nan,
                        "se": np.nan, "reps": 0, "status": "left out",
                        "reason": f"above the policy's gamma {max_gamma:g}"})  # fmt: skip
    table = pd.DataFrame(out).sort_values(["gamma", "N"], kind="stable").reset_index(drop=True)
    cells = list(zip(table["gamma"], table["N"]))
    table.insert(2, "entropy", [GammaDiagonal(int(n), g).entropy() for g, n in cells])
    table.insert(3, "kang_bound", [kang_bound(g, int(n), n_records) for g, n in cells])
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


def confirm_paper(rows, min_accuracy, tolerance, run, fresh, frame, target) -> dict:
    """The paper pipeline's own advice under the same rule and policy, confirmed."""
    row, _ = choose(rows, min_accuracy, tolerance, paper=True)
    if row is None:
        return {"learner": PAPER_PIPELINE.label, "gamma": None, "N": None, "accuracy": None}
    g, n = float(row["gamma"]), int(row["N"])
    spec = {"paper": plan(frame, target, g, n)}
    conf = run([("paper", r) for r in fresh], spec, (PAPER_PIPELINE,), "advise: paper")
    stats = summary_stats(conf["accuracy"])
    return {"learner": PAPER_PIPELINE.label, "gamma": g, "N": n, **stats,
            "release_se": math.hypot(stats["sd"], stats["se"])}  # fmt: skip
