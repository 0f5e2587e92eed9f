"""The owner's audit: attack the release with the original at hand, in the background."""

from __future__ import annotations

from shiny import module, reactive, render, ui

from ._common import message, percent
from ._figures import LIBRARY_PLOT_SCALE, png_width
from ._state import USER_ERRORS, State
from ._ui import PageNote, action_card

__all__ = ["audit_card", "audit_server"]


@module.ui
def audit_card():
    return action_card(
        "Audit: attack the release with the original at hand",
        [("o_audit", "Run the audit"), ("o_audit_cancel", "Cancel")],
        ui.output_ui("o_audit_status"),
        ui.output_ui("o_audit_verdict"),
        ui.div(ui.output_image("o_audit_plot", height="auto"), class_="ppdm-plot-box"),
    )


def _verdict(res: dict):
    """The audit's verdict in words, a line per attribute and the full report."""
    from ..attacks.audit import plain_verdict

    rep = res["report"]
    head = ui.p(
        plain_verdict(rep),
        class_="ppdm-verdict-pass" if rep["passed"] else "ppdm-verdict-fail",
        id="o_verdict",
    )
    items = []
    for a in rep["attributes"]:
        best = a["attacks"][a["best_attack"]]
        items.append(
            ui.tags.li(
                f"{a['name']}: the best attack ({a['best_attack']}) recovers "
                f"{percent(best['recovered'])} of the values; guessing from the "
                f"distribution alone gets {percent(a['prior_only'])}; the policy allows "
                f"{percent(best['bound'])}."
            )
        )
    items += [ui.tags.li(v) for v in rep["violations"]]
    link = rep.get("linkage")
    if link:
        items.append(
            ui.tags.li(
                f"keys {', '.join(link['keys'])}: k = {link['released']['k']}; "
                f"{percent(link['linkage']['reidentified_share'])} of records "
                "re-identified by exact matching"
            )
        )
    return ui.TagList(
        head,
        ui.tags.ul(*items),
        ui.tags.details(ui.tags.summary("full audit"), ui.pre(res["text"], class_="ppdm-text")),
    )


@module.server
def audit_server(input, output, session, state: State):
    slot = state.slots["audit"]
    note = PageNote(state.owner_msg, "o_audit", clear_on=state.frame)
    say = note.say
    slot.follow(input.o_audit_cancel, note, reset_on=state.frame)

    @reactive.effect
    @reactive.event(input.o_audit)
    def _audit():
        d = state.release_dir.get()
        if d is None:
            say("error", "make the release first: the audit attacks it")
            return
        try:
            slot.start(state.workspace, "audit", release=str(d), original=state.frame.get(),
                       keys=list(state.keys.get()))  # fmt: skip
        except USER_ERRORS as exc:
            say("error", message(exc, "audit"))
            return
        note.clear()  # its status line below the button takes over

    @render.ui
    def o_audit_status():
        text = slot.status.get()
        return ui.p(text, id="o_audit_text") if text else None

    @render.ui
    def o_audit_verdict():
        res = slot.result.get()
        return None if res is None else _verdict(res)

    @render.image
    def o_audit_plot():
        res = slot.result.get()
        if res is None:
            return None
        # shown larger than drawn: the smallest text is 11 px, the box scrolls if need be
        width = round(LIBRARY_PLOT_SCALE * png_width(res["plot"]))
        return {"src": res["plot"], "width": f"{width}px", "alt": "audit plot"}
