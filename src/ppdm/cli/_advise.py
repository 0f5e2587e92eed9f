"""``ppdm advise DATA --class C``: the Sec. 7 parameter advisor on the owner's data."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import typer

from ..limits import check_n_values
from ..validation import check_at_least, check_gamma
from ._common import atomic_path, check_flag, distinct_outputs, fail, file_out
from ._options import (
    JOBS_OPTION,
    OVERWRITE_FILE_OPTION,
    PROGRESS_OPTION,
    AdviseLearner,
    Reconstruction,
    choice_option,
    learner_option,
    out_option,
    path_argument,
    seed_option,
    value_option,
)


def _parse_gammas(text: str) -> list[float]:
    """``5..12`` (integers), ``5,7,9`` or ``9``."""
    try:
        if ".." in text:
            lo, hi = (int(x) for x in text.split("..", 1))
            if lo > hi:
                raise ValueError
            return [float(g) for g in range(lo, hi + 1)]
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"--gamma must look like 5..12, 5,7,9 or 9 (got {text!r})", usage=True)
    return []


def _parse_ns(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"--ns must be a comma-separated list of integers (got {text!r})", usage=True)
    return []


def _accuracy(value: float | None) -> float | None:
    if value is None:
        return None
    if 1.0 < value <= 100.0:  # given in percent
        return value / 100.0
    if not 0.0 < value <= 1.0:
        fail(
            f"--min-accuracy must be a fraction in (0, 1] or a percentage (got {value})", usage=True
        )
    return value


#: The files ``ppdm advise`` writes into its ``--out`` directory.
ADVICE_FILES = ("advice_table.csv", "advice.png", "advice.json")


def _check_complete(frame, data: Path) -> None:
    """The advisor splits and samples the rows: a missing value is named here, in the
    whole file's row numbers, before any of that."""
    import numpy as np

    missing = frame.isna().to_numpy()
    if missing.any():
        row, col = (int(i) for i in np.argwhere(missing)[0])
        fail(
            f"input file {str(data)!r}: column {str(frame.columns[col])!r} data row "
            f"{row + 1} has no value (rows with a missing value: "
            f"{int(missing.any(axis=1).sum())}); advise needs complete rows: drop or fill them"
        )


