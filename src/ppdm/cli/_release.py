"""``ppdm perturb | estimate | reconstruct | report``: the release pipeline on the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import typer

from ..publish import check_output
from ..validation import check_at_least
from ._common import (
    check_flag,
    fail,
    file_out,
    flag_errors,
    progress_bar,
    table_out,
)
from ._estimate import estimate
from ._options import (
    BATCH_SIZE_OPTION,
    ENGINE_OPTION,
    JSON_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_ARGUMENT,
    SCHEDULER_OPTION,
    EstimationMethod,
    ReleaseEngine,
    file_option,
    flag_option,
    method_option,
    out_option,
    path_argument,
    seed_option,
)
from ._passes import _check_by_class, _counted, _Passes
from ._perturb import perturb


def reconstruct(
    release: Path = RELEASE_ARGUMENT,
    out: Path = out_option(
        "FILE",
        "Output file: .csv, .parquet or .arff; or a directory of Parquet parts: a name "
        "without extension, or any name with --engine partitioned or dask.",
    ),
    method: EstimationMethod = method_option(),
    by_class: bool = flag_option("--by-class", "Reconstruct per class partition."),
    seed: int | None = seed_option("Seed for tie breaking (reproducible runs)."),
    engine: ReleaseEngine | None = ENGINE_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    overwrite: bool = flag_option(
        "--overwrite", "Replace an existing output file, or directory of parts (whole)."
    ),
) -> None:
    """Rebuild a table from a release (Algorithm 2, global or by class).

    An --out without extension, or any --out with --engine partitioned or dask, is a directory of
    Parquet parts, one per part of the release.
    """
    from ..api import reconstruct_release, resolve_engine
    from ..pipeline import load_release

    method, engine = EstimationMethod(method).value, engine and ReleaseEngine(engine).value
    if batch_size is not None:
        check_flag(check_at_least, batch_size, "--batch-size", 1)
    with flag_errors({}):
        engine = resolve_engine(engine, not out.suffix, scheduler)
    given = {"method": method, "by_class": by_class, "random_state": seed}
    given.update(overwrite=overwrite, batch_size=batch_size)
    if engine != "local":  # a directory of parts
        check_output(out, inputs=(release,), directory=True, overwrite=overwrite)
        _check_by_class(load_release(release).spec, by_class, release)
        with flag_errors({}):
            path = reconstruct_release(release, out, engine=engine, scheduler=scheduler, **given)
        typer.echo(f"wrote the reconstructed table to {path}/ (partitioned Parquet)")
        return
    table_out(out, overwrite, inputs=(release,))
    rel = load_release(release)
    _check_by_class(rel.spec, by_class, release)
    total = rel.spec.n_records and rel.spec.n_records * rel.spec.copies
    with progress_bar("counting", total) as advance:
        passes = _Passes(advance, total)
        reconstruct_release(_counted(rel, passes, ("counting", "reconstructing")), out, **given)
    typer.echo(f"wrote the reconstructed table to {out}")


def report(
    target: Path = path_argument("TARGET", "Release directory or spec file (JSON/YAML)."),
    as_json: bool = JSON_OPTION,
    html: Path | None = out_option(
        "FILE",
        "Also write a self-contained HTML page (figures, estimates, audit) here.",
        default=None,
        flag="--html",
    ),
    audit_original: Path | None = file_option(
        "--audit-original",
        "With --html: the original table; run the audit and put its verdict in the page.",
        None,
    ),
    method: EstimationMethod = method_option(
        "With --html: estimation method of the distributions."
    ),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Print the privacy report of a release or spec; --html writes it as a web page too."""
    from ..release import read_spec
    from ..report import format_privacy_report, privacy_report

    if audit_original is not None and html is None:
        fail("--audit-original needs --html FILE (the audit goes into the HTML page)", usage=True)
    method = EstimationMethod(method).value
    if html is not None:
        if html.suffix.lower() not in (".html", ".htm"):
            fail(f"--html must name a .html file (got {str(html)!r})", usage=True)
        if not target.exists():
            fail(f"release directory or spec file {str(target)!r} does not exist")
        if audit_original is not None:
            if not target.is_dir():
                fail(
                    f"--audit-original needs a release directory; {str(target)!r} is a file",
                    usage=True,
                )
            if not audit_original.exists():
                fail(f"--audit-original file {str(audit_original)!r} does not exist")
        inputs = (target,) + ((audit_original,) if audit_original is not None else ())
        file_out(html, overwrite, inputs=inputs, flag="--html")
    if target.is_dir():
        from ..pipeline import load_release, verify_release

        rel = load_release(target)  # a release must agree with itself ...
        verify_release(rel)  # ... and with its data: every value and the row count
        spec = rel.spec
    else:
        spec = read_spec(target)
    if audit_original is not None:
        from ..attacks.audit import check_auditable, check_original

        try:
            check_auditable(spec)
        except ValueError as exc:  # before anything is printed or written
            fail(f"--audit-original: {exc}; leave it out for this release", usage=True)
        check_original(rel, audit_original)  # the release's own original, or exit 1
    rep = privacy_report(_reportable(spec, target))
    if as_json:
        typer.echo(json.dumps(rep, indent=2, default=lambda x: None if math.isinf(x) else x))
    else:
        typer.echo(format_privacy_report(rep), nl=False)
    if html is not None:
        from ..html_report import write_html_report

        try:
            write_html_report(target, html, method=method, audit_original=audit_original)
        except (ValueError, FileNotFoundError) as exc:
            fail(str(exc))
        typer.echo(f"wrote the HTML report to {html}", err=as_json)


