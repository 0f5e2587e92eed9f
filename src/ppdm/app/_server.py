"""The app: its two pages, each made of modules that share one session state
(:class:`~ppdm.app._state.State`, made anew for each browser session)."""

from __future__ import annotations

from shiny import ui

from ._advisor import advisor_card, advisor_server
from ._attributes import attributes_card, attributes_server, attributes_sidebar
from ._audit import audit_card, audit_server
from ._data import data_cards, data_server, data_sidebar
from ._miner import miner_cards, miner_server, miner_sidebar
from ._release import release_card, release_server, release_sidebar
from ._state import State
from ._ui import CSS, alert_output

__all__ = ["page", "server"]


def _tab(title: str, value: str, sidebar: list, cards: list) -> ui.NavPanel:
    """One role's tab: its sidebar, a message box ``<p>_msg`` (``p`` = value's initial), cards."""
    box = f"{value[0]}_msg"
    return ui.nav_panel(
        title,
        ui.layout_sidebar(
            ui.sidebar(*sidebar, width=330),
            ui.div(ui.output_ui(box), id=f"{box}_box"),
            *cards,
        ),
        value=value,
    )


def page():
    """The whole page: two tabs, all assets served locally by Shiny."""
    owner = _tab(
        "Owner: make a release",
        "owner",
        [
            data_sidebar("data"),
            ui.hr(),
            attributes_sidebar("attrs"),
            ui.hr(),
            release_sidebar("release"),
        ],  # fmt: skip
        [
            data_cards("data"),
            attributes_card("attrs"),
            advisor_card("advisor"),
            release_card("release"),
            audit_card("audit"),
        ],  # fmt: skip
    )
    miner = _tab("Miner: use a release", "miner", [miner_sidebar("miner")], [miner_cards("miner")])
    return ui.page_navbar(
        owner,
        miner,
        title="ppdm",
        id="tabs",
        header=ui.tags.style(CSS),
        window_title="ppdm: privacy-preserving release",
    )


def server(input, output, session) -> None:
    state = State()
    session.on_ended(state.end)
    data_server("data", state)
    plan = attributes_server("attrs", state)
    advisor_server("advisor", state)
    release_server("release", state, plan)
    audit_server("audit", state)
    miner_server("miner", state)
    alert_output("o_msg", state.owner_msg)
    alert_output("m_msg", state.miner_msg)
