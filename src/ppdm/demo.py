"""The main job end to end on built-in synthetic data: perturb, estimate, reconstruct, learn.

Prints the estimation error of every method, the privacy figures, and the tree accuracy
on original versus reconstructed data of an Agrawal function-1 release.

References
----------
Dowd, Xu & Zhang, Algorithms 1-2, Sec. 4.3, Sec. 5 and Sec. 6.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .datasets.agrawal import agrawal
from .estimate import METHODS, estimation_error
from .examples import AGRAWAL_BOUNDS, agrawal_spec
from .exceptions import SeededReleaseWarning
from .pipeline import estimate_release, load_release, make_release, reconstruct_release
from .report import format_privacy_report, privacy_report

__all__ = ["AGRAWAL_BOUNDS", "DemoResult", "agrawal_spec", "run_demo"]

#: The estimation-error table's baseline column: the released counts taken as the
#: original's (no estimate at all).
RELEASED = "released"


@dataclass
class DemoResult:
    """Figures the demo prints (also returned for scripting)."""

    n_train: int
    n_test: int
    gamma: float
    estimation_error: pd.DataFrame
    privacy: dict
    accuracy: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    #: The baseline beside the accuracies: the release's commonest class (its class is
    #: released as is) and the share of test records that have it.
    majority_class: object = None
    majority_rate: float | None = None


def run_demo(
    n_train: int = 20_000,
    n_test: int = 5_000,
    *,
    gamma: float = 9.0,
    n_bins: int = 20,
    function: int = 1,
    seed: int = 0,
    workdir: str | Path | None = None,
) -> DemoResult:
    """Run the whole pipeline once on Agrawal data (classification ``function``) and return
    the figures: ``n_train`` records released, ``n_test`` held out unperturbed, ``seed`` for
    the data, the release and the reconstruction (a demo is an experiment), the release
    written in ``workdir`` (a temporary directory by default).
    """
    start = time.perf_counter()
    data = agrawal(n_train + n_test, function=function, random_state=seed)
    train = data.iloc[:n_train].reset_index(drop=True)
    test = data.iloc[n_train:].reset_index(drop=True)
    X_test, y_test = test.drop(columns="group"), test["group"]
    scratch = tempfile.TemporaryDirectory(prefix="ppdm-demo-") if workdir is None else None
    with scratch or contextlib.nullcontext(workdir) as root:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SeededReleaseWarning)
            make_release(
                train,
                Path(root) / "release",
                random_state=seed,
                spec=agrawal_spec(train, gamma, n_bins),
                class_attribute="group",
            )
        release = load_release(Path(root) / "release")
        rows = []
        for method in METHODS:
            for est in estimate_release(release, method):
                dom = release.spec.attribute(est.name).get_domain()
                true = np.bincount(dom.encode(train[est.name]), minlength=dom.n_values)
                if method == METHODS[0]:  # the baseline: the released counts as they are
                    error = estimation_error(est.overall.perturbed, true)
                    rows.append({"attribute": est.name, "method": RELEASED, "error": error})
                error = estimation_error(est.overall.counts, true)
                rows.append({"attribute": est.name, "method": method, "error": error})
        errors = pd.DataFrame(rows).pivot(index="attribute", columns="method", values="error")
        errors = errors.loc[[c for c in train.columns if c in errors.index], [RELEASED, *METHODS]]
        from .tree import C45Classifier, ReleaseTreeClassifier

        accuracy = {}
        for kind in ("original", "reconstructed (global)", "reconstructed (by-class)"):
            frame = train
            if kind != "original":
                by_class = kind.endswith("(by-class)")
                frame = reconstruct_release(release, None, by_class=by_class, random_state=seed)
            model = C45Classifier().fit(frame.drop(columns="group"), frame["group"])
            accuracy[kind] = float(model.score(X_test, y_test))
        tree = ReleaseTreeClassifier().fit_release(release)
        accuracy["release tree (no reconstruction)"] = float(tree.score(X_test, y_test))
        report = privacy_report(release.spec)
    commonest = train["group"].value_counts()
    majority = commonest.index[0] if len(commonest) else None
    return DemoResult(
        n_train=n_train,
        n_test=n_test,
        gamma=gamma,
        estimation_error=errors,
        privacy=report,
        accuracy=accuracy,
        seconds=time.perf_counter() - start,
        majority_class=majority,
        majority_rate=float((y_test == majority).mean()) if len(test) else None,
    )


def format_demo(result: DemoResult) -> str:
    """Human-readable summary of :func:`run_demo`."""
    lines = [
        f"ppdm demo: Agrawal function-1 data, {result.n_train} released records, "
        f"{result.n_test} test records, gamma = {result.gamma:g}",
        "",
        "Estimation error E = sum|X_hat - X| / sum X per attribute (lower is better; "
        f"'{RELEASED}': the released counts taken as they are, the baseline):",
        result.estimation_error.to_string(float_format=lambda v: f"{v:.4f}"),
        "",
        "mean over attributes: "
        + ", ".join(f"{m} {v:.4f}" for m, v in result.estimation_error.mean().items()),
        "",
        format_privacy_report(result.privacy).rstrip(),
    ]
    if result.accuracy:
        lines += [
            "",
            "test accuracy on original test data (C4.5 trained on each table; the release",
            "tree learns from the release itself):",
        ]
        lines += [
            f"  C4.5 on {k:26s} {v:.4f}" if "release tree" not in k else f"  {k:34s} {v:.4f}"
            for k, v in result.accuracy.items()
        ]
        if result.majority_rate is not None:
            always = f"always {result.majority_class!s} (commonest class)"
            lines.append(f"  {always:34s} {result.majority_rate:.4f}")
    lines += ["", f"finished in {result.seconds:.1f} s"]
    return "\n".join(lines)
