"""Page layout of the app: the owner's page and the miner's page (no data logic here)."""

from __future__ import annotations

from shiny import ui

from ..estimate import METHODS
from ._common import TABLE_SUFFIXES

__all__ = ["page"]

CSS = """
.ppdm-msg:empty { display: none; }
.ppdm-note { color: #555; font-size: 0.9em; }
pre.ppdm-text { font-size: 0.8em; white-space: pre; overflow-x: auto; max-height: 30em; }
.ppdm-attr-row { display: flex; gap: 1em; align-items: center; border-bottom: 1px solid #eee; }
.ppdm-attr-row .shiny-input-container { margin-bottom: 0.2em; }
.ppdm-attr-name { width: 10em; font-weight: 600; overflow-wrap: anywhere; }
.ppdm-verdict-pass { color: #146c2e; font-weight: 600; }
.ppdm-verdict-fail { color: #b00020; font-weight: 600; }
table.ppdm-table { font-size: 0.85em; }
table.ppdm-table td, table.ppdm-table th { padding: 0.3em 0.4em; overflow-wrap: anywhere; }
.ppdm-table-box, .ppdm-plot-box { max-width: 100%; overflow-x: auto; }
.ppdm-plot-box img { max-width: none; }
.ppdm-note-box:not(:empty) { margin-top: 0.5em; }
"""


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


def _table(output_id: str):
    """A table output in a box of the card's width: it wraps, or scrolls within the box."""
    return ui.div(ui.output_table(output_id, classes="ppdm-table"), class_="ppdm-table-box")


def _note(button_id: str):
    """The line beside a button: what pressing it did (done, busy or the error)."""
    return ui.output_ui(f"{button_id}_note", class_="ppdm-note-box")


def _owner() -> ui.NavPanel:
    sidebar = [
        ui.h5("1. Open your data"),
        ui.input_file("o_file", "Upload a table", accept=list(TABLE_SUFFIXES)),
        ui.input_text("o_path", "or a path on this computer", placeholder="/data/table.csv"),
        ui.input_action_button("o_open_path", "Open path", class_="btn-sm"),
        ui.input_select("o_class", "Class attribute (kept as is)", choices={"": "(none)"}),
        ui.hr(),
        ui.h5("2. Privacy level"),
        ui.input_radio_buttons(
            "o_gmode",
            None,
            {"gamma": "amplification gamma", "rho": "rho1 -> rho2 target"},
            selected="gamma",
        ),
        ui.panel_conditional(
            "input.o_gmode === 'gamma'",
            ui.input_numeric("o_gamma", "gamma", value=9.0, min=1.0001, step=0.5),
        ),
        ui.panel_conditional(
            "input.o_gmode === 'rho'",
            ui.input_numeric("o_rho1", "rho1 (prior)", value=0.1, min=0.001, max=0.999, step=0.01),
            ui.input_numeric(
                "o_rho2", "rho2 (largest posterior)", value=0.5, min=0.001, max=0.999, step=0.01
            ),
        ),
        ui.input_checkbox_group("o_keys", "Key attributes (an intruder may know them)", []),
        ui.hr(),
        ui.input_checkbox("o_experiment", "experiment: fixed seed (never for a real release)"),
        ui.panel_conditional(
            "input.o_experiment", ui.input_numeric("o_seed", "seed", value=0, min=0, step=1)
        ),
    ]
    cards = [
        ui.card(
            ui.card_header("Data"),
            ui.output_ui("o_summary"),
            _table("o_preview"),
            _table("o_kinds"),
        ),
        ui.card(
            ui.card_header("Attributes: perturb or not, N, your bounds"),
            ui.p(
                "Leave the bounds empty to take them from the data: the release then "
                "reveals the minimum and maximum (flagged below).",
                class_="ppdm-note",
            ),
            ui.output_ui("o_attrs"),
            ui.h6("Privacy per attribute (updates as you change the controls)"),
            _table("o_privacy"),
        ),
        _action_card(
            "Advisor: which gamma and N keep the tree accurate?",
            [
                ("o_advise", "Run advisor"),
                ("o_advise_cancel", "Cancel"),
                ("o_advise_apply", "Use the recommendation"),
            ],
            ui.output_ui("o_advise_status"),
            ui.output_image("o_advise_plot", height="auto"),
            controls=ui.layout_columns(
                ui.input_text("o_adv_gammas", "gamma values", "5,9,12"),
                ui.input_text("o_adv_ns", "N values", "5,10,20"),
                ui.input_numeric("o_adv_reps", "repetitions", 1, min=1, step=1),
                ui.input_text("o_adv_target", "target accuracy (optional)", ""),
            ),
        ),
        _action_card(
            "Release",
            [("o_make", "Make the release")],
            ui.output_ui("o_release_info"),
            ui.output_image("o_hist", height="auto"),
        ),
        _action_card(
            "Audit: attack the release with the original at hand",
            [("o_audit", "Run the audit"), ("o_audit_cancel", "Cancel")],
            ui.output_ui("o_audit_status"),
            ui.output_ui("o_audit_verdict"),
            ui.div(ui.output_image("o_audit_plot", height="auto"), class_="ppdm-plot-box"),
        ),
    ]
    return _tab("Owner: make a release", "owner", sidebar, cards)


