"""``ppdm mine``: learn from a release and test on original data."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ._common import atomic_path, fail, file_out
from ._options import (
    JSON_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_ARGUMENT,
    EstimationMethod,
    Reconstruction,
    file_option,
    flag_option,
    method_option,
    seed_option,
    value_option,
)


def _learner_names(incomplete: str) -> list[str]:
    """Shell completion of --learner: the names of ppdm's learner table."""
    from ..mining import LEARNERS, RELEASE_LEARNERS

    names = [*RELEASE_LEARNERS, *LEARNERS]
    return [name for name in dict.fromkeys(names) if name.startswith(incomplete)]


def mine(
    release: Path = RELEASE_ARGUMENT,
    test: Path | None = file_option(
        "--test",
        "Original test table with the class column: report the accuracy measured on it. "
        "Without it the learner is chosen from the release and its accuracy estimated.",
        None,
    ),
    reconstruct: Reconstruction | None = typer.Option(
        None,
        "--reconstruct",
        help="Algorithm 2 globally or per class.",
        show_default="by-class; global when the release perturbed its class",
    ),
    method: EstimationMethod = method_option(),
    learner: str | None = value_option(
        None,
        "--learner",
        "NAME",
        "c45, release-tree, release-forest, local-tree, cart, random-forest, extra-trees, "
        "gradient-boosting, logistic-regression, naive-bayes, knn; "
        "or MODULE:CLASS with --allow-import. Default: c45 with --test, else chosen "
        "from the release.",
        autocompletion=_learner_names,
    ),
    allow_import: bool = flag_option(
        "--allow-import",
        "Let --learner import any scikit-learn classifier as MODULE:CLASS "
        "(importing runs the module's code: only modules you trust).",
    ),
    original: Path | None = file_option(
        "--original", "Original training table: also report the learner's accuracy on it.", None
    ),
    seed: int | None = seed_option("Seed of the reconstruction's tie breaking.", 0),
    model_out: Path | None = value_option(
        None,
        "--model-out",
        "FILE",
        "Without --test: write the chosen model, fitted, as a JSON model file for "
        "ppdm tree predict (it encodes original records with the release's domains).",
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
    as_json: bool = JSON_OPTION,
) -> None:
    """Reconstruct a release (or not, for release-tree), learn, and print test accuracy and the model."""
    from ..io import read_table
    from ..mining import check_release_columns, mine_release, resolve_learner
    from ..pipeline import load_release

    if test is None:
        if model_out is not None:
            file_out(model_out, overwrite, inputs=(release,), flag="--model-out")
        _mine_release_only(release, learner, seed, as_json, model_out)
        return
    if model_out is not None:
        fail("--model-out writes the model chosen from the release alone: give it "
             "without --test", usage=True)  # fmt: skip
    learner = learner or "c45"
    method = EstimationMethod(method).value
    try:
        resolve_learner(learner, allow_import=allow_import)
    except ValueError as exc:
        fail(f"--learner: {exc}", usage=True)
    rel = load_release(release)
    perturbed_class = rel.spec.class_perturbed and rel.spec.class_attribute is not None
    if reconstruct is None:  # per class needs the true class: globally if it was perturbed
        reconstruct = Reconstruction.GLOBAL if perturbed_class else Reconstruction.BY_CLASS
    reconstruct = Reconstruction(reconstruct).value
    if reconstruct == "by-class" and perturbed_class:
        fail(
            f"--reconstruct by-class needs an unperturbed class; this release perturbed "
            f"{rel.spec.class_attribute!r}: use --reconstruct global",
            usage=True,
        )
    tables = {}
    for flag, path in (("--test", test), ("--original", original)):
        if path is not None:
            tables[flag] = read_table(path)
            check_release_columns(rel.spec, tables[flag], f"{flag} {str(path)!r}")
            _check_finite(tables[flag], flag, path)
    result = mine_release(
        rel,
        tables["--test"],
        learner=learner,
        reconstruction=reconstruct,
        method=method,
        original=tables.get("--original"),
        random_state=seed,
        allow_import=allow_import,
        test_name=f"--test {str(test)!r}",
    )
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    how = (
        "no reconstruction"
        if result.reconstruction is None
        else (f"Algorithm 2 {result.reconstruction}, {result.method}")
    )
    typer.echo(f"learner: {result.learner} ({how})")
    typer.echo(f"test accuracy (learnt from the release): {result.accuracy:.4f}")
    if result.original_accuracy is not None:
        typer.echo(f"test accuracy (learnt from the original): {result.original_accuracy:.4f}")
    typer.echo(
        f"majority-class rate (always predicting {result.majority_class!r}, the release's "
        f"commonest class): {result.majority_rate:.4f}"
    )
    if result.beats_majority is False:
        typer.echo(
            "note: the model is not clearly better than always predicting the majority class "
            f"(by two standard errors on {result.n_test} test records)"
        )
    typer.echo("")
    typer.echo(result.model_text)


def _mine_release_only(release: Path, learner: str | None, seed, as_json: bool, model_out):
    """Choose a learner from the release alone, print its estimated accuracy and write it."""
    from ..selection import _forced, scorable_candidate
    from ..selection import mine as choose

    if learner is not None:
        try:
            scorable_candidate(_forced(learner))
        except ValueError as exc:
            fail(f"--learner: {exc}", usage=True)
    result = choose(release, learner=learner, random_state=seed)
    if model_out is not None:
        from ..tree.persist import save_model

        with atomic_path(model_out) as tmp:  # whole or not at all
            save_model(result.model, tmp, target=result.target)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return
    typer.echo(f"learner: {result.candidate.label} (chosen from the release alone)")
    typer.echo(
        f"estimated accuracy on the original data: {result.estimate:.4f} ± {result.stderr:.4f} "
        f"(standard error; {result.n_holdout} held-out released records)"
    )
    typer.echo(
        f"majority-class rate (always predicting {result.majority_class!r}, the release's "
        f"commonest class): {result.majority_rate:.4f}"
    )
    if len(result.candidates) > 1:
        typer.echo(f"candidates ({result.folds}-fold estimate ± s.e.; one-standard-error rule):")
        for c in result.candidates:
            shown = (
                f"{c.estimate:.4f} ± {c.stderr:.4f}" if c.scorable else f"not scorable: {c.reason}"
            )
            typer.echo(f"  {c.label}: {shown}")
    if model_out is not None:
        typer.echo(f"model written to {model_out} (apply it with ppdm tree predict)")


def _check_finite(frame, flag: str, path: Path) -> None:
    """Refuse an infinite number in a table to score on or learn from, naming the flag,
    file, column and data row (a learner said only which column)."""
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
