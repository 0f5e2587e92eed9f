"""``ppdm tree``: train, apply, show and compare C4.5 trees on any table."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import typer

from ..exceptions import DataError, DomainError
from ..publish import publish_file
from ..validation import check_two_classes
from ._common import (
    check_tree_flags,
    fail,
    file_out,
    read_labelled,
    short,
    table_out,
    write_out_table,
)
from ._options import (
    CLASS_OPTION,
    CONFIDENCE_OPTION,
    JSON_OPTION,
    MIN_LEAF_OPTION,
    OVERWRITE_FILE_OPTION,
    flag_option,
    out_option,
    path_argument,
    value_option,
)

tree_app = typer.Typer(
    help="C4.5 decision trees (Weka J48's algorithm): train, predict, show, compare.",
    no_args_is_help=True,
)

_TRUST_PICKLE_HELP = (
    "Also load an old pickled model. Unpickling runs any code the file names: "
    "use only for files you wrote yourself."
)
MODEL_ARGUMENT = path_argument(
    "MODEL",
    "Model written by ppdm tree train or ppdm mine --model-out (JSON; it is read without "
    "running code).",
)


def _save_model(model, target: str, path: Path) -> None:
    from ..tree.persist import save_model

    with publish_file(path) as tmp:
        save_model(model, tmp, target=target)


def _load_model(path: Path, trust_pickle: bool = False, *, c45_only: str = ""):
    """The model and its class column; ``c45_only`` names a use that needs a C4.5 tree."""
    from ..tree import C45Classifier
    from ..tree.persist import load_model

    clf, target = load_model(path, trust_pickle=trust_pickle)
    if c45_only and not isinstance(clf, C45Classifier):
        fail(f"{str(path)!r} is a model learnt from a release (ppdm mine --model-out); "
             f"{c45_only} reads C4.5 models of ppdm tree train")  # fmt: skip
    return clf, target


@tree_app.command("train")
def train(
    data: Path = path_argument("FILE", "Training table: .csv, .parquet or .arff."),
    class_column: str = CLASS_OPTION,
    out: Path = out_option("FILE", "Where to write the model (JSON, e.g. model.json).", short=True),
    confidence: float = CONFIDENCE_OPTION,
    min_leaf: int = MIN_LEAF_OPTION,
    unpruned: bool = flag_option("--unpruned", "Do not prune (J48 -U).", "-U"),
    no_subtree_raising: bool = flag_option(
        "--no-subtree-raising", "Do not raise subtrees while pruning (J48 -S).", "-S"
    ),
    categorical: list[str] = value_option(
        None, "--categorical", "COL", "Treat this column as categorical (repeatable)."
    ),
    show: bool = flag_option("--show", "Print the tree after training."),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Learn a C4.5 tree from a table and save it."""
    from ..tree import C45Classifier, export_text

    file_out(out, overwrite, inputs=(data,))  # a bad --out is refused before any work

    clf = C45Classifier(
        confidence=confidence,
        min_leaf=min_leaf,
        unpruned=unpruned,
        subtree_raising=not no_subtree_raising,
        categorical_features=categorical or None,
    )
    check_tree_flags(clf)
    frame = read_labelled(data, class_column)
    X = frame.drop(columns=[class_column])
    y = frame[class_column]
    unknown = [c for c in categorical or [] if c not in X.columns]
    if unknown:
        what = "the class column of" if class_column in unknown else "not attributes of"
        fail(f"--categorical names {short(unknown)}, {what} {str(data)!r}", usage=True)
    if X.shape[1] == 0:
        fail(f"{str(data)!r} has no column but the class {class_column!r}: nothing to learn from")
    if _continuous_class(y):
        fail(f"class column {class_column!r} of {str(data)!r} holds continuous numbers (such as "
             f"{y.dropna().iloc[0]!r}); a tree learns classes: bin them first, or name another "
             "column with --class")  # fmt: skip
    try:
        check_two_classes(y, f"class column {class_column!r} of {str(data)!r}", "a tree",
                          " (name another column with --class)")  # fmt: skip
    except DataError as exc:
        fail(str(exc))
    clf.fit(X, y)  # rows without a class are left out, as J48 leaves them
    acc = _agreement(clf.predict(X), y)
    majority, rate = _majority(clf, y)
    _save_model(clf, class_column, out)  # after the figures: a failure leaves no model
    unlabelled = _unlabelled(y)
    rows = f"{len(frame) - unlabelled} rows" + (
        f" ({unlabelled} without a class, left out)" if unlabelled else ""
    )
    typer.echo(
        f"trained on {rows}: {clf.tree_.n_leaves} leaves, size {clf.tree_.n_nodes}, "
        f"training accuracy {acc:.4f} (always predicting the commonest class "
        f"{_plain(majority)!r}: {rate:.4f}); model written to {out}"
    )
    if show:
        typer.echo(export_text(clf))


