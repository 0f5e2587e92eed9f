"""The owner's attributes: perturb or not, N, bounds, gamma, and the live privacy figures."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import pandas as pd
from shiny import module, reactive, render, ui
from shiny.types import SilentException

from ..domain import infer_domain, looks_like_identifier
from ..exceptions import ParameterError, PpdmError
from ..limits import check_copies, check_n_values
from ..matrix import GammaDiagonal
from ..options import PlanOptions
from ..perturbation import DEFAULT_MAX_BINS, planned_gammas
from ..privacy import attribute_privacy, gamma_from_rho, record_privacy
from ..validation import check_gamma, check_positive
from ._common import message, parse_bounds, plain, whole_number
from ._data import inferred_domains
from ._state import State
from ._ui import alert, table

__all__ = ["Plan", "attributes_card", "attributes_server", "attributes_sidebar"]


@module.ui
def attributes_sidebar():
    return ui.TagList(
        ui.h5("2. Privacy level"),
        ui.input_radio_buttons(
            "o_gmode",
            None,
            {
                "gamma": "amplification gamma",
                "rho": "rho1 -> rho2 target",
                "budget": "split a per-record budget",
            },
            selected="gamma",
        ),
        ui.panel_conditional(
            "input.o_gmode === 'gamma'",
            ui.input_numeric("o_gamma", "gamma (same for all)", value=9.0, min=1.0001, step=0.5),
        ),
        ui.panel_conditional(
            "input.o_gmode === 'rho'",
            ui.input_numeric("o_rho1", "rho1 (prior)", value=0.1, min=0.001, max=0.999, step=0.01),
            ui.input_numeric(
                "o_rho2", "rho2 (largest posterior)", value=0.5, min=0.001, max=0.999, step=0.01
            ),
        ),
        ui.input_text(
            "o_budget",
            "epsilon per record (budget)",
            "",
            placeholder="none: no limit",
        ),
        ui.input_numeric("o_copies", "copies per record (Kang)", value=1, min=1, step=1),
        ui.p(
            "A record's epsilon is the sum of copies x ln gamma over its perturbed attributes. "
            "With a budget, a plan over it is refused; 'split' shares it equally among the "
            "attributes without a gamma of their own. Each copy is an independent perturbation "
            "of every record: gamma compounds to gamma^copies.",
            class_="ppdm-note",
        ),
    )


@module.ui
def attributes_card():
    return ui.card(
        ui.card_header("Attributes: perturb or not, gamma, N, your bounds"),
        ui.p(
            "Leave gamma empty for the privacy level of the sidebar (the same for all). "
            "Leave the bounds empty to take them from the data: the release then "
            "reveals the minimum and maximum (flagged below).",
            class_="ppdm-note",
        ),
        ui.output_ui("o_attrs"),
        ui.h6("Privacy per attribute (updates as you change the controls)"),
        table("o_privacy"),
        ui.h6("Privacy per record"),
        ui.output_ui("o_per_record"),
    )


def _number(x) -> str:
    """A number as the page prints it: a whole number without ``.0`` (67, not 67.0)."""
    x = plain(x)
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _fmt(x, spec=".4g") -> str:
    return "inf" if x is None else format(x, spec)


@dataclass
class Plan:
    """The attribute page's reactive results, for the release and the advisor."""

    gamma: reactive.Calc_  # the sidebar's gamma (None: a budget is split)
    budget: reactive.Calc_  # the per-record budget E, or None
    items: reactive.Calc_  # per attribute: perturbed, own gamma, domain or error
    gammas: reactive.Calc_  # per perturbed attribute: its gamma as the release plans it
    copies: reactive.Calc_  # independent perturbed copies per record (Kang)


def _numeric(df: pd.DataFrame, column: str, domain) -> bool:
    """A numeric column that is not categorical: it has an N and bounds to choose."""
    kind = getattr(domain, "kind", "")
    return pd.api.types.is_numeric_dtype(df[column]) and kind != "categorical"


