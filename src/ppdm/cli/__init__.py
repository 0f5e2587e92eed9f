"""The ``ppdm`` command line.

Each command family lives in its own module with a ``register(app)`` function;
this module only assembles them, so importing it stays cheap.
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
    _reproduce,
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


COMMAND_MODULES = (
    _release,
    _mine,
    _demo,
    _tree,
    _audit,
    _advise,
    _reproduce,
    _noise,
    _bn,
    _datasets,
    _app,
)

for _module in COMMAND_MODULES:
    _module.register(app)
reflow_commands(app)


def main() -> None:
    """Run the command named by ``sys.argv``; it ends by :class:`SystemExit`."""
    from ..allocator import keep_freed_memory
    from ._common import run_app

    keep_freed_memory()  # batch-sized arrays reuse freed heap instead of new pages
    run_app(app)


def script() -> None:
    """Entry point of the ``ppdm`` script and of ``python -m ppdm``: :func:`main`, then
    the process ends without unloading its modules (:mod:`ppdm.quick_exit`)."""
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
