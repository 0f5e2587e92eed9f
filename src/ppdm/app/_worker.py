"""The child process of a job (see :mod:`ppdm.app._jobs`): run one library call.

Each function calls ppdm's public API and returns picklable results; errors become one
line in ``error.txt``.
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from pathlib import Path

__all__ = ["advise", "audit", "train", "main"]


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
    seed: int = 0,
) -> dict:
    """The Sec. 7 advisor (:mod:`ppdm.experiments.advisor`) with a progress file and its plot."""
    from ppdm.experiments import advisor, plotting

    train, test = advisor.split_owner_data(frame, class_column, seed=seed)
    total = len(gammas) * len(ns) * reps
    done = [0]
    _write_progress(directory, 0, total)

    def mapper(fn, cells):
        for cell in cells:
            result = fn(cell)
            done[0] += 1
            _write_progress(directory, done[0], total)
            yield result

    table = advisor.advisor_grid(
        train,
        test,
        class_column,
        gammas=gammas,
        ns=ns,
        reps=reps,
        min_accuracy=min_accuracy,
        seed=seed,
        mapper=mapper,
    )
    rec = advisor.recommend(
        table, n_records=len(frame), min_accuracy=min_accuracy, max_gamma=max(gammas)
    )
    png = directory / "advice.png"
    chosen = (rec.gamma, rec.N) if rec.recommended else None
    plotting.plot_advice(table, png, chosen=chosen, target=min_accuracy)
    return {
        "table": table,
        "recommended": rec.recommended,
        "reason": rec.reason,
        "majority": rec.majority,
        "original_accuracy": rec.original_accuracy,
        "gamma": rec.gamma,
        "N": rec.N,
        "accuracy": rec.accuracy,
        "rule": rec.rule,
        "met": rec.met,
        "privacy": rec.privacy,
        "plot": str(png),
    }


def audit(directory: Path, release: str, original, keys: list[str] | None) -> dict:
    """:func:`ppdm.attacks.audit.audit_release` and its plot."""
    from ppdm.attacks.audit import audit_release, format_audit, plot_audit

    _write_progress(directory, 0, 1)
    report = audit_release(release, original, keys=keys or None)
    png = directory / "audit.png"
    plot_audit(report, png)
    _write_progress(directory, 1, 1)
    return {"report": report.to_dict(), "text": format_audit(report), "plot": str(png)}


def train(directory: Path, release: str, test, learner: str) -> dict:
    """:func:`ppdm.mining.mine_release` on an uploaded test table."""
    from ppdm.mining import mine_release
    from ppdm.pipeline import load_release

    _write_progress(directory, 0, 1)
    result = mine_release(release, test, learner=learner).to_dict()
    target = load_release(release).spec.class_attribute
    # the rate of always guessing the test table's most frequent class
    result["majority_rate"] = float(test[target].value_counts(normalize=True).max())
    _write_progress(directory, 1, 1)
    return result


def main(directory: str) -> int:
    """Run the job described by ``directory/args.pkl``."""
    d = Path(directory)
    with (d / "args.pkl").open("rb") as fh:
        function, kwargs = pickle.load(fh)
    fn = {"advise": advise, "audit": audit, "train": train}[function]
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
