"""``ppdm mine``: choose a learner from a release, estimate its accuracy, and measure it."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..publish import publish_file
from ._common import fail, file_out
from ._options import (
    JSON_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_ARGUMENT,
    file_option,
    seed_option,
    value_option,
)


def _learner_names(incomplete: str) -> list[str]:
    """Shell completion of --learner: the learners scorable from a release, and the
    candidates' labels."""
    from ..mining import CANDIDATES

    names = ["release-tree", "release-forest", "c45", *(c.label for c in CANDIDATES)]
    return [name for name in dict.fromkeys(names) if name.startswith(incomplete)]


def mine(
    release: Path = RELEASE_ARGUMENT,
    test: Path | None = file_option(
        "--test",
        "Original test table with the class column: also report the chosen model's accuracy "
        "measured on it, beside its estimate.",
        None,
    ),
    learner: str | None = value_option(
        None,
        "--learner",
        "NAME",
        "Force one learner instead of choosing: release-tree, release-forest, c45 (C4.5 on "
        "the by-class reconstruction, over the release's codes), or a candidate's label.",
        autocompletion=_learner_names,
    ),
    seed: int | None = seed_option("Seed of the parts, the folds and the learners.", 0),
    model_out: Path | None = value_option(
        None,
        "--model-out",
        "FILE",
        "Write the chosen model, fitted, as a JSON model file for ppdm tree predict (it "
        "encodes original records with the release's domains).",
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Choose a learner from the release alone and estimate its accuracy on the original data."""
    from ..io import read_table
    from ..mining import check_release_columns
    from ..pipeline import load_release
    from ..selection import _forced, scorable_candidate
    from ..selection import mine as choose

    if learner is not None:
        try:
            scorable_candidate(_forced(learner))
        except ValueError as exc:
            fail(f"--learner: {exc}", usage=True)
    if model_out is not None:
        file_out(
            model_out, overwrite, inputs=tuple(p for p in (release, test) if p), flag="--model-out"
        )
    rel = load_release(release)
    frame = None
    if test is not None:
        if rel.holds(test):
            fail(
                f"--test {str(test)!r} is the release's own data (perturbed records): give "
                "original records with the class, ones the release was not made from"
            )
        frame = read_table(test)
        check_release_columns(rel.spec, frame, f"--test {str(test)!r}")
        _check_finite(frame, "--test", test)
    result = choose(rel, test=frame, learner=learner, random_state=seed,
                    test_name=f"--test {str(test)!r}")  # fmt: skip
    if model_out is not None:
        from ..tree.persist import save_model

        with publish_file(model_out) as tmp:  # whole or not at all
            save_model(result.model, tmp, target=result.target)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    _print(result, test, model_out)


def _print(result, test: Path | None, model_out: Path | None) -> None:
    from ..selection import estimate_note, score_note

    typer.echo(f"learner: {result.candidate.label} (chosen from the release alone)"
               if result.folds else f"learner: {result.candidate.label} (forced)")  # fmt: skip
    typer.echo(
        f"estimated accuracy on the original data: {result.estimate:.4f} ± {result.stderr:.4f} "
        f"(standard error; {result.n_holdout} held-out released records"
        + (f", {result.copies} copies each)" if result.copies > 1 else ")")
    )
    for note in (estimate_note(result.estimate, result.stderr), result.note):
        if note:
            typer.echo(f"note: {note}")
    if result.measured is not None:
        typer.echo(f"measured accuracy on --test {str(test)!r}: {result.measured:.4f} "
                   f"({result.n_test} original records)")  # fmt: skip
    typer.echo(
        f"majority-class rate (always predicting {result.majority_class!r}, the release's "
        f"commonest class): {result.majority_rate:.4f}"
    )
    if len(result.candidates) > 1:
        typer.echo(
            f"candidates ({result.folds}-fold estimate ± s.e., leaves of the folds' models; "
            "one-standard-error rule: the fewest leaves within one s.e. of the best, each "
            "score read as the accuracy in [0, 1] it allows, shown where that differs):"
        )
        for c in result.candidates:
            shown = (
                f"{c.estimate:.4f} ± {c.stderr:.4f}, {c.leaves:.1f} leaves"
                f"{score_note(c.estimate, c.stderr)}"
                if c.scorable
                else f"not scorable: {c.reason}"
            )
            typer.echo(f"  {c.label}: {shown}")
    if model_out is not None:
        typer.echo(f"model written to {model_out} (apply it with ppdm tree predict)")
    typer.echo("")
    typer.echo(result.model.export_text())


def _check_finite(frame, flag: str, path: Path) -> None:
    """Refuse an infinite number in a table to score on, naming the flag, file, column and
    data row (a learner said only which column)."""
    import numpy as np
    import pandas as pd

    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_float_dtype(col):
            bad = np.flatnonzero(np.isinf(col.to_numpy(dtype=float, na_value=np.nan)))
            if bad.size:
                fail(f"{flag} {str(path)!r}: column {name!r} data row {bad[0] + 1} has value "
                     f"{col.iloc[bad[0]]}; use an empty cell for a missing value")  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("mine")(mine)