def _reportable(spec, target: Path):
    """A hand-written spec as ``perturb --spec`` would complete it (default matrices, the
    budget's shares), for its privacy report; attributes whose figures need the data are
    left out, with a note."""
    from ..mechanism import mechanism_of
    from ..options import PlanOptions
    from ..perturbation import planned_gammas

    if spec.data_file is not None or not mechanism_of(spec).has("budget"):
        return spec
    from ..matrix import needs_data

    perturbed = spec.perturbed_attributes()
    later = {a.name for a in perturbed if needs_data(a.matrix)}
    own = {
        a.name: a.get_matrix().amplification()
        for a in perturbed
        if a.matrix and a.domain and a.name not in later
    }
    free = [a.name for a in perturbed if a.matrix is None]
    try:
        gammas = planned_gammas(own, free, PlanOptions(spec=spec, copies=spec.copies))
    except ValueError as exc:  # a spec over its own budget
        fail(f"spec {str(target)!r}: {exc}")
    attributes = []
    for a in spec.attributes:
        if a.name in later or (a.perturbed and a.domain is None):
            why = (
                f"has a {a.matrix['kind']} matrix, built from the data's marginal"
                if a.name in later
                else "has no domain in the spec: it comes from the data"
            )
            typer.echo(
                f"note: attribute {a.name!r} {why}, so its figures are in the release's "
                "privacy.txt",
                err=True,
            )
            continue
        if a.perturbed and a.matrix is None:
            n = a.get_domain().n_values
            matrix = {"kind": "gamma-diagonal", "n_values": n, "gamma": gammas[a.name]}
            a = a.model_copy(update={"matrix": matrix})
        attributes.append(a)
    return spec.model_copy(update={"attributes": attributes})


def spec_schema() -> None:
    """Print the JSON Schema of a release spec (spec.json, or a hand-written --spec)."""
    from ..release import spec_json_schema

    typer.echo(json.dumps(spec_json_schema(), indent=2))


def register(app: typer.Typer) -> None:
    spec_app = typer.Typer(
        name="spec",
        help="The release spec: its JSON Schema.",
        no_args_is_help=True,
    )
    spec_app.command("schema")(spec_schema)
    app.add_typer(spec_app, name="spec")
    app.command("perturb")(perturb)
    app.command("estimate")(estimate)
    app.command("reconstruct")(reconstruct)
    app.command("report")(report)
