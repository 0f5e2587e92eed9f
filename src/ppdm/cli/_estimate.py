"""``ppdm estimate``: every perturbed attribute's original distribution, with standard errors,
as tables, JSON and figures; two-way tables with ``--pairs``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import typer

from ..publish import check_output, publish_dir
from ._common import (
    column_names,
    fail,
    flag_errors,
    progress_bar,
)
from ._options import (
    ENGINE_OPTION,
    JSON_OPTION,
    RELEASE_ARGUMENT,
    SCHEDULER_OPTION,
    EstimationMethod,
    ReleaseEngine,
    flag_option,
    method_option,
    out_option,
    value_option,
)
from ._passes import _check_by_class, _counted, _Passes


def estimate(
    ctx: typer.Context,
    release: Path = RELEASE_ARGUMENT,
    method: EstimationMethod = method_option(),
    by_class: bool = flag_option("--by-class", "Also estimate per class."),
    as_json: bool = JSON_OPTION,
    plot: Path | None = out_option(
        "DIR", "Directory for one PNG per attribute.", default=None, flag="--plot"
    ),
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
    if named:  # every attribute of a pair a perturbed one of the release, before any work
        from ..exceptions import ParameterError, SpecError
        from ..pairs import check_pairs, estimate_pairs

        try:
            check_pairs(rel, named, "--pairs")
        except (ParameterError, SpecError) as exc:
            fail(f"{exc} (release {str(release)!r})", usage=True)
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
        pair_results = []
        if named:
            with progress_bar("pairs"):  # one pass for all pairs: the bar pulses
                pair_results = estimate_pairs(rel, named, method, flag="--pairs")

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


def _check_method_applies(ctx: typer.Context, spec, method: str, release: Path) -> None:
    """Refuse a ``--method`` given for a release whose mechanism ignores it (additive)."""
    from ..mechanism import mechanism_of

    given = ctx.get_parameter_source("method")
    refused = mechanism_of(spec).refusal("estimators", method=method, release=str(release))
    if refused and getattr(given, "name", None) == "COMMANDLINE":
        fail(refused, usage=True)


#: ``estimate --plot`` draws on a second process from this many panels (attributes
#: times the classes' panels plus one) when the machine has a core to spare: below it,
#: the second interpreter's start-up (about 0.6 s of CPU) costs more than it saves.
PLOT_HELPER_PANELS = 40


def _panels(spec, by_class: bool) -> int:
    """The panels ``estimate --plot`` will draw, as far as the spec tells (an unperturbed
    class's values are not in it: two are assumed)."""
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
        shown = order[: MAX_TABLE_ROWS if order.size <= MAX_TABLE_ROWS else TABLE_ENDS]
        rows = [
            (
                str(p.labels[0][i]),
                str(p.labels[1][j]),
                f"{p.perturbed[i, j]:.0f}",
                f"{p.counts[i, j]:.1f}",
                f"{p.stderr[i, j]:.1f}",
                f"{p.independent[i, j]:.1f}",
            )
            for i, j in zip(*np.unravel_index(shown, p.counts.shape))
        ]
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


#: A longer estimate table shows its first and last ``TABLE_ENDS`` rows (as pandas does): at
#: N = 65,536 a row per value is a quarter of a million lines, which rich takes minutes to lay out.
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
    """A rich table of ``rows`` under ``columns`` (the first left-aligned); where all cells are
    printable and it fits, a column is one cell of lines: laid out per column, printed the same."""
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
    out = {"name": r.name, "method": method, f"{r.value_kind}s": r.labels}
    out.update(_counts_json(r.overall))
    if r.by_class:
        out["by_class"] = {c: _counts_json(e, perturbed=False) for c, e in r.by_class.items()}
    if r.by_stratum:
        out["strata"] = r.strata
        out["by_stratum"] = {v: _counts_json(e) for v, e in r.by_stratum.items()}
    return out


def _counts_json(e, perturbed: bool = True) -> dict:
    """One estimate's counts and standard errors (and its released counts)."""
    out = {"perturbed_counts": e.perturbed.tolist()} if perturbed else {}
    out.update(estimated_counts=e.counts.tolist(), stderr=e.stderr.tolist())
    out["stderr_kind"] = e.stderr_kind
    return out


def _plot_estimates(results, directory: Path, helper=None, meanwhile=None, pairs=()) -> None:
    """One PNG per attribute and one heat map per pair, published whole; ``meanwhile`` runs
    once the helper has the figures."""
    from ..figures.estimates import write_estimate_plots

    with publish_dir(directory) as tmp, progress_bar("drawing", len(results)) as advance:
        write_estimate_plots(results, tmp, helper=helper, meanwhile=meanwhile, progress=advance)
        if pairs:
            from ..figures.pairs import write_pair_plots

            write_pair_plots(pairs, tmp)
