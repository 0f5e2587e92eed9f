"""How the app shows figures (drawn by :mod:`ppdm.figures`) in its pages."""

from __future__ import annotations

__all__ = ["LIBRARY_PLOT_SCALE", "MAX_PANELS", "png_width"]

#: The library's plots (the audit's :func:`ppdm.figures.audit.plot_audit`, the
#: advisor's :func:`ppdm.figures.advice.plot_advice`) are shown at this multiple of their size
#: in pixels, in a box that scrolls: their smallest text, 6 pt at 110 dpi (9.2 px),
#: shows at 11 px. At 80 % of the card's width the audit's showed at 6 px.
LIBRARY_PLOT_SCALE = 1.2

#: The app's figures show every attribute up to this many (the histograms showed the first
#: 9 of wine's 13 without a word).
MAX_PANELS = 60


def png_width(path: str) -> int:
    """The width in pixels of a PNG file (its IHDR chunk)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    return int.from_bytes(head[16:20], "big")
