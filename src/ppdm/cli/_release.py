"""``ppdm perturb | estimate | reconstruct | report``: the release pipeline on the command line."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import typer

from ..publish import check_output
from ..validation import check_at_least, check_interval
from ._common import (
    atomic_dir,
    check_flag,
    column_names,
    fail,
    file_out,
    flag_errors,
    progress_bar,
    table_out,
)
from ._options import (
    BATCH_SIZE_OPTION,
    ENGINE_OPTION,
    JSON_OPTION,
    OVERWRITE_FILE_OPTION,
    RELEASE_ARGUMENT,
    RELEASE_SEED_OPTION,
    SCHEDULER_OPTION,
    EstimationMethod,
    Missing,
    NoiseKind,
    OutOfBounds,
    ReleaseEngine,
    ReleaseMethod,
    Representative,
    TableFormat,
    choice_option,
    file_option,
    flag_option,
    method_option,
    out_option,
    path_argument,
    plot_option,
    seed_option,
    value_option,
)

#: Flag of every release option the command line sets (the library names the field).
PLAN_FLAGS = {
    "class_attribute": "--class",
    "gamma": "--gamma",
    "n_bins": "--bins",
    "bounds": "--bounds",
    "spec": "--spec",
    "attributes": "--attributes",
    "perturb_class": "--perturb-class",
    "missing": "--missing",
    "out_of_bounds": "--out-of-bounds",
    "representative": "--representative",
    "copies": "--copies",
    "epsilon_record": "--epsilon-record",
    "epsilon_split": "--epsilon-split",
    "method": "--method",
    "noise": "--noise",
    "noise_scale": "--noise-scale",
    "allow_unprotected": "--allow-unprotected",
}


def _parse_split(text: str | None) -> dict[str, str] | None:
    """``--epsilon-split a=2,b=1`` as ``{column: weight}`` (weights checked by the options)."""
    if text is None:
        return None
    out = {}
    for item in column_names(text, "--epsilon-split"):
        name, eq, weight = item.rpartition("=")
        if not eq or not name:
            fail(f"--epsilon-split: expected COL=WEIGHT (got {item!r})", usage=True)
        if name in out:
            fail(f"--epsilon-split names {name!r} twice", usage=True)
        out[name] = weight
    return out


def _parse_bounds(items: list[str]) -> dict[str, tuple[float, float]]:
    """``COL=LO:HI`` texts as ``{COL: (LO, HI)}``, each named as typed in a message."""
    out = {}
    for item in items:
        name, sep, rng = item.rpartition("=")
        lo, sep2, hi = rng.partition(":")
        try:
            if not (sep and sep2 and name):
                raise ValueError
            parsed = (float(lo), float(hi))
        except ValueError:
            fail(f"--bounds must look like COL=LO:HI (got {item!r})", usage=True)
        if name in out:
            fail(f"--bounds names {name!r} twice; give one range per column", usage=True)
        out[name] = check_flag(check_interval, *parsed, f"--bounds {item!r}")
    return out


class _Passes:
    """Progress over several passes of the rows: one bar, re-labelled at every pass.

    ``total`` is the rows of the input when known (a Parquet footer, a release's
    spec); otherwise the first pass counts them and later passes use that count.
    """

    def __init__(self, advance, total: int | None, factors: dict[str, int] | None = None):
        self._advance, self._base, self._factors = advance, total, factors or {}
        self._rows, self._started = 0, False

    def start(self, label: str) -> None:
        if self._started and self._base is None:
            self._base = self._rows
        self._started, self._rows = True, 0
        total = None if self._base is None else self._base * self._factors.get(label, 1)
        self._advance.reset(label, total)

    def advance(self, rows: int) -> None:
        self._rows += rows
        self._advance(rows)


def _counted(rel, passes: _Passes, labels: tuple[str, ...]):
    """``rel`` whose every read of the rows (one per pass) moves the bar of ``passes``."""
    from ..pipeline import DEFAULT_BATCH

    calls = iter(labels)

    class Counted(type(rel)):
        def batches(self, batch_size: int = DEFAULT_BATCH):
            passes.start(next(calls, labels[-1]))
            for batch in super().batches(batch_size):
                yield batch
                passes.advance(len(batch))

    return Counted(rel.spec, rel.data_path)


def _count_rows(path: Path) -> int | None:
    from ..io import check_regular_file

    check_regular_file(path)  # a FIFO or device must not be opened
    if path.suffix.lower() in (".parquet", ".pq") and path.is_file():
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return None


def perturb(
    input: Path = path_argument(
        "FILE", "Original table: .csv (or .csv.gz, .csv.bz2) or .parquet (never modified)."
    ),
    out: Path = out_option("DIR", "Release directory to write."),
    class_: str | None = value_option(
        None, "--class", "COL", "Class column (kept unless --perturb-class)."
    ),
    gamma: float | None = value_option(
        None, "--gamma", "GAMMA", "Amplification gamma > 1.", show_default="9"
    ),
    rho: tuple[float, float] | None = value_option(
        None,
        "--rho",
        "RHO1 RHO2",
        "Privacy target instead of --gamma: gamma = rho2(1-rho1)/(rho1(1-rho2)).",
    ),
    bins: int | None = value_option(
        None, "--bins", "N", "N for continuous attributes.", show_default="20"
    ),
    bounds: list[str] = value_option(
        [], "--bounds", "COL=LO:HI", "Owner bounds of a column (repeatable)."
    ),
    spec: Path | None = file_option("--spec", "Hand-written spec (JSON or YAML).", None),
    seed: int | None = RELEASE_SEED_OPTION,
    perturb_class: bool = flag_option("--perturb-class", "Also perturb the class."),
    attributes: str | None = value_option(
        None,
        "--attributes",
        "COL,COL,...",
        "Attributes to perturb (a name holding a comma in double quotes, as in CSV).",
        show_default="all but the class",
    ),
    missing: Missing = choice_option(Missing.ERROR, "--missing"),
    out_of_bounds: OutOfBounds = choice_option(OutOfBounds.ERROR, "--out-of-bounds"),
    representative: Representative = choice_option(Representative.CENTER, "--representative"),
    fmt: TableFormat | None = typer.Option(
        None,
        "--format",
        show_default="the input's",
        help=TableFormat.__doc__,
    ),
    copies: int = value_option(
        1,
        "--copies",
        "M",
        "Independent perturbed copies per record (Kang); gamma compounds to gamma^M.",
    ),
    epsilon_record: float | None = value_option(
        None,
        "--epsilon-record",
        "E",
        "Per-record budget: the sum of copies x ln gamma over the perturbed attributes. "
        "Without --gamma it is split over them (equally: gamma = exp(E/(m M))); a plan "
        "over it is refused.",
    ),
    epsilon_split: str | None = value_option(
        None,
        "--epsilon-split",
        "COL=W,...",
        "Weights of the --epsilon-record split (a column not named weighs 1).",
        show_default="equal",
    ),
    engine: ReleaseEngine | None = ENGINE_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    method: ReleaseMethod = choice_option(ReleaseMethod.SUBSTITUTION, "--method"),
    noise: NoiseKind = choice_option(NoiseKind.GAUSSIAN, "--noise"),
    noise_scale: float | None = value_option(
        None,
        "--noise-scale",
        "FRACTION",
        "Additive privacy level: the 95 % confidence interval width as a fraction of "
        "each attribute's range (AS2000's metric).",
        show_default="1.0",
    ),
    overwrite: bool = flag_option(
        "--overwrite", "Replace an existing non-empty release directory (whole)."
    ),
    allow_unprotected: bool = flag_option(
        "--allow-unprotected",
        "Publish even if no attribute is protected, or a matrix has infinite "
        "amplification (identity, permutation, zero entries).",
    ),
    owner_report: Path | None = value_option(
        None,
        "--owner-report",
        "DIR",
        "Also write DIR/transitions.csv, for the owner only: per attribute, how many "
        "records of each original value were released as each value (outside --out).",
    ),
) -> None:
    """Perturb a table with random substitution (Algorithm 1) and write a release.

    With --method additive, numeric attributes get independent uniform or Gaussian
    noise instead (the baseline of Agrawal & Srikant 2000), scaled per attribute so
    the 95 % interval width is --noise-scale times its range.

    Writes DIR/data.<ext>, DIR/spec.json, DIR/privacy.json and DIR/privacy.txt.
    """
    from ..options import PlanOptions
    from ..privacy import gamma_from_rho
    from ..release import read_spec

    method, noise = ReleaseMethod(method).value, NoiseKind(noise).value
    engine = engine and ReleaseEngine(engine).value
    fmt = None if fmt is None else TableFormat(fmt).value
    if method == "additive":
        for flag, given in (("--gamma", gamma), ("--rho", rho), ("--spec", spec)):
            if given is not None:
                fail(
                    f"{flag} is for substitution releases; --method additive takes --noise-scale",
                    usage=True,
                )
    elif noise_scale is not None or noise != "gaussian":
        fail("--noise and --noise-scale are for --method additive", usage=True)
    if gamma is not None and rho is not None:
        fail("give either --gamma or --rho, not both", usage=True)
    if rho is not None:
        try:
            gamma = gamma_from_rho(*rho)
        except ValueError as exc:
            fail(f"--rho: {exc}", usage=True)
    flags = {**PLAN_FLAGS, "gamma": "--rho: gamma"} if rho is not None else PLAN_FLAGS
    from ..io import names_as_read

    class_ = names_as_read(input, [class_])[0] if class_ else class_
    bounds = [names_as_read(input, [b])[0] for b in bounds or []]
    with flag_errors(flags):  # the library validates; the message names the flag
        options = PlanOptions(
            class_attribute=class_,
            gamma=gamma,
            epsilon_record=epsilon_record,
            epsilon_split=_parse_split(epsilon_split),
            n_bins=bins,
            bounds=_parse_bounds(bounds),
            attributes=(
                names_as_read(input, column_names(attributes, "--attributes"))
                if attributes
                else None
            ),
            perturb_class=perturb_class,
            missing=Missing(missing).value,
            out_of_bounds=OutOfBounds(out_of_bounds).value,
            representative=Representative(representative).value,
            copies=copies,
            method=method,
            noise=noise,
            **({} if noise_scale is None else {"noise_scale": noise_scale}),
            allow_unprotected=allow_unprotected,
        )
    if batch_size is not None:
        check_flag(check_at_least, batch_size, "--batch-size", 1)
    check_output(
        out, inputs=(input,) + ((spec,) if spec else ()), overwrite=overwrite, directory=True
    )
    if spec is not None:
        with flag_errors(flags):
            options = options.replace(spec=read_spec(spec))
    from ..api import is_parts, make_release, resolve_engine

    with flag_errors(flags):
        engine = resolve_engine(engine, is_parts(input), scheduler)
    if engine == "local" and not input.exists():
        fail(f"input file {str(input)!r} does not exist")
    total = _count_rows(input) if engine == "local" else None
    with flag_errors(flags), progress_bar("reading", total) as advance:
        passes = _Passes(advance, total, {"perturbing": options.copies, "checking": options.copies})
        local = {"progress": passes.advance, "on_pass": passes.start} if engine == "local" else {}
        if owner_report is not None:
            local["owner_report"] = owner_report
        # a plan over the per-record budget, or a flag the data cannot take (--bounds of a
        # text column), names its flag
        result = make_release(
            input if engine == "local" else str(input),
            out,
            engine=engine,
            scheduler=scheduler,
            fmt=fmt,
            random_state=seed,
            batch_size=batch_size,
            overwrite=overwrite,
            options=options,
            **local,
        )
    _warn_unprotected(result)
    if engine != "local":
        typer.echo(f"released {result.n_records} records to {out}/ (partitioned Parquet)")
        return
    k = len(result.perturbed_attributes())
    typer.echo(
        f"released {result.n_records} records ({k} perturbed attribute{'' if k == 1 else 's'}) "
        f"to {out}/ ; privacy report: {out}/privacy.txt"
    )


def _warn_unprotected(spec) -> None:
    from ..report import past_the_crossover, privacy_report, weakly_protected

    report = privacy_report(spec)
    names = report["unprotected"]
    if names:
        typer.echo(
            f"note: released without protection: {', '.join(names)} (see privacy.txt)", err=True
        )
    weak = weakly_protected(report)
    if weak:
        typer.echo(f"note: weakly protected: {'; '.join(weak)}", err=True)
    past = past_the_crossover(report)
    if past:
        typer.echo(
            f"note: {'; '.join(past)}: past this many values a frequency estimate is noisier "
            "than unary encoding would give at the same epsilon; fewer bins or values lower "
            "it (docs/oracles.md)",
            err=True,
        )


def estimate(
    ctx: typer.Context,
    release: Path = RELEASE_ARGUMENT,
    method: EstimationMethod = method_option(),
    by_class: bool = flag_option("--by-class", "Also estimate per class."),
    as_json: bool = JSON_OPTION,
    plot: Path | None = plot_option("DIR", "Directory for one PNG per attribute."),
    engine: ReleaseEngine | None = ENGINE_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    overwrite: bool = flag_option(
        "--overwrite", "Replace an existing non-empty --plot directory (whole)."
    ),
    pairs: list[str] = value_option(
        [],
        "--pairs",
        "A,B",
        "Also estimate the two-way table of two perturbed attributes (repeatable).",
    ),
) -> None:
    """Estimate the original distribution of every perturbed attribute, with standard errors.

    With --pairs, also the two-way table of each pair of perturbed attributes, through
    the Kronecker product of their matrices, beside the product of their one-way
    estimates (the table they would have if independent); --plot draws each pair as a
    heat map beside its released counts.
    """
    from ..api import estimate_release, resolve_engine
    from ..pipeline import load_release

    method, engine = EstimationMethod(method).value, engine and ReleaseEngine(engine).value
    if plot is not None:
        check_output(plot, inputs=(release,), flag="--plot", directory=True, overwrite=overwrite)
    with flag_errors({}):
        engine = resolve_engine(engine or ("dask" if scheduler else "local"), False, scheduler)
    rel = load_release(release)
    _check_method_applies(ctx, rel.spec, method, release)
    _check_by_class(rel.spec, by_class, release)
    named = [_pair_names(text) for text in pairs]
    if named:
        _check_pairs_apply(rel, named, release)
    helper = None
    try:
        if plot is not None:
            helper = _plot_helper(_panels(rel.spec, by_class))
        if engine != "local":
            results = estimate_release(
                release, method, by_class=by_class, engine=engine, scheduler=scheduler
            )
        else:
            total = rel.spec.n_records and rel.spec.n_records * rel.spec.copies
            with progress_bar("counting", total) as advance:
                passes = _Passes(advance, total)
                results = estimate_release(
                    _counted(rel, passes, ("counting",)), method, by_class=by_class
                )
        pair_results = _estimate_pairs(rel, named, method) if named else []

        def show(results) -> None:
            if as_json:
                _json_estimates(results, pair_results)
            else:
                _estimate_tables(results)
                _pair_tables(pair_results)

        if plot is None:
            show(results)
        else:  # the tables are printed while the helper draws
            if helper is None:  # the panels counted now, classes included
                helper = _plot_helper(sum(1 + len(r.by_class or ()) for r in results))
            _plot_estimates(
                results, plot, helper, meanwhile=lambda: show(results), pairs=pair_results
            )
    finally:
        if helper is not None:
            helper.shutdown(cancel_futures=True)


def _check_by_class(spec, by_class: bool, release: Path) -> None:
    """``--by-class`` on a release without a class names the release and the flag."""
    if by_class and spec.class_attribute is None:
        fail(
            f"--by-class: release {str(release)!r} has no class attribute (it was made "
            "without --class); leave --by-class out",
            usage=True,
        )


def _check_method_applies(ctx: typer.Context, spec, method: str, release: Path) -> None:
    """``--method`` given for an additive release is a usage error: its estimator is
    Agrawal & Srikant's reconstruction whatever the flag says."""
    given = ctx.get_parameter_source("method")
    if spec.method == "additive" and getattr(given, "name", None) == "COMMANDLINE":
        fail(
            f"--method {method} applies to substitution releases; release "
            f"{str(release)!r} adds noise, and is estimated by Agrawal & Srikant's "
            "reconstruction (as2000): leave --method out",
            usage=True,
        )