def _action_card(title: str, buttons: list[tuple[str, str]], *outputs, controls=None):
    """A card: its header, optional controls, a row of action buttons (``(id, label)``;
    the first is the primary action), then its outputs."""
    (first_id, first_label), *rest = buttons
    row = ui.div(
        ui.input_action_button(first_id, first_label, class_="btn-primary"),
        *(ui.input_action_button(i, label) for i, label in rest),
        _note(first_id),
    )
    head = [ui.card_header(title)] + ([controls] if controls is not None else [])
    return ui.card(*head, row, *outputs)


def _miner() -> ui.NavPanel:
    sidebar = [
        ui.h5("1. Open a release"),
        ui.input_file("m_zip", "Upload a release (.zip)", accept=[".zip"]),
        ui.input_text(
            "m_path", "or a release folder on this computer", placeholder="/data/release"
        ),
        ui.input_action_button("m_open", "Open folder", class_="btn-sm"),
        ui.hr(),
        ui.input_select("m_method", "Estimation method", list(METHODS), selected="set-scale"),
        ui.input_checkbox("m_byclass", "by class", value=True),
    ]
    cards = [
        ui.card(ui.card_header("Release"), ui.output_ui("m_info")),
        ui.card(
            ui.card_header("Estimated original distributions (bars: 2 standard errors)"),
            ui.input_action_button("m_estimate", "Estimate", class_="btn-primary"),
            _note("m_estimate"),
            ui.output_image("m_est_plot", height="auto"),
        ),
        ui.card(
            ui.card_header("Reconstructed table (Algorithm 2)"),
            ui.layout_columns(
                ui.input_select(
                    "m_fmt", "format", {"csv": "CSV", "parquet": "Parquet", "arff": "ARFF"}
                ),
                ui.input_checkbox("m_recon_byclass", "by class", value=True),
            ),
            ui.output_ui("m_download_box"),
        ),
        ui.card(
            ui.card_header("Train a decision tree"),
            ui.layout_columns(
                ui.input_select(
                    "m_learner",
                    "learner",
                    {
                        "c45": "C4.5 on the reconstructed table",
                        "release-tree": "tree learnt from the release itself",
                    },
                ),
                ui.input_file(
                    "m_test",
                    "Test table (original values)",
                    accept=list(TABLE_SUFFIXES),
                ),
            ),
            ui.div(
                ui.input_action_button("m_train", "Train", class_="btn-primary"),
                ui.input_action_button("m_train_cancel", "Cancel"),
                _note("m_train"),
            ),
            ui.output_ui("m_train_status"),
            ui.output_ui("m_train_result"),
        ),
    ]
    return _tab("Miner: use a release", "miner", sidebar, cards)


def page():
    """The whole page: two tabs, all assets served locally by Shiny."""
    return ui.page_navbar(
        _owner(),
        _miner(),
        title="ppdm",
        id="tabs",
        header=ui.tags.style(CSS),
        window_title="ppdm: privacy-preserving release",
    )
