"""``ppdm app``: the owner's desk, a local web app (needs the ``app`` extra)."""

from __future__ import annotations

import importlib.util

import typer

from ._common import fail


def app_command(
    port: int = typer.Option(
        8765, "--port", metavar="PORT", help="Port on 127.0.0.1 (the app listens nowhere else)."
    ),
    browser: bool = typer.Option(
        True, "--browser/--no-browser", help="Open the page in the default browser."
    ),
) -> None:
    """Start the web app for data owners and miners on http://127.0.0.1:PORT."""
    if not 1 <= port <= 65535:
        fail(f"--port must be in 1..65535 (got {port})", usage=True)
    for module in ("shiny", "uvicorn"):
        if importlib.util.find_spec(module) is None:
            fail(f"the app needs the 'app' extra ({module} is missing): pip install 'ppdm[app]'")
    from ..app import HOST, serve

    typer.echo(f"ppdm app on http://{HOST}:{port} (Ctrl-C to stop)")
    serve(port, launch_browser=browser)


def register(app: typer.Typer) -> None:
    app.command("app")(app_command)