#: ``estimate --plot`` draws on a second process from this many panels (attributes
#: times the classes' panels plus one) when the machine has a core to spare: below it,
#: the second interpreter's start-up (about 0.6 s of CPU) costs more than it saves.
PLOT_HELPER_PANELS = 40


def _panels(spec, by_class: bool) -> int:
    """The panels ``estimate --plot`` will draw, as far as the spec tells (an unperturbed
    class attribute's values are not in it: two are assumed)."""
    attrs = len(spec.perturbed_attributes())
    if not by_class or not spec.class_attribute:
        return attrs
    domain = spec.attribute(spec.class_attribute).domain
    values = domain.get("values") if isinstance(domain, dict) else None
    return attrs * (1 + (len(values) if values else 2))


def _plot_helper(panels: int):
    """A process to draw figures beside this one, for ``panels`` panels or more."""
    from ..pipeline import spare_core

    if panels < PLOT_HELPER_PANELS or not spare_core():
        return None
    from ..figures.estimates import plot_helper

    return plot_helper()


def _json_estimates(results, pairs=()) -> None:
    payload = {"attributes": [_estimate_json(r, r.overall.method) for r in results]}
    if pairs:
        payload["pairs"] = [_pair_json(p) for p in pairs]
    typer.echo(json.dumps(payload, indent=2))


