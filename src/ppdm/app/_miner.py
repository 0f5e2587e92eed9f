"""The miner's page: open a release, estimate its distributions, download the
reconstructed table, learn a tree."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pandas as pd
from shiny import module, reactive, render, ui

from ..estimate import METHODS
from ..exceptions import ParameterError
from ..figures import se_label
from ..mechanism import mechanism_of
from ..publish import inputs_of_one_operation
from ..selection import estimate_note, score_note
from ._common import TABLE_SUFFIXES, extract_release, message, percent, read_upload
from ._figures import MAX_PANELS
from ._state import READ_ERRORS, USER_ERRORS, State
from ._ui import PageNote, note

__all__ = ["miner_cards", "miner_server", "miner_sidebar"]

#: The learner of the mining card: chosen from the release, or one forced.
LEARNER_CHOICES = {
    "": "chosen from the release",
    "release-tree": "release tree",
    "release-forest": "release forest",
}


@module.ui
def miner_sidebar():
    return ui.TagList(
        ui.h5("1. Open a release"),
        ui.input_file("m_zip", "Upload a release (.zip)", accept=[".zip"]),
        ui.input_text(
            "m_path", "or a release folder on this computer", placeholder="/data/release"
        ),
        ui.input_action_button("m_open", "Open folder", class_="btn-sm"),
        ui.hr(),
        ui.input_select("m_method", "Estimation method", list(METHODS), selected="set-scale"),
        ui.input_checkbox("m_byclass", "by class", value=True),
    )


@module.ui
def miner_cards():
    return ui.TagList(
        ui.card(ui.card_header("Release"), ui.output_ui("m_info")),
        ui.card(
            ui.card_header(f"Estimated original distributions (bars: {se_label()})"),
            ui.input_action_button("m_estimate", "Estimate", class_="btn-primary"),
            note("m_estimate"),
            ui.output_ui("m_est_plot"),
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
            ui.card_header("Learn a model: chosen and scored from the release alone"),
            ui.p(
                "The learner is chosen by cross-validation on the release (the simplest "
                "within one standard error of the best) and its accuracy on the original "
                "data estimated from released records it never saw. A test table of "
                "original records is optional: it adds the accuracy measured on it.",
                class_="ppdm-note",
            ),
            ui.layout_columns(
                ui.input_select("m_learner", "learner", LEARNER_CHOICES),
                ui.input_file(
                    "m_test", "Test table (optional, original values)", accept=list(TABLE_SUFFIXES)
                ),
            ),
            ui.div(
                ui.input_action_button("m_mine", "Learn", class_="btn-primary"),
                ui.input_action_button("m_mine_cancel", "Cancel"),
                note("m_mine"),
            ),
            ui.output_ui("m_mine_status"),
            ui.output_ui("m_mine_result"),
        ),
    )


def _image(path: Path, alt: str):
    """A PNG of the session inline (the page loads nothing from elsewhere)."""
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return ui.img(src=f"data:image/png;base64,{data}", alt=alt, class_="ppdm-figure")


@module.server
def miner_server(input, output, session, state: State):
    release = reactive.value(None)
    figure = reactive.value(None)
    say = PageNote(state.miner_msg, "m_estimate").say

    def open_release(path: Path) -> None:
        from ..pipeline import load_release

        spec = load_release(path).spec  # validates spec and data file
        release.set(path)
        figure.set(None)
        # by-class work needs an unperturbed class: the boxes say what this release allows
        by_class = spec.class_attribute is not None and not spec.class_perturbed
        ui.update_checkbox("m_byclass", value=by_class)
        ui.update_checkbox("m_recon_byclass", value=by_class)
        why = "" if by_class else " (no unperturbed class: 'by class' is unticked)"
        state.miner_msg.set(("ok", f"opened the release in {path.name!r}{why}"))

    @reactive.effect
    @reactive.event(input.m_zip)
    def _m_zip():
        files = input.m_zip()
        if not files:
            return
        try:
            open_release(extract_release(files[0], state.workspace))
        except USER_ERRORS as exc:
            # the owner's zip by its name, not the server's unpacked copy
            name = Path(files[0]["name"]).name
            inside = re.escape(str(state.workspace.path)) + r"/release-in-[^/']*/"
            state.miner_msg.set(("error", re.sub(inside, f"{name}:", message(exc))))

    @reactive.effect
    @reactive.event(input.m_open)
    def _m_open():
        try:
            text = str(input.m_path()).strip()
            if not text:
                raise ParameterError("type the folder of a release (it holds spec.json)")
            open_release(Path(text).expanduser())
        except USER_ERRORS as exc:
            say("error", message(exc))

    @render.ui
    def m_info():
        from ..pipeline import load_release
        from ..report import format_privacy_report, privacy_report

        d = release.get()
        if d is None:
            return ui.p(
                "Open a release (the zip an owner gave you, or its folder).", class_="ppdm-note"
            )
        spec = load_release(d).spec
        text = format_privacy_report(privacy_report(spec))
        return ui.pre(text, class_="ppdm-text", id="m_report")

    @reactive.effect
    @reactive.event(input.m_estimate)
    def _m_estimate():
        d = release.get()
        if d is None:
            say("error", "open a release first")
            return
        from ..figures.estimates import write_estimate_plots
        from ..pipeline import estimate_release

        method = input.m_method()
        out = state.workspace.fresh("estimates")
        try:  # the figures of the first MAX_PANELS attributes
            ests = estimate_release(d, method, by_class=bool(input.m_byclass()))
            figure.set(write_estimate_plots(ests[:MAX_PANELS], out))
        except USER_ERRORS as exc:
            say("error", message(exc, "estimate"))
            return
        drawn = "" if len(ests) <= MAX_PANELS else f"; the figures show the first {MAX_PANELS}"
        say("ok", f"estimated {len(ests)} attributes ({method}){drawn}")

    @render.ui
    def m_est_plot():
        paths = figure.get()
        if paths is None:
            return None
        return ui.div(*[_image(p, f"estimated distribution of {p.stem}") for p in paths],
                      class_="ppdm-figures")  # fmt: skip

    @render.ui
    def m_download_box():
        from ..pipeline import load_release

        d = release.get()
        if d is None:
            return ui.p("Open a release first.", class_="ppdm-note")
        if not mechanism_of(load_release(d).spec).has("reconstruct"):
            return ui.p(
                "An additive-noise release is already numeric: there is nothing to "
                "reconstruct (its estimated distributions are above).",
                class_="ppdm-note",
            )
        return ui.download_button("m_download", "Download the reconstructed table")

    def recon_name() -> str:
        return f"reconstructed.{input.m_fmt()}"

    @render.download_button(filename=recon_name)
    def m_download():
        from ..pipeline import reconstruct_release

        out = state.workspace.fresh("reconstructed") / recon_name()
        with inputs_of_one_operation():  # another tab's inputs are not this one's
            reconstruct_release(release.get(), out, by_class=bool(input.m_recon_byclass()))
        yield out.read_bytes()

    _mining(input, state, release)


def _mining(input, state: State, release) -> None:
    """The mining card: :func:`ppdm.selection.mine` in the background, beside the baselines."""
    slot = state.slots["mining"]
    test = reactive.value(None)
    note = PageNote(state.miner_msg, "m_mine")
    say = note.say
    slot.follow(input.m_mine_cancel, note, reset_on=release)

    @reactive.effect
    @reactive.event(input.m_mine)
    def _m_mine():
        d = release.get()
        try:
            if d is None:
                raise ParameterError("open a release first")
            slot.start(state.workspace, "mine", release=str(d), test=test.get(),
                       learner=input.m_learner() or None)  # fmt: skip
        except USER_ERRORS as exc:
            say("error", message(exc, "mining"))

    @reactive.effect
    @reactive.event(input.m_test)
    def _m_test():
        files = input.m_test()
        if not files:
            return
        try:
            frame, name = read_upload(files[0], state.workspace)
        except READ_ERRORS as exc:
            test.set(None)
            say("error", message(exc, "test table"))
            return
        test.set(frame)
        state.miner_msg.set(("ok", f"test table {name!r}: {len(frame)} records"))

    @render.ui
    def m_mine_status():
        text = slot.status.get()
        return ui.p(text, id="m_mine_text") if text else None

    @render.ui
    def m_mine_result():
        res = slot.result.get()
        return None if res is None else _mined(res)


def _candidates(res: dict) -> pd.DataFrame:
    """The candidates' cross-validated estimates, as the command line lists them."""
    rows = []
    for c in res["candidates"]:
        if c["scorable"]:
            note = score_note(c["estimate"], c["stderr"], percent=True)
            shown = f"{percent(c['estimate'])} ± {100 * c['stderr']:.1f}{note}"
        else:
            shown = f"not scorable: {c['reason']}"
        chosen = " (chosen)" if c["learner"] == res["learner"] else ""
        leaves = "" if c.get("leaves") is None else f"{c['leaves']:.1f}"
        rows.append(
            {
                "learner": c["learner"] + chosen,
                f"{res['folds']}-fold estimate ± s.e.": shown,
                "leaves (mean of the folds' models)": leaves,
            }
        )
    return pd.DataFrame(rows)


