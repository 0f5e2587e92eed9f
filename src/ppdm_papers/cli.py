"""``ppdm reproduce NAME``: regenerate a paper's figure or table.

NAME is any experiment in :mod:`ppdm_papers.registry` (``fig2``, ``fig3``,
``table1``, ``fig4`` which also writes Figs. 5 and 6, ``kang``, ``attacks``,
``islam-brankovic``, ``bn-table2``, ...) or ``all``; ``ppdm reproduce --list`` (or
``ppdm experiments``) lists them. The Bayesian-network ones write into ``OUT/bn``;
``ppdm bn reproduce NAME --out DIR`` is the same command writing into ``DIR``.

ppdm finds these commands through the ``ppdm.commands`` entry point naming
:func:`register` (:data:`ppdm.cli.PLUGIN_GROUP`).
"""

from __future__ import annotations

import time
from pathlib import Path

import typer

from ppdm.cli._common import check_flag, fail
from ppdm.cli._options import (
    PROGRESS_OPTION,
    SCHEDULER_OPTION,
    TEXT_ARGUMENT,
    AdviseLearner,
    Engine,
    choice_option,
    flag_option,
    out_option,
    seed_option,
    value_option,
)
from ppdm.validation import check_at_least

#: ``--jobs`` of the reproduction grids.
JOBS_OPTION = value_option(
    1, "--jobs", "N", "Worker processes (results do not depend on it).", short="-j"
)
#: ``--quick`` of the reproductions.
QUICK_OPTION = flag_option("--quick", "Reduced grid, for a run in minutes.")
#: ``--seed`` of the reproductions.
REPRODUCE_SEED_OPTION = seed_option(
    "Master seed; each cell's seed derives from it and the cell.", 0
)


def learner_option(help: str):  # noqa: A002 - typer's keyword
    """``--learner`` of the tree grids: the paper's C4.5 or CART with entropy."""
    return choice_option(AdviseLearner.C45, "--learner", help)


#: The Bayesian-network reproductions, which ``ppdm bn reproduce`` also runs.
BN_REPRODUCTIONS = ("bn-table2", "bn-privacy-accuracy", "bn-sample-size")

#: ``reproduce all`` runs these, in this order.
ALL = (
    "fig3",
    "fig2",
    "kang",
    "table1",
    "fig4",
    "fig4-readings",
    "table1-mdl",
    "beyond",
    "beyond-summary",
    "attacks",
    "islam-brankovic",
    "bn-table2",
    "bn-privacy-accuracy",
    "bn-sample-size",
    "ordinal",
    "claims",
)


def reproduce(
    name: str | None = typer.Argument(
        None,
        click_type=TEXT_ARGUMENT,
        metavar="NAME",
        help="Experiment (see --list), or all.",
        show_default=False,
    ),
    quick: bool = QUICK_OPTION,
    jobs: int = JOBS_OPTION,
    out: Path = out_option("DIR", "Output directory (CSV + PNG).", default=Path("results")),
    seed: int = REPRODUCE_SEED_OPTION,
    learner: AdviseLearner = learner_option(
        "Tree learner of table1/fig4: c45 (the paper's) or cart-entropy."
    ),
    progress: bool = PROGRESS_OPTION,
    engine: Engine = choice_option(Engine.LOCAL, "--engine", "Where the grid cells run."),
    scheduler: str | None = SCHEDULER_OPTION,
    max_minutes: float | None = value_option(
        None,
        "--max-minutes",
        "MINUTES",
        "Stop the fig4 grid after this long, keep finished cells; rerun to resume.",
    ),
    list_: bool = flag_option("--list", "List the experiments and exit."),
) -> None:
    """Regenerate a figure or table of the papers: tidy CSV + PNG in --out, resumable."""
    if list_:
        list_experiments()
        return
    if name is None:
        fail("missing experiment NAME (see ppdm reproduce --list)", usage=True)
    if max_minutes is not None and not 0 < max_minutes < float("inf"):  # also refuses nan
        fail(f"--max-minutes must be a number of minutes > 0 (got {max_minutes})", usage=True)
    run_reproduce(
        name,
        quick=quick,
        jobs=jobs,
        out=out,
        seed=seed,
        learner=AdviseLearner(learner).value,
        progress=progress,
        engine=Engine(engine).value,
        scheduler=scheduler,
        max_minutes=max_minutes,
    )


