"""``ppdm datasets``: list and export the bundled data sets."""

from __future__ import annotations

from pathlib import Path

import typer

from ._common import atomic_path, fail

datasets_app = typer.Typer(help="List and export the bundled data sets.", no_args_is_help=True)


def _registry():
    from .. import datasets

    return {
        "pendigits": datasets.load_pendigits,
        "spambase": datasets.load_spambase,
        "wisconsin": datasets.load_wisconsin,
        "boston": datasets.load_boston,
    }


@datasets_app.command("list")
def list_() -> None:
    """List the bundled data sets with their shape and class column."""
    for name, loader in _registry().items():
        d = loader()
        typer.echo(
            f"{name:12s} {d.frame.shape[0]:6d} rows  {d.frame.shape[1] - 1:3d} attributes  class={d.target}"
        )


@datasets_app.command("export")
def export(
    name: str = typer.Argument(..., help="Data set name (see `ppdm datasets list`)."),
    out: Path = typer.Option(..., "--out", help="Output file: .csv, .parquet or .arff."),
) -> None:
    """Write a bundled data set to a file."""
    reg = _registry()
    if name not in reg:
        fail(f"unknown data set {name!r}; choose one of {', '.join(reg)}")
    from ..io import write_table

    frame = reg[name]().frame
    with atomic_path(out) as tmp:
        write_table(frame, tmp, fmt=out.suffix.lstrip("."), relation=name)
    typer.echo(f"wrote {len(frame)} rows to {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(datasets_app, name="datasets")