def _pair_names(text: str) -> tuple[str, str]:
    names = column_names(text, "--pairs")
    if len(names) != 2 or names[0] == names[1]:
        fail(f"--pairs: give two different attributes as A,B (got {text!r})", usage=True)
    return names[0], names[1]


def _check_pairs_apply(rel, named: list[tuple[str, str]], release: Path) -> None:
    """Every attribute of ``--pairs`` is a perturbed one of the release (before any work)."""
    from ..exceptions import ParameterError, SpecError
    from ..pairs import check_pairs

    try:
        check_pairs(rel, named, "--pairs")
    except (ParameterError, SpecError) as exc:
        fail(f"{exc} (release {str(release)!r})", usage=True)


def _estimate_pairs(rel, named: list[tuple[str, str]], method: str):
    from ..pairs import estimate_pairs

    with progress_bar("pairs", len(named)):
        return estimate_pairs(rel, named, method, flag="--pairs")


def _pair_json(p) -> dict:
    return {
        "rows": p.names[0],
        "columns": p.names[1],
        "row_labels": p.labels[0],
        "column_labels": p.labels[1],
        "method": p.method,
        "perturbed_counts": p.perturbed.tolist(),
        "estimated_counts": p.counts.tolist(),
        "stderr": p.stderr.tolist(),
        "stderr_kind": p.stderr_kind,
        "independent_counts": p.independent.tolist(),
        "released_independence_p": p.independence_p,
    }


