"""The owner's desk: a local web app over ppdm's library (``ppdm app``).

Two pages. The *owner* opens a table, chooses per attribute whether and how to perturb
it, watches the privacy figures move with the controls, runs the Sec. 7 advisor and the
audit, and downloads the release as one zip. The *miner* opens a release, looks at the
estimated distributions with error bars, downloads the reconstructed table and learns a
model chosen and scored from the release alone (a test table is optional). Built on
Shiny for Python (the optional extra ``ppdm[app]``); it listens on 127.0.0.1 only and
loads no asset from the network.

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
