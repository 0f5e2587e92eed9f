"""Layout pieces shared by the app's pages: its style sheet, tables, notes, cards."""

from __future__ import annotations

from shiny import reactive, render, ui

__all__ = ["CSS", "PageNote", "action_card", "alert", "alert_output", "note", "table"]

CSS = """
.ppdm-msg:empty { display: none; }
.ppdm-note { color: #555; font-size: 0.9em; }
pre.ppdm-text { font-size: 0.8em; white-space: pre; overflow-x: auto; max-height: 30em; }
.ppdm-attr-row { display: flex; flex-wrap: wrap; gap: 0 1em; align-items: center;
  border-bottom: 1px solid #eee; }
.ppdm-attr-row .shiny-input-container { margin-bottom: 0.2em; width: auto; }
.ppdm-attr-name { width: 10em; font-weight: 600; overflow-wrap: anywhere; }
.ppdm-verdict-pass { color: #146c2e; font-weight: 600; }
.ppdm-verdict-fail { color: #b00020; font-weight: 600; }
table.ppdm-table { font-size: 0.85em; }
table.ppdm-table th { text-align: left; }
table.ppdm-table td, table.ppdm-table th { padding: 0.3em 0.4em; overflow-wrap: anywhere; }
.ppdm-table-box, .ppdm-plot-box { max-width: 100%; overflow-x: auto; }
.ppdm-plot-box img { max-width: none; }
.ppdm-note-box:not(:empty) { margin-top: 0.5em; }
.ppdm-figures { display: flex; flex-wrap: wrap; gap: 0.5em; }
img.ppdm-figure { max-width: 100%; height: auto; }
ul.ppdm-lines { font-size: 0.9em; padding-left: 1.2em; overflow-wrap: anywhere; }
"""


def alert(kind: str, text: str):
    """A one-line message box: ``kind`` is "error", "ok" or "info"."""
    cls = {"error": "alert-danger", "ok": "alert-success", "info": "alert-info"}[kind]
    return ui.div(text, class_=f"alert {cls} py-2 ppdm-msg", role="alert")


def alert_output(output_id: str, value) -> None:
    """Render the reactive ``(kind, text)`` or None as an :func:`alert` into ``output_id``."""

    def shown():
        m = value.get()
        return None if m is None else alert(*m)

    shown.__name__ = output_id  # a renderer's output is named after its function
    render.ui(shown)


class PageNote:
    """The note beside a button (:func:`note`), echoed in the page's message line ``page_msg``;
    cleared whenever ``clear_on`` changes.
    """

    def __init__(self, page_msg, button_id: str, clear_on=None) -> None:
        self._page_msg = page_msg
        self._value = reactive.value(None)
        alert_output(f"{button_id}_note", self._value)
        if clear_on is not None:

            @reactive.effect
            @reactive.event(clear_on)
            def _clear():
                self.clear()

    def say(self, kind: str, text: str) -> None:
        self._page_msg.set((kind, text))
        self._value.set((kind, text))

    def clear(self) -> None:
        self._value.set(None)


def table(output_id: str):
    """A table output in a box of the card's width: it wraps, or scrolls within the box."""
    return ui.div(ui.output_table(output_id, classes="ppdm-table"), class_="ppdm-table-box")


def note(button_id: str):
    """The line beside a button: what pressing it did (done, busy or the error)."""
    return ui.output_ui(f"{button_id}_note", class_="ppdm-note-box")


def action_card(title: str, buttons: list[tuple[str, str]], *outputs, controls=None):
    """A card: header, optional controls, action buttons (the first primary), outputs."""
    (first_id, first_label), *rest = buttons
    row = ui.div(
        ui.input_action_button(first_id, first_label, class_="btn-primary"),
        *(ui.input_action_button(i, label) for i, label in rest),
        note(first_id),
    )
    head = [ui.card_header(title)] + ([controls] if controls is not None else [])
    return ui.card(*head, row, *outputs)