def _pair_tables(pairs) -> None:
    """Each pair's cells, the most populous first (by estimate), beside the baseline."""
    from rich.console import Console

    console = Console(markup=False, emoji=False, highlight=False)
    for p in pairs:
        a, b = p.names
        order = np.argsort(-p.counts, axis=None, kind="stable")
        rows = []
        for flat in order[: MAX_TABLE_ROWS if order.size <= MAX_TABLE_ROWS else TABLE_ENDS]:
            i, j = np.unravel_index(flat, p.counts.shape)
            rows.append(
                (
                    str(p.labels[0][i]),
                    str(p.labels[1][j]),
                    f"{p.perturbed[i, j]:.0f}",
                    f"{p.counts[i, j]:.1f}",
                    f"{p.stderr[i, j]:.1f}",
                    f"{p.independent[i, j]:.1f}",
                )
            )
        kind = p.stderr_kind.replace(" (", ", ").rstrip(")")
        columns = (a, b, "perturbed", "estimated", f"stderr ({kind})", "if independent")
        table = _rows_table(console, f"{a} x {b} ({p.method})", columns, rows)
        notes = [
            f"released table's independence test: p = {p.independence_p:.2g}"
            + (
                " (dependence shown: the joint estimate can find it)"
                if p.independence_p < 1e-3
                else " (little or no dependence shown: the product of margins, 'if "
                "independent', may be the closer)"
            )
        ]
        if order.size > len(rows):
            notes.append(
                f"the {len(rows)} largest of {order.size:,} cells by estimate: --json lists "
                "every one, --plot draws them"
            )
        table.caption = "\n".join(notes)
        console.print(table)


