"""The miner's page: open a release, estimate its distributions, download the
reconstructed table, learn a tree."""

from __future__ import annotations

import re
from pathlib import Path

from shiny import module, reactive, render, ui

from ..estimate import METHODS
from ..exceptions import ParameterError
from ..publish import inputs_of_one_operation
from . import _figures
from ._common import TABLE_SUFFIXES, extract_release, message, percent, read_upload
from ._state import READ_ERRORS, USER_ERRORS, State
from ._ui import alert, note

__all__ = ["miner_cards", "miner_server", "miner_sidebar"]

#: Panels of the estimates figure: every attribute up to this many.
MAX_PANELS = 60


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
            ui.card_header("Estimated original distributions (bars: 2 standard errors)"),
            ui.input_action_button("m_estimate", "Estimate", class_="btn-primary"),
            note("m_estimate"),
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
                    "m_test", "Test table (original values)", accept=list(TABLE_SUFFIXES)
                ),
            ),
            ui.div(
                ui.input_action_button("m_train", "Train", class_="btn-primary"),
                ui.input_action_button("m_train_cancel", "Cancel"),
                note("m_train"),
            ),
            ui.output_ui("m_train_status"),
            ui.output_ui("m_train_result"),
        ),
    )


def _estimate_figure(d: Path, method: str, by_class: bool, out: Path) -> int:
    """The estimated distributions with their error bars; the number of attributes."""
    from ..pipeline import estimate_release

    ests = estimate_release(d, method, by_class=by_class)
    panels = []
    for e in ests[:MAX_PANELS]:
        series = (
            {c: (x.counts, x.stderr) for c, x in e.by_class.items()}
            if by_class and e.by_class
            else {"all": (e.overall.counts, e.overall.stderr)}
        )
        panels.append({"name": e.name, "labels": e.labels, "series": series})
    _figures.estimates(panels, out)
    return len(ests)


@module.server
def miner_server(input, output, session, state: State):
    slot = state.slots["training"]
    release = reactive.value(None)
    figure = reactive.value(None)
    notes = {b: reactive.value(None) for b in ("m_estimate", "m_train")}

    def say(button: str, kind: str, text: str) -> None:
        state.miner_msg.set((kind, text))
        notes[button].set((kind, text))

    @render.ui
    def m_estimate_note():
        n = notes["m_estimate"].get()
        return None if n is None else alert(*n)

    def open_release(path: Path) -> None:
        from ..pipeline import load_release

        spec = load_release(path).spec  # validates spec and data file
        release.set(path)
        figure.set(None)
        slot.result.set(None)
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
            say("m_estimate", "error", message(exc))

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
            say("m_estimate", "error", "open a release first")
            return
        method = input.m_method()
        path = state.workspace.fresh("estimates") / "estimates.png"
        try:
            n = _estimate_figure(d, method, bool(input.m_byclass()), path)
        except USER_ERRORS as exc:
            say("m_estimate", "error", message(exc, "estimate"))
            return
        figure.set(str(path))
        drawn = "" if n <= MAX_PANELS else f"; the figure shows the first {MAX_PANELS}"
        say("m_estimate", "ok", f"estimated {n} attributes ({method}){drawn}")

    @render.image
    def m_est_plot():
        p = figure.get()
        return None if p is None else {"src": p, "width": "100%", "alt": "estimates"}

    @render.ui
    def m_download_box():
        from ..pipeline import load_release

        d = release.get()
        if d is None:
            return ui.p("Open a release first.", class_="ppdm-note")
        if load_release(d).spec.method != "substitution":
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

    _mining(input, state, release, say, notes["m_train"])


def _mining(input, state: State, release, say, note) -> None:
    """The mining card: learn a model in the background, show its accuracy."""
    slot = state.slots["training"]
    test = reactive.value(None)
    slot.follow(input.m_train_cancel, lambda err: say("m_train", "error", err))

    @render.ui
    def m_train_note():
        n = note.get()
        return None if n is None else alert(*n)

    @reactive.effect
    @reactive.event(input.m_train)
    def _m_train():
        d = release.get()
        try:
            if d is None:
                raise ParameterError("open a release first")
            if test.get() is None:
                raise ParameterError("upload a test table with the original values and the class")
            slot.start(state.workspace, "train", release=str(d), test=test.get(),
                       learner=input.m_learner())  # fmt: skip
        except USER_ERRORS as exc:
            say("m_train", "error", message(exc, "training"))

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
            say("m_train", "error", message(exc, "test table"))
            return
        test.set(frame)
        state.miner_msg.set(("ok", f"test table {name!r}: {len(frame)} records"))

    @render.ui
    def m_train_status():
        text = slot.status.get()
        return ui.p(text, id="m_train_text") if text else None

    @render.ui
    def m_train_result():
        from ..pipeline import load_release

        res = slot.result.get()
        if res is None:
            return None
        spec = load_release(release.get()).spec
        accuracy = f"Accuracy on the test table: {percent(res['test_accuracy'])}"
        if "majority_rate" in res:
            accuracy += (
                f" (always guessing the most frequent class: {percent(res['majority_rate'])})."
            )
        return ui.TagList(
            ui.p(accuracy, id="m_accuracy"),
            ui.p(f"class: {spec.class_attribute}; learner: {res['learner']}", class_="ppdm-note"),
            ui.pre(res["model"], class_="ppdm-text", id="m_tree"),
        )
