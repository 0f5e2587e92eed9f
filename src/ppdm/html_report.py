"""A release's privacy report as one self-contained HTML page, for the owner to hand on.

The page (no network, scripts or external fonts; figures as PNG data URIs) is described
on docs/report.md.

References
----------
Dowd, Xu & Zhang, Sec. 5 (gamma, rho1-to-rho2, entropy) and Eq. (1) (estimation);
Kang, Theorem 1 (error bound); Evfimievski, Gehrke & Srikant (2003) (amplification).
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import os
import re
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

from .exceptions import ParameterError
from .figures import se_label
from .figures.estimates import estimate_figure
from .mechanism import mechanism_of

__all__ = ["render_html_report", "write_html_report"]

_CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 1100px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.6em; }
h3 { font-size: 1.05em; margin-bottom: 0.3em; }
table { border-collapse: collapse; font-size: 0.9em; margin: 0.6em 0; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.55em; text-align: right; }
th { background: #f2f2f2; }
td.name, th.name { text-align: left; font-family: monospace; }
tr.unperturbed td { color: #a00; background: #fff4f4; }
.meta td { text-align: left; border: none; padding: 0.1em 0.8em 0.1em 0; }
.box { border-left: 4px solid #2a6; background: #f3fbf6; padding: 0.5em 0.9em; margin: 0.8em 0; }
.warn { border-left-color: #c60; background: #fff8ef; }
.bad { border-left-color: #c00; background: #fff2f2; }
pre { background: #f7f7f7; padding: 0.7em; overflow-x: auto; font-size: 0.8em; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
img { max-width: 100%; }
.small { color: #666; font-size: 0.85em; }
"""


def _e(value) -> str:
    """Any value as escaped HTML text."""
    return html.escape(str(value), quote=True)


def _num(x, spec: str) -> str:
    if x is None or (isinstance(x, float) and math.isinf(x)):
        return "&infin;"
    return format(x, spec)