def _estimate_tables(results) -> None:
    from rich.console import Console

    # names and values are data: printed as they are (no markup, emoji or highlighting)
    console = Console(markup=False, emoji=False, highlight=False)

    def show(title: str, r, e) -> None:
        first = r.value_kind
        # "bootstrap (B=200)" -> "stderr (bootstrap, B=200)": one level of brackets
        kind = e.stderr_kind.replace(" (", ", ").rstrip(")")
        rows = [
            (lab, f"{y:.0f}", f"{x:.1f}", f"{s:.1f}")
            for lab, y, x, s in zip(r.labels, e.perturbed, e.counts, e.stderr)
        ]
        rows, caption = _shown_rows(rows, first)
        table = _rows_table(console, title, (first, "perturbed", "estimated",
                                             f"stderr ({kind})"), rows)  # fmt: skip
        table.caption = caption
        console.print(table)

    for r in results:
        show(f"{r.name} ({r.overall.method})", r, r.overall)
        for c, ec in (r.by_class or {}).items():  # one table per class, as the plot's panels
            show(f"{r.name}: class {c} ({ec.method})", r, ec)
        for v, ev in (r.by_stratum or {}).items():  # one table per stratum, its own matrix
            show(f"{r.name}: {r.strata} = {v} ({ev.method})", r, ev)


