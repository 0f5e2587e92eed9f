"""How the app shows figures (drawn by :mod:`ppdm.figures`) in its pages."""

from __future__ import annotations

__all__ = ["LIBRARY_PLOT_SCALE", "MAX_PANELS", "png_width"]

#: The library's plots (audit, advisor) are shown at this multiple of their size in pixels,
#: in a box that scrolls: their smallest text, 6 pt at 110 dpi (9.2 px), shows at 11 px.
LIBRARY_PLOT_SCALE = 1.2

#: The app's figures show every attribute up to this many.
MAX_PANELS = 60


def png_width(path: str) -> int:
    """The width in pixels of a PNG file (its IHDR chunk)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    return int.from_bytes(head[16:20], "big")
