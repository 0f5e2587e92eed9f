"""The owner's release: make it, see its privacy report and key risk, download or save it."""

from __future__ import annotations

import io
import json
import warnings
import zipfile
from pathlib import Path

import numpy as np
from shiny import module, reactive, render, ui

from ..exceptions import OutputError, SpecError
from ..figures.histograms import histograms
from ..matrix import GammaDiagonal
from ..publish import inputs_of_one_operation, publish_copy
from ..release import AttributeSpec, ReleaseSpec
from . import _figures
from ._attributes import Plan
from ._common import message, page_text, percent, whole_number
from ._state import USER_ERRORS, State
from ._ui import PageNote, action_card

__all__ = ["release_card", "release_server", "release_sidebar"]


@module.ui
def release_sidebar():
    return ui.TagList(
        ui.input_checkbox("o_experiment", "experiment: fixed seed (never for a real release)"),
        ui.panel_conditional(
            "input.o_experiment", ui.input_numeric("o_seed", "seed", value=0, min=0, step=1)
        ),
    )


@module.ui
def release_card():
    return action_card(
        "Release",
        [("o_make", "Make the release")],
        ui.output_ui("o_release_info"),
        ui.output_image("o_hist", height="auto"),
    )


def user_spec(columns, items: list[dict], cls: str | None, copies: int = 1) -> ReleaseSpec:
    """The release spec of the owner's choices (a matrix only for a gamma of its own)."""
    by_name = {x["name"]: x for x in items}
    attrs = []
    for c in columns:
        item = by_name.get(c)
        if c == cls or not item["perturbed"]:
            attrs.append(AttributeSpec(name=c, perturbed=False))
        elif "error" in item:
            raise SpecError(item["error"])
        else:
            d, g = item["domain"], item["gamma"]
            matrix = None if g is None else GammaDiagonal(d.n_values, g).to_spec()
            attrs.append(AttributeSpec(name=c, domain=d.to_spec(), matrix=matrix))
    if not any(a.perturbed for a in attrs):
        raise SpecError("no attribute is marked 'perturb': nothing to protect")
    return ReleaseSpec(class_attribute=cls or None, attributes=attrs, copies=copies)


def _make(df, out: Path, plan: dict, spec: ReleaseSpec, seed, keys) -> tuple:
    """Write the release; its warnings and weak spots in the page's words, its key risk."""
    from ..attacks.linkage import linkage_report
    from ..pipeline import load_release, make_release
    from ..report import privacy_report, weakly_protected

    with warnings.catch_warnings(record=True) as caught, inputs_of_one_operation():
        warnings.simplefilter("always")
        make_release(df, out, spec=spec, random_state=seed, **plan)
    notes = sorted({page_text(str(w.message)) for w in caught})
    rel = load_release(out)
    # the command line's note on weak protection, on the page too
    notes += [f"weakly protected: {line}" for line in weakly_protected(privacy_report(rel.spec))]
    risk = None
    if keys and rel.spec.copies > 1:
        notes.append(
            "the key attributes' linkage risk is not measured for a release of several copies: "
            "an intruder who holds every copy of a record does better than one copy shows"
        )
    elif keys:
        risk = linkage_report(df, rel.frame(), list(keys), rel.spec)
    return rel, notes, risk


def _key_risk(risk: dict) -> list:
    rel, orig, link = risk["released"], risk["original"], risk["linkage"]
    return [
        ui.h6(f"Key attributes: {', '.join(risk['keys'])}"),
        ui.p(
            f"k-anonymity of the release: k = {rel['k']} ({rel['sample_uniques']} "
            f"records are alone in their key combination; before perturbation k = "
            f"{orig['k']} with {orig['sample_uniques']} alone).",
            id="o_kanon",
        ),
        ui.p(
            f"Linkage attack: an intruder holding the original keys re-identifies "
            f"{link['reidentified']} of {link['n_records']} records "
            f"({percent(link['reidentified_share'])}) by exact matching; "
            f"{link['false_matches']} of the unique matches point at the wrong record.",
            id="o_linkage",
        ),
    ]