#: An estimate table longer than this many rows is shown by its first and last
#: ``TABLE_ENDS`` rows (as pandas does): at N = 65,536 a row per value is a quarter of a
#: million lines per class, which no one reads on a terminal and rich takes minutes to lay
#: out. ``--json`` lists every value, ``--plot`` draws them all.
MAX_TABLE_ROWS = 60
TABLE_ENDS = 25


def _shown_rows(rows: list[tuple[str, ...]], kind: str) -> tuple[list[tuple[str, ...]], str | None]:
    """``rows`` as printed, with a caption that says what was left out (or None)."""
    if len(rows) <= MAX_TABLE_ROWS:
        return rows, None
    hidden = len(rows) - 2 * TABLE_ENDS
    gap = (f"... {hidden:,} {kind}s ...",) + ("...",) * (len(rows[0]) - 1)
    shown = rows[:TABLE_ENDS] + [gap] + rows[-TABLE_ENDS:]
    return shown, (
        f"{len(rows):,} {kind}s, the first and last {TABLE_ENDS} shown: "
        "--json lists every one, --plot draws them"
    )


def _rows_table(console, title: str, columns: Sequence[str], rows: list[tuple[str, ...]]):
    """A rich table of ``rows`` under ``columns`` (the first left-aligned, the others
    right-aligned).

    Where no cell holds a line break, tab or other control character and the table fits
    the console's width, each column is given as one cell of lines: rich then lays out
    four cells instead of four per row, and prints the same characters (no cell wraps,
    and without lines between rows a table's rows are its cells' lines).
    """
    from rich.measure import Measurement
    from rich.table import Table

    def table() -> Table:
        t = Table(title=title)
        for i, col in enumerate(columns):
            t.add_column(col, justify="left" if i == 0 else "right")
        return t

    if rows and all(cell.isprintable() for row in rows for cell in row):
        lines = table()
        lines.add_row(*("\n".join(column) for column in zip(*rows)))
        unbounded = console.options.update_width(1 << 20)  # its natural width, not cut
        if Measurement.get(console, unbounded, lines).maximum <= console.options.max_width:
            return lines
    rowwise = table()
    for row in rows:
        rowwise.add_row(*row)
    return rowwise