def _attribute_row(df, i: int, c: str, domain, kept: dict):
    """The controls of column ``c`` (index ``i``): perturb, N and bounds, or its values."""
    controls = [
        ui.div(c, class_="ppdm-attr-name"),
        ui.input_checkbox(f"perturb_{i}", "perturb", value=bool(kept.get("perturb", True))),
        ui.input_text(
            f"gamma_{i}", "gamma", kept.get("gamma") or "", placeholder="same", width="6em"
        ),
    ]
    if _numeric(df, c, domain):
        lo, hi = _number(df[c].min()), _number(df[c].max())
        controls += [
            ui.input_numeric(
                f"n_{i}", "N", value=kept.get("n", DEFAULT_MAX_BINS), min=2, step=1, width="7em"
            ),
            ui.input_text(
                f"bounds_{i}",
                "your bounds low:high",
                kept.get("bounds") or "",
                placeholder=f"data: {lo}:{hi}",
                width="14em",
            ),
        ]
    else:
        distinct = int(df[c].nunique())
        controls.append(ui.span(f"N = {distinct}", id=f"n_text_{i}", class_="ppdm-n"))
        note = f"categorical: {distinct} values"
        if looks_like_identifier(distinct, len(df)):
            note += ": looks like an identifier, remove it from the table before releasing"
        controls.append(ui.span(note, class_="ppdm-note"))
    return ui.div(*controls, class_="ppdm-attr-row")


@module.server
def attributes_server(input, output, session, state: State) -> Plan:
    def val(key: str, default):
        try:
            return input[key]()
        except SilentException:
            return default

    @reactive.calc
    def columns() -> list[tuple[int, str]]:
        df = state.frame.get()
        if df is None:
            return []
        cls = state.class_column.get()
        return [(i, c) for i, c in enumerate(df.columns) if c != cls]

    @reactive.calc
    def inferred() -> dict:
        return inferred_domains(state.frame.get())

    drawn: list = [None]  # the table the attribute controls were last drawn for

    @render.ui
    def o_attrs():
        df = state.frame.get()
        if df is None:
            return ui.p("No data yet.", class_="ppdm-note")
        rows = []
        for i, c in columns():
            kept = {}
            if drawn[0] is df:  # a re-render (new class) keeps the owner's choices
                with reactive.isolate():
                    kept = {
                        "perturb": val(f"perturb_{i}", True),
                        "gamma": val(f"gamma_{i}", ""),
                        "n": val(f"n_{i}", DEFAULT_MAX_BINS),
                        "bounds": val(f"bounds_{i}", ""),
                    }
            rows.append(_attribute_row(df, i, c, inferred().get(c), kept))
        drawn[0] = df
        return ui.TagList(*rows)

    @reactive.calc
    def gamma() -> float | None:
        """The gamma of the attributes without their own; None when they share a budget."""
        mode = input.o_gmode()
        if mode == "budget":
            return None
        if mode == "rho":
            r1, r2 = input.o_rho1(), input.o_rho2()
            if r1 is None or r2 is None:
                raise ParameterError(
                    f"rho1 and rho2 must be numbers in (0, 1) (got {r1!r} and {r2!r})"
                )
            return gamma_from_rho(float(r1), float(r2))
        return check_gamma(input.o_gamma(), "gamma", error=ParameterError)

    @reactive.calc
    def budget() -> float | None:
        """The per-record budget E, or None (required to split one)."""
        value = _optional_number(input.o_budget(), "'epsilon per record'", check_positive)
        if value is None and input.o_gmode() == "budget":
            raise ParameterError("type the budget to split: 'epsilon per record'")
        return value

    @reactive.calc
    def copies() -> int:
        """Independent perturbed copies of every record."""
        n = whole_number(input.o_copies(), "'copies per record'", 1)
        return check_copies(n, "'copies per record'")

    def domain_of(df, i: int, c: str):
        n = val(f"n_{i}", DEFAULT_MAX_BINS)
        if n is None or int(n) != n or n < 2:
            raise ParameterError(f"N of column {c!r} must be an integer >= 2 (got {n})")
        check_n_values(int(n), f"N of column {c!r}")  # this row's error only
        bounds = parse_bounds(val(f"bounds_{i}", ""), c)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = infer_domain(df[c], column=c, n_bins=int(n), bounds=bounds, warn=False)
        return d, bounds is not None

    @reactive.calc
    def items() -> list[dict]:
        """Per attribute: perturbed or not, its own gamma or None, its domain or error."""
        df = state.frame.get()
        out = []
        for i, c in columns():
            item = {"index": i, "name": c, "perturbed": bool(val(f"perturb_{i}", True))}
            if item["perturbed"]:
                try:
                    gamma_c = val(f"gamma_{i}", "")
                    item["gamma"] = _optional_number(gamma_c, f"gamma of column {c!r}", check_gamma)
                    item["domain"], item["owner_bounds"] = domain_of(df, i, c)
                except PpdmError as exc:
                    item["error"] = message(exc)
            out.append(item)
        return out

    @reactive.calc
    def gammas() -> dict[str, float]:
        """Every perturbed attribute's gamma as :func:`ppdm.perturbation.planned_gammas` plans
        it; an error when the plan is over the budget.
        """
        perturbed = [x for x in items() if x["perturbed"] and "gamma" in x]
        own = {x["name"]: x["gamma"] for x in perturbed if x["gamma"] is not None}
        free = [x["name"] for x in perturbed if x["gamma"] is None]
        opts = PlanOptions(gamma=gamma(), epsilon_record=budget(), copies=copies())
        return {**own, **planned_gammas(own, free, opts)}

    @render.table
    def o_privacy():
        df = state.frame.get()
        if df is None:
            return None
        try:
            planned = gammas()
        except PpdmError as exc:
            try:  # over the budget: each attribute's figures at its gamma still show
                g = gamma()
                planned = {x["name"]: x.get("gamma") or g for x in items() if g or x.get("gamma")}
            except PpdmError:
                return pd.DataFrame([{"error": message(exc)}])
        shared = " (share)" if input.o_gmode() == "budget" else " (same)"
        rows = [_privacy_row(x, planned.get(x["name"]), len(df), shared) for x in items()]
        return pd.DataFrame(rows).fillna("")

    @render.ui
    def o_per_record():
        df = state.frame.get()
        if df is None:
            return None
        return _per_record(gammas, budget, copies, items(), state.class_column.get())

    _follow_recommendation(state, columns, inferred)

    return Plan(gamma=gamma, budget=budget, items=items, gammas=gammas, copies=copies)


