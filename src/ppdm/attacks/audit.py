"""The owner's audit of a substitution release: run every attack, compare with the bounds.

The owner holds the original table, so every attack's success can be counted, not
only bounded. For each perturbed attribute the audit reports

- the share of records each attack recovers (the same value; for numbers, within a
  tolerance, one bin width by default), and the best of them;
- the share a guess from the prior alone recovers (the most frequent value of the
  distribution estimated from the release), and ``q*``, the best any fixed guess could
  do, counted from the original;
- the most any attack may recover under the owner's privacy policy,
  ``rho2(gamma, q*)`` (:mod:`ppdm.attacks.bayes_optimal`), with ``gamma`` the policy's
  amplification for attacks that read one attribute and its power over the attributes
  read for the record-level attacks;
- the realised worst posterior of properties with prior at most rho1, from the model
  and counted from the data (:mod:`ppdm.attacks.breach`), against ``rho2(gamma, rho1)``.

The policy is a rho1-to-rho2 pair (default 0.1 to 0.5, ppdm's default gamma of 9). A
release whose spec promises a larger gamma is flagged once the attacks show it. Counted
figures carry sampling noise of the perturbation; a figure counts as a violation only
when its one-sided exact (Clopper-Pearson) lower confidence limit exceeds the bound,
with the false-alarm rate ``alpha`` shared (Bonferroni) over every figure tested: half
over the recovery rates, half over the posterior searches.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..exceptions import DataError, SpecError
from ..io import read_table
from ..privacy import RHO1_LEVELS, gamma_from_rho, rho2_from_gamma
from ..random import RandomState, check_random_state
from ._common import atomic_file
from ._substitution import binomial_lower, numeric_values
from .as_noise import NUMERIC_ATTACKS, attack_substitution_release
from .bayes_optimal import bayes_optimal_attack, recovery_bound
from .breach import empirical_breach, worst_posterior
from .linkage import check_keys, format_linkage, linkage_report
from .repeated import repeated_perturbation_attack

__all__ = ["audit_release", "format_audit", "plot_audit"]


def _prior_best(x: np.ndarray | None, codes: np.ndarray, n_values: int, tol: float | None) -> float:
    """``q*``: the largest share of originals any single fixed guess recovers."""
    if x is None:
        return float(np.bincount(codes, minlength=n_values).max() / codes.size)
    xs = np.sort(x)
    # an interval of length 2 tol holding the most values can start at a value
    inside = np.searchsorted(xs, xs + 2.0 * tol, side="right") - np.arange(xs.size)
    return float(inside.max() / xs.size)


def _default_tolerance(domain, values: np.ndarray) -> float:
    width = getattr(domain, "width", None)
    if width is not None:
        return float(width)
    gaps = np.diff(np.sort(values))
    return 0.5 * float(gaps.min()) * (1 - 1e-9)


def _load(release, original):
    from ..pipeline import Release, load_release

    rel = release if isinstance(release, Release) else load_release(release)
    spec = rel.spec
    if spec.method != "substitution":
        raise SpecError(
            f"the audit checks substitution releases (this one uses {spec.method!r}); "
            "additive noise has no rho1-to-rho2 bound to check"
        )
    if spec.copies != 1:
        raise SpecError(
            f"the audit needs one perturbed copy per record (this release has {spec.copies})"
        )
    if not spec.perturbed_attributes():
        raise SpecError("the release perturbs no attribute: nothing to audit")
    if isinstance(original, pd.DataFrame):
        orig = original
    else:
        path = Path(original)
        if not path.exists():
            raise FileNotFoundError(f"original data file {str(path)!r} does not exist")
        orig = read_table(path)
    released = rel.frame()
    missing = [c for c in spec.names if c not in orig.columns]
    if missing:
        raise DataError(f"the original data lacks the release's columns {missing}")
    if len(orig) != len(released):
        raise DataError(
            f"the original has {len(orig)} records but the release has {len(released)}; "
            "pass the table the release was made from"
        )
    return rel, spec, orig.reset_index(drop=True), released


def audit_release(
    release,
    original,
    *,
    tolerance: float | None = None,
    rho: tuple[float, float] = (0.1, 0.5),
    alpha: float = 0.001,
    repeat: int = 2,
    rho1_levels=RHO1_LEVELS,
    random_state: RandomState = 0,
    keys: Sequence[str] | None = None,
) -> dict:
    """Attack a release with its original at hand and check the privacy policy.

    Parameters
    ----------
    release : Release or path
        A substitution release with one copy per record.
    original : pandas.DataFrame or path
        The table it was made from, in the same record order.
    tolerance : float, optional
        A numeric guess within this distance of the original counts as recovered.
        Default: one bin width (binned attributes), the value itself (categorical).
    rho : (float, float), default=(0.1, 0.5)
        The owner's policy: no property of prior below rho1 may reach posterior rho2;
        its amplification ``gamma = rho2 (1 - rho1) / (rho1 (1 - rho2))`` sets every bound.
    alpha : float, default=0.001
        False-alarm probability shared by all counted figures.
    repeat : int, default=2
        Extra perturbations of the repeated-perturbation attack.
    rho1_levels : sequence of float, default=(0.01, 0.05, 0.1, 0.2)
    random_state : None, int or Generator, default=0
        For the repeated-perturbation attack.
    keys : sequence of str, optional
        Key attributes: the report then holds ``"linkage"``, their k-anonymity and the
        linkage attack's re-identification share (:mod:`ppdm.attacks.linkage`).

    Returns
    -------
    dict
        JSON-ready report; ``passed`` is False and ``violations`` lists every bound a
        counted figure exceeds.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3.3 and 5 (the attacks and the rho1-to-rho2 requirement);
    Evfimievski, Gehrke & Srikant (2003) (amplification); Kargupta et al. (2003) and
    Huang, Du & Chen (2005) (data-recovery attacks).

    Examples
    --------
    >>> import tempfile, warnings
    >>> from ppdm.pipeline import make_release
    >>> df = pd.DataFrame({"x": np.random.default_rng(0).integers(0, 5, 2000)})
    >>> with tempfile.TemporaryDirectory() as d, warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _ = make_release(df, d, random_state=0, gamma=9.0)
    ...     report = audit_release(d, df)
    >>> report["passed"]
    True
    """
    if tolerance is not None and not (math.isfinite(tolerance) and tolerance >= 0):
        raise ValueError(f"tolerance must be a finite number >= 0 (got {tolerance})")
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1) (got {alpha})")
    policy_gamma = gamma_from_rho(*rho)
    rel, spec, orig, released = _load(release, original)
    if keys is not None:
        keys = check_keys(keys, orig, released)
    rng = check_random_state(random_state)
    n = len(released)
    attrs = spec.perturbed_attributes()

    # per attribute: originals, codes, the numbers, the tolerance
    info = {}
    for a in attrs:
        dom, m = a.get_domain(), a.get_matrix()
        v = numeric_values(dom)
        x_codes = dom.encode(orig[a.name], column=a.name).astype(np.int64)
        y_codes = dom.encode(released[a.name], column=a.name).astype(np.int64)
        x = None
        tol = None
        if v is not None:
            x = pd.to_numeric(orig[a.name], errors="raise").to_numpy(dtype=np.float64)
            tol = float(tolerance) if tolerance is not None else _default_tolerance(dom, v)
        info[a.name] = (dom, m, v, x, x_codes, y_codes, tol)

    numeric = [a.name for a in attrs if info[a.name][2] is not None]
    record_estimates = {}
    if numeric and n > len(numeric):
        for att in NUMERIC_ATTACKS:
            record_estimates[att] = attack_substitution_release(
                released, spec, att, attributes=numeric
            ).estimate
    # Bonferroni: half of alpha over recovery rates (policy and spec bounds), half over
    # the two empirical posterior searches of every attribute
    alpha_rate = 0.5 * alpha / (2 * len(attrs) * (3 + len(record_estimates)))
    alpha_breach = 0.5 * alpha / (2 * len(attrs))
    gamma_record_spec = math.prod(info[c][1].amplification() for c in numeric) if numeric else 1.0
    gamma_record_policy = policy_gamma ** max(len(numeric), 1)

    tried = ["bayes-map", "released-value", f"repeated-perturbation(t={repeat})"] + list(
        record_estimates
    )
    out_attrs = []
    violations: list[str] = []
    all_hit = np.ones(n, dtype=bool)
    all_prior_hit = np.ones(n, dtype=bool)
    for a in attrs:
        dom, m, v, x, x_codes, y_codes, tol = info[a.name]
        gamma_spec = m.amplification()

        def hits(guess_codes=None, guess_values=None, x=x, v=v, tol=tol, x_codes=x_codes):
            if v is None:
                return guess_codes == x_codes
            g = v[guess_codes] if guess_values is None else np.asarray(guess_values, float)
            return np.abs(g - x) <= tol

        bayes = bayes_optimal_attack(y_codes, m)
        rounds = repeated_perturbation_attack(y_codes, m, repeat, rng)
        prior_guess = int(np.argmax(bayes.prior))
        prior_hit = hits(np.full(n, prior_guess))
        q_star = _prior_best(x, x_codes, m.n_values, tol)
        per_attack = {
            "bayes-map": (hits(bayes.guess), gamma_spec, policy_gamma),
            "released-value": (hits(y_codes), gamma_spec, policy_gamma),
            f"repeated-perturbation(t={repeat})": (
                hits(rounds[-1].guess),
                gamma_spec,
                policy_gamma,
            ),
        }
        if a.name in numeric:
            for att, est in record_estimates.items():
                per_attack[att] = (
                    hits(guess_values=est[a.name].to_numpy()),
                    gamma_record_spec,
                    gamma_record_policy,
                )
        results = {}
        for name, (hit, g_spec, g_pol) in per_attack.items():
            rate = float(hit.mean())
            lower = float(binomial_lower(int(hit.sum()), n, alpha_rate))
            bound_policy = recovery_bound(g_pol, q_star)
            bound_spec = recovery_bound(g_spec, q_star)
            bad_policy = lower > bound_policy + 1e-12
            bad_spec = lower > bound_spec + 1e-12
            results[name] = {
                "recovered": rate,
                "lower_confidence": lower,
                "bound": bound_policy,
                "bound_spec": bound_spec,
                "violated": bool(bad_policy or bad_spec),
            }
            if bad_policy:
                violations.append(
                    f"{a.name}: {name} recovers {rate:.3f} of records (lower limit {lower:.3f}); "
                    f"the policy allows at most {bound_policy:.3f}"
                )
            if bad_spec:
                violations.append(
                    f"{a.name}: {name} recovers {rate:.3f}, above the {bound_spec:.3f} its spec "
                    f"(gamma {g_spec:.4g}) allows: the release does not behave as its spec says"
                )
        best = max(results, key=lambda k: results[k]["recovered"])
        all_hit &= per_attack["bayes-map"][0]
        all_prior_hit &= prior_hit

        model = worst_posterior(m, bayes.prior, policy_gamma, rho1_levels)
        emp = empirical_breach(
            x_codes, y_codes, m.n_values, policy_gamma, rho1_levels, alpha=alpha_breach
        )
        emp_spec = empirical_breach(
            x_codes, y_codes, m.n_values, gamma_spec, rho1_levels, alpha=alpha_breach
        )
        breach = []
        for lm, le, ls in zip(model, emp, emp_spec):
            row = {
                "rho1": lm.rho1,
                "bound": lm.bound,
                "bound_spec": ls.bound,
                "model_posterior": lm.worst_posterior,
                "empirical_posterior": le.worst_posterior,
                "empirical_lower_confidence": le.lower_confidence,
                "property_values": [dom.labels()[k] for k in le.property_values],
                "violated": bool(lm.violated or le.violated or ls.violated),
            }
            breach.append(row)
            if lm.violated or le.violated:
                violations.append(
                    f"{a.name}: a property of prior <= {lm.rho1} reaches posterior "
                    f"{max(lm.worst_posterior, le.worst_posterior):.3f} (model {lm.worst_posterior:.3f}, "
                    f"counted {le.worst_posterior:.3f}); the policy allows {lm.bound:.3f}"
                )
            if ls.violated:
                violations.append(
                    f"{a.name}: counted posterior {le.worst_posterior:.3f} at rho1 = {lm.rho1} "
                    f"exceeds the spec's own bound {ls.bound:.3f}"
                )
        prior_rate = float(prior_hit.mean())
        out_attrs.append(
            {
                "name": a.name,
                "domain": dom.kind,
                "N": m.n_values,
                "gamma": gamma_spec,
                "tolerance": tol,
                "prior_only": prior_rate,
                "prior_best": q_star,
                "attacks": results,
                "best_attack": best,
                "best_recovered": results[best]["recovered"],
                "gain": results[best]["recovered"] - prior_rate,
                "allowed_gain": results["bayes-map"]["bound"] - q_star,
                "breach": breach,
                "violated": any(r["violated"] for r in results.values())
                or any(b["violated"] for b in breach),
            }
        )
    best_mean = float(np.mean([r["best_recovered"] for r in out_attrs]))
    prior_mean = float(np.mean([r["prior_only"] for r in out_attrs]))
    return {
        "release": str(rel.data_path.parent),
        "n_records": n,
        "policy": {"rho1": float(rho[0]), "rho2": float(rho[1]), "gamma": policy_gamma},
        "spec_gamma": max(r["gamma"] for r in out_attrs),
        "alpha": alpha,
        "attacks_tried": tried,
        "attributes": out_attrs,
        "overall": {
            "best_recovered": best_mean,
            "prior_only": prior_mean,
            "gain": best_mean - prior_mean,
            "records_fully_recovered": float(all_hit.mean()),
            "records_fully_recovered_prior_only": float(all_prior_hit.mean()),
            "policy_bound_at_rho1": {str(r): rho2_from_gamma(policy_gamma, r) for r in rho1_levels},
        },
        "passed": not violations,
        "violations": violations,
        **({"linkage": linkage_report(orig, released, keys, spec)} if keys else {}),
    }


def format_audit(report: dict) -> str:
    """Plain-text rendering of :func:`audit_release`."""
    pol = report["policy"]
    lines = [
        "ppdm audit",
        f"release: {report['release']} ({report['n_records']} records)",
        f"policy: rho1 = {pol['rho1']:g} -> rho2 = {pol['rho2']:g} (gamma {pol['gamma']:.4g}); "
        f"largest gamma in the spec: {report['spec_gamma']:.4g}",
        f"attacks tried: {', '.join(report['attacks_tried'])}",
        "",
    ]
    head = [
        "attribute",
        "N",
        "gamma",
        "prior-only",
        "q*",
        "best attack",
        "recovered",
        "allowed",
        "gain",
        "max gain",
        "status",
    ]
    rows = [head]
    for a in report["attributes"]:
        best = a["attacks"][a["best_attack"]]
        rows.append(
            [
                a["name"],
                str(a["N"]),
                f"{a['gamma']:.4g}",
                f"{a['prior_only']:.3f}",
                f"{a['prior_best']:.3f}",
                a["best_attack"],
                f"{best['recovered']:.3f}",
                f"{best['bound']:.3f}",
                f"{a['gain']:+.3f}",
                f"{a['allowed_gain']:+.3f}",
                "VIOLATED" if a["violated"] else "ok",
            ]
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines += ["", "worst posterior of a property with prior <= rho1 (model / counted, bound):"]
    for a in report["attributes"]:
        parts = [
            f"rho1={b['rho1']:g}: {b['model_posterior']:.3f} / {b['empirical_posterior']:.3f}"
            f" <= {b['bound']:.3f}{' VIOLATED' if b['violated'] else ''}"
            for b in a["breach"]
        ]
        lines.append(f"  {a['name']}: " + "; ".join(parts))
    o = report["overall"]
    lines += [
        "",
        f"overall: best attack recovers {o['best_recovered']:.3f} of values on average, the "
        f"prior alone {o['prior_only']:.3f} (gain {o['gain']:+.3f}); whole records recovered by "
        f"bayes-map {o['records_fully_recovered']:.3f}, by the prior {o['records_fully_recovered_prior_only']:.3f}",
    ]
    if report.get("linkage"):
        lines += ["", *format_linkage(report["linkage"])]
    if report["passed"]:
        lines.append("PASSED: no attack and no posterior exceeds the policy's bounds.")
    else:
        lines.append(f"FAILED: {len(report['violations'])} bound(s) exceeded:")
        lines += [f"  - {v}" for v in report["violations"]]
    return "\n".join(lines) + "\n"


def plot_audit(report: dict, path: str | os.PathLike) -> None:
    """Two panels: recovery per attribute against the allowed bound; posterior per rho1.

    Written to a temporary file beside ``path`` and renamed into place.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    attrs = report["attributes"]
    names = [a["name"] for a in attrs]
    idx = np.arange(len(names))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(max(8, 0.6 * len(names) + 6), 4))
    ax1.bar(idx - 0.2, [a["prior_only"] for a in attrs], 0.4, label="prior-only guess")
    ax1.bar(idx + 0.2, [a["best_recovered"] for a in attrs], 0.4, label="best attack")
    ax1.scatter(
        idx + 0.2,
        [a["attacks"][a["best_attack"]]["bound"] for a in attrs],
        marker="_",
        s=300,
        color="k",
        label="allowed by policy",
        zorder=3,
    )
    ax1.set_xticks(idx, names, rotation=60 if len(names) > 5 else 0, fontsize=7)
    ax1.set_ylim(0, 1.05)
    ax1.set_ylabel("share of records recovered")
    ax1.legend(fontsize=7)
    levels = [b["rho1"] for b in attrs[0]["breach"]]
    for key, label in (("model_posterior", "model"), ("empirical_posterior", "counted")):
        worst = [max(a["breach"][i][key] for a in attrs) for i in range(len(levels))]
        ax2.plot(levels, worst, "o-", label=f"worst posterior ({label})")
    ax2.plot(
        levels,
        [attrs[0]["breach"][i]["bound"] for i in range(len(levels))],
        "k--",
        label="policy bound rho2",
    )
    ax2.set_xlabel("rho1 (prior of the property)")
    ax2.set_ylabel("posterior")
    ax2.set_ylim(0, 1.05)
    ax2.legend(fontsize=7)
    fig.suptitle("PASSED" if report["passed"] else "FAILED: bound exceeded")
    fig.tight_layout()
    target = Path(path)
    with atomic_file(target) as tmp:
        fig.savefig(tmp, format=target.suffix.lstrip(".") or "png", dpi=110)
    plt.close(fig)