def _row(name: str, cells: list[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    tds = "".join(f"<td>{c}</td>" for c in cells)
    return f'<tr{attr}><td class="name">{_e(name)}</td>{tds}</tr>'


def _unperturbed_row(name: str, width: int) -> str:
    return (
        f'<tr class="unperturbed"><td class="name">{_e(name)}</td>'
        f'<td colspan="{width - 1}" style="text-align:left">released as is: no protection</td></tr>'
    )


def _cells(tag: str, values) -> str:
    """One row's cells, the first of them a name."""
    return "".join(
        f'<{tag} class="name">{_e(v)}</{tag}>' if i == 0 else f"<{tag}>{_e(v)}</{tag}>"
        for i, v in enumerate(values)
    )


def _table(head: list[str], rows: list[str]) -> str:
    return (
        f"<table><thead><tr>{_cells('th', head)}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


#: The helpers a mechanism's rows and tables are written with (:mod:`ppdm.mechanism`).
_KIT = SimpleNamespace(e=_e, num=_num, row=_row, table=_table, unperturbed=_unperturbed_row)


def _per_record(rep: dict) -> str:
    """The guarantee of a whole record, as ``ppdm report`` says it."""
    rec = rep.get("per_record")
    if rec is None:
        return ""
    m, copies = rec["attributes"], rec["copies"]
    each = f", {copies} copies each" if copies > 1 else ""
    rows = mechanism_of(rep).html_epsilon(rec, _KIT)
    if rec["unprotected"]:
        rows.append(("unprotected (released as is or revealed)", _codes(rec["unprotected"])))
    body = "".join(f'<tr><td style="text-align:left">{k}</td><td>{v}</td></tr>' for k, v in rows)
    budget = ""
    if rec["budget"] is not None:
        word = "within" if rec["within_budget"] else "<b>over</b>"
        budget = f"<p>The release is {word} the per-record budget <b>{rec['budget']:.4g}</b>.</p>"
    cls = "box" if rec.get("epsilon") is not None and not rec["unprotected"] else "box warn"
    return (
        f'<div class="{cls}"><b>Per record</b> ({m} perturbed attribute{"" if m == 1 else "s"}'
        f"{each}): a record's attributes are perturbed independently, so its epsilon is the "
        "sum of theirs, and a property of k attributes can be amplified up to the product of "
        f"their gammas.<table>{body}</table>{budget}</div>"
    )


def _codes(names) -> str:
    return ", ".join(f"<code>{_e(n)}</code>" for n in names)


def _exposure(rep: dict) -> str:
    parts = []
    unperturbed = rep.get("unperturbed", [])
    unchanged = rep.get("unchanged", [])
    revealed = rep.get("revealed_by_copies", [])
    bare = [n for n in rep.get("unprotected", []) if n not in unperturbed + unchanged + revealed]
    copies = _e(rep.get("copies"))
    for title, names, why in (
        ("Released as is (no protection)", unperturbed, ". Anyone holding the release reads "
         "these columns exactly as in the original table."),
        ("Unprotected", bare, ": a matrix with infinite amplification (identity, permutation, "
         "zero entries) can reveal values exactly."),
        ("Unprotected", unchanged, ": a matrix so close to the identity that it almost never "
         "changes a value (below one in a billion) releases these columns as they are."),
        ("Unprotected", revealed, f": the {copies} copies of a record, taken together, reveal "
         "its value (another value is the most likely one given them with probability below "
         "one in a billion)."),
    ):  # fmt: skip
        if names:
            parts.append(f'<div class="box bad"><b>{title}:</b> {_codes(names)}{why}</div>')
    if rep.get("leaks"):
        items = "".join(f"<li>{_e(x)}</li>" for x in rep["leaks"])
        parts.append(
            '<div class="box warn"><b>Leaks:</b> the release spec, which is published with the '
            f"data, reveals values read off the original data:<ul>{items}</ul>"
            "Give the bounds or values yourself (<code>--bounds</code>, <code>--spec</code>) "
            "to avoid this.</div>"
        )
    if not parts:
        parts.append(
            '<div class="box">Every column is perturbed with a finite amplification, and the '
            "spec reveals nothing read off the data.</div>"
        )
    return "".join(parts)


def _estimates_section(results) -> str:
    """Each estimate's figure, as ``ppdm estimate --plot`` draws it, and its numbers."""
    import matplotlib

    out = []
    for r in results:
        png = io.BytesIO()
        with matplotlib.rc_context({"text.parse_math": False}):
            estimate_figure(r).savefig(png, format="png", dpi=90)
        figure = "data:image/png;base64," + base64.b64encode(png.getvalue()).decode("ascii")
        e = r.overall
        rows = [
            f"<tr><td class='name'>{_e(lab)}</td><td>{y:.0f}</td><td>{c:.1f}</td><td>{s:.1f}</td></tr>"
            for lab, y, c, s in zip(r.labels, e.perturbed, e.counts, e.stderr)
        ]
        table = (
            "<details><summary>numbers</summary><table><thead><tr><th class='name'>value</th>"
            "<th>released</th><th>estimated</th><th>standard error</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></details>"
        )
        out.append(
            f"<h3>{_e(r.name)}</h3>"
            f'<img alt="estimated distribution of {_e(r.name)}" src="{figure}">'
            f"{table}"
        )
    return "".join(out)


def _audit_verdict(audit) -> str:
    from .attacks.audit import plain_verdict

    data = audit.to_dict() if hasattr(audit, "to_dict") else audit
    word, _, rest = plain_verdict(data).partition(": ")
    css = "box" if data["passed"] else "box bad"
    return f'<div class="{css}"><b>Audit {_e(word)}:</b> {_e(rest)}</div>'


def _audit_body(text: str) -> str:
    """The audit's text with its tables (a line starting ``attribute`` to the next blank one)
    as HTML tables and the rest as wrapped preformatted text.
    """
    out: list[str] = []
    prose: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("attribute "):
            j = i + 1
            while j < len(lines) and lines[j].strip():
                j += 1
            table = _aligned_table(lines[i:j])
            if table is not None:
                if prose:
                    out.append(f'<pre class="wrap">{_e(chr(10).join(prose))}</pre>')
                    prose = []
                out.append(table)
                i = j
                continue
        prose.append(lines[i])
        i += 1
    if prose:
        out.append(f'<pre class="wrap">{_e(chr(10).join(prose))}</pre>')
    return "".join(out)


def _aligned_table(lines: list[str]) -> str | None:
    """An HTML table of text columns two or more spaces apart; None when a row does not
    split into as many cells as the header.
    """
    rows = [re.split(r" {2,}", line.strip()) for line in lines]
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows):
        return None
    body = "".join(f"<tr>{_cells('td', r)}</tr>" for r in rows[1:])
    return f"<table><tr>{_cells('th', rows[0])}</tr>{body}</table>"


def render_html_report(
    rep: dict,
    *,
    estimates: Sequence | None = None,
    audit=None,
    audit_text: str | None = None,
    source: str = "",
    estimate_note: str | None = None,
    today: _dt.date | None = None,
) -> str:
    """The HTML page of a privacy report, with estimates and audit if given.

    Parameters
    ----------
    rep : dict
        :func:`ppdm.report.privacy_report` of the release.
    estimates : sequence of AttributeEstimate, optional
        :func:`ppdm.pipeline.estimate_release` of the release.
    audit : dict or report object, optional
        :func:`ppdm.attacks.audit.audit_release`'s result; only its ``passed`` is read.
    audit_text : str, optional
        :func:`ppdm.attacks.audit.format_audit` of ``audit``.
    source : str
        The release directory or spec file, as named by the owner.
    estimate_note : str, optional
        Shown instead of the estimates (why there are none).
    today : datetime.date, optional
        The report's date (default: today, UTC).

    Returns
    -------
    str
        A complete HTML document with no external references.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5; Kang, Theorem 1.
    """
    from . import __version__

    day = today or _dt.datetime.now(_dt.timezone.utc).date()
    how = "perturbed" if rep.get("class_perturbed") else "released unperturbed"
    cls = rep.get("class_attribute")
    class_text = "none" if cls is None else f"<code>{_e(cls)}</code> ({how})"
    mech = mechanism_of(rep)
    meta = [
        ("release", f"<code>{_e(source)}</code>" if source else "-"),
        ("records (n)", _e(rep["n_records"])),
        ("perturbation", mech.label),
        ("class attribute", class_text),
        ("copies per record", _e(rep.get("copies", 1))),
        ("report date", day.isoformat()),
        ("ppdm version", _e(__version__)),
    ]
    meta_html = "".join(f"<tr><td><b>{k}</b></td><td>{v}</td></tr>" for k, v in meta)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>ppdm privacy report: {_e(Path(source).name if source else 'release')}</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>Privacy report of a perturbed release</h1>",
        '<p class="small">Made with ppdm, a toolkit for privacy-preserving data mining by '
        "randomized perturbation. Every figure below is recomputed from the release's "
        "perturbation matrices.</p>",
        f'<table class="meta">{meta_html}</table>',
        "<h2>Guarantee</h2>",
        mech.html_guarantee(rep),
        _per_record(rep),
        _audit_verdict(audit) if audit is not None else "",
        "<h2>Unprotected columns and leaks</h2>",
        _exposure(rep),
        "<h2>Privacy figures per attribute</h2>",
        mech.html_table(rep, _KIT),
        mech.html_legend,
        "<h2>Estimated original distributions</h2>",
    ]
    if estimates:
        parts.append(
            "<p>What a data miner can learn from the release: the original distribution of each "
            "perturbed attribute, estimated from the released counts, with error bars of "
            f"{se_label()} (grey: the released counts, blue: the estimate).</p>"
        )
        parts.append(_estimates_section(estimates))
    else:
        parts.append(f"<p>{_e(estimate_note or 'No estimates (no release data given).')}</p>")
    parts.append("<h2>Audit</h2>")
    if audit is not None:
        parts.append(
            "<p>The owner attacked the release with the original table at hand and compared "
            "what the attacks recover with what the policy allows.</p>"
        )
        parts.append(_audit_verdict(audit) + _audit_body(audit_text or ""))
    else:
        parts.append(
            "<p>No audit was run for this report (<code>ppdm report DIR --html FILE "
            "--audit-original DATA</code> runs one).</p>"
        )
    parts.append("</body></html>\n")
    return "\n".join(parts)


def write_html_report(
    target: str | os.PathLike,
    path: str | os.PathLike,
    *,
    method: str = "set-scale",
    audit_original: str | os.PathLike | None = None,
    audit_options: dict | None = None,
    today: _dt.date | None = None,
) -> Path:
    """Write the HTML report of a release (or spec) to ``path``, atomically.

    Parameters
    ----------
    target : path
        Release directory, or a spec file (then the page has no estimates and no audit).
    path : path
        The HTML file to write; never an input.
    method : str, default="set-scale"
        Estimation method of the distributions.
    audit_original : path, optional
        The original table: run :func:`ppdm.attacks.audit.audit_release` and include it.
    audit_options : dict, optional
        Keyword arguments of ``audit_release``.
    today : datetime.date, optional

    Returns
    -------
    Path
        ``path``.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 and Eq. (1); Kang, Theorem 1.
    """
    from .io import atomic_path
    from .release import read_spec
    from .report import privacy_report

    target = Path(target)
    estimates = note = audit = audit_text = None
    if target.is_dir():
        from .pipeline import estimate_release, load_release

        rel = load_release(target)
        spec = rel.spec
        by_class = spec.class_attribute is not None and not spec.class_perturbed
        if spec.perturbed_attributes():
            estimates = estimate_release(rel, method, by_class=by_class)
        else:
            note = "No attribute is perturbed, so there is nothing to estimate."
        if audit_original is not None:
            from .attacks.audit import audit_release, format_audit

            audit = audit_release(rel, audit_original, **(audit_options or {}))
            audit_text = format_audit(audit)
    else:
        if audit_original is not None:
            raise ParameterError(
                f"--audit-original needs a release directory; {str(target)!r} is a spec file"
            )
        spec = read_spec(target)
        note = "This report was made from a spec file alone, so there are no released counts."
    page = render_html_report(
        privacy_report(spec),
        estimates=estimates,
        audit=audit,
        audit_text=audit_text,
        source=str(target),
        estimate_note=note,
        today=today,
    )
    with atomic_path(path) as tmp:
        Path(tmp).write_text(page, encoding="utf-8")
    return Path(path)
