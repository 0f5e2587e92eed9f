"""``ppdm perturb``: a table perturbed into a release (Algorithm 1, or additive noise)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from ..publish import check_output
from ..validation import check_at_least, check_interval
from ._common import (
    check_flag,
    column_names,
    fail,
    flag_errors,
    progress_bar,
)
from ._options import (
    BATCH_SIZE_OPTION,
    ENGINE_OPTION,
    OVERWRITE_DIR_OPTION,
    RELEASE_SEED_OPTION,
    SCHEDULER_OPTION,
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
    out_option,
    path_argument,
    value_option,
)
from ._passes import _Passes


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


def _count_rows(path: Path) -> int | None:
    from ..io import check_regular_file

    check_regular_file(path)  # a FIFO or device must not be opened
    if path.suffix.lower() in (".parquet", ".pq") and path.is_file():
        import pyarrow.parquet as pq

        return pq.ParquetFile(path).metadata.num_rows
    return None


#: Options of ``ppdm perturb`` declared here, so the command reads as its steps.
RHO_OPTION = value_option(
    None,
    "--rho",
    "RHO1 RHO2",
    "Privacy target instead of --gamma: gamma = rho2(1-rho1)/(rho1(1-rho2)).",
)

ATTRIBUTES_OPTION = value_option(
    None,
    "--attributes",
    "COL,COL,...",
    "Attributes to perturb (a name holding a comma in double quotes, as in CSV).",
    show_default="all but the class",
)

FORMAT_OPTION = typer.Option(
    None,
    "--format",
    show_default="the input's",
    help=TableFormat.__doc__,
)

COPIES_OPTION = value_option(
    1,
    "--copies",
    "M",
    "Independent perturbed copies per record (Kang), a record's copies in a row; gamma "
    "compounds to gamma^M.",
)

EPSILON_RECORD_OPTION = value_option(
    None,
    "--epsilon-record",
    "E",
    "Per-record budget: the sum of copies x ln gamma over the perturbed attributes. "
    "Without --gamma it is split over them (equally: gamma = exp(E/(m M))); a plan "
    "over it is refused.",
)

EPSILON_SPLIT_OPTION = value_option(
    None,
    "--epsilon-split",
    "COL=W,...",
    "Weights of the --epsilon-record split (a column not named weighs 1).",
    show_default="equal",
)

NOISE_SCALE_OPTION = value_option(
    None,
    "--noise-scale",
    "FRACTION",
    "Additive privacy level: the 95 % confidence interval width as a fraction of "
    "each attribute's range (AS2000's metric).",
    show_default="1.0",
)

ALLOW_UNPROTECTED_OPTION = flag_option(
    "--allow-unprotected",
    "Publish even if no attribute is protected, or a matrix has infinite "
    "amplification (identity, permutation, zero entries).",
)

OWNER_REPORT_OPTION = value_option(
    None,
    "--owner-report",
    "DIR",
    "Also write DIR/transitions.csv, for the owner only: per attribute, how many "
    "records of each original value were released as each value (outside --out).",
)


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
    rho: tuple[float, float] | None = RHO_OPTION,
    bins: int | None = value_option(
        None, "--bins", "N", "N for continuous attributes.", show_default="20"
    ),
    bounds: list[str] = value_option(
        [], "--bounds", "COL=LO:HI", "Owner bounds of a column (repeatable)."
    ),
    spec: Path | None = file_option("--spec", "Hand-written spec (JSON or YAML).", None),
    seed: int | None = RELEASE_SEED_OPTION,
    perturb_class: bool = flag_option("--perturb-class", "Also perturb the class."),
    attributes: str | None = ATTRIBUTES_OPTION,
    missing: Missing = choice_option(Missing.ERROR, "--missing"),
    out_of_bounds: OutOfBounds = choice_option(OutOfBounds.ERROR, "--out-of-bounds"),
    representative: Representative = choice_option(Representative.CENTER, "--representative"),
    fmt: TableFormat | None = FORMAT_OPTION,
    copies: int = COPIES_OPTION,
    epsilon_record: float | None = EPSILON_RECORD_OPTION,
    epsilon_split: str | None = EPSILON_SPLIT_OPTION,
    engine: ReleaseEngine | None = ENGINE_OPTION,
    scheduler: str | None = SCHEDULER_OPTION,
    batch_size: int | None = BATCH_SIZE_OPTION,
    method: ReleaseMethod = choice_option(ReleaseMethod.SUBSTITUTION, "--method"),
    noise: NoiseKind = choice_option(NoiseKind.GAUSSIAN, "--noise"),
    noise_scale: float | None = NOISE_SCALE_OPTION,
    overwrite: bool = OVERWRITE_DIR_OPTION,
    allow_unprotected: bool = ALLOW_UNPROTECTED_OPTION,
    owner_report: Path | None = OWNER_REPORT_OPTION,
) -> None:
    """Perturb a table with random substitution (Algorithm 1) and write a release.

    With --method additive, numeric attributes get independent uniform or Gaussian
    noise instead (the baseline of Agrawal & Srikant 2000), scaled per attribute so
    the 95 % interval width is --noise-scale times its range.

    Writes DIR/data.<ext>, DIR/spec.json, DIR/privacy.json and DIR/privacy.txt.
    """
    from ..mechanism import mechanism_of
    from ..options import PlanOptions
    from ..privacy import gamma_from_rho
    from ..release import read_spec

    method, noise = ReleaseMethod(method).value, NoiseKind(noise).value
    engine = engine and ReleaseEngine(engine).value
    fmt = None if fmt is None else TableFormat(fmt).value
    mech = mechanism_of(method)
    for flag, given in (("--gamma", gamma), ("--rho", rho), ("--spec", spec)):
        if given is not None and not mech.has("matrix"):
            fail(mech.refusal("matrix", flag=flag), usage=True)
    if (noise_scale is not None or noise != "gaussian") and not mech.has("noise"):
        fail(mech.refusal("noise"), usage=True)
    if gamma is not None and rho is not None:
        fail("give either --gamma or --rho, not both", usage=True)
    if rho is not None:
        try:
            gamma = gamma_from_rho(*rho)
        except ValueError as exc:
            fail(f"--rho: {exc}", usage=True)
    # the flag of every release option: its name with dashes, but for two
    flags = {f.name: "--" + f.name.replace("_", "-") for f in dataclasses.fields(PlanOptions)}
    flags.update(class_attribute="--class", n_bins="--bins")
    if rho is not None:
        flags["gamma"] = "--rho: gamma"
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
