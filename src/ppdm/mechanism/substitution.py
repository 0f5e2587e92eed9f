"""Random substitution (Dowd, Xu & Zhang): every perturbed attribute's value replaced by
one drawn from its row of a perturbation matrix (gamma-diagonal or the owner's), estimated
through the matrix from the released counts.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1) and Sec. 5 (gamma, rho1-to-rho2); Kang, Theorem 1
and Sec. 3 (copies).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..exceptions import DataError
from ..matrix import StratifiedMatrix
from ..privacy import (
    RHO1_LEVELS,
    attribute_privacy,
    changes_nothing,
    copies_reveal,
    record_privacy,
    rho2_from_gamma,
)
from . import CAPABILITIES, Mechanism
from .streams import attribute_streams, check_class_known, record_major

if TYPE_CHECKING:
    import pandas as pd


def _text(x, spec: str = ".3g") -> str:
    return "inf" if x is None else format(x, spec)


def _cells(a: dict, num, realised: bool) -> list[str]:
    """The privacy figures of a perturbed attribute as the reports show them, numbers
    written by ``num`` (the gamma of the integer sampler too if ``realised``)."""
    return [
        str(a["N"]),
        num(a["gamma"], ".4g"),
        *([num(a.get("gamma_realised"), ".10g")] if realised else []),
        num(a["epsilon"], ".3f"),
        *[f"{a['rho2'][str(r)]:.3f}" for r in RHO1_LEVELS],
        f"{a['entropy_bits']:.3f}",
        str(a["K"]),
        num(a.get("kang_bound"), ".4f"),
        "YES" if a["bounds_from_data"] else "no",
    ]


def stratum_keys(batch: pd.DataFrame, column: str, offset: int) -> np.ndarray:
    """Every record's stratum as text (how a stratified matrix names its strata)."""
    values = batch[column]
    missing = values.isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0]) + 1
        raise DataError(
            f"stratum column {column!r} data row {row} has no value: every record needs "
            "its stratum (it chooses the record's matrix)"
        )
    return values.astype(str).to_numpy(dtype=object)


