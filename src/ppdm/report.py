"""The privacy report of a release: per attribute gamma, rho1-to-rho2, epsilon, entropy, N, Kang.

References
----------
Dowd, Xu & Zhang, Sec. 5 (gamma, rho1-to-rho2, entropy); Kang, Theorem 1 and Sec. 3
(error bound; m copies amplify to gamma^m).
"""

from __future__ import annotations

from .matrix import FROM_DATA
from .mechanism import mechanism_of
from .release import ReleaseSpec

__all__ = [
    "privacy_report",
    "format_privacy_report",
    "past_the_crossover",
    "per_record_lines",
    "weakly_protected",
]


def privacy_report(spec: ReleaseSpec) -> dict:
    """Machine-readable privacy report of a release spec.

    The figures are recomputed from the matrices, so the report cannot disagree with
    the spec. Attributes whose bounds or values were read off the data are listed
    under ``"leaks"``; ``"per_record"`` holds the guarantee of a whole record
    (:func:`ppdm.privacy.record_privacy`), as docs/report.md describes it.
    """
    mech = mechanism_of(spec)
    attrs = []
    leaks = []
    # released through a channel that can reveal values exactly, through one that almost
    # never changes a value, or in copies that, taken together, give the value away
    weak: dict[str, list[str]] = {"unbounded": [], "unchanged": [], "revealed": []}
    for a in spec.attributes:
        if not a.perturbed:
            attrs.append({"name": a.name, "perturbed": False})
            continue
        dom = a.get_domain()
        fig = mech.privacy(a, spec.n_records, spec.copies)
        why = mech.weakness(a, fig, spec.copies)
        if why is not None:
            weak[why].append(a.name)
        from_data = bool(
            getattr(dom, "bounds_from_data", False) or getattr(dom, "from_data", False)
        )
        fig.update(
            name=a.name,
            perturbed=True,
            matrix=a.matrix.get("kind") if a.matrix else None,
            domain=dom.kind,
            bounds_from_data=from_data,
        )
        if from_data:
            what = "min and max" if dom.kind == "binned" else "list of values"
            leaks.append(f"{a.name}: domain {what} taken from the data")
        for where, entry in _entries(a.matrix):
            if entry.get("kind") in FROM_DATA:
                fig["marginal_from_data"] = True
                leaks.append(
                    f"{a.name}: its {entry['kind']} matrix{where} is built from the data's "
                    "marginal and reveals it exactly (the matrix keeps it fixed: with the "
                    "record count, the count of every original value)"
                )
        attrs.append(fig)
    gammas = [a.get("gamma") for a in attrs if a["perturbed"]]
    worst = None if not gammas or any(g is None for g in gammas) else max(gammas)
    unperturbed = [a["name"] for a in attrs if not a["perturbed"]]
    unprotected = unperturbed + weak["unbounded"] + weak["unchanged"] + weak["revealed"]
    return {
        "method": spec.method,
        "n_records": spec.n_records,
        "class_attribute": spec.class_attribute,
        "class_perturbed": spec.class_perturbed,
        "copies": spec.copies,
        "worst_gamma": worst,
        "unperturbed": unperturbed,
        "unprotected": unprotected,
        "unchanged": weak["unchanged"],
        "revealed_by_copies": weak["revealed"],
        "leaks": leaks,
        "attributes": attrs,
        "per_record": mech.per_record(spec, unprotected),
    }


def _entries(entry: dict | None) -> list[tuple[str, dict]]:
    """A matrix entry's own entries: itself, or one per stratum (with where it applies)."""
    if not entry:
        return []
    if entry.get("kind") != "stratified":
        return [("", entry)]
    return [(f" of stratum {entry['strata']} = {v}", sub) for v, sub in entry["matrices"].items()]


#: A perturbed attribute whose channel lets a property of prior 5 % reach a posterior of
#: 99 % or more (gamma above about 1,900) is called weakly protected.
WEAK_RHO2_AT_5_PERCENT = 0.99


def _grouped(report: dict, reason) -> list[str]:
    """One line per ``reason(attribute)`` (None: no line) of the perturbed attributes,
    naming the attributes that share it.
    """
    names: dict[str, list[str]] = {}
    for a in report["attributes"]:
        why = reason(a) if a.get("perturbed") else None
        if why is not None:
            names.setdefault(why, []).append(a["name"])
    return [f"{', '.join(n)} ({why})" for why, n in names.items()]


def weakly_protected(report: dict) -> list[str]:
    """Lines naming the protected attributes of a :func:`privacy_report` through which a
    property of prior 5 % can reach a posterior of 99 % or more.
    """

    def reason(a: dict) -> str | None:
        rho2 = a.get("rho2", {}).get("0.05", 0.0)
        if a["name"] in report["unprotected"] or rho2 < WEAK_RHO2_AT_5_PERCENT:
            return None
        return f"epsilon {a['epsilon']:.3g}: a property of prior 5 % can reach posterior {rho2:.1%}"

    return _grouped(report, reason)


def past_the_crossover(report: dict) -> list[str]:
    """Lines naming the gamma-diagonal attributes with N > 3 gamma + 2, past which k-ary
    randomized response estimates frequencies with more variance than optimized unary
    encoding at the same epsilon.

    References
    ----------
    Wang, Blocki, Li & Jha (2017), Sec. 4.4 (GRR against OUE).
    """

    def reason(a: dict) -> str | None:
        if a.get("matrix") != "gamma-diagonal" or a.get("gamma") is None:
            return None
        k, cross = int(a["N"]), 3.0 * float(a["gamma"]) + 2.0
        return f"N = {k} > 3 gamma + 2 = {cross:g} at gamma {a['gamma']:g}" if k > cross else None

    return _grouped(report, reason)


def format_privacy_report(report: dict) -> str:
    """Plain-text rendering of :func:`privacy_report`."""
    lines = [
        "ppdm privacy report",
        f"records: {'not yet released' if report['n_records'] is None else report['n_records']}",
        f"class attribute: {report['class_attribute'] or '-'} "
        f"({'perturbed' if report['class_perturbed'] else 'released unperturbed'})",
    ]
    if report["copies"] > 1:
        lines.append(
            f"copies per record: {report['copies']} (amplification compounds to gamma^{report['copies']})"
        )
    lines.append("")
    mech = mechanism_of(report)
    lines += mech.report_lines(report)
    if report["leaks"]:
        lines.append("LEAKS: the spec reveals values read off the data:")
        lines += [f"  - {x}" for x in report["leaks"]]
    lines += per_record_lines(report)
    lines += mech.report_footer
    return "\n".join(lines) + "\n"


def per_record_lines(report: dict) -> list[str]:
    """The per-record guarantee of a :func:`privacy_report` as text lines."""
    rec = report.get("per_record")
    if rec is None:
        return []
    m, copies = rec["attributes"], rec["copies"]
    lines = [
        f"per record ({m} perturbed attribute{'' if m == 1 else 's'}"
        + (f", {copies} copies each" if copies > 1 else "")
        + "):"
    ]
    lines += mechanism_of(report).epsilon_lines(rec)
    if rec["unprotected"]:
        lines.append(f"  unprotected (released as is or revealed): {', '.join(rec['unprotected'])}")
    if rec["budget"] is not None:
        verdict = "within" if rec["within_budget"] else "OVER"
        lines.append(f"  {verdict} the per-record budget {rec['budget']:.4g}")
    return lines
