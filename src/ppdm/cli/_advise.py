"""``ppdm advise DATA --class C``: the Sec. 7 parameter advisor on the owner's data."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import typer

from ..limits import check_n_values
from ..publish import publish_file
from ..validation import check_at_least, check_gamma
from ._common import check_flag, distinct_outputs, fail, file_out
from ._options import (
    OVERWRITE_FILE_OPTION,
    PROGRESS_OPTION,
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


def _parse_ns(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        fail(f"--ns must be a comma-separated list of integers (got {text!r})", usage=True)


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


#: The default policy of ``--max-gamma``: the audit's rho1 = 0.1 -> rho2 = 0.5.
#: (ppdm.advise.POLICY_GAMMA; written out: importing it would load pandas at start-up)
POLICY_GAMMA = 9.0
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
    ns: str = value_option("5,10,20,40", "--ns", "N,N,...", "N values, comma-separated."),
    max_gamma: float | None = value_option(
        POLICY_GAMMA,
        "--max-gamma",
        "GAMMA",
        "The policy: the largest gamma allowed (default the audit's rho1 0.1 -> rho2 0.5).",
    ),
    min_accuracy: float | None = value_option(
        None, "--min-accuracy", "ACCURACY", "Target accuracy (0.85 or 85): applies rule 7.2."
    ),
    all_learners: bool = typer.Option(
        False,
        "--all-learners",
        help="Score every learner mine can choose, not only the forest, the depth-8 release tree and C4.5 by class.",
    ),
    sample: int | None = value_option(
        None, "--sample", "ROWS", "Run the grid on a sample of this many rows."
    ),
    reps: int = value_option(2, "--reps", "N", "Repetitions per cell (fresh split and release)."),
    confirm: int = value_option(
        10, "--confirm", "N", "Fresh releases of the chosen design behind its figure."
    ),
    jobs: int = value_option(
        2, "--jobs", "N", "Worker processes (results do not depend on it).", short="-j"
    ),
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
    tie_tolerance: float = value_option(
        0.0,
        "--tie-tolerance",
        "DELTA",
        "Rule 7.1: accuracies this close to the best tie (at least one s.e.).",
    ),
    seed: int = seed_option("Seed of the splits and the advisor's releases.", 0),
    progress: bool = PROGRESS_OPTION,
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Recommend (gamma, N, learner) for your data within your policy (Sec. 7), with its privacy."""
    from .. import advise as advisor
    from ..io import read_table, write_csv_atomic, write_json_atomic

    check_flag(check_at_least, jobs, "--jobs", 1)
    check_flag(check_at_least, reps, "--reps", 1)
    check_flag(check_at_least, confirm, "--confirm", 2)
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
    if max_gamma is not None:
        check_flag(check_gamma, max_gamma, "--max-gamma")
        if min(gammas) > max_gamma:
            fail(
                f"--gamma {gamma}: every gamma is above the policy's --max-gamma {max_gamma:g}",
                usage=True,
            )
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
    advice = advisor.advise(
        frame,
        class_,
        gammas=gammas,
        ns=n_list,
        max_gamma=max_gamma,
        min_accuracy=target,
        learners="all" if all_learners else advisor.DEFAULT_LEARNERS,
        reps=reps,
        confirm=confirm,
        tolerance=tie_tolerance,
        sample=sample,
        seed=seed,
        jobs=jobs,
        progress=progress and sys.stderr.isatty(),
    )
    write_csv_atomic(advice.table, out / "advice_table.csv")
    from ..figures.advice import plot_advice

    plot_advice(advice, out / "advice.png")
    summary = advice.summary()
    write_json_atomic(summary, out / "advice.json")
    for line in advisor.format_advice(advice, n_records=len(frame)):
        typer.echo(line)
    typer.echo(f"wrote {out / 'advice_table.csv'}, {out / 'advice.png'}, {out / 'advice.json'}")
    if spec_out is None:
        return
    if not advice.recommended:
        typer.echo(f"no spec written to {spec_out}")
        return
    with publish_file(spec_out) as tmp:
        if spec_out.suffix.lower() in (".yaml", ".yml"):
            import yaml

            spec = json.loads(advice.spec.model_dump_json(exclude_none=True))
            tmp.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
        else:
            tmp.write_text(
                advice.spec.model_dump_json(indent=2, exclude_none=True) + "\n", encoding="utf-8"
            )
    typer.echo(f"wrote spec {spec_out} (use: ppdm perturb {data} --spec {spec_out} --out DIR)")


def register(app: typer.Typer) -> None:
    app.command("advise")(advise)