@tree_app.command("predict")
def predict(
    model: Path = MODEL_ARGUMENT,
    data: Path = path_argument("FILE", "Table to classify: .csv, .parquet or .arff."),
    out: Path = out_option("FILE", "Output table (.csv, .parquet or .arff).", short=True),
    proba: bool = flag_option("--proba", "Also write one probability column per class."),
    trust_pickle: bool = flag_option("--trust-pickle", _TRUST_PICKLE_HELP),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Classify the rows of a table; write them with a "predicted" column."""
    from ..io import read_table

    table_out(out, overwrite, inputs=(model, data))  # a bad --out is refused before any work
    clf, target = _load_model(model, trust_pickle)
    frame = read_table(data)
    X = _model_columns(clf, frame, data, target)
    added = ["predicted", *([f"p_{label}" for label in clf.classes_] if proba else [])]
    taken = [c for c in added if c in frame.columns]
    if taken:  # the output would replace them
        fail(f"{str(data)!r} already has the column(s) {short(taken)} that the predictions "
             "are written to; rename them")  # fmt: skip
    result = frame.copy()
    try:
        result["predicted"] = clf.predict(X)
        p = clf.predict_proba(X) if proba else None
    except (DataError, DomainError) as exc:  # a value the model cannot read: name the file
        fail(f"{str(data)!r}: {exc}")
    if p is not None:
        for k, label in enumerate(clf.classes_):
            result[f"p_{label}"] = p[:, k]
    accuracy = baseline = None
    unlabelled = _unlabelled(frame[target]) if target in frame.columns else len(frame)
    if unlabelled < len(frame):  # measured before anything is written
        accuracy = _agreement(result["predicted"], frame[target])
        majority, baseline = _majority(clf, frame[target])
    # in ARFF the class and the predictions are nominal (as Weka's J48 needs)
    nominal = [c for c in (target, "predicted") if c in result.columns]
    write_out_table(result, out, nominal=nominal)
    msg = f"wrote {len(result)} predictions to {out}"
    if accuracy is not None:
        scored = f"{len(frame) - unlabelled} rows with a class in column {target!r}"
        if unlabelled:
            scored += f"; {unlabelled} without one, not scored"
        msg += (
            f" (accuracy {accuracy:.4f} on the {scored}; always predicting the "
            f"training's commonest class {_plain(majority)!r}: {baseline:.4f})"
        )
    typer.echo(msg)


def _continuous_class(y) -> bool:
    """Whether the class ``y`` holds non-whole numbers (a continuous target)."""
    import pandas as pd

    if not pd.api.types.is_float_dtype(y):
        return False
    known = y.dropna().to_numpy()
    return bool(known.size) and bool(np.any(known != np.round(known)))


def _model_columns(clf, frame, data: Path, target: str):
    """The columns of ``frame`` that the model reads, by name and in its order (all but the
    class ``target`` for a model without names); a missing one is an error."""
    names = getattr(clf, "feature_names_in_", None)
    if names is None:
        return frame.drop(columns=[target]) if target in frame.columns else frame
    missing = [str(c) for c in names if c not in frame.columns]
    if missing:
        fail(f"{str(data)!r} lacks the model's columns {short(missing)}")
    return frame[list(names)]


def _majority(clf, truth) -> tuple:
    """The commonest class of the training rows (the root's weighted class counts), and
    the share of ``truth`` a model that always predicts it gets right: the baseline."""
    roots = [t.value[0] for t in getattr(clf, "trees_", None) or [clf.tree_]]
    majority = clf.classes_[int(np.argmax(np.mean(np.asarray(roots, dtype=float), axis=0)))]
    return majority, _agreement(np.full(len(truth), majority, dtype=object), truth)


def _unlabelled(truth) -> int:
    """How many rows have no class (a missing value)."""
    from pandas import isna

    return int(np.count_nonzero(isna(np.asarray(truth, dtype=object))))


def _agreement(predicted, truth) -> float:
    """Share of the rows with a class whose prediction equals it (0.0 for none); labels of
    different types (1 and "1") are compared as text."""
    from pandas import isna

    predicted, truth = np.asarray(predicted, dtype=object), np.asarray(truth, dtype=object)
    known = ~isna(truth)
    predicted, truth = predicted[known], truth[known]
    if len(truth) == 0:
        return 0.0
    same = np.asarray(predicted == truth, dtype=bool)
    if not same.all():
        rest = ~same
        same[rest] = predicted[rest].astype(str) == truth[rest].astype(str)
    return float(same.mean())


def _plain(value):
    """A NumPy scalar as the plain Python value it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


@tree_app.command("show")
def show(
    model: Path = MODEL_ARGUMENT,
    rules: bool = flag_option("--rules", "Print root-to-leaf rules (C5 style) instead."),
    trust_pickle: bool = flag_option("--trust-pickle", _TRUST_PICKLE_HELP),
) -> None:
    """Print a tree in J48's layout, or its rules with coverage/errors."""
    from ..tree import export_text, extract_rules, format_rules

    clf, _ = _load_model(model, trust_pickle, c45_only="--rules" if rules else "")
    if rules:
        typer.echo(format_rules(extract_rules(clf)))
    else:  # a model of a release prints itself; a C4.5 tree in J48's layout
        typer.echo(clf.export_text() if hasattr(clf, "export_text") else export_text(clf))


@tree_app.command("compare")
def compare(
    a: Path = path_argument("MODEL_A", "First model."),
    b: Path = path_argument("MODEL_B", "Second model."),
    data: Path = value_option(
        None, "--data", "FILE", "Table on which to measure prediction agreement.", short="-d"
    ),
    tolerance: float = value_option(
        0.05,
        "--tolerance",
        "FRACTION",
        "Thresholds match within this fraction of the attribute's range.",
    ),
    as_json: bool = JSON_OPTION,
    trust_pickle: bool = flag_option("--trust-pickle", _TRUST_PICKLE_HELP),
) -> None:
    """Compare two trees: roots, shared attributes, matching rules, prediction agreement."""
    from ..io import read_table
    from ..tree import compare_trees

    if not tolerance >= 0:  # also refuses nan
        fail(f"--tolerance must be a number >= 0 (got {tolerance})", usage=True)

    clf_a, target_a = _load_model(a, trust_pickle, c45_only="ppdm tree compare")
    clf_b, target_b = _load_model(b, trust_pickle, c45_only="ppdm tree compare")
    X = None
    if data is not None:
        frame = read_table(data)
        X = _model_columns(clf_a, frame, data, target_a)
        other = list(_model_columns(clf_b, frame, data, target_b).columns)
        if other != list(X.columns):
            fail(f"the models read other columns: {str(a)!r} {short(list(X.columns))}, "
                 f"{str(b)!r} {short(other)}")  # fmt: skip
    report = compare_trees(clf_a, clf_b, X, tolerance=tolerance)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), indent=2, default=str))
    else:
        typer.echo(report.to_text())


def register(app: typer.Typer) -> None:
    app.add_typer(tree_app, name="tree")