def _follow_recommendation(state: State, columns, inferred) -> None:
    """Put the advisor's gamma (for all) and N (one or per attribute) into the controls."""

    @reactive.effect
    @reactive.event(state.recommendation)
    def _apply():
        rec = state.recommendation.get()
        if rec is None:
            return
        ui.update_radio_buttons("o_gmode", selected="gamma")
        ui.update_numeric("o_gamma", value=rec["gamma"])
        n_of = rec["N"] if isinstance(rec["N"], dict) else {}
        for i, c in columns():
            ui.update_text(f"gamma_{i}", value="")  # the recommended gamma for all
            n = n_of.get(c, rec["N"] if not n_of else None)
            if n is not None and _numeric(state.frame.get(), c, inferred().get(c)):
                ui.update_numeric(f"n_{i}", value=int(n))


def _optional_number(text, name: str, check) -> float | None:
    """A typed field: empty (None) or a number ``check`` accepts (its error shows the text)."""
    text = str(text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = text
    return check(value, name, error=ParameterError)


def _per_record(gammas, budget, copies, items: list[dict], cls: str):
    """The per-record figures as ``ppdm report`` words them, or why the plan is refused."""
    from ..report import per_record_lines

    try:
        planned, e, m = gammas(), budget(), copies()
    except PpdmError as exc:
        return ui.div(
            alert("error", "refused: " + message(exc)),
            id="o_per_record_text",
        )
    unprotected = [cls] if cls else []
    unprotected += [x["name"] for x in items if not x["perturbed"]]
    rec = {**record_privacy(planned, m, e), "unprotected": unprotected}
    lines = per_record_lines({"per_record": rec, "method": "substitution"})
    return ui.pre("\n".join(lines), class_="ppdm-text", id="o_per_record_text")


def _privacy_row(item: dict, g: float | None, n: int, shared: str) -> dict:
    """The privacy table's row of one attribute at gamma ``g`` (``shared``: not its own)."""
    if not item["perturbed"]:
        return {"attribute": item["name"], "kind": "released as is (no protection)"}
    if "error" in item:
        return {"attribute": item["name"], "kind": "error: " + item["error"]}
    d = item["domain"]
    if g is None:
        return {"attribute": item["name"], "kind": d.kind}
    fig = attribute_privacy(GammaDiagonal(d.n_values, g), n)
    from_data = bool(getattr(d, "bounds_from_data", False) or getattr(d, "from_data", False))
    shared = "" if item.get("gamma") is not None else shared
    return {
        "attribute": item["name"],
        "kind": d.kind,
        "N": str(d.n_values),
        "gamma": f"{g:.4g}{shared}",  # text: a row with an error made it 20.0
        "gamma realised": _fmt(fig.get("gamma_realised", fig["gamma"]), ".10g"),
        "epsilon": _fmt(fig["epsilon"], ".3f"),
        "rho2 at rho1=0.1": f"{fig['rho2']['0.1']:.3f}",
        "H(M) bits": f"{fig['entropy_bits']:.2f} of {fig['max_entropy_bits']:.2f}",
        "Kang bound": _fmt(fig.get("kang_bound"), ".4f"),
        "bounds": "FROM DATA (leak)" if from_data else "yours",
    }
