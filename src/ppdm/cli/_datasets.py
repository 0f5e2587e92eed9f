"""``ppdm datasets``: list and export the bundled data sets."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import typer

from ._common import fail, table_out, write_out_table
from ._options import OVERWRITE_FILE_OPTION, TEXT_ARGUMENT, out_option

datasets_app = typer.Typer(help="List and export the bundled data sets.", no_args_is_help=True)


def _synth(k: int):
    """Synth``k`` as one table: the 100K train rows then the 5K test rows of ``load_synth``."""
    import pandas as pd

    from .. import datasets

    train, test = datasets.load_synth(k)
    return datasets.Dataset(
        f"synth{k}", pd.concat([train.frame, test.frame], ignore_index=True), "group"
    )


def _registry():
    from .. import datasets

    reg = {
        "pendigits": datasets.load_pendigits,
        "spambase": datasets.load_spambase,
        "wisconsin": datasets.load_wisconsin,
        "boston": datasets.load_boston,
    }
    for k in range(1, 6):
        reg[f"synth{k}"] = partial(_synth, k)
    return reg


@datasets_app.command("list")
def list_() -> None:
    """List the bundled data sets with their shape and class column."""
    for name, loader in _registry().items():
        d = loader()
        typer.echo(
            f"{name:12s} {d.frame.shape[0]:6d} rows  {d.frame.shape[1] - 1:3d} attributes  class={d.target}"
        )


def _names(incomplete: str) -> list[str]:
    """Shell completion of a data set name."""
    return [name for name in _registry() if name.startswith(incomplete)]


@datasets_app.command("export")
def export(
    name: str = typer.Argument(
        ...,
        click_type=TEXT_ARGUMENT,
        metavar="NAME",
        autocompletion=_names,
        help="Data set name (see ppdm datasets list).",
    ),
    out: Path = out_option("FILE", "Output file: .csv, .parquet or .arff."),
    overwrite: bool = OVERWRITE_FILE_OPTION,
) -> None:
    """Write a bundled data set to a file."""
    table_out(out, overwrite)
    reg = _registry()
    if name not in reg:
        fail(f"unknown data set {name!r}; choose one of {', '.join(reg)}", usage=True)
    data = reg[name]()
    frame = data.frame
    target = getattr(data, "target", None)  # its class: nominal in ARFF, for Weka's J48
    write_out_table(frame, out, relation=name, nominal=[target] if target else None)
    typer.echo(f"wrote {len(frame)} rows to {out}")


def register(app: typer.Typer) -> None:
    app.add_typer(datasets_app, name="datasets")
