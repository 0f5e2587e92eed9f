"""``ppdm demo``: the main job on built-in synthetic data."""

from __future__ import annotations

import math

import typer

from ._common import check_flag, fail
from ._options import seed_option


def demo(
    n: int = typer.Option(20_000, "--n", metavar="N", help="Records to release (>= 100)."),
    gamma: float = typer.Option(9.0, "--gamma", metavar="GAMMA", help="Amplification gamma > 1."),
    bins: int = typer.Option(20, "--bins", metavar="N", help="N for continuous attributes."),
    seed: int = seed_option("Seed (the demo is an experiment).", default=0),
) -> None:
    """Perturb, estimate, reconstruct and learn on synthetic Agrawal data; print the figures."""
    from ..demo import format_demo, run_demo
    from ..limits import MAX_TIE_GROUP_CELLS, check_n_records, check_n_values
    from ..validation import check_at_least, check_gamma

    check_flag(check_gamma, gamma, "--gamma")
    check_flag(check_at_least, n, "--n", 100)
    check_flag(check_at_least, bins, "--bins (N)", 2)
    check_flag(check_n_values, bins, "--bins")
    check_flag(check_n_records, n, "--n")
    if bins * bins > MAX_TIE_GROUP_CELLS:  # the demo reconstructs: an N x N tie-group table
        fail(f"--bins {bins}: the demo reconstructs its table, which needs N x N cells; "
             f"N can be at most {math.isqrt(MAX_TIE_GROUP_CELLS)}", usage=True)  # fmt: skip
    typer.echo(format_demo(run_demo(n, 5_000, gamma=gamma, n_bins=bins, seed=seed)))


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