class Substitution(Mechanism):
    """Random substitution through a matrix per attribute: every capability but noise."""

    name = "substitution"
    label = "random substitution (gamma-diagonal matrices)"
    dense = False
    capabilities = frozenset(CAPABILITIES) - {"noise"}
    refusals = {"noise": "--noise and --noise-scale are for --method additive"}
    checked_keys = ("N", "gamma", "epsilon", "entropy_bits", "copies", "gamma_per_copy")
    report_footer = (
        "Kang bound: upper bound on sigma(X_hat)/||X|| of the raw estimate at this n.",
    )
    html_legend = (
        '<p class="small"><b>N</b>: number of values (or bins) of the attribute. '
        "<b>gamma</b>: amplification, the largest ratio between the probabilities of two "
        "original values producing the same released value; <b>gamma realised</b>: that of "
        "the integer sampler actually used (at most gamma). <b>rho2 at rho1</b>: the most a "
        "property of prior probability rho1 can reach after the release. <b>H(M)</b>: "
        "entropy of the channel. <b>Kang's bound</b>: upper bound on the relative error "
        "sigma(X_hat)/||X|| of the raw estimate at this n, with <b>K</b> its constant. "
        "<b>bounds from data</b>: the domain was read off the original data (a leak).</p>"
    )

    def attribute_problem(self, a, data_file: str | None) -> str | None:
        if a.noise is not None:
            return f"attribute {a.name!r} has noise but the release method is 'substitution'"
        if data_file is not None and a.matrix is None:
            return (
                f"attribute {a.name!r} has perturbed: true but no matrix; an attribute is "
                "either perturbed (with its matrix) or released as is (perturbed: false)"
            )
        return None

    def plan_attribute(self, name: str, domain, opts) -> None:
        return None  # the matrices once every attribute's gamma is known

    def perturb(self, batches, spec, root, row_offset: int, transitions: dict | None) -> Iterator:
        import pandas as pd

        copies = attribute_streams(spec, root, row_offset)
        offset = 0
        for batch in batches:
            if offset == 0:
                spec.check_columns([str(c) for c in batch.columns])
            check_class_known(batch, spec, offset)
            outs = []
            codes_cache: dict[str, np.ndarray] = {}
            for plans in copies:
                out: dict = {}
                for name, domain, matrix, words, reps in plans:
                    if name not in codes_cache:
                        codes_cache[name] = domain.encode(
                            batch[name], column=name, row_offset=offset
                        )
                    codes = codes_cache[name]
                    if isinstance(matrix, StratifiedMatrix):
                        keys = stratum_keys(batch, matrix.strata, offset)
                        rows = pd.Categorical(keys, categories=matrix.values).codes.astype(np.int64)
                        if (rows < 0).any():
                            row = int(np.flatnonzero(rows < 0)[0])
                            raise DataError(
                                f"stratum column {matrix.strata!r} data row {offset + row + 1} has "
                                f"{keys[row]!r}, a stratum without a matrix in the spec of {name!r}"
                            )
                        perturbed = matrix.draw_rows(codes, rows, words)
                    else:
                        perturbed = matrix.draw(codes, words)
                    if transitions is not None:
                        n = matrix.n_values
                        pairs = np.bincount(codes.astype(np.int64) * n + perturbed, minlength=n * n)
                        counts = transitions.setdefault(name, np.zeros((n, n), dtype=np.int64))
                        counts += pairs.reshape(n, n)
                    out[name] = domain.decode(perturbed, random_state=reps.generator)
                # a new frame of the batch's columns, the perturbed ones replaced (no copy)
                columns = {c: out[c] if c in out else batch[c] for c in batch.columns}
                outs.append(
                    pd.DataFrame(columns, index=batch.index, columns=batch.columns, copy=False)
                )
            offset += len(batch)
            yield outs[0] if len(outs) == 1 else record_major(outs)

    def privacy(self, a, n_records: int | None, copies: int) -> dict:
        return attribute_privacy(a.get_matrix(), n_records, copies)

    def per_record(self, spec, unprotected: list[str]) -> dict:
        gammas = {a.name: a.get_matrix().amplification() for a in spec.perturbed_attributes()}
        rec = record_privacy(gammas, spec.copies, spec.epsilon_record)
        return {**rec, "unprotected": unprotected}

    def weakness(self, a, fig: dict, copies: int) -> str | None:
        if fig["gamma"] is None:
            return "unbounded"
        matrix = a.get_matrix()
        if changes_nothing(matrix):
            return "unchanged"
        return "revealed" if copies_reveal(matrix, copies) else None

    def report_lines(self, report: dict) -> list[str]:
        head = ["attribute", "N", "gamma", "epsilon"] + [f"rho2@{r}" for r in RHO1_LEVELS]
        head += ["H(M) bits", "K", "Kang bound", "bounds from data"]
        rows = [head] + [
            [a["name"], *_cells(a, _text, realised=False)]
            if a["perturbed"]
            else [a["name"], "-", "unperturbed"] + [""] * (len(head) - 3)
            for a in report["attributes"]
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        lines.append("")
        worst = report["worst_gamma"]
        if worst is not None:
            lines.append(
                f"guarantee: every perturbed attribute is at most {worst:.4g}-amplifying "
                f"(epsilon = {math.log(worst):.3f}); a property with prior below 0.1 "
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
        together = f"the {report['copies']} copies of a record, taken together, reveal its value"
        for names, why in (
            (unchanged, "a matrix that almost never changes a value releases it as it is"),
            (revealed, together),
            (bare, "a matrix with infinite amplification can reveal values exactly"),
        ):
            if names:
                lines.append(f"UNPROTECTED ({why}): " + ", ".join(names))
        return lines

    def epsilon_lines(self, rec: dict) -> list[str]:
        m, copies = rec["attributes"], rec["copies"]
        if rec["epsilon"] is None:
            return ["  epsilon per record: infinite (an attribute has no finite amplification)"]
        lines = [
            f"  epsilon per record: {rec['epsilon']:.1f} (the sum over the perturbed attributes "
            f"of {'copies x ' if copies > 1 else ''}ln gamma)"
        ]
        for k, amp in rec["amplification"].items():
            size = (
                f"all {m} attributes" if k == "all" else f"{k} attribute{'' if k == '1' else 's'}"
            )
            bound = "unbounded" if amp is None else f"up to {amp:.4g}"
            lines.append(f"  a property of {size}: amplification {bound}")
        return lines

    def html_table(self, rep: dict, h) -> str:
        head = ["attribute", "N", "gamma", "gamma realised", "epsilon = ln gamma"]
        head += [f"rho2 at rho1 = {r}" for r in RHO1_LEVELS]
        head += ["entropy H(M) (bits)", "K", "Kang's bound", "bounds from data"]
        rows = [
            h.row(a["name"], _cells(a, h.num, realised=True))
            if a["perturbed"]
            else h.unperturbed(a["name"], len(head))
            for a in rep["attributes"]
        ]
        return h.table(head, rows)

    def html_guarantee(self, rep: dict) -> str:
        worst = rep["worst_gamma"]
        if worst is None:
            return (
                '<div class="box bad"><b>No guarantee</b> for at least one attribute: a matrix '
                "with zero entries has infinite amplification and can reveal values exactly.</div>"
            )
        if not any(a["perturbed"] for a in rep["attributes"]):
            return '<div class="box bad"><b>No guarantee</b>: no attribute is perturbed.</div>'
        rho2 = rho2_from_gamma(worst, 0.1)
        return (
            f'<div class="box">Every perturbed attribute is at most <b>{worst:.4g}-amplifying'
            f"</b> (epsilon = {math.log(worst):.3f}). In plain words: whatever someone believed "
            "about a record before seeing the release, if a property of one of these attributes "
            f"had probability below 10 % for them, after seeing the release it has probability "
            f"below <b>{rho2:.1%}</b>. This holds for every record and every property, whatever "
            "the attacker knows about the other records, but only for the perturbed attributes."
            "</div>"
        )

    def html_epsilon(self, rec: dict, h) -> list[tuple[str, str]]:
        if rec["epsilon"] is None:
            return [("epsilon per record", "&infin; (an attribute has no finite amplification)")]
        rows = [("epsilon per record", f"{rec['epsilon']:.1f}")]
        for k, amp in rec["amplification"].items():
            size = f"all {rec['attributes']}" if k == "all" else k
            rows.append((f"amplification of a property of {size} attribute(s)", h.num(amp, ".4g")))
        return rows
