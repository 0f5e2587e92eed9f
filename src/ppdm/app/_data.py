"""The owner's data: open a table, choose its class and key attributes, see its columns."""

from __future__ import annotations

import warnings

import pandas as pd
from shiny import module, reactive, render, ui

from ..domain import infer_domain
from ..exceptions import PpdmError
from ..perturbation import DEFAULT_MAX_BINS
from ._common import TABLE_SUFFIXES, message, read_path, read_upload
from ._state import READ_ERRORS, State
from ._ui import table

__all__ = ["data_cards", "data_server", "data_sidebar", "inferred_domains"]

#: Columns taken as the class when the table has one of these names (else the last).
CLASS_NAMES = ("class", "group", "label", "y")


@module.ui
def data_sidebar():
    return ui.TagList(
        ui.h5("1. Open your data"),
        ui.input_file("o_file", "Upload a table", accept=list(TABLE_SUFFIXES)),
        ui.input_text("o_path", "or a path on this computer", placeholder="/data/table.csv"),
        ui.input_action_button("o_open_path", "Open path", class_="btn-sm"),
        ui.input_select("o_class", "Class attribute (kept as is)", choices={"": "(none)"}),
        ui.input_checkbox_group("o_keys", "Key attributes (an intruder may know them)", []),
    )


@module.ui
def data_cards():
    return ui.card(
        ui.card_header("Data"),
        ui.output_ui("o_summary"),
        table("o_preview"),
        table("o_kinds"),
    )


def inferred_domains(df: pd.DataFrame | None) -> dict:
    """Per column, the domain the command line infers at its default N, or the error."""
    out = {}
    for c in [] if df is None else df.columns:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out[c] = infer_domain(df[c], column=c, max_bins=DEFAULT_MAX_BINS, warn=False)
        except PpdmError as exc:
            out[c] = exc
    return out


@module.server
def data_server(input, output, session, state: State):
    def load(df: pd.DataFrame, name: str) -> None:
        state.frame.set(df)
        state.data_name.set(name)
        cols = list(df.columns)
        guess = next((c for c in CLASS_NAMES if c in cols), cols[-1])
        ui.update_select("o_class", choices={"": "(none)", **{c: c for c in cols}}, selected=guess)
        ui.update_checkbox_group("o_keys", choices=[c for c in cols if c != guess], selected=[])
        state.owner_msg.set(("ok", f"opened {name!r}: {len(df)} records, {len(cols)} columns"))

    @reactive.effect
    @reactive.event(input.o_file)
    def _upload():
        files = input.o_file()
        if not files:
            return
        try:
            df, name = read_upload(files[0], state.workspace)
        except READ_ERRORS as exc:
            state.frame.set(None)
            state.owner_msg.set(("error", message(exc)))
            return
        load(df, name)

    @reactive.effect
    @reactive.event(input.o_open_path)
    def _open_path():
        try:
            df, name = read_path(input.o_path())
        except READ_ERRORS as exc:
            state.owner_msg.set(("error", message(exc)))
            return
        load(df, name)

    @reactive.effect
    @reactive.event(input.o_class)
    def _class():
        """The class is no key an intruder links on: it is left out of the key choices."""
        cls = input.o_class()
        state.class_column.set(cls)
        df = state.frame.get()
        if df is None:
            return
        with reactive.isolate():
            kept = [k for k in state.keys.get() if k != cls]
        ui.update_checkbox_group(
            "o_keys", choices=[c for c in df.columns if c != cls], selected=kept
        )

    @reactive.effect
    def _keys():
        state.keys.set(tuple(input.o_keys()))

    @render.ui
    def o_summary():
        df = state.frame.get()
        if df is None:
            return ui.p("Open a CSV, Parquet or ARFF table to start.", class_="ppdm-note")
        n = f"{len(df)} records, {df.shape[1]} columns"
        return ui.p(f"{state.data_name.get()}: {n}. First rows:")

    @render.table
    def o_preview():
        df = state.frame.get()
        return None if df is None else df.head(8)

    @render.table
    def o_kinds():
        df = state.frame.get()
        if df is None:
            return None
        rows = []
        for c, d in inferred_domains(df).items():
            if isinstance(d, Exception):
                kind = "cannot perturb: " + message(d)
            elif d.kind == "categorical":
                kind = f"categorical, {d.n_values} values"
            else:
                kind = f"numeric, binned over [{d.low:g}, {d.high:g}]"
            rows.append(
                {
                    "column": c,
                    "type": str(df[c].dtype),
                    "distinct": int(df[c].nunique()),
                    "missing": int(df[c].isna().sum()),
                    "inferred kind": kind,
                }
            )
        return pd.DataFrame(rows)
