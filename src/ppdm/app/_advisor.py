"""The owner's advisor: which gamma and N keep the tree accurate (Sec. 7), in the
background, and its recommendation put into the attribute controls."""

from __future__ import annotations

from shiny import module, reactive, render, ui

from ..exceptions import ParameterError, SpecError
from ..limits import check_n_values
from ..validation import check_gamma
from ._common import message, parse_list, percent, whole_number
from ._state import USER_ERRORS, State
from ._ui import PageNote, action_card

__all__ = ["advisor_card", "advisor_server", "target_accuracy"]


@module.ui
def advisor_card():
    return action_card(
        "Advisor: which gamma and N keep the tree accurate?",
        [
            ("o_advise", "Run advisor"),
            ("o_advise_cancel", "Cancel"),
            ("o_advise_apply", "Use the recommendation"),
        ],
        ui.output_ui("o_advise_status"),
        ui.output_ui("o_advise_report"),
        ui.output_image("o_advise_plot", height="auto"),
        controls=ui.layout_columns(
            ui.input_text("o_adv_gammas", "gamma values", "5,9,12"),
            ui.input_text("o_adv_ns", "N values", "5,10,20"),
            ui.input_numeric("o_adv_reps", "repetitions", 1, min=1, step=1),
            ui.input_text("o_adv_target", "target accuracy (optional)", ""),
        ),
    )


def target_accuracy(text: str) -> float | None:
    """The advisor's target accuracy field: empty, a fraction (0.8) or a percentage (80, 80%)."""
    if not text:
        return None
    try:
        value = float(text.rstrip("%").strip())
    except ValueError:
        raise ParameterError(
            f"target accuracy must be a fraction or a percentage, e.g. 0.8 or 80% (got {text!r})"
        ) from None
    fraction = value / 100 if value > 1 or text.endswith("%") else value
    if not (0 < fraction <= 1):
        raise ParameterError(f"target accuracy must be above 0 and at most 100% (got {text!r})")
    return fraction


def _grid(gammas_text: str, ns_text: str, reps, target_text: str) -> dict:
    """The advisor's arguments from the card's fields, each checked and named."""
    gammas = parse_list(gammas_text, "gamma values")
    for g in gammas:
        check_gamma(g, "each of the gamma values", error=ParameterError)
    ns = parse_list(ns_text, "N values", int)
    for n in ns:
        if n < 2:
            raise ParameterError(f"each of the N values must be >= 2 (got {n})")
        check_n_values(n, "each of the N values")
    reps = whole_number(reps, "repetitions", 1)
    target = target_accuracy(str(target_text).strip())
    return {"gammas": gammas, "ns": ns, "reps": reps, "min_accuracy": target}


def n_text(n) -> str:
    """The recommended N: one number, or "per attribute" and each attribute's."""
    if not isinstance(n, dict):
        return str(n)
    return "per attribute " + ", ".join(f"{k} {v}" for k, v in n.items())


def _status(text: str, res: dict | None) -> list:
    """The advisor's status line, baselines and recommendation."""
    parts = [ui.p(text, id="o_advise_text")] if text else []
    if res is None:
        return parts
    if res.get("majority_rate") is not None:
        parts.append(
            ui.p(
                f"Baselines on the same test records: always guessing the commonest class "
                f"{percent(res['majority_rate'])}; C4.5 on the original data "
                f"{percent(res['original_accuracy'])}.",
                id="o_advise_baselines",
            )
        )
    if not res.get("recommended", True):
        parts.append(ui.p(f"No recommendation: {res['reason']}", id="o_advise_rec"))
        return parts
    p = res["privacy"]
    met = "" if res["met"] else " (no cell reaches the target: the most accurate one)"
    parts.append(
        ui.p(
            f"Recommended (rule {res['rule']}): gamma = {res['gamma']:g}, N = "
            f"{n_text(res['N'])}, {res['learner']} accuracy {percent(res['accuracy'])} (one "
            f"release: {percent(res['release_range'][0])} to {percent(res['release_range'][1])}"
            f"){met}; epsilon = "
            f"{p['epsilon']:.3f}, rho1 = 0.1 -> rho2 = {p['rho2']['0.1']:.3f}.",
            id="o_advise_rec",
        )
    )
    return parts


@module.server
def advisor_server(input, output, session, state: State):
    slot = state.slots["advisor"]
    note = PageNote(state.owner_msg, "o_advise", clear_on=state.frame)
    say = note.say
    slot.follow(input.o_advise_cancel, note, reset_on=state.frame)

    @reactive.effect
    @reactive.event(input.o_advise)
    def _advise():
        from ..advise import POLICY_GAMMA

        df = state.frame.get()
        if df is None:
            say("error", "open a table first")
            return
        try:
            cls = state.class_column.get()
            if not cls:
                raise SpecError("the advisor needs a class attribute: choose one")
            grid = _grid(input.o_adv_gammas(), input.o_adv_ns(), input.o_adv_reps(),
                         input.o_adv_target())  # fmt: skip
            # the audit's policy (its default rho): never above it
            slot.start(state.workspace, "advise", frame=df, class_column=cls,
                       max_gamma=POLICY_GAMMA, **grid)  # fmt: skip
        except USER_ERRORS as exc:
            say("error", message(exc, "advisor"))

    @render.ui
    def o_advise_status():
        return ui.TagList(*_status(slot.status.get(), slot.result.get()))

    @render.ui
    def o_advise_report():
        res = slot.result.get()
        if res is None or not res.get("lines"):
            return None
        return ui.tags.details(
            ui.tags.summary("the advisor's report (as the command line prints it)"),
            ui.tags.ul(*[ui.tags.li(x) for x in res["lines"]], class_="ppdm-lines"),
            open=True,
            id="o_advise_lines",
        )

    @render.image
    def o_advise_plot():
        res = slot.result.get()
        if res is None:
            return None
        # the card's width: the legend stays in view (its smallest text about 8 px)
        return {"src": res["plot"], "width": "100%", "alt": "advisor plot"}

    @reactive.effect
    @reactive.event(input.o_advise_apply)
    def _apply():
        res = slot.result.get()
        if res is None:
            state.owner_msg.set(("error", "run the advisor first"))
            return
        if not res.get("recommended", True):
            state.owner_msg.set(
                ("error", "the advisor recommends nothing to apply: " + res["reason"])
            )
            return
        state.recommendation.set({"gamma": res["gamma"], "N": res["N"]})
        state.owner_msg.set(("ok", f"applied gamma = {res['gamma']:g} and N = {n_text(res['N'])}"))
