"""The owner's desk: a local web app over ppdm's library (``ppdm app``).

An owner's page (perturb, advise, audit, download the release) and a miner's page
(estimate, reconstruct, learn); docs/app.md describes both. Shiny for Python (the
``app`` extra), on 127.0.0.1 only, loading no asset from the network.

References
----------
Dowd, Xu & Zhang, Sec. 3-7; Templ, Kowarik & Meindl (2015), sdcMicro and sdcApp.
"""

from __future__ import annotations

__all__ = ["HOST", "create_app", "serve"]

#: The app never listens beyond this machine.
HOST = "127.0.0.1"


def create_app():
    """The Shiny application object (needs the ``app`` extra)."""
    from shiny import App

    from ._server import page, server

    return App(page(), server)


def serve(port: int = 8765, *, launch_browser: bool = False, log_level: str = "warning") -> None:
    """Serve the app on ``http://127.0.0.1:port`` until interrupted."""
    import uvicorn

    app = create_app()
    if launch_browser:
        import threading
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(f"http://{HOST}:{port}",)).start()
    uvicorn.run(app, host=HOST, port=port, log_level=log_level)