def run_reproduce(
    name: str,
    *,
    out: Path,
    quick: bool = False,
    jobs: int = 1,
    seed: int = 0,
    learner: str = "c45",
    progress: bool = True,
    engine: str = "local",
    scheduler: str | None = None,
    max_minutes: float | None = None,
    choices: tuple[str, ...] | None = None,
    options: dict | None = None,
) -> None:
    """Run experiment ``name`` (or ``all``) into ``out``: the one code path of reproduce.

    ``choices`` narrows the accepted names (``ppdm bn reproduce`` takes only the
    Bayesian-network ones); a bad value exits with a one-line message. ``options`` are
    added to the family options of :class:`ppdm_papers.registry.RunContext`.
    """
    from ppdm.io import write_json_atomic

    from . import registry
    from .learners import LEARNERS

    check_flag(check_at_least, jobs, "--jobs", 1)
    if learner not in LEARNERS:
        fail(f"--learner must be one of {', '.join(LEARNERS)} (got {learner!r})", usage=True)
    known = registry.names() if choices is None else list(choices)
    if choices is not None and name not in known:
        fail(f"unknown reproduction {name!r}; choose one of {', '.join(known)}", usage=True)
    if name != "all" and name not in known:
        fail(f"unknown experiment {name!r}; choose one of {', '.join([*known, 'all'])}", usage=True)
    names = list(ALL) if name == "all" else [name]
    from ppdm.api import resolve_engine
    from ppdm.cli._common import flag_errors

    with flag_errors({}):  # dask installed, a scheduler only with it
        resolve_engine(engine, False, scheduler)
    mapper = None
    if engine == "dask":
        from ppdm.engine import map_cells

        def mapper(fn, cells):
            return map_cells(fn, cells, engine="dask", jobs=jobs, scheduler=scheduler)

    ctx = registry.RunContext(
        out=out,
        quick=quick,
        jobs=jobs,
        seed=seed,
        mapper=mapper,
        progress=progress,
        options={"learner": learner, "max_minutes": max_minutes, **(options or {})},
    )
    _own_directory(out)
    timings = {}
    from ppdm.cells import shared_pools

    with shared_pools():  # the grids of the run share their worker processes
        for n in names:
            t0 = time.perf_counter()
            paths = registry.get(n)(ctx)
            timings[n] = round(time.perf_counter() - t0, 2)
            typer.echo(f"{n}: {timings[n]:.1f} s")
            for p in paths:
                typer.echo(f"  wrote {p}")
    tag = "quick" if quick else "full"
    stamp = {"command": name, "quick": quick, "jobs": jobs, "seed": seed, "learner": learner}
    write_json_atomic(
        {**stamp, "seconds": timings}, out / "timings" / f"reproduce-{name}-{tag}.json"
    )


def _own_directory(out: Path) -> None:
    """Make ``out`` a directory of reproduce's own, or refuse it.

    Reproduce writes into ``out`` file by file and resumes from what it finds there, so
    it must never be a directory of the user's: an existing non-empty ``out`` must hold
    :data:`~ppdm.publish.OUTPUT_MARKER` (reproduce leaves one in every directory it
    writes), else a ``fig3.png`` of the user's would be replaced, or a ``fig4.csv`` read
    as a result.
    """
    from ppdm.publish import OUTPUT_MARKER, check_output, mark_output

    check_output(out, directory=True, overwrite=True, whole=False)  # a file, the root, an input
    if out.is_dir() and any(out.iterdir()) and not (out / OUTPUT_MARKER).is_file():
        fail(
            f"--out {str(out)!r} holds files ppdm did not write (it has no {OUTPUT_MARKER}); "
            "reproduce writes and resumes only in a directory of its own: name a new one",
            usage=True,
        )
    out.mkdir(parents=True, exist_ok=True)
    if not (out / OUTPUT_MARKER).is_file():
        mark_output(out)


def list_experiments() -> None:
    """List the experiments ppdm reproduce knows."""
    from . import registry

    for n, help_ in registry.describe():
        typer.echo(f"{n:20s} {help_}")


def bn_reproduce(
    name: str = typer.Argument(
        ..., click_type=TEXT_ARGUMENT, metavar="NAME", help=f"One of {', '.join(BN_REPRODUCTIONS)}."
    ),
    out: Path = out_option("DIR", "Output directory (CSV + PNG).", default=Path("results/bn")),
    seed: int = REPRODUCE_SEED_OPTION,
    quick: bool = QUICK_OPTION,
    jobs: int = JOBS_OPTION,
    progress: bool = PROGRESS_OPTION,
) -> None:
    """Reproduce Table 2, Fig. 4 or Fig. 5 of Ma & Sivakumar (= ppdm reproduce NAME)."""
    run_reproduce(
        name,
        out=out,
        quick=quick,
        jobs=jobs,
        seed=seed,
        progress=progress,
        choices=BN_REPRODUCTIONS,
        options={"bn_out": out},
    )


def register(app: typer.Typer) -> None:
    """Add ``reproduce``, ``experiments`` and ``bn reproduce`` to the ``ppdm`` app."""
    app.command("reproduce")(reproduce)
    app.command("experiments")(list_experiments)
    from ppdm.cli import command_group

    command_group(app, "bn").command("reproduce")(bn_reproduce)
