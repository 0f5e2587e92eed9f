"""Adapters that run other experiment families under ``ppdm reproduce``.

Each family keeps its own cell function and outputs; these functions give them the
registry's signature ``runner(ctx) -> list[Path]`` and hand them the run's mapper, jobs
and progress (:meth:`RunContext.cell_run`), so their cells go through :func:`ppdm.cells.run_cells` like
every other grid.
"""

from __future__ import annotations

from pathlib import Path

from .registry import RunContext

__all__ = ["attacks", "bn_table2", "bn_privacy_accuracy", "bn_sample_size", "islam_brankovic"]


def attacks(ctx: RunContext) -> list[Path]:
    """Dowd, Xu & Zhang Sec. 3.3: data-recovery attacks, additive noise vs substitution."""
    from .attacks import run

    run(ctx.out, quick=ctx.quick, seed=ctx.seed, cell_run=ctx.cell_run())
    return [ctx.out / "attacks.csv", ctx.out / "attacks.png"]


def _bn(name: str, ctx: RunContext) -> list[Path]:
    """Into ``OUT/bn`` (as ``results/bn``), or ``options["bn_out"]`` (``ppdm bn reproduce``)."""
    from .bayesnet import run

    out = ctx.options.get("bn_out") or ctx.out / "bn"
    return list(run(name, out, seed=ctx.seed, quick=ctx.quick, cell_run=ctx.cell_run()))


def bn_table2(ctx: RunContext) -> list[Path]:
    """Ma & Sivakumar, Table 2."""
    return _bn("bn-table2", ctx)


def bn_privacy_accuracy(ctx: RunContext) -> list[Path]:
    """Ma & Sivakumar, Fig. 4."""
    return _bn("bn-privacy-accuracy", ctx)


def bn_sample_size(ctx: RunContext) -> list[Path]:
    """Ma & Sivakumar, Fig. 5."""
    return _bn("bn-sample-size", ctx)


def islam_brankovic(ctx: RunContext) -> list[Path]:
    """Islam & Brankovic, Sec. 4: class noise and attribute noise on Boston and WBC."""
    from .noise import run

    run(ctx.out / "noise", quick=ctx.quick, seed=ctx.seed, cell_run=ctx.cell_run())
    return sorted((ctx.out / "noise").glob("*"))
