"""The child process of a job (see :mod:`ppdm.app._jobs`): one library call, its errors one line."""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from pathlib import Path

__all__ = ["advise", "audit", "mine", "main"]


def _write_progress(directory: Path, done: int, total: int) -> None:
    tmp = directory / "progress.tmp"
    tmp.write_text(f"{done} {total}")
    os.replace(tmp, directory / "progress")


def advise(
    directory: Path,
    frame,
    class_column: str,
    gammas: list[float],
    ns: list[int],
    reps: int,
    min_accuracy: float | None,
    max_gamma: float | None = None,
) -> dict:
    """:func:`ppdm.advise.advise` with a progress file, its plot and printed report."""
    from ppdm.advise import advise as run_advisor
    from ppdm.advise import format_advice
    from ppdm.figures.advice import plot_advice

    allowed = sum(max_gamma is None or g <= max_gamma for g in gammas)
    total = reps * (1 + allowed * len(ns)) + 2 * 10  # the grid, then two designs confirmed
    done = [0]
    _write_progress(directory, 0, total)

    def mapper(fn, cells):
        for cell in cells:
            result = fn(cell)
            done[0] += 1
            _write_progress(directory, done[0], max(total, done[0] + 1))
            yield result

    advice = run_advisor(
        frame, class_column, gammas=gammas, ns=ns, reps=reps, min_accuracy=min_accuracy,
        max_gamma=max_gamma, mapper=mapper,
    )  # fmt: skip
    png = directory / "advice.png"
    plot_advice(advice, png)
    _write_progress(directory, done[0], done[0])
    lines = format_advice(advice, n_records=len(frame))
    return {**advice.summary(), "table": advice.table, "plot": str(png), "lines": lines}


def audit(directory: Path, release: str, original, keys: list[str] | None) -> dict:
    """:func:`ppdm.attacks.audit.audit_release` and its plot."""
    from ppdm.attacks.audit import audit_release, format_audit
    from ppdm.figures.audit import plot_audit

    _write_progress(directory, 0, 1)
    report = audit_release(release, original, keys=keys or None)
    png = directory / "audit.png"
    plot_audit(report, png)
    _write_progress(directory, 1, 1)
    return {"report": report.to_dict(), "text": format_audit(report), "plot": str(png)}


def mine(directory: Path, release: str, test, learner: str | None) -> dict:
    """:func:`ppdm.selection.mine`, with a test table's measured accuracy and majority-class
    rate beside it; a release that perturbed its class is mined by
    :func:`ppdm.mining.mine_release` and measured on the test table, as ``ppdm mine --test``.
    """
    from ppdm.exceptions import ParameterError
    from ppdm.mining import _model_text, check_release_columns, mine_release
    from ppdm.pipeline import load_release
    from ppdm.selection import mine as choose

    _write_progress(directory, 0, 1)
    rel = load_release(release)
    target = rel.spec.class_attribute
    if test is not None:
        check_release_columns(rel.spec, test, "the test table")
    if rel.spec.class_perturbed and target is not None:
        if test is None:
            raise ParameterError(
                f"the release perturbed its class {target!r}: no learner can be scored from "
                "the release alone; upload a test table of original records"
            )
        measured = mine_release(rel, test, learner="c45", reconstruction="global")
        out = {"learner": "c45 on the global reconstruction", "estimate": None,
               "measured_accuracy": measured.accuracy, "model": measured.model_text,
               "candidates": [], "folds": 0}  # fmt: skip
    else:
        result = choose(rel, test=test, learner=learner)
        out = {**result.to_dict(), "model": _model_text(result.model)}
    if test is not None:  # the baseline of the measured accuracy: the test table's own
        out["test_majority_rate"] = float(test[target].value_counts(normalize=True).max())
        out["n_test"] = len(test)
    _write_progress(directory, 1, 1)
    return out


def main(directory: str) -> int:
    """Run the job described by ``directory/args.pkl``."""
    d = Path(directory)
    with (d / "args.pkl").open("rb") as fh:
        function, kwargs = pickle.load(fh)
    fn = {"advise": advise, "audit": audit, "mine": mine}[function]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = fn(d, **kwargs)
    except Exception as exc:  # every failure is one line in the page
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        (d / "error.txt").write_text(text[:500], encoding="utf-8")
        return 1
    tmp = d / "result.tmp"
    with tmp.open("wb") as fh:
        pickle.dump(result, fh)
    os.replace(tmp, d / "result.pkl")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