def _estimate_json(r, method: str) -> dict:
    key = f"{r.value_kind}s"
    out = {
        "name": r.name,
        "method": method,
        key: r.labels,
        "perturbed_counts": r.overall.perturbed.tolist(),
        "estimated_counts": r.overall.counts.tolist(),
        "stderr": r.overall.stderr.tolist(),
        "stderr_kind": r.overall.stderr_kind,
    }
    if r.by_class:
        out["by_class"] = {
            c: {
                "estimated_counts": e.counts.tolist(),
                "stderr": e.stderr.tolist(),
                "stderr_kind": e.stderr_kind,
            }
            for c, e in r.by_class.items()
        }
    if r.by_stratum:
        out["strata"] = r.strata
        out["by_stratum"] = {
            v: {
                "perturbed_counts": e.perturbed.tolist(),
                "estimated_counts": e.counts.tolist(),
                "stderr": e.stderr.tolist(),
                "stderr_kind": e.stderr_kind,
            }
            for v, e in r.by_stratum.items()
        }
    return out


def _plot_estimates(results, directory: Path, helper=None, meanwhile=None, pairs=()) -> None:
    """One PNG per attribute: perturbed and estimated counts with error bars (by class),
    and one heat map per pair, published whole; ``meanwhile`` runs once the helper has
    the figures."""
    from ..figures.estimates import write_estimate_plots

    with atomic_dir(directory) as tmp, progress_bar("drawing", len(results)) as advance:
        write_estimate_plots(results, tmp, helper=helper, meanwhile=meanwhile, progress=advance)
        if pairs:
            from ..figures.pairs import write_pair_plots

            write_pair_plots(pairs, tmp)


def reconstruct(
    release: Path = RELEASE_ARGUMENT,
    out: Path = out_option(
        "FILE",
        "Output file: .csv, .parquet or .arff; or a directory of Parquet parts: a name "
        "without extension, or any name with --engine dask.",
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

    An --out without extension, or any --out with --engine dask, is a directory of
    Parquet parts, one per part of the release.
    """
    from ..api import reconstruct_release, resolve_engine
    from ..pipeline import load_release

    method, engine = EstimationMethod(method).value, engine and ReleaseEngine(engine).value
    if batch_size is not None:
        check_flag(check_at_least, batch_size, "--batch-size", 1)
    with flag_errors({}):
        engine = resolve_engine(engine, not out.suffix, scheduler)
    if engine != "local":  # a directory of parts
        check_output(out, inputs=(release,), directory=True, overwrite=overwrite)
        _check_by_class(load_release(release).spec, by_class, release)
        with flag_errors({}):
            path = reconstruct_release(
                release,
                out,
                method=method,
                by_class=by_class,
                random_state=seed,
                engine=engine,
                scheduler=scheduler,
                overwrite=overwrite,
                batch_size=batch_size,
            )
        typer.echo(f"wrote the reconstructed table to {path}/ (partitioned Parquet)")
        return
    table_out(out, overwrite, inputs=(release,))
    rel = load_release(release)
    _check_by_class(rel.spec, by_class, release)
    total = rel.spec.n_records and rel.spec.n_records * rel.spec.copies
    with progress_bar("counting", total) as advance:
        passes = _Passes(advance, total)
        reconstruct_release(
            _counted(rel, passes, ("counting", "reconstructing")),
            out,
            method=method,
            by_class=by_class,
            random_state=seed,
            batch_size=batch_size,
            overwrite=overwrite,
        )
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
    """A hand-written spec as ``perturb --spec`` would complete it, for its privacy report.

    An attribute without a matrix gets the default gamma-diagonal matrix, or its share of
    the spec's per-record budget; one without a domain takes it from the data, so its
    figures are known only once released: it is left out of the report, with a note.
    """
    from ..options import PlanOptions
    from ..perturbation import planned_gammas

    if spec.data_file is not None or spec.method != "substitution":
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
        if a.name in later:
            typer.echo(
                f"note: attribute {a.name!r} has a {a.matrix['kind']} matrix, built from the "
                "data's marginal, so its figures are in the release's privacy.txt",
                err=True,
            )
            continue
        if a.perturbed and a.domain is None:
            typer.echo(
                f"note: attribute {a.name!r} has no domain in the spec: it comes from the "
                "data, so its figures are in the release's privacy.txt",
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