@module.server
def release_server(input, output, session, state: State, plan: Plan):
    notes = reactive.value([])
    key_risk = reactive.value(None)
    say = PageNote(state.owner_msg, "o_make", clear_on=state.frame).say

    @reactive.effect
    @reactive.event(state.frame)
    def _new_table():
        state.release_dir.set(None)
        key_risk.set(None)

    @reactive.effect
    @reactive.event(input.o_make)
    def _make_release():
        df = state.frame.get()
        if df is None:
            say("error", "open a table first")
            return
        try:
            cls = state.class_column.get() or None
            options = {"class_attribute": cls, "gamma": plan.gamma(),
                       "epsilon_record": plan.budget(), "copies": plan.copies()}  # fmt: skip
            spec = user_spec(df.columns, plan.items(), cls, plan.copies())
            seed = whole_number(input.o_seed(), "seed", 0) if input.o_experiment() else None
            out = state.workspace.fresh("release") / "release"
            rel, found, risk = _make(df, out, options, spec, seed, state.keys.get())
        except USER_ERRORS as exc:
            say("error", message(exc, "release"))
            return
        state.release_dir.set(out)
        notes.set(found)
        key_risk.set(risk)
        state.slots["audit"].result.set(None)
        say("ok", f"release made: {rel.spec.n_records} records; download it below")

    @render.ui
    def o_release_info():
        d = state.release_dir.get()
        if d is None:
            return ui.p("Nothing is written until you press the button.", class_="ppdm-note")
        report = (d / "privacy.txt").read_text(encoding="utf-8")
        parts = [
            ui.download_button("o_download", "Download the release (zip)", class_="btn-success"),
            ui.layout_columns(
                ui.input_text("o_save_dir", None, placeholder="or save into a new folder: /path"),
                ui.input_action_button("o_save", "Save to folder", class_="btn-sm"),
            ),
            ui.h6("Privacy report"),
            ui.pre(report, class_="ppdm-text", id="o_report"),
        ]
        risk = key_risk.get()
        if risk is not None:
            parts += _key_risk(risk)
        found = notes.get()
        if found:
            parts += [ui.h6("Warnings"), ui.tags.ul(*[ui.tags.li(n) for n in found])]
        return ui.TagList(*parts)

    @reactive.effect
    @reactive.event(input.o_save)
    def _save():
        d = state.release_dir.get()
        if d is None:
            return
        text = str(input.o_save_dir()).strip()
        target = Path(text).expanduser()
        try:
            if not text:
                raise OutputError("type the folder to save the release into")
            if target.exists() and any(target.iterdir()):
                raise OutputError(
                    f"folder {str(target)!r} exists and is not empty: choose a new one"
                )
            publish_copy(d, target, flag="folder")
        except USER_ERRORS as exc:
            state.owner_msg.set(("error", message(exc, "save")))
            return
        state.owner_msg.set(("ok", f"release saved in {str(target)!r}"))

    @render.download_button(filename="release.zip", media_type="application/zip")
    def o_download():
        yield _zip_bytes(state.release_dir.get(), state.slots["audit"].result.get())

    @render.image
    def o_hist():
        d, df = state.release_dir.get(), state.frame.get()
        if d is None or df is None:
            return None
        path = _histograms(d, df)
        return {"src": str(path), "width": "100%", "alt": "before and after histograms"}


def _zip_bytes(d: Path, audit: dict | None) -> bytes:
    """The release folder as a zip, with the audit's report when one was run."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(d.iterdir()):
            zf.write(f, f"release/{f.name}")
        if audit is not None:
            zf.writestr("release/audit.txt", audit["text"])
            zf.writestr("release/audit.json", json.dumps(audit["report"], indent=2))
    return buf.getvalue()


def _histograms(d: Path, df) -> Path:
    """Original against released counts of every perturbed attribute."""
    from ..pipeline import load_release

    rel = load_release(d)
    released = rel.frame()
    panels = []
    for a in rel.spec.perturbed_attributes()[: _figures.MAX_PANELS]:
        dom = a.get_domain()
        n = dom.n_values
        panels.append(
            {
                "name": f"{a.name}: original vs released",
                "labels": dom.labels(),
                "original": np.bincount(dom.encode(df[a.name], column=a.name), minlength=n),
                "released": np.bincount(dom.encode(released[a.name], column=a.name), minlength=n),
            }
        )
    return histograms(panels, d.parent / "histograms.png")