def advise(
    data: Path = path_argument("FILE", "The owner's table: .csv or .parquet."),
    class_: str = value_option(..., "--class", "COL", "Class column (never perturbed)."),
    gamma: str = value_option("5..12", "--gamma", "GAMMAS", "gamma values: 5..12, 5,7,9 or 9."),
    ns: str = value_option(
        "5,10,15,20,30,40,50,60,70,80,90,100",
        "--ns",
        "N,N,...",
        "N values, comma-separated.",
        show_default="5,10,15,20,30,40,...,100",
    ),
    min_accuracy: float | None = value_option(
        None, "--min-accuracy", "ACCURACY", "Target accuracy (0.85 or 85): applies rule 7.2."
    ),
    sample: int | None = value_option(
        None, "--sample", "ROWS", "Run the grid on a sample of this many rows."
    ),
    reps: int = value_option(3, "--reps", "N", "Repetitions per cell."),
    jobs: int = JOBS_OPTION,
    out: Path = out_option(
        "DIR",
        "Directory for the table, plot and summary (advice_table.csv, advice.png, advice.json).",
        default=Path("advice"),
    ),
    spec_out: Path | None = out_option(
        "FILE",
        "Write a spec for ppdm perturb --spec (.json or .yaml).",
        default=None,
        flag="--spec-out",
    ),
    mode: Reconstruction = choice_option(
        Reconstruction.GLOBAL, "--mode", "Reconstruction: globally or per class."
    ),
    learner: AdviseLearner = learner_option("Learner."),
    skip: bool = typer.Option(
        True,
        "--skip/--no-skip",
        help="Skip cells Kang's bound ordering says cannot meet the target.",
    ),
    tie_tolerance: float = value_option(
        0.0, "--tie-tolerance", "DELTA", "Rule 7.1: accuracies this close tie."
    ),
    seed: int = seed_option("Seed of the split and the grid.", 0),
    progress: bool = PROGRESS_OPTION,
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Recommend (gamma, N) for your data (Dowd, Xu & Zhang Sec. 7) and show its privacy."""
    from ..experiments import advisor, plotting
    from ..experiments.runner import write_csv_atomic, write_json_atomic
    from ..io import read_table

    mode, learner = Reconstruction(mode).value, AdviseLearner(learner).value
    check_flag(check_at_least, jobs, "--jobs", 1)
    check_flag(check_at_least, reps, "--reps", 1)
    if not data.exists():
        fail(f"data file {str(data)!r} does not exist")
    from ..publish import check_output

    check_output(out, inputs=(data,), directory=True, overwrite=True, whole=False)
    for name in ADVICE_FILES:  # the directory may hold other files; these three are ours
        file_out(out / name, overwrite, inputs=(data,))
    if spec_out is not None:
        if spec_out.suffix.lower() not in (".json", ".yaml", ".yml"):
            fail(f"--spec-out must name a .json or .yaml file (got {str(spec_out)!r})", usage=True)
        distinct_outputs(*((f"--out's {name}", out / name) for name in ADVICE_FILES),
                         ("--spec-out", spec_out))  # fmt: skip
        file_out(spec_out, overwrite, inputs=(data,), flag="--spec-out")
    gammas, n_list = _parse_gammas(gamma), _parse_ns(ns)
    for g in gammas:  # every flag checked before the grid runs, the flag named
        check_flag(check_gamma, g, "--gamma")
    for n in n_list:
        check_flag(check_at_least, n, "--ns", 2)
        check_flag(check_n_values, n, "--ns")
    if sample is not None:
        check_flag(check_at_least, sample, "--sample", 10)
    if not (math.isfinite(tie_tolerance) and tie_tolerance >= 0):
        fail(f"--tie-tolerance must be a number >= 0 (got {tie_tolerance})", usage=True)
    target = _accuracy(min_accuracy)
    frame = read_table(data)
    _check_complete(frame, data)
    train, test = advisor.split_owner_data(frame, class_, sample=sample, seed=seed)
    table = advisor.advisor_grid(
        train,
        test,
        class_,
        gammas=gammas,
        ns=n_list,
        reps=reps,
        min_accuracy=target,
        skip=skip,
        learner=learner,
        mode=mode,
        seed=seed,
        jobs=jobs,
        progress=progress and sys.stderr.isatty(),
    )
    rec = advisor.recommend(
        table,
        n_records=len(frame),
        min_accuracy=target,
        max_gamma=max(gammas),
        tolerance=tie_tolerance,
    )
    write_csv_atomic(table, out / "advice_table.csv")
    chosen = (rec.gamma, rec.N) if rec.recommended else None
    plotting.plot_advice(table, out / "advice.png", chosen=chosen, target=target)
    summary = {
        "rule": rec.rule,
        "gamma": rec.gamma,
        "N": rec.N,
        "accuracy": rec.accuracy,
        "target_met": rec.met,
        "min_accuracy": target,
        "cells_evaluated": int((table["status"] == "evaluated").sum()),
        "cells_skipped": int((table["status"] == "skipped").sum()),
        "privacy": rec.privacy,
        "majority_rate": rec.majority,
        "original_accuracy": rec.original_accuracy,
        "recommended": rec.recommended,
        "reason": rec.reason,
    }
    write_json_atomic(summary, out / "advice.json")
    n_eval = summary["cells_evaluated"]

    def pm(g: float, n_bins: int) -> str:
        """`` ± s.e.`` of a cell's mean accuracy over its repetitions (empty for one)."""
        cell = table[(table["gamma"] == g) & (table["N"] == n_bins)]
        se = float(cell["se"].iloc[0]) if len(cell) else float("nan")
        return "" if math.isnan(se) else f" ± {100 * se:.2f}"

    typer.echo(f"grid: {n_eval} cells evaluated, {summary['cells_skipped']} skipped (Kang's bound)")
    if rec.candidates is not None:
        typer.echo(
            "rule 7.1 (Sec. 7.1): for each gamma, the N of highest accuracy among the cells "
            f"clearly above the majority-class rate (by {advisor.CLEAR_MARGIN_SE:g} standard "
            "errors); then the smallest N, and the smallest gamma among those:"
        )
        for _, r in rec.candidates.iterrows():
            typer.echo(
                f"  gamma={r['gamma']:g}  N={int(r['N'])}  "
                f"accuracy={100 * r['accuracy']:.2f}%{pm(r['gamma'], int(r['N']))}"
            )
        shown = set(rec.candidates["gamma"].astype(float))
        evaluated = table[table["status"] == "evaluated"]
        for g, part in evaluated.groupby("gamma", sort=True):
            if float(g) not in shown:
                best = part.loc[part["accuracy"].idxmax()]
                typer.echo(
                    f"  gamma={g:g}  left out: no N clearly above the majority rate (best "
                    f"N={int(best['N'])}, {100 * best['accuracy']:.2f}%{pm(g, int(best['N']))})"
                )
        if reps > 1:
            typer.echo(f"  (± one standard error of the mean over {reps} perturbations)")
    typer.echo(
        f"baselines on the same test set: majority class {100 * rec.majority:.2f}%, "
        f"the learner on the original data {100 * rec.original_accuracy:.2f}%"
    )
    if not rec.recommended:
        typer.echo(f"no recommendation: {rec.reason}")
        typer.echo(f"wrote {out / 'advice_table.csv'}, {out / 'advice.png'}, {out / 'advice.json'}")
        if spec_out is not None:
            typer.echo(f"no spec written to {spec_out}")
        return
    verdict = "" if rec.met else f"  (no cell reaches {100 * target:.1f}%: the most accurate one)"
    typer.echo(
        f"recommended (rule {rec.rule}): gamma={rec.gamma:g}, N={rec.N}, "
        f"accuracy {100 * rec.accuracy:.2f}%{pm(rec.gamma, rec.N)}{verdict}"
    )
    p = rec.privacy
    typer.echo(
        f"privacy: epsilon=ln(gamma)={p['epsilon']:.3f}, rho1=0.05 -> rho2={p['rho2']['0.05']:.3f}, "
        f"entropy={p['entropy_bits']:.3f} of {p['max_entropy_bits']:.3f} bits, K={p['K']}, "
        f"Kang's bound on relative estimation error={p.get('kang_bound', float('nan')):.4f} "
        f"for a release of all {len(frame)} records (advice_table.csv gives it for the "
        f"{len(train)} training records the grid perturbed)"
    )
    typer.echo(f"wrote {out / 'advice_table.csv'}, {out / 'advice.png'}, {out / 'advice.json'}")
    if spec_out is not None:
        spec = advisor.recommended_spec(frame, class_, rec)
        with atomic_path(spec_out) as tmp:
            if spec_out.suffix.lower() in (".yaml", ".yml"):
                import yaml

                tmp.write_text(
                    yaml.safe_dump(
                        json.loads(spec.model_dump_json(exclude_none=True)), sort_keys=False
                    )
                )
            else:
                tmp.write_text(spec.model_dump_json(indent=2, exclude_none=True) + "\n")
        typer.echo(f"wrote spec {spec_out} (use: ppdm perturb {data} --spec {spec_out} --out DIR)")


def register(app: typer.Typer) -> None:
    app.command("advise")(advise)


__all__ = ["register", "advise"]
