"""``ppdm audit``: flags a weak release (gamma = 1000), passes a gamma = 9 one, clear errors."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.attacks.audit import (
    AttributeAudit,
    AuditReport,
    PosteriorTest,
    RecoveryTest,
    audit_release,
    format_audit,
)
from ppdm.cli import app
from ppdm.exceptions import SpecError
from ppdm.figures.audit import plot_audit
from ppdm.pipeline import make_release

runner = CliRunner()


pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    base = tmp_path_factory.mktemp("audit")
    rng = np.random.default_rng(7)
    n = 3000
    z = rng.normal(size=(n, 2))
    x = z @ rng.normal(size=(2, 3)) + 0.3 * rng.normal(size=(n, 3))
    df = pd.DataFrame(x, columns=["a", "b", "c"])
    df["color"] = rng.choice(["r", "g", "b"], n, p=[0.6, 0.3, 0.1])
    df["cls"] = rng.integers(0, 2, n)
    orig = base / "orig.csv"
    df.to_csv(orig, index=False)
    out = {"orig": orig, "df": df}
    for g in (9.0, 1000.0):
        d = base / f"g{int(g)}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            make_release(df, d, random_state=1, gamma=g, n_bins=10, class_attribute="cls")
        out[g] = d
    return out


def test_audit_passes_gamma_9_and_flags_gamma_1000(releases, tmp_path):
    good = runner.invoke(app, ["audit", str(releases[9.0]), "--original", str(releases["orig"])])
    assert good.exit_code == 0, good.output
    assert "PASSED" in good.output and "bayes-map" in good.output
    png = tmp_path / "weak.png"
    bad = runner.invoke(
        app,
        [
            "audit",
            str(releases[1000.0]),
            "--original",
            str(releases["orig"]),
            "--json",
            "--plot",
            str(png),
        ],
    )
    assert bad.exit_code == 3, bad.output  # 3: a bound is violated
    report = json.loads(bad.output)
    assert not report["passed"] and report["violations"]
    assert report["spec_gamma"] == pytest.approx(1000.0)
    assert png.stat().st_size > 0
    for a in report["attributes"]:
        assert a["violated"]
        assert a["attacks"]["bayes-map"]["recovered"] > a["attacks"]["bayes-map"]["bound"]
        assert any(b["violated"] for b in a["breach"])
    assert set(report["attacks_tried"]) >= {
        "bayes-map",
        "released-value",
        "repeated-perturbation(t=2)",
        "spectral_filtering",
        "pca_reconstruct",
        "bayes_reconstruct",
    }


def test_audit_report_contents(releases):
    rep = audit_release(releases[9.0], releases["df"])
    assert isinstance(rep, AuditReport)
    names = [a.name for a in rep.attributes]
    assert names == ["a", "b", "c", "color"]  # the class is not perturbed
    for a in rep.attributes:
        assert a.prior_only <= a.prior_best + 1e-12
        # the single-attribute bound: gain <= rho2(gamma, q*) - q*
        assert a.allowed_gain == pytest.approx(
            9 * a.prior_best / (1 + 8 * a.prior_best) - a.prior_best
        )
        for r in a.breach:
            assert r.model_posterior <= r.bound_spec + 1e-12
    assert "spectral_filtering" not in rep.attributes[3].attacks  # categorical
    assert rep.passed
    text = format_audit(rep)
    assert "PASSED" in text and "overall" in text
    # a looser policy passes the weak release too; a tolerance of 0 recovers nothing numeric
    loose = audit_release(releases[1000.0], releases["df"], rho=(0.001, 0.999))
    assert loose.passed
    tight = audit_release(releases[9.0], releases["df"], tolerance=0.0)
    assert tight.attributes[0].best_recovered == 0.0


def test_audit_bad_input(releases, tmp_path):
    orig = str(releases["orig"])
    r = runner.invoke(app, ["audit", str(tmp_path / "nope"), "--original", orig])
    assert r.exit_code == 1 and "does not exist" in r.output
    r = runner.invoke(app, ["audit", str(releases[9.0]), "--original", str(tmp_path / "x.csv")])
    assert r.exit_code == 1 and "--original" in r.output
    short = tmp_path / "short.csv"
    releases["df"].iloc[:100].to_csv(short, index=False)
    r = runner.invoke(app, ["audit", str(releases[9.0]), "--original", str(short)])
    assert r.exit_code == 1 and "has 100 records but the release has 3000" in r.output
    r = runner.invoke(app, ["audit", str(releases[9.0]), "--original", orig, "--rho", "0.5", "0.1"])
    assert r.exit_code == 2 and "--rho" in r.output
    r = runner.invoke(app, ["audit", str(releases[9.0]), "--original", orig, "--tolerance", "-1"])
    assert r.exit_code == 2 and "--tolerance" in r.output
    r = runner.invoke(app, ["audit", str(releases[9.0]), "--original", orig, "--plot", "x.pdf"])
    assert r.exit_code == 2 and ".png" in r.output
    other = releases["df"].rename(columns={"a": "z"})
    with pytest.raises(ValueError, match=r"lacks the release's columns \['a'\]"):
        audit_release(releases[9.0], other)


def test_audit_rejects_copies(tmp_path):
    df = pd.DataFrame({"x": np.random.default_rng(0).integers(0, 4, 200)})
    make_release(df, tmp_path / "r", random_state=0, copies=2)
    with pytest.raises(SpecError, match="one perturbed copy"):
        audit_release(tmp_path / "r", df)


# The JSON report's keys, as documented in docs/attacks.md.
REPORT_KEYS = {
    "release",
    "n_records",
    "policy",
    "spec_gamma",
    "alpha",
    "alpha_recovery",
    "alpha_posterior",
    "attacks_tried",
    "attributes",
    "overall",
    "passed",
    "violations",
}
ATTRIBUTE_KEYS = {
    "name",
    "domain",
    "N",
    "gamma",
    "tolerance",
    "prior_only",
    "prior_best",
    "bound",
    "attacks",
    "best_attack",
    "best_recovered",
    "gain",
    "allowed_gain",
    "breach",
    "violated",
}
RECOVERY_KEYS = {
    "attributes_read",
    "bound_level",
    "recovered",
    "hits",
    "n",
    "lower_confidence",
    "upper_confidence",
    "alpha",
    "bound",
    "bound_spec",
    "gamma",
    "gamma_spec",
    "verdict",
    "violated",
}
POSTERIOR_KEYS = {
    "rho1",
    "bound",
    "bound_spec",
    "model_posterior",
    "empirical_posterior",
    "empirical_lower_confidence",
    "empirical_upper_confidence",
    "records",
    "hits",
    "alpha",
    "released_value",
    "property_values",
    "model_violated",
    "verdict",
    "violated",
}


def _posterior(hits, records, lower, upper, model=0.05, bound=0.083):
    return PosteriorTest(
        rho1=0.01,
        bound=bound,
        bound_spec=bound,
        model_posterior=model,
        counted_posterior=hits / records,
        lower=lower,
        upper=upper,
        records=records,
        hits=hits,
        alpha=1e-5,
        released_value="3",
        property_values=("4",),
    )


def _report(breach, recovery):
    attr = AttributeAudit(
        name="x",
        domain="categorical",
        N=5,
        gamma=9.0,
        tolerance=None,
        prior_only=0.2,
        prior_best=0.2,
        bound=recovery.bound,
        attacks={recovery.attack: recovery},
        breach=(breach,),
    )
    return AuditReport(
        release="r",
        n_records=recovery.n,
        rho1=0.1,
        rho2=0.5,
        gamma=9.0,
        alpha=0.001,
        alpha_recovery=recovery.alpha,
        alpha_posterior=0.00025,
        attacks_tried=(recovery.attack,),
        attributes=(attr,),
        records_fully_recovered=0.1,
        records_fully_recovered_prior_only=0.05,
        rho1_levels=(0.01,),
    )


def _recovery(hits, n, bound=9 * 0.2 / (1 + 8 * 0.2), alpha=1e-5):
    from ppdm.attacks._substitution import binomial_lower, binomial_upper

    return RecoveryTest(
        attack="bayes-map",
        hits=hits,
        n=n,
        lower=float(binomial_lower(hits, n, alpha)),
        upper=float(binomial_upper(hits, n, alpha)),
        alpha=alpha,
        bound=bound,
        bound_spec=bound,
        gamma=9.0,
        gamma_spec=9.0,
    )


def test_small_count_above_the_bound_is_not_significant():
    # 2 of 12 records (0.167) above a bound of 0.083, but the interval holds the bound
    from ppdm.attacks._substitution import binomial_lower, binomial_upper

    lo, up = float(binomial_lower(2, 12, 1e-5)), float(binomial_upper(2, 12, 1e-5))
    assert lo < 0.083 < up
    b = _posterior(2, 12, lo, up)
    assert b.counted_posterior > b.bound and not b.violated
    assert b.verdict == "not significant"
    rep = _report(b, _recovery(100, 1000))
    assert rep.passed and rep.violations == []
    text = format_audit(rep)
    assert "counted 0.167 = 2/12 records released as 3" in text
    assert f"(interval {lo:.3f}-{up:.3f}) not significant" in text
    assert "PASSED" in text and "1 figure(s) above a bound, not significant" in text


def test_clear_violation_fails_and_names_its_interval():
    # 900 of 1000 recovered against a bound of 0.692: the whole interval lies above
    t = _recovery(900, 1000)
    assert t.lower > t.bound and t.violated and t.verdict == "exceeds"
    rep = _report(_posterior(1, 100, 0.0, 0.1), t)
    assert not rep.passed
    assert rep.violations[0] == (
        f"x: bayes-map recovers 0.900 of records (interval {t.lower:.3f}-{t.upper:.3f}); "
        f"the policy allows at most {t.bound:.3f}"
    )
    assert len(rep.violations) == 2 and "its spec (gamma 9) allows" in rep.violations[1]
    text = format_audit(rep)
    assert "FAILED: 2 bound(s) exceeded" in text and "EXCEEDS" in text
    # a counted posterior whose whole interval lies above the bound fails too
    b = _posterior(60, 100, 0.4, 0.8, bound=0.3)
    assert b.counted_violated and b.verdict == "exceeds"
    assert not _report(b, _recovery(100, 1000)).passed
    # so does a model posterior above the bound (exact: no interval)
    m = _posterior(1, 100, 0.0, 0.1, model=0.2)
    assert m.model_violated and not m.counted_violated
    assert "exact, no interval" in _report(m, _recovery(100, 1000)).violations[0]


def test_verdict_agrees_with_the_intervals(releases):
    for g in (9.0, 1000.0):
        rep = audit_release(releases[g], releases["df"])
        failed = 0
        for a in rep.attributes:
            for t in a.attacks.values():
                assert t.lower <= t.recovered <= t.upper
                assert t.violated == (t.lower > min(t.bound, t.bound_spec) + 1e-12)
                failed += t.violated
            for b in a.breach:
                assert b.lower <= b.counted_posterior + 1e-12 <= b.upper + 2e-12
                assert b.hits == round(b.counted_posterior * b.records)
                exceeds = b.lower > min(b.bound, b.bound_spec) + 1e-9
                assert b.violated == (exceeds or b.model_posterior > b.bound + 1e-9)
                failed += b.violated
        assert rep.passed == (failed == 0)
        assert rep.passed == (g == 9.0)


def test_to_dict_round_trip_has_the_documented_keys(releases):
    rep = audit_release(releases[1000.0], releases["df"])
    d = json.loads(json.dumps(rep.to_dict()))
    assert set(d) == REPORT_KEYS
    assert set(d["policy"]) == {"rho1", "rho2", "gamma"}
    for a in d["attributes"]:
        assert set(a) == ATTRIBUTE_KEYS
        for t in a["attacks"].values():
            assert set(t) == RECOVERY_KEYS
        for b in a["breach"]:
            assert set(b) == POSTERIOR_KEYS
    back = AuditReport.from_dict(d)
    assert back == rep
    assert back.to_dict() == d
    # the formatter and the plot read a dict (e.g. saved JSON) as the typed report
    assert format_audit(d) == format_audit(rep)


def test_plot_written_for_pass_and_fail(releases, tmp_path):
    for g in (9.0, 1000.0):
        png = tmp_path / f"g{int(g)}.png"
        plot_audit(audit_release(releases[g], releases["df"]), png)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # written atomically: no temporary file is left beside the plots
    assert {p.name for p in tmp_path.iterdir()} == {"g9.png", "g1000.png"}


def test_cli_exit_codes_and_plot(releases, tmp_path):
    png = tmp_path / "pass.png"
    ok = runner.invoke(
        app, ["audit", str(releases[9.0]), "--original", str(releases["orig"]), "--plot", str(png)]
    )
    assert ok.exit_code == 0, ok.output
    assert png.stat().st_size > 0
    assert "interval" in ok.output and "PASSED" in ok.output
    bad = runner.invoke(app, ["audit", str(releases[1000.0]), "--original", str(releases["orig"])])
    assert bad.exit_code == 3  # a bound violated (1 is a failure to run, 2 a bad option)
    assert "FAILED" in bad.output and "interval" in bad.output


def test_posterior_panel_shows_nothing_counted_as_no_point(tmp_path, monkeypatch):
    # with no record released in a property of prior <= rho1 there is no counted figure:
    # the panel said "0/0" with a point at 0 and an interval, as if 0 had been measured
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(3)
    n = 600
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "kind": rng.choice(["x", "y", "z"], n),
            "cls": rng.choice(["a", "b"], n),
        }
    )
    df.to_csv(tmp_path / "t.csv", index=False)
    make_release(tmp_path / "t.csv", tmp_path / "rel", class_attribute="cls",
                 bounds={"age": (18, 90)}, random_state=1)  # fmt: skip
    rep = audit_release(tmp_path / "rel", tmp_path / "t.csv")
    empty = [
        j
        for j in range(len(rep.rho1_levels))
        if all(a.breach[j].records == 0 for a in rep.attributes)
    ]
    assert empty  # the uniform categorical and the binned age: nothing at rho1 0.01
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: None)  # keep the figure to read it
    plot_audit(rep, tmp_path / "a.png")
    ax2 = plt.gcf().axes[1]
    drawn = {float(c.lines[0].get_xdata()[0]) for c in ax2.containers}
    assert drawn.isdisjoint(empty) and len(drawn) == len(rep.rho1_levels) - len(empty)
    labels = [t.get_text() for t in ax2.texts]
    assert labels.count("no record\nto count") == len(empty)
    assert not [t for t in labels if "0/0" in t]
    close("all")
