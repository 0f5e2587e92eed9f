"""Additive noise (Agrawal & Srikant 2000): released values ``x + y`` with noise ``y``,
estimated by reconstruction over the bins of each attribute's domain.

References
----------
Agrawal & Srikant (2000), Sec. 2 (the noise and its privacy), Sec. 3 (reconstruction);
Islam & Brankovic (noise for trees).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ..estimate import Estimate
from ..exceptions import DataError, SpecError
from ..privacy import additive_privacy
from ..random import WordStream, stream_generator
from ..validation import check_choice, check_positive
from . import Mechanism
from .streams import ADDITIVE, check_class_known, unit_uniforms

if TYPE_CHECKING:  # they load pandas: the command line starts without it
    from ..additive import AdditiveNoise
    from ..domain import CategoricalDomain, Domain

#: The noise distributions of an additive release.
NOISE_KINDS = ("uniform", "gaussian")


def additive_noise_for_level(kind: str, level: float, value_range: float) -> AdditiveNoise:
    """Noise whose 95 % interval width is ``level`` times ``value_range``: uniform on
    ``[-a, a]`` has width ``0.95 * 2a``, Gaussian ``2 * 1.96 sigma`` (Agrawal & Srikant
    2000, Sec. 2.1)."""
    from ..additive import AdditiveNoise, privacy_interval_width

    check_choice(kind, "noise", NOISE_KINDS, error=SpecError)
    level = check_positive(level, "noise_scale", error=SpecError)
    unit = privacy_interval_width(kind, 1.0, 0.95)  # width per unit of scale
    return AdditiveNoise(kind, float(level) * float(value_range) / unit)


def numeric_values_of(domain: CategoricalDomain) -> np.ndarray | None:
    """The values of a categorical domain as numbers (``None`` if one is not a number)."""
    vals = domain.values
    if domain.missing_category or not all(
        isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in vals
    ):
        return None
    return np.asarray(vals, dtype=np.float64)


def _additive_noise(noise, u: np.ndarray) -> np.ndarray:
    """Noise by inversion of its distribution function at uniforms ``u`` in (0, 1)."""
    if noise.kind == "uniform":
        return noise.scale * (2.0 * u - 1.0)
    from scipy.special import ndtri

    return noise.scale * ndtri(u)


_HEAD = ["attribute", "noise", "scale", "variance", "95% interval", "of range", "bounds from data"]


def _cells(a: dict, escape) -> list[str]:
    """The privacy figures of a perturbed attribute as the reports show them."""
    return [
        escape(a["noise"]),
        f"{a['scale']:.4g}",
        f"{a['variance']:.4g}",
        f"{a['interval_width_95']:.4g}",
        f"{a['relative_interval_width_95']:.0%}",
        "YES" if a["bounds_from_data"] else "no",
    ]


class Additive(Mechanism):
    """Additive noise, ``x + y``: no matrix, so none of the capabilities built on one."""

    name = "additive"
    label = "additive noise"
    dense = True  # estimated with dense N x N transition matrices
    capabilities = frozenset({"noise"})
    refusals = {
        "codes": "the partitioned and Dask engines count the codes of substitution releases; "
        "estimate an additive release with the local engine (the default)",
        "reconstruct": "Algorithm 2 reconstructs substitution releases; an additive release is "
        "already numeric (estimate its distribution with ppdm estimate)",
        "empirical_epsilon": "{head}the empirical epsilon audits substitution matrices; an "
        "additive release has none",
        "pairs": "{head}two-way tables are estimated for substitution releases; this one adds noise",
        "attacks": "the release must use substitution (got method {name!r})",
        "audit": "the audit checks substitution releases (this one uses {name!r}); additive noise "
        "has no rho1-to-rho2 bound to check",
        "copies": "copies is for substitution releases only; an additive release has one (got "
        "{copies})",
        "budget": "epsilon_record is for substitution releases: additive noise has no "
        "amplification to budget (got {budget})",
        "estimators": "--method {method} applies to substitution releases; release {release!r} "
        "adds noise, and is estimated by Agrawal & Srikant's reconstruction (as2000): leave "
        "--method out",
        "matrix": "{flag} is for substitution releases; --method additive takes --noise-scale",
    }
    checked_keys = ("noise", "scale")

    def attribute_problem(self, a, data_file: str | None) -> str | None:
        if a.noise is None or a.domain is None:
            return f"attribute {a.name!r} of an additive release needs noise and a domain"
        if a.domain.get("kind") != "binned":
            return f"attribute {a.name!r} of an additive release needs a binned domain"
        return None

    def plan_attribute(self, name: str, domain: Domain, opts) -> dict:
        from ..domain import BinnedDomain, CategoricalDomain

        if isinstance(domain, CategoricalDomain):
            values = numeric_values_of(domain)
            if values is None:
                raise DataError(
                    f"column {name!r} is not numeric: additive noise needs numbers; leave it "
                    "unperturbed (--attributes) or use substitution"
                )
            domain = BinnedDomain(
                float(values.min()),
                float(values.max()),
                opts.bins_cap,
                bounds_from_data=domain.from_data,
            )
        if domain.missing_category:
            raise DataError(f"column {name!r}: additive noise cannot carry a 'missing' category")
        nz = additive_noise_for_level(opts.noise, opts.noise_scale, domain.high - domain.low)
        return {"domain": domain.to_spec(), "noise": {"kind": nz.kind, "scale": nz.scale}}

    def perturb(self, batches, spec, root, row_offset: int, transitions: dict | None) -> Iterator:
        # one 64-bit word per value, addressed by row, under the key (ADDITIVE, attribute)
        plans = [
            (
                a.name,
                a.get_domain(),
                a.get_noise(),
                WordStream(stream_generator(root, ADDITIVE, a.name), row=row_offset),
            )
            for a in spec.perturbed_attributes()
        ]
        offset = 0
        for batch in batches:
            if offset == 0:
                spec.check_columns([str(c) for c in batch.columns])
            check_class_known(batch, spec, offset)
            out = batch.copy()
            for name, domain, noise, stream in plans:
                # missing values and bounds
                domain.encode(batch[name], column=name, row_offset=offset)
                x = batch[name].to_numpy(dtype=np.float64)
                if domain.out_of_bounds == "clip":
                    x = np.clip(x, domain.low, domain.high)
                out[name] = x + _additive_noise(noise, unit_uniforms(stream, len(x)))
            offset += len(batch)
            yield out

    def privacy(self, a, n_records: int | None, copies: int) -> dict:
        return additive_privacy(a.get_noise(), a.get_domain().low, a.get_domain().high)

    def estimate_values(self, values: np.ndarray, a) -> Estimate:
        """Agrawal & Srikant's reconstruction of one attribute over its domain's bins, the
        released values counted in the bins as ``perturbed``, with the bootstrap standard
        error of :func:`ppdm.additive.reconstruction_stderr`.

        References
        ----------
        Agrawal & Srikant (2000), Sec. 3 (:func:`ppdm.additive.reconstruct_distribution`);
        Efron & Tibshirani (1993), Ch. 6.
        """
        from ..additive import reconstruct_distribution, reconstruction_stderr
        from ..estimate import BOOTSTRAP_REPLICATES

        noise, domain = a.get_noise(), a.get_domain()
        w = np.asarray(values, dtype=np.float64)
        lo, hi, bins = float(domain.low), float(domain.high), int(domain.n_bins)
        est = reconstruct_distribution(w, noise.kind, noise.scale, bins=bins, bounds=(lo, hi))
        stderr = reconstruction_stderr(
            w, noise.kind, noise.scale, bins=bins, bounds=(lo, hi), replicates=BOOTSTRAP_REPLICATES
        )
        perturbed = np.bincount(domain.encode(np.clip(w, lo, hi)), minlength=bins).astype(float)
        return Estimate(
            perturbed=perturbed,
            counts=float(w.size) * est.probabilities,
            stderr=stderr,
            method="as2000",
            stderr_kind=f"bootstrap (B={BOOTSTRAP_REPLICATES})",
        )

    def per_record(self, spec, unprotected: list[str]) -> dict:
        none = dict.fromkeys(("epsilon", "amplification", "budget", "within_budget"))
        m = len(spec.perturbed_attributes())
        return {"attributes": m, "copies": spec.copies, **none, "unprotected": unprotected}

    def weakness(self, a, fig: dict, copies: int) -> str | None:
        return None

    def report_lines(self, report: dict) -> list[str]:
        rows = [_HEAD]
        for a in report["attributes"]:
            rows.append(
                [a["name"], *_cells(a, str)]
                if a["perturbed"]
                else [a["name"], "unperturbed"] + [""] * 5
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
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
        return lines

    def epsilon_lines(self, rec: dict) -> list[str]:
        return [
            "  epsilon per record: none (additive noise has no amplification bound, per "
            "attribute or per record)"
        ]

    def html_table(self, rep: dict, h) -> str:
        rows = [
            h.row(a["name"], _cells(a, h.e)) if a["perturbed"] else h.unperturbed(a["name"], 7)
            for a in rep["attributes"]
        ]
        return h.table(_HEAD, rows)

    def html_guarantee(self, rep: dict) -> str:
        return (
            '<div class="box warn">Additive noise (Agrawal &amp; Srikant 2000): privacy is the '
            "width of the interval that holds the original value with 95 % confidence. There is "
            "<b>no</b> rho1-to-rho2 guarantee (the amplification of additive noise is "
            "unbounded), and correlated attributes can be recovered by spectral filtering.</div>"
        )

    def html_epsilon(self, rec: dict, h) -> list[tuple[str, str]]:
        return [("epsilon per record", "none: additive noise has no amplification bound")]
