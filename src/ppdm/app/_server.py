"""The app's reactive wiring: every figure and file comes from ppdm's library API.

Each browser session gets its own :class:`~ppdm.app._common.Workspace` (a private
temporary directory, removed when the session ends) and its own state. Long work runs
in child processes (:mod:`ppdm.app._jobs`). Every failure becomes one line in the page.
"""

from __future__ import annotations

import io
import json
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from shiny import reactive, render, ui
from shiny.types import SilentException

from ..domain import infer_domain, looks_like_identifier
from ..exceptions import OutputError, ParameterError, SpecError
from ..limits import check_n_values
from ..matrix import GammaDiagonal
from ..perturbation import DEFAULT_MAX_BINS
from ..privacy import attribute_privacy, gamma_from_rho
from ..publish import inputs_of_one_operation, publish_copy
from ..release import AttributeSpec, ReleaseSpec
from ..validation import check_gamma
from . import _figures
from ._common import (
    Workspace,
    extract_release,
    message,
    page_text,
    parse_bounds,
    parse_float_list,
    parse_int_list,
    plain,
    read_path,
    read_upload,
)
from ._jobs import Job, start_job

__all__ = ["server"]

POLL_SECONDS = 0.4
#: Panels of the histograms and estimates figures: every attribute up to this many (it
#: showed the first 9 of wine's 13 without a word).
MAX_PANELS = 60


#: The audit plot (:func:`ppdm.figures.audit.plot_audit`) is shown at this multiple of
#: its size in pixels: its smallest text, 6 pt at 110 dpi (9.2 px), shows at 11 px. At
#: 80 % of the card's width it showed at 6 px.
AUDIT_PLOT_SCALE = 1.2


def _png_width(path: str) -> int:
    """The width in pixels of a PNG file (its IHDR chunk)."""
    with open(path, "rb") as fh:
        head = fh.read(24)
    return int.from_bytes(head[16:20], "big")


def _alert(kind: str, text: str):
    cls = {"error": "alert-danger", "ok": "alert-success", "info": "alert-info"}[kind]
    return ui.div(text, class_=f"alert {cls} py-2 ppdm-msg", role="alert")


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _number(x) -> str:
    """A number as the page prints it: a whole number without ``.0`` (67, not 67.0)."""
    x = plain(x)
    return str(int(x)) if isinstance(x, float) and x.is_integer() else str(x)


def _fmt(x, spec=".4g") -> str:
    return "inf" if x is None else format(x, spec)


class JobSlot:
    """One kind of background job of a session: the job, its status line, its result."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.job: Job | None = None
        self.status = reactive.value("")
        self.result = reactive.value(None)

    def running(self) -> bool:
        return self.job is not None and self.job.running()

    def pending(self) -> bool:
        """A job was started and its outcome is not collected yet (by :meth:`poll`):
        it may have ended since the last poll, so polling must go on."""
        return self.job is not None

    def start(self, workspace: Workspace, function: str, **kwargs) -> None:
        if self.running():
            raise ParameterError(f"the {self.kind} is already running: wait or cancel it")
        self.result.set(None)
        self.job = start_job(self.kind, workspace.path, function, **kwargs)
        self.status.set(f"{self.kind}: starting...")

    def cancel(self) -> None:
        if self.running():
            self.job.cancel()
            self.status.set(f"{self.kind} cancelled")

    def wire(self, output, cancel, status: tuple[str, str] | None = None) -> None:
        """Register the slot's Cancel button and, given ``(output_id, text_id)``, its status line."""

        @reactive.effect
        @reactive.event(cancel)
        def _cancel():
            self.cancel()

        if status is None:
            return
        output_id, text_id = status

        @output(id=output_id)
        @render.ui
        def _status():
            text = self.status.get()
            return ui.p(text, id=text_id) if text else None

    def poll(self) -> str | None:
        """Update the status; return an error line when the job just failed."""
        job = self.job
        if job is None:
            return None
        if job.running():
            done, total = job.progress()
            self.status.set(
                f"{self.kind} running: {done} of {total} steps done"
                if total
                else f"{self.kind} running..."
            )
            return None
        self.job = None
        result, err = job.outcome()
        if err is not None:
            self.status.set(page_text(err))
            return None if job.cancelled else message(ValueError(err), self.kind)
        self.status.set(f"{self.kind} finished")
        self.result.set(result)
        return None


