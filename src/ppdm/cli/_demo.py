"""``ppdm demo``: the main job on built-in synthetic data."""

from __future__ import annotations

import typer

from ._common import fail


def demo(
    n: int = typer.Option(20_000, "--n", help="Records to release."),
    gamma: float = typer.Option(9.0, "--gamma", help="Amplification gamma > 1."),
    bins: int = typer.Option(20, "--bins", help="N for continuous attributes."),
    seed: int = typer.Option(0, "--seed", help="Seed (the demo is an experiment)."),
) -> None:
    """Perturb, estimate, reconstruct and learn on synthetic Agrawal data; print the figures."""
    from ..demo import format_demo, run_demo
    from ..limits import check_n_records, check_n_values
    from ..matrix import check_gamma

    check_gamma(gamma)
    if n < 100:
        raise ValueError(f"--n must be at least 100 (got {n})")
    if bins < 2:
        raise ValueError(f"--bins (N) must be >= 2 (got {bins})")
    try:
        check_n_values(bins, "--bins")
        check_n_records(n, "--n")
    except ValueError as exc:
        fail(str(exc), usage=True)
    typer.echo(format_demo(run_demo(n, 5_000, gamma=gamma, n_bins=bins, seed=seed)))


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)
