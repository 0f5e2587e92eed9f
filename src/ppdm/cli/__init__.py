"""The ``ppdm`` command line.

Each command family lives in its own module with a ``register(app)`` function;
this module only assembles them, so importing it stays cheap.
"""

from __future__ import annotations

import typer

from . import (  # one command family per module
    _advise,
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
from ._common import EXIT_CODES_HELP, BoundaryGroup

app = typer.Typer(
    name="ppdm",
    help="Privacy-preserving data mining by randomized perturbation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=BoundaryGroup,
    epilog=EXIT_CODES_HELP,
)

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
)

for _module in COMMAND_MODULES:
    _module.register(app)


def main() -> None:
    """Entry point of the ``ppdm`` script."""
    from ._common import run_app

    run_app(app)
