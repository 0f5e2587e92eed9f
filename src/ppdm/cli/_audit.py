"""``ppdm audit``: the owner attacks a release with the original at hand before publishing."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from ..validation import check_at_least, check_probability
from ._common import EXIT_BOUND_VIOLATED, check_flag, column_names, fail, file_out
from ._options import (
    JSON_OPTION,
    OVERWRITE_FILE_OPTION,
    file_option,
    flag_option,
    out_option,
    path_argument,
    seed_option,
    value_option,
)


def audit(
    release: Path = path_argument("DIR", "Release directory (substitution, one copy)."),
    original: Path | None = file_option(
        "--original", "The original table the release was made from (.csv/.parquet).", None
    ),
    empirical_epsilon: bool = flag_option(
        "--empirical-epsilon",
        "Run the release's sampler as a black box and bound epsilon from below "
        "(Clopper-Pearson, 95 %); no original needed.",
    ),
    trials: int = value_option(
        2_000_000, "--trials", "T", "Records perturbed from each original by --empirical-epsilon."
    ),
    as_json: bool = JSON_OPTION,
    plot: Path | None = out_option(
        "FILE", "Write a PNG of the audit here.", default=None, flag="--plot"
    ),
    tolerance: float | None = value_option(
        None,
        "--tolerance",
        "T",
        "A numeric guess within T of the original counts as recovered (default: one bin width).",
    ),
    rho: tuple[float, float] = value_option(
        (0.1, 0.5),
        "--rho",
        "RHO1 RHO2",
        "Policy rho1 rho2: no property of prior rho1 may reach rho2.",
    ),
    alpha: float = value_option(
        0.001, "--alpha", "ALPHA", "False-alarm probability shared by all counted figures."
    ),
    seed: int = seed_option("Seed of the repeated-perturbation attack.", 0),
    keys: str | None = value_option(
        None, "--keys", "A,B", "Key columns a,b: k-anonymity and linkage re-identification share."
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Attack a release, compare with the prior-only guess and the rho1-to-rho2 bound.

    Every counted figure is shown with its interval; a test fails only when the interval
    lies above its bound. Exits 0 when no test fails, 3 when one does (so it can gate a
    publication script), 1 when the release or the original cannot be used, 2 on a bad
    option value.
    """
    from ..attacks.audit import audit_release, format_audit
    from ..figures.audit import plot_audit

    if release.exists() and not release.is_dir():
        fail(f"{str(release)!r} is not a release directory (one holding spec.json and a data file)")
    if not release.is_dir():
        fail(f"release directory {str(release)!r} does not exist")
    if original is None and not empirical_epsilon:
        fail(
            "give --original (the attacks, with the original table) or --empirical-epsilon "
            "(the sampler alone)",
            usage=True,
        )
    if empirical_epsilon:
        check_flag(check_at_least, trials, "--trials", 100)
    report = None
    if original is not None:  # the attacks, with the original at hand
        if not original.exists():
            fail(f"--original file {str(original)!r} does not exist")
        if tolerance is not None:
            check_flag(check_at_least, tolerance, "--tolerance", 0)
            if tolerance == float("inf"):
                fail("--tolerance must be a finite number >= 0 (got inf)", usage=True)
        if not 0 < rho[0] < rho[1] < 1:
            fail(f"--rho needs 0 < rho1 < rho2 < 1 (got {rho[0]} {rho[1]})", usage=True)
        check_flag(check_probability, alpha, "--alpha")
        if plot is not None and plot.suffix.lower() != ".png":
            fail(f"--plot must name a .png file (got {str(plot)!r})", usage=True)
        if plot is not None:
            file_out(plot, overwrite, inputs=(release, original), flag="--plot")
        report = audit_release(
            release,
            original,
            tolerance=tolerance,
            rho=rho,
            alpha=alpha,
            random_state=seed,
            keys=None if keys is None else column_names(keys, "--keys"),
        )
        if plot is not None:
            plot_audit(report, plot)
    audits = _empirical(release, trials, seed) if empirical_epsilon else []
    if as_json:
        payload = {} if report is None else report.to_dict()
        if empirical_epsilon:
            payload["empirical_epsilon"] = [a.to_dict() for a in audits]
        typer.echo(json.dumps(payload, indent=2))
    else:
        if report is not None:
            typer.echo(format_audit(report), nl=False)
        if empirical_epsilon:
            typer.echo(_format_empirical(audits, trials), nl=False)
    if not ((report is None or report.passed) and all(a.within_stated for a in audits)):
        raise typer.Exit(EXIT_BOUND_VIOLATED)


def _empirical(release: Path, trials: int, seed: int) -> list:
    """The empirical epsilon of every perturbed attribute of the release."""
    from ..attacks.empirical import audit_spec_epsilon
    from ..mechanism import mechanism_of
    from ..pipeline import load_release

    spec = load_release(release).spec
    refused = mechanism_of(spec).refusal(
        "empirical_epsilon", f"--empirical-epsilon: release {str(release)!r}"
    )
    if refused:
        fail(refused, usage=True)
    return audit_spec_epsilon(spec, trials=trials, random_state=seed)


def _format_empirical(audits, trials: int) -> str:
    lines = [
        f"Empirical epsilon: the release's sampler run on {trials:,} records from each of the "
        "two originals where the matrix puts its largest ratio; lower bound by "
        "Clopper-Pearson at 95 % confidence per attribute.",
        f"  {'attribute':<24} {'stated':>8} {'lower bound':>12} {'share':>7}  verdict",
    ]
    for a in audits:
        share = "" if a.share_of_stated != a.share_of_stated else f"{a.share_of_stated:.1%}"
        verdict = "within" if a.within_stated else "EXCEEDS the stated epsilon"
        lines.append(
            f"  {a.attribute[:24]:<24} {a.stated:>8.4f} {a.lower_bound:>12.4f} {share:>7}  {verdict}"
        )
    bad = [a.attribute for a in audits if not a.within_stated]
    lines.append(
        "FAILED: the sampler leaks more than its spec states for " + ", ".join(bad)
        if bad
        else "PASSED: no sampler shows more than its stated epsilon"
    )
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    app.command("audit")(audit)