def _mined(res: dict):
    """The chosen learner and its accuracy beside the baselines, the candidates, the model."""
    parts = []
    if res["estimate"] is not None:
        parts += [
            ui.p(
                f"Estimated accuracy on the original data: {percent(res['estimate'])} ± "
                f"{100 * res['stderr']:.1f} points (one standard error; {res['n_holdout']} "
                f"held-out released records"
                + (f", {res['copies']} copies each" if res.get("copies", 1) > 1 else "")
                + f"). Learner: {res['learner']}."
                + (f" Note: {n}." if (n := estimate_note(res["estimate"], res["stderr"])) else "")
                + (f" Note: {res['note']}." if res.get("note") else ""),
                id="m_estimated",
            ),
            ui.p(
                f"Majority-class rate: {percent(res['majority_rate'])} (always predicting "
                f"{res['majority_class']!r}, the release's commonest class).",
                id="m_majority",
            ),
        ]
    else:
        parts.append(ui.p(f"Learner: {res['learner']}.", id="m_estimated"))
    if res.get("measured_accuracy") is not None:
        parts.append(
            ui.p(
                f"Measured on the test table ({res['n_test']} records): "
                f"{percent(res['measured_accuracy'])} (always guessing its most frequent "
                f"class: {percent(res['test_majority_rate'])}).",
                id="m_accuracy",
            )
        )
    if res["folds"]:
        parts += [
            ui.h6(
                "Candidates (one-standard-error rule: the fewest leaves within one standard "
                "error of the best, each score read as the accuracy in [0, 1] it allows, "
                "shown where that differs)"
            ),
            ui.div(
                ui.HTML(
                    _candidates(res).to_html(
                        index=False, classes="table table-sm ppdm-table", border=0
                    )
                ),
                class_="ppdm-table-box",
                id="m_candidates",
            ),
        ]
    parts.append(
        ui.tags.details(
            ui.tags.summary("the model"), ui.pre(res["model"], class_="ppdm-text", id="m_tree")
        )
    )
    return ui.TagList(*parts)