def poll_slots(slots) -> tuple[list[tuple[str, str]], bool]:
    """Poll every slot: the ``(kind, error line)`` of jobs that just failed, and whether
    to poll again (a job is still pending).

    Pending, not running: a job that ends between its poll and the check would
    otherwise never be collected, and its result never shown.
    """
    slots, errors = list(slots), []
    for slot in slots:
        err = slot.poll()
        if err:
            errors.append((slot.kind, err))
    return errors, any(slot.pending() for slot in slots)


def _target_accuracy(text: str) -> float | None:
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


#: The action (a message's context) -> the button whose note shows its outcome.
NOTE_BUTTON = {
    "release": "o_make",
    "audit": "o_audit",
    "advisor": "o_advise",
    "estimate": "m_estimate",
    "training": "m_train",
}


def _note_output(output, button: str, note) -> None:
    """Render ``note`` (``(kind, text)`` or None) as ``<button>_note`` beside the button."""

    @output(id=f"{button}_note")
    @render.ui
    def _note():
        n = note.get()
        return None if n is None else _alert(*n)


def server(input, output, session) -> None:  # noqa: C901 (one closure per session)
    ws = Workspace()
    slots = {k: JobSlot(k) for k in ("advisor", "audit", "training")}

    def _end() -> None:
        for s in slots.values():
            if s.job is not None:
                s.job.cancel()
        ws.remove()

    session.on_ended(_end)

    owner_msg = reactive.value(None)
    miner_msg = reactive.value(None)
    frame = reactive.value(None)
    data_name = reactive.value("")
    release_dir = reactive.value(None)
    release_notes = reactive.value([])
    key_risk = reactive.value(None)
    miner_dir = reactive.value(None)
    miner_est = reactive.value(None)
    miner_test = reactive.value(None)
    poll_tick = reactive.value(0)

    def _val(key: str, default):
        try:
            return input[key]()
        except SilentException:
            return default

    # the line beside each action button: what pressing it did, where the user looks
    notes = {b: reactive.value(None) for b in NOTE_BUTTON.values()}
    for button, note in notes.items():
        _note_output(output, button, note)

    def _say(context: str, kind: str, text: str) -> None:
        """``text`` at the top of the page and beside the button of ``context``."""
        (miner_msg if context in ("estimate", "training") else owner_msg).set((kind, text))
        if context in NOTE_BUTTON:
            notes[NOTE_BUTTON[context]].set((kind, text))

    def _owner_error(exc: BaseException, context: str | None = None) -> None:
        _say(context or "", "error", message(exc, context))

    def _miner_error(exc: BaseException, context: str | None = None) -> None:
        _say(context or "estimate", "error", message(exc, context))

    # ---------------- owner: data ----------------
    def _load(df: pd.DataFrame, name: str) -> None:
        frame.set(df)
        data_name.set(name)
        release_dir.set(None)
        key_risk.set(None)
        slots["audit"].result.set(None)
        slots["advisor"].result.set(None)
        cols = list(df.columns)
        guess = next((c for c in ("class", "group", "label", "y") if c in cols), cols[-1])
        ui.update_select("o_class", choices={"": "(none)", **{c: c for c in cols}}, selected=guess)
        ui.update_checkbox_group("o_keys", choices=[c for c in cols if c != guess], selected=[])
        for b in ("o_make", "o_audit", "o_advise"):
            notes[b].set(None)
        owner_msg.set(("ok", f"opened {name!r}: {len(df)} records, {len(cols)} columns"))

    @reactive.effect
    @reactive.event(input.o_file)
    def _upload():
        files = input.o_file()
        if not files:
            return
        try:
            df, name = read_upload(files[0], ws)
        except Exception as exc:
            frame.set(None)
            _owner_error(exc)
            return
        _load(df, name)

    @reactive.effect
    @reactive.event(input.o_open_path)
    def _open_path():
        try:
            df, name = read_path(input.o_path())
        except Exception as exc:
            _owner_error(exc)
            return
        _load(df, name)

    @reactive.effect
    @reactive.event(input.o_class)
    def _keys_without_class():
        """The class is no key an intruder links on: it is left out of the key choices."""
        df = frame.get()
        if df is None:
            return
        cls = input.o_class()
        with reactive.isolate():
            kept = [k for k in _val("o_keys", ()) if k != cls]
        choices = [c for c in df.columns if c != cls]
        ui.update_checkbox_group("o_keys", choices=choices, selected=kept)

    @render.ui
    def o_msg():
        m = owner_msg.get()
        return None if m is None else _alert(*m)

    @render.ui
    def o_summary():
        df = frame.get()
        if df is None:
            return ui.p("Open a CSV, Parquet or ARFF table to start.", class_="ppdm-note")
        return ui.p(f"{data_name.get()}: {len(df)} records, {df.shape[1]} columns. First rows:")

    @render.table
    def o_preview():
        df = frame.get()
        return None if df is None else df.head(8)

    @reactive.calc
    def inferred() -> dict:
        """Per column, the domain the command line would infer at its default N
        (:func:`ppdm.domain.infer_domain`: an integer column of d <= N values is
        categorical with N = d, Sec. 7), or the error saying why it cannot."""
        df = frame.get()
        out = {}
        for c in [] if df is None else df.columns:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[c] = infer_domain(df[c], column=c, max_bins=DEFAULT_MAX_BINS, warn=False)
            except Exception as exc:
                out[c] = exc
        return out

    @render.table
    def o_kinds():
        df = frame.get()
        if df is None:
            return None
        rows = []
        for c, d in inferred().items():
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

    # ---------------- owner: attributes and live privacy ----------------
    @reactive.calc
    def attr_columns() -> list[tuple[int, str]]:
        df = frame.get()
        if df is None:
            return []
        cls = input.o_class()
        return [(i, c) for i, c in enumerate(df.columns) if c != cls]

    rendered: list = [None]  # the table the attribute controls were last drawn for

    @render.ui
    def o_attrs():
        df = frame.get()
        if df is None:
            return ui.p("No data yet.", class_="ppdm-note")
        rows = []
        for i, c in attr_columns():
            d = inferred().get(c)
            # a numeric column the rule makes categorical (d <= N values) has no N and
            # no bounds to choose, as on the command line
            numeric = pd.api.types.is_numeric_dtype(df[c]) and getattr(d, "kind", "") != (
                "categorical"
            )
            perturb, n, bounds = True, DEFAULT_MAX_BINS, ""
            if rendered[0] is df:  # a re-render (new class) keeps the owner's choices
                with reactive.isolate():
                    perturb = _val(f"perturb_{i}", True)
                    n = _val(f"n_{i}", DEFAULT_MAX_BINS)
                    bounds = _val(f"bounds_{i}", "")
            controls = [
                ui.div(c, class_="ppdm-attr-name"),
                ui.input_checkbox(f"perturb_{i}", "perturb", value=bool(perturb)),
            ]
            if numeric:
                lo, hi = _number(df[c].min()), _number(df[c].max())
                controls += [
                    ui.input_numeric(f"n_{i}", "N", value=n, min=2, step=1, width="7em"),
                    ui.input_text(
                        f"bounds_{i}",
                        "your bounds low:high",
                        bounds or "",
                        placeholder=f"data: {lo}:{hi}",
                    ),
                ]
            else:
                distinct = int(df[c].nunique())
                controls.append(ui.span(f"N = {distinct}", id=f"n_text_{i}", class_="ppdm-n"))
                note = f"categorical: {distinct} values"
                if looks_like_identifier(distinct, len(df)):
                    note += ": looks like an identifier, remove it from the table before releasing"
                controls.append(ui.span(note, class_="ppdm-note"))
            rows.append(ui.div(*controls, class_="ppdm-attr-row"))
        rendered[0] = df
        return ui.TagList(*rows)

    @reactive.calc
    def gamma() -> float:
        if input.o_gmode() == "rho":
            r1, r2 = input.o_rho1(), input.o_rho2()
            if r1 is None or r2 is None:
                raise ParameterError(
                    f"rho1 and rho2 must be numbers in (0, 1) (got {r1!r} and {r2!r})"
                )
            return gamma_from_rho(float(r1), float(r2))
        g = input.o_gamma()
        return check_gamma(g, "gamma", error=ParameterError)

    @reactive.calc
    def plan() -> list[dict]:
        """Per attribute: perturbed or not, its domain (or the error naming the value)."""
        df = frame.get()
        if df is None:
            return []
        out = []
        for i, c in attr_columns():
            item = {"index": i, "name": c, "perturbed": bool(_val(f"perturb_{i}", True))}
            if item["perturbed"]:
                try:
                    n = _val(f"n_{i}", DEFAULT_MAX_BINS)
                    if n is None or int(n) != n or n < 2:
                        raise ParameterError(f"N of column {c!r} must be an integer >= 2 (got {n})")
                    check_n_values(int(n), f"N of column {c!r}")  # this row's error only
                    bounds = parse_bounds(_val(f"bounds_{i}", ""), c)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        item["domain"] = infer_domain(
                            df[c], column=c, n_bins=int(n), bounds=bounds, warn=False
                        )
                    item["owner_bounds"] = bounds is not None
                except Exception as exc:
                    item["error"] = message(exc)
            out.append(item)
        return out

    @render.table
    def o_privacy():
        df = frame.get()
        if df is None:
            return None
        try:
            g = gamma()
        except Exception as exc:
            return pd.DataFrame([{"error": message(exc)}])
        n = len(df)
        rows = []
        for item in plan():
            row = {"attribute": item["name"]}
            if not item["perturbed"]:
                row["kind"] = "released as is (no protection)"
            elif "error" in item:
                row["kind"] = "error: " + item["error"]
            else:
                d = item["domain"]
                fig = attribute_privacy(GammaDiagonal(d.n_values, g), n)
                from_data = bool(
                    getattr(d, "bounds_from_data", False) or getattr(d, "from_data", False)
                )
                row.update(
                    {
                        "kind": d.kind,
                        "N": str(d.n_values),  # text: a row with an error made it 20.0
                        "gamma realised": _fmt(fig.get("gamma_realised", fig["gamma"]), ".10g"),
                        "epsilon": _fmt(fig["epsilon"], ".3f"),
                        "rho2 at rho1=0.1": f"{fig['rho2']['0.1']:.3f}",
                        "H(M) bits": f"{fig['entropy_bits']:.2f} of {fig['max_entropy_bits']:.2f}",
                        "Kang bound": _fmt(fig.get("kang_bound"), ".4f"),
                        "bounds": "FROM DATA (leak)" if from_data else "yours",
                    }
                )
            rows.append(row)
        return pd.DataFrame(rows).fillna("")

    # ---------------- owner: release ----------------
    def _user_spec(items: list[dict], cls: str | None) -> ReleaseSpec:
        attrs = []
        df = frame.get()
        for c in df.columns:
            if c == cls:
                attrs.append(AttributeSpec(name=c, perturbed=False))
                continue
            item = next(x for x in items if x["name"] == c)
            if not item["perturbed"]:
                attrs.append(AttributeSpec(name=c, perturbed=False))
            elif "error" in item:
                raise SpecError(item["error"])
            else:
                attrs.append(AttributeSpec(name=c, domain=item["domain"].to_spec()))
        if not any(a.perturbed for a in attrs):
            raise SpecError("no attribute is marked 'perturb': nothing to protect")
        return ReleaseSpec(class_attribute=cls or None, attributes=attrs)

    @reactive.effect
    @reactive.event(input.o_make)
    def _make():
        from ..attacks.linkage import linkage_report
        from ..pipeline import load_release, make_release
        from ..report import privacy_report, weakly_protected

        df = frame.get()
        if df is None:
            _say("release", "error", "open a table first")
            return
        try:
            cls = input.o_class() or None
            g = gamma()
            spec = _user_spec(plan(), cls)
            seed = None
            if input.o_experiment():
                raw = input.o_seed()
                if raw is None or raw != int(raw) or raw < 0:  # no silent rounding
                    raise ParameterError(f"seed must be a whole number >= 0 (got {raw!r})")
                seed = int(raw)
            out = ws.fresh("release") / "release"
            with warnings.catch_warnings(record=True) as caught, inputs_of_one_operation():
                warnings.simplefilter("always")
                make_release(df, out, class_attribute=cls, gamma=g, spec=spec, random_state=seed)
            notes = sorted({page_text(str(w.message)) for w in caught})
            rel = load_release(out)
            # the command line's note on weak protection, on the page too
            notes += [f"weakly protected: {line}" for line in weakly_protected(
                privacy_report(rel.spec))]  # fmt: skip
            keys = list(input.o_keys())
            risk = linkage_report(df, rel.frame(), keys, rel.spec) if keys else None
        except Exception as exc:
            _owner_error(exc, "release")
            return
        release_dir.set(out)
        release_notes.set(notes)
        key_risk.set(risk)
        slots["audit"].result.set(None)
        _say("release", "ok", f"release made: {rel.spec.n_records} records; download it below")

    @render.ui
    def o_release_info():
        d = release_dir.get()
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
            rel, orig, link = risk["released"], risk["original"], risk["linkage"]
            parts += [
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
                    f"({_percent(link['reidentified_share'])}) by exact matching; "
                    f"{link['false_matches']} of the unique matches point at the wrong record.",
                    id="o_linkage",
                ),
            ]
        notes = release_notes.get()
        if notes:
            parts += [ui.h6("Warnings"), ui.tags.ul(*[ui.tags.li(n) for n in notes])]
        return ui.TagList(*parts)

    @reactive.effect
    @reactive.event(input.o_save)
    def _save():
        d = release_dir.get()
        if d is None:
            return
        target = Path(str(input.o_save_dir()).strip()).expanduser()
        try:
            if not str(input.o_save_dir()).strip():
                raise OutputError("type the folder to save the release into")
            if target.exists() and any(target.iterdir()):
                raise OutputError(
                    f"folder {str(target)!r} exists and is not empty: choose a new one"
                )
            publish_copy(d, target, flag="folder")
        except Exception as exc:
            _owner_error(exc, "save")
            return
        owner_msg.set(("ok", f"release saved in {str(target)!r}"))

    def _zip_bytes() -> bytes:
        d = release_dir.get()
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for f in sorted(d.iterdir()):
                zf.write(f, f"release/{f.name}")
            audit = slots["audit"].result.get()
            if audit is not None:
                zf.writestr("release/audit.txt", audit["text"])
                zf.writestr("release/audit.json", json.dumps(audit["report"], indent=2))
        return buf.getvalue()

    @render.download_button(filename="release.zip", media_type="application/zip")
    def o_download():
        yield _zip_bytes()

    @render.image
    def o_hist():
        from ..pipeline import load_release

        d = release_dir.get()
        df = frame.get()
        if d is None or df is None:
            return None
        rel = load_release(d)
        released = rel.frame()
        panels = []
        for a in rel.spec.perturbed_attributes()[:MAX_PANELS]:
            dom = a.get_domain()
            n = dom.n_values
            panels.append(
                {
                    "name": f"{a.name}: original vs released",
                    "labels": dom.labels(),
                    "original": np.bincount(dom.encode(df[a.name], column=a.name), minlength=n),
                    "released": np.bincount(
                        dom.encode(released[a.name], column=a.name), minlength=n
                    ),
                }
            )
        path = _figures.histograms(panels, d.parent / "histograms.png")
        return {"src": str(path), "width": "100%", "alt": "before and after histograms"}

    # ---------------- owner: advisor ----------------
    @reactive.effect
    @reactive.event(input.o_advise)
    def _advise():
        df = frame.get()
        if df is None:
            _say("advisor", "error", "open a table first")
            return
        try:
            cls = input.o_class()
            if not cls:
                raise SpecError("the advisor needs a class attribute: choose one")
            gammas = parse_float_list(input.o_adv_gammas(), "gamma values")
            for g in gammas:
                check_gamma(g, "each of the gamma values", error=ParameterError)
            ns = parse_int_list(input.o_adv_ns(), "N values")
            for n in ns:
                if n < 2:
                    raise ParameterError(f"each of the N values must be >= 2 (got {n})")
                check_n_values(n, "each of the N values")
            target = _target_accuracy(str(input.o_adv_target()).strip())
            reps = input.o_adv_reps()
            if reps is None or reps != int(reps) or reps < 1:  # no silent rounding
                raise ParameterError(f"repetitions must be a whole number >= 1 (got {reps!r})")
            reps = int(reps)
            from ..advise import POLICY_GAMMA

            slots["advisor"].start(
                ws,
                "advise",
                frame=df,
                class_column=cls,
                gammas=gammas,
                ns=ns,
                reps=reps,
                min_accuracy=target,
                max_gamma=POLICY_GAMMA,  # the audit's policy (its default rho): never above it
            )
        except Exception as exc:
            _owner_error(exc, "advisor")
            return
        poll_tick.set(poll_tick.get() + 1)

    slots["advisor"].wire(output, input.o_advise_cancel)

    @render.ui
    def o_advise_status():
        text = slots["advisor"].status.get()
        res = slots["advisor"].result.get()
        parts = [ui.p(text, id="o_advise_text")] if text else []
        if res is not None and res.get("majority_rate") is not None:
            parts.append(
                ui.p(
                    f"Baselines on the same test records: always guessing the commonest class "
                    f"{_percent(res['majority_rate'])}; C4.5 on the original data "
                    f"{_percent(res['original_accuracy'])}.",
                    id="o_advise_baselines",
                )
            )
        if res is not None and not res.get("recommended", True):
            parts.append(ui.p(f"No recommendation: {res['reason']}", id="o_advise_rec"))
        elif res is not None:
            p = res["privacy"]
            met = "" if res["met"] else " (no cell reaches the target: the most accurate one)"
            parts.append(
                ui.p(
                    f"Recommended (rule {res['rule']}): gamma = {res['gamma']:g}, N = {res['N']}, "
                    f"{res['learner']} accuracy {_percent(res['accuracy'])} (one release: ± "
                    f"{_percent(2 * res['release_se'])}){met}; epsilon = {p['epsilon']:.3f}, "
                    f"rho1 = 0.1 -> rho2 = {p['rho2']['0.1']:.3f}. " + " ".join(res["notes"]),
                    id="o_advise_rec",
                )
            )
        return ui.TagList(*parts)

    @render.image
    def o_advise_plot():
        res = slots["advisor"].result.get()
        if res is None:
            return None
        return {"src": res["plot"], "width": "70%", "alt": "advisor plot"}

    @reactive.effect
    @reactive.event(input.o_advise_apply)
    def _advise_apply():
        res = slots["advisor"].result.get()
        if res is None:
            owner_msg.set(("error", "run the advisor first"))
            return
        if not res.get("recommended", True):
            owner_msg.set(("error", "the advisor recommends nothing to apply: " + res["reason"]))
            return
        ui.update_radio_buttons("o_gmode", selected="gamma")
        ui.update_numeric("o_gamma", value=res["gamma"])
        df = frame.get()
        for i, c in attr_columns():
            if pd.api.types.is_numeric_dtype(df[c]):
                n = res["N"].get(c, None) if isinstance(res["N"], dict) else res["N"]
                if n is not None:
                    ui.update_numeric(f"n_{i}", value=n)
        owner_msg.set(("ok", f"applied gamma = {res['gamma']:g} and N = {res['N']}"))

    # ---------------- owner: audit ----------------
    @reactive.effect
    @reactive.event(input.o_audit)
    def _audit():
        d = release_dir.get()
        if d is None:
            _say("audit", "error", "make the release first: the audit attacks it")
            return
        try:
            slots["audit"].start(
                ws, "audit", release=str(d), original=frame.get(), keys=list(input.o_keys())
            )
        except Exception as exc:
            _owner_error(exc, "audit")
            return
        notes["o_audit"].set(None)  # its status line below the button takes over
        poll_tick.set(poll_tick.get() + 1)

    slots["audit"].wire(output, input.o_audit_cancel, ("o_audit_status", "o_audit_text"))

    @render.ui
    def o_audit_verdict():
        res = slots["audit"].result.get()
        if res is None:
            return None
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
                    f"{_percent(best['recovered'])} of the values; guessing from the "
                    f"distribution alone gets {_percent(a['prior_only'])}; the policy allows "
                    f"{_percent(best['bound'])}."
                )
            )
        items += [ui.tags.li(v) for v in rep["violations"]]
        link = rep.get("linkage")
        if link:
            items.append(
                ui.tags.li(
                    f"keys {', '.join(link['keys'])}: k = {link['released']['k']}; "
                    f"{_percent(link['linkage']['reidentified_share'])} of records "
                    "re-identified by exact matching"
                )
            )
        return ui.TagList(
            head,
            ui.tags.ul(*items),
            ui.tags.details(ui.tags.summary("full audit"), ui.pre(res["text"], class_="ppdm-text")),
        )

    @render.image
    def o_audit_plot():
        res = slots["audit"].result.get()
        if res is None:
            return None
        # shown larger than drawn: the smallest text is 11 px, the box scrolls if need be
        width = round(AUDIT_PLOT_SCALE * _png_width(res["plot"]))
        return {"src": res["plot"], "width": f"{width}px", "alt": "audit plot"}

    # ---------------- polling of background jobs ----------------
    @reactive.effect
    def _poll():
        poll_tick.get()
        with reactive.isolate():
            errors, busy = poll_slots(slots.values())
        for kind, err in errors:
            _say(kind, "error", err)
        if busy:
            reactive.invalidate_later(POLL_SECONDS)

    # ---------------- miner ----------------
    def _open_release(path: Path) -> None:
        from ..pipeline import load_release

        spec = load_release(path).spec  # validates spec and data file
        miner_dir.set(path)
        miner_est.set(None)
        slots["training"].result.set(None)
        # by-class work needs an unperturbed class: the boxes say what this release allows
        by_class = spec.class_attribute is not None and not spec.class_perturbed
        ui.update_checkbox("m_byclass", value=by_class)
        ui.update_checkbox("m_recon_byclass", value=by_class)
        note = "" if by_class else " (no unperturbed class: 'by class' is unticked)"
        miner_msg.set(("ok", f"opened the release in {path.name!r}{note}"))

    @reactive.effect
    @reactive.event(input.m_zip)
    def _m_zip():
        files = input.m_zip()
        if not files:
            return
        try:
            _open_release(extract_release(files[0], ws))
        except Exception as exc:
            # the owner's zip by its name, not the server's unpacked copy
            name = Path(files[0]["name"]).name
            text = re.sub(
                re.escape(str(ws.path)) + r"/release-in-[^/']*/", f"{name}:", message(exc)
            )
            miner_msg.set(("error", text))

    @reactive.effect
    @reactive.event(input.m_open)
    def _m_open():
        try:
            text = str(input.m_path()).strip()
            if not text:
                raise ParameterError("type the folder of a release (it holds spec.json)")
            _open_release(Path(text).expanduser())
        except Exception as exc:
            _miner_error(exc)

    @render.ui
    def m_msg():
        m = miner_msg.get()
        return None if m is None else _alert(*m)

    @render.ui
    def m_info():
        from ..pipeline import load_release
        from ..report import format_privacy_report, privacy_report

        d = miner_dir.get()
        if d is None:
            return ui.p(
                "Open a release (the zip an owner gave you, or its folder).", class_="ppdm-note"
            )
        spec = load_release(d).spec
        return ui.pre(
            format_privacy_report(privacy_report(spec)), class_="ppdm-text", id="m_report"
        )

    @reactive.effect
    @reactive.event(input.m_estimate)
    def _m_estimate():
        from ..pipeline import estimate_release

        d = miner_dir.get()
        if d is None:
            _say("estimate", "error", "open a release first")
            return
        try:
            by_class = bool(input.m_byclass())
            ests = estimate_release(d, input.m_method(), by_class=by_class)
            panels = []
            for e in ests[:MAX_PANELS]:
                series = (
                    {c: (x.counts, x.stderr) for c, x in e.by_class.items()}
                    if by_class and e.by_class
                    else {"all": (e.overall.counts, e.overall.stderr)}
                )
                panels.append({"name": e.name, "labels": e.labels, "series": series})
            path = _figures.estimates(panels, ws.fresh("estimates") / "estimates.png")
        except Exception as exc:
            _miner_error(exc, "estimate")
            return
        miner_est.set(str(path))
        drawn = "" if len(ests) <= MAX_PANELS else f"; the figure shows the first {MAX_PANELS}"
        _say("estimate", "ok", f"estimated {len(ests)} attributes ({input.m_method()}){drawn}")

    @render.image
    def m_est_plot():
        p = miner_est.get()
        return None if p is None else {"src": p, "width": "100%", "alt": "estimates"}

    @render.ui
    def m_download_box():
        from ..pipeline import load_release

        d = miner_dir.get()
        if d is None:
            return ui.p("Open a release first.", class_="ppdm-note")
        if load_release(d).spec.method != "substitution":
            return ui.p(
                "An additive-noise release is already numeric: there is nothing to "
                "reconstruct (its estimated distributions are above).",
                class_="ppdm-note",
            )
        return ui.download_button("m_download", "Download the reconstructed table")

    def _recon_name() -> str:
        return f"reconstructed.{input.m_fmt()}"

    @render.download_button(filename=_recon_name)
    def m_download():
        from ..pipeline import reconstruct_release

        d = miner_dir.get()
        out = ws.fresh("reconstructed") / _recon_name()
        with inputs_of_one_operation():  # another tab's inputs are not this one's
            reconstruct_release(d, out, by_class=bool(input.m_recon_byclass()))
        yield out.read_bytes()

    @reactive.effect
    @reactive.event(input.m_train)
    def _m_train():
        d = miner_dir.get()
        try:
            if d is None:
                raise ParameterError("open a release first")
            test = miner_test.get()
            if test is None:
                raise ParameterError("upload a test table with the original values and the class")
            slots["training"].start(
                ws, "train", release=str(d), test=test, learner=input.m_learner()
            )
        except Exception as exc:
            _miner_error(exc, "training")
            return
        poll_tick.set(poll_tick.get() + 1)

    @reactive.effect
    @reactive.event(input.m_test)
    def _m_test():
        files = input.m_test()
        if not files:
            return
        try:
            test, name = read_upload(files[0], ws)
        except Exception as exc:
            miner_test.set(None)
            _miner_error(exc, "test table")
            return
        miner_test.set(test)
        miner_msg.set(("ok", f"test table {name!r}: {len(test)} records"))

    slots["training"].wire(output, input.m_train_cancel, ("m_train_status", "m_train_text"))

    @render.ui
    def m_train_result():
        from ..pipeline import load_release

        res = slots["training"].result.get()
        if res is None:
            return None
        spec = load_release(miner_dir.get()).spec
        return ui.TagList(
            ui.p(
                f"Accuracy on the test table: {_percent(res['test_accuracy'])} "
                f"(always guessing the most frequent class: {_percent(res['majority_rate'])}).",
                id="m_accuracy",
            )
            if "majority_rate" in res
            else ui.p(
                f"Accuracy on the test table: {_percent(res['test_accuracy'])}", id="m_accuracy"
            ),
            ui.p(f"class: {spec.class_attribute}; learner: {res['learner']}", class_="ppdm-note"),
            ui.pre(res["model"], class_="ppdm-text", id="m_tree"),
        )
