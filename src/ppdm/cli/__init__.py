"""The ``ppdm`` command line, assembled from one ``register(app)`` per command family and
those of the :data:`PLUGIN_GROUP` entry points (the papers' harness, :mod:`ppdm_papers`).
"""

from __future__ import annotations

import typer

from . import (  # one command family per module
    _advise,
    _app,
    _audit,
    _bn,
    _datasets,
    _demo,
    _mine,
    _noise,
    _release,
    _tree,
)
from ._common import EXIT_CODES_HELP, BoundaryGroup, reflow_commands

app = typer.Typer(
    name="ppdm",
    help="Privacy-preserving data mining by randomized perturbation.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=BoundaryGroup,
    epilog=EXIT_CODES_HELP,
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"ppdm {version('ppdm')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False,
        "--version",
        "-V",
        callback=_version,
        is_eager=True,
        help="Print the version and exit.",
    ),
) -> None:
    """Privacy-preserving data mining by randomized perturbation."""


#: Entry-point group of the command families installed beside ppdm; each entry point
#: names a ``register(app)`` function.
PLUGIN_GROUP = "ppdm.commands"

#: Commands of the papers' harness, and the one line that says how to install it.
HARNESS_COMMANDS = (("reproduce",), ("experiments",), ("bn", "reproduce"))
HARNESS_MISSING = (
    "{command} needs the papers' reproduction harness (ppdm_papers), which is not "
    "installed: run pip install -e . in a clone of the ppdm repository"
)


def command_group(app: typer.Typer, name: str) -> typer.Typer:
    """The command group ``name`` of ``app`` (``bn`` for ``ppdm bn ...``)."""
    return next(g.typer_instance for g in app.registered_groups if g.name == name)


def register_plugins(app: typer.Typer) -> None:
    """Add the commands of every :data:`PLUGIN_GROUP` entry point to ``app``, and a stub
    exiting 2 with :data:`HARNESS_MISSING` for each of :data:`HARNESS_COMMANDS` none adds."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=PLUGIN_GROUP):
        try:
            register = entry.load()
        except ImportError:  # the entry point of a distribution whose package is gone
            continue
        register(app)
    for path in HARNESS_COMMANDS:
        group = app
        for name in path[:-1]:
            group = command_group(group, name)
        if not any(c.name == path[-1] for c in group.registered_commands):
            _missing(group, " ".join(("ppdm", *path)))


def _missing(group: typer.Typer, command: str) -> None:
    def missing() -> None:
        from ._common import fail

        fail(HARNESS_MISSING.format(command=command), usage=True)

    settings = {"ignore_unknown_options": True, "allow_extra_args": True}
    group.command(
        command.rsplit(" ", 1)[-1],
        context_settings=settings,
        add_help_option=False,
        help="Not installed: needs the papers' reproduction harness.",
    )(missing)


# the command families, in the order ppdm --help lists them
for _module in (_release, _mine, _demo, _tree, _audit, _advise, _noise, _bn, _datasets, _app):
    _module.register(app)
register_plugins(app)
reflow_commands(app)


def main() -> None:
    """Run the command named by ``sys.argv``; it ends by :class:`SystemExit`."""
    from ..allocator import keep_freed_memory
    from ._common import run_app

    keep_freed_memory()  # batch-sized arrays reuse freed heap instead of new pages
    run_app(app)


def script() -> None:
    """Entry point of ``ppdm`` and ``python -m ppdm``: :func:`main`, then a quick exit."""
    from ..publish import termination_status
    from ..quick_exit import quick_exit

    try:
        main()
        code: object = 0
    except SystemExit as done:
        code = done.code
    # a signal whose exception the code it interrupted swallowed still ends the process
    # as that signal would have
    quick_exit(termination_status() or code)
