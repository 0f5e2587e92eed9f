"""The ``ppdm`` command line.

Each command family lives in its own module with a ``register(app)`` function;
this module only assembles them, so importing it stays cheap.
"""

from __future__ import annotations

import typer

from . import _advise, _datasets, _release, _reproduce

app = typer.Typer(
    name="ppdm",
    help="Privacy-preserving data mining by randomized perturbation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

for _module in (_release, _datasets, _reproduce, _advise):
    _module.register(app)


def main() -> None:
    """Entry point of the ``ppdm`` script."""
    from ._common import run_app

    run_app(app)
