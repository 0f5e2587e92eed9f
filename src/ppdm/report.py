"""The privacy report of a release: per attribute gamma, rho1-to-rho2, epsilon, entropy, N, Kang.

References
----------
Dowd, Xu & Zhang, Sec. 5 (gamma, rho1-to-rho2, entropy); Kang, Theorem 1 and Sec. 3
(error bound; m copies amplify to gamma^m).
"""

from __future__ import annotations

from .matrix import FROM_DATA
from .privacy import RHO1_LEVELS, changes_nothing, copies_reveal
from .release import ReleaseSpec

__all__ = [
    "privacy_report",
    "format_privacy_report",
    "oracle_crossover",
    "past_the_crossover",
    "per_record_lines",
    "weakly_protected",
]


def privacy_report(spec: ReleaseSpec) -> dict:
    """Machine-readable privacy report of a release spec.

    The figures are recomputed from the matrices, so the report cannot disagree with
    the spec. Attributes whose bounds or values were read off the data are listed
    under ``"leaks"``.

    ``"per_record"`` holds the guarantee of a whole record
    (:func:`ppdm.privacy.record_privacy`): ``attributes`` (m perturbed), ``copies``,
    ``epsilon`` (sum of copies x ln gamma; None if unbounded or additive),
    ``amplification`` (``"1"``, ``"2"``, ``"3"``, ``"all"`` -> product of the k largest
    gammas, None if unbounded; None for additive noise), ``budget`` (the spec's
    ``epsilon_record``), ``within_budget`` and ``unprotected``.
    """
    from .privacy import additive_privacy, attribute_privacy

    attrs = []
    leaks = []
    unchanged = []  # through a channel that almost never changes a value
    revealed = []  # in copies that, taken together, give the value away
    for a in spec.attributes:
        if not a.perturbed:
            attrs.append({"name": a.name, "perturbed": False})
            continue
        dom = a.get_domain()
        if spec.method == "additive":
            fig = additive_privacy(a.get_noise(), a.get_domain().low, a.get_domain().high)
        else:
            matrix = a.get_matrix()
            fig = attribute_privacy(matrix, spec.n_records, spec.copies)
            if fig["gamma"] is not None and changes_nothing(matrix):
                unchanged.append(a.name)
            elif fig["gamma"] is not None and copies_reveal(matrix, spec.copies):
                revealed.append(a.name)
        from_data = bool(
            getattr(dom, "bounds_from_data", False) or getattr(dom, "from_data", False)
        )
        fig.update(
            {
                "name": a.name,
                "perturbed": True,
                "matrix": a.matrix.get("kind") if a.matrix else None,
                "domain": dom.kind,
                "bounds_from_data": from_data,
            }
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
    perturbed = [a for a in attrs if a["perturbed"]]
    gammas = [a.get("gamma") for a in perturbed]
    worst = None if not gammas or any(g is None for g in gammas) else max(gammas)
    unperturbed = [a["name"] for a in attrs if not a["perturbed"]]
    # released as is, through a channel that can reveal values exactly, or through one
    # that almost never changes a value
    unbounded = [a["name"] for a in perturbed if spec.method != "additive" and a["gamma"] is None]
    unprotected = unperturbed + unbounded + unchanged + revealed
    return {
        "method": spec.method,
        "n_records": spec.n_records,
        "class_attribute": spec.class_attribute,
        "class_perturbed": spec.class_perturbed,
        "copies": spec.copies,
        "worst_gamma": worst,
        "unperturbed": unperturbed,
        "unprotected": unprotected,
        "unchanged": unchanged,
        "revealed_by_copies": revealed,
        "leaks": leaks,
        "attributes": attrs,
        "per_record": _per_record(spec, unprotected),
    }


def _entries(entry: dict | None) -> list[tuple[str, dict]]:
    """A matrix entry's own entries: itself, or one per stratum (with where it applies)."""
    if not entry:
        return []
    if entry.get("kind") != "stratified":
        return [("", entry)]
    return [(f" of stratum {entry['strata']} = {v}", sub) for v, sub in entry["matrices"].items()]


def _per_record(spec: ReleaseSpec, unprotected: list[str]) -> dict:
    """The guarantee of a whole record (:func:`ppdm.privacy.record_privacy`), with the
    columns it leaves unprotected; an additive release has no amplification to sum."""
    from .privacy import record_privacy

    if spec.method == "additive":
        return {
            "attributes": len(spec.perturbed_attributes()),
            "copies": spec.copies,
            "epsilon": None,
            "amplification": None,
            "budget": None,
            "within_budget": None,
            "unprotected": unprotected,
        }
    gammas = {a.name: a.get_matrix().amplification() for a in spec.perturbed_attributes()}
    rec = record_privacy(gammas, spec.copies, spec.epsilon_record)
    return {**rec, "unprotected": unprotected}


#: A perturbed attribute whose channel lets a property of prior 5 % reach a posterior of
#: 99 % or more (gamma above about 1,900) is called weakly protected.
WEAK_RHO2_AT_5_PERCENT = 0.99


def weakly_protected(report: dict) -> list[str]:
    """The perturbed attributes of a :func:`privacy_report` that are protected, but so
    weakly that a property of prior 5 % can reach a posterior of 99 % or more: one line
    per set of figures, naming the attributes that share them (none unprotected)."""
    weak: dict[str, list[str]] = {}
    for a in report["attributes"]:
        if (
            a.get("perturbed")
            and a["name"] not in report["unprotected"]
            and a.get("rho2", {}).get("0.05", 0.0) >= WEAK_RHO2_AT_5_PERCENT
        ):
            why = (
                f"epsilon {a['epsilon']:.3g}: a property of prior 5 % can reach posterior "
                f"{a['rho2']['0.05']:.1%}"
            )
            weak.setdefault(why, []).append(a["name"])
    return [f"{', '.join(names)} ({why})" for why, names in weak.items()]


def oracle_crossover(gamma: float) -> float:
    """``3 gamma + 2``: past this many values, k-ary randomized response (a gamma-diagonal
    matrix) estimates frequencies with more variance than optimized unary encoding at
    the same epsilon = ln gamma.

    References
    ----------
    Wang, Blocki, Li & Jha (2017), Sec. 4.4 (GRR against OUE).

    Examples
    --------
    >>> oracle_crossover(9.0)
    29.0
    """
    return 3.0 * gamma + 2.0


def past_the_crossover(report: dict) -> list[str]:
    """The gamma-diagonal attributes of a :func:`privacy_report` with more values than
    :func:`oracle_crossover` of their gamma: one line per set of figures."""
    past: dict[str, list[str]] = {}
    for a in report["attributes"]:
        if not a.get("perturbed") or a.get("matrix") != "gamma-diagonal" or a.get("gamma") is None:
            continue
        k, cross = int(a["N"]), oracle_crossover(float(a["gamma"]))
        if k > cross:
            why = f"N = {k} > 3 gamma + 2 = {cross:g} at gamma {a['gamma']:g}"
            past.setdefault(why, []).append(a["name"])
    return [f"{', '.join(names)} ({why})" for why, names in past.items()]


def _fmt(x, spec: str = ".3g") -> str:
    return "inf" if x is None else format(x, spec)


def _format_additive(report: dict, lines: list[str]) -> str:
    rows = [
        ["attribute", "noise", "scale", "variance", "95% interval", "of range", "bounds from data"]
    ]
    for a in report["attributes"]:
        if not a["perturbed"]:
            rows.append([a["name"], "unperturbed"] + [""] * 5)
            continue
        rows.append(
            [
                a["name"],
                a["noise"],
                f"{a['scale']:.4g}",
                f"{a['variance']:.4g}",
                f"{a['interval_width_95']:.4g}",
                f"{a['relative_interval_width_95']:.0%}",
                "YES" if a["bounds_from_data"] else "no",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines += [
        "",
        "method: additive noise (Agrawal & Srikant 2000). Privacy is the width of the interval",
        "holding the original with 95 % confidence. There is NO rho1-to-rho2 guarantee (the",
        "amplification of additive noise is unbounded), and correlated attributes can be",
        "recovered by spectral filtering and PCA/Bayes reconstruction (Kargupta et al. 2003;",
        "Huang, Du & Chen 2005).",
    ]
    if report["unperturbed"]:
        lines.append(f"released as is (no protection): {', '.join(report['unperturbed'])}")
    if report["leaks"]:
        lines.append("LEAKS: the spec reveals values read off the data:")
        lines += [f"  - {x}" for x in report["leaks"]]
    lines += per_record_lines(report)
    return "\n".join(lines) + "\n"


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
    if report.get("method") == "additive":
        return _format_additive(report, lines)
    head = ["attribute", "N", "gamma", "epsilon"] + [f"rho2@{r}" for r in RHO1_LEVELS]
    head += ["H(M) bits", "K", "Kang bound", "bounds from data"]
    rows = [head]
    for a in report["attributes"]:
        if not a["perturbed"]:
            rows.append([a["name"], "-", "unperturbed"] + [""] * (len(head) - 3))
            continue
        rows.append(
            [
                a["name"],
                str(a["N"]),
                _fmt(a["gamma"], ".4g"),
                _fmt(a["epsilon"], ".3f"),
                *[f"{a['rho2'][str(r)]:.3f}" for r in RHO1_LEVELS],
                f"{a['entropy_bits']:.3f}",
                str(a["K"]),
                _fmt(a.get("kang_bound"), ".4f"),
                "YES" if a["bounds_from_data"] else "no",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    for r in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    lines.append("")
    worst = report["worst_gamma"]
    if worst is not None:
        from .privacy import rho2_from_gamma

        lines.append(
            f"guarantee: every perturbed attribute is at most {worst:.4g}-amplifying "
            f"(epsilon = {__import__('math').log(worst):.3f}); a property with prior below 0.1 "
            f"has posterior below {rho2_from_gamma(worst, 0.1):.3f}."
        )
    else:
        lines.append(
            "guarantee: NONE for at least one attribute (a matrix with zero entries has "
            "infinite amplification)."
        )
    realised = [a["gamma_realised"] for a in report["attributes"] if a.get("gamma_realised")]
    if realised:
        lines.append(
            "sampling: each gamma-diagonal channel is realised exactly by integer thresholds "
            f"on raw random words, with amplification at most gamma (lowest: {min(realised):.10g})."
        )
    for a in report["attributes"]:
        if a.get("strata"):
            each = ", ".join(f"{v} {g:.4g}" for v, g in a["gamma_per_stratum"].items())
            lines.append(
                f"strata: {a['name']} has one matrix per value of {a['strata']} (released as "
                f"is); gamma per stratum: {each}; the table states the least private."
            )
    if report["unperturbed"]:
        lines.append(f"released as is (no protection): {', '.join(report['unperturbed'])}")
    unchanged = report.get("unchanged", [])
    revealed = report.get("revealed_by_copies", [])
    named = report["unperturbed"] + unchanged + revealed
    bare = [n for n in report.get("unprotected", []) if n not in named]
    if unchanged:
        lines.append(
            "UNPROTECTED (a matrix that almost never changes a value releases it as it is): "
            + ", ".join(unchanged)
        )
    if revealed:
        lines.append(
            f"UNPROTECTED (the {report['copies']} copies of a record, taken together, reveal "
            "its value): " + ", ".join(revealed)
        )
    if bare:
        lines.append(
            "UNPROTECTED (a matrix with infinite amplification can reveal values exactly): "
            + ", ".join(bare)
        )
    if report["leaks"]:
        lines.append("LEAKS: the spec reveals values read off the data:")
        lines += [f"  - {x}" for x in report["leaks"]]
    lines += per_record_lines(report)
    lines.append("Kang bound: upper bound on sigma(X_hat)/||X|| of the raw estimate at this n.")
    return "\n".join(lines) + "\n"


def per_record_lines(report: dict) -> list[str]:
    """The per-record guarantee of a :func:`privacy_report` as text lines: total epsilon,
    the amplification of a property of k attributes, the columns released unprotected,
    and the per-record budget."""
    rec = report.get("per_record")
    if rec is None:
        return []
    m, copies = rec["attributes"], rec["copies"]
    lines = [
        f"per record ({m} perturbed attribute{'' if m == 1 else 's'}"
        + (f", {copies} copies each" if copies > 1 else "")
        + "):"
    ]
    if report.get("method") == "additive":
        lines.append(
            "  epsilon per record: none (additive noise has no amplification bound, per "
            "attribute or per record)"
        )
    elif rec["epsilon"] is None:
        lines.append("  epsilon per record: infinite (an attribute has no finite amplification)")
    else:
        lines.append(
            f"  epsilon per record: {rec['epsilon']:.1f} (the sum over the perturbed attributes "
            f"of {'copies x ' if copies > 1 else ''}ln gamma)"
        )
        for k, amp in rec["amplification"].items():
            size = (
                f"all {m} attributes" if k == "all" else f"{k} attribute{'' if k == '1' else 's'}"
            )
            bound = "unbounded" if amp is None else f"up to {amp:.4g}"
            lines.append(f"  a property of {size}: amplification {bound}")
    if rec["unprotected"]:
        lines.append(f"  unprotected (released as is or revealed): {', '.join(rec['unprotected'])}")
    if rec["budget"] is not None:
        verdict = "within" if rec["within_budget"] else "OVER"
        lines.append(f"  {verdict} the per-record budget {rec['budget']:.4g}")
    return lines
