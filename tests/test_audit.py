"""``ppdm audit``: flags a weak release (gamma = 1000), passes a gamma = 9 one, clear errors."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.attacks.audit import audit_release, format_audit
from ppdm.cli import app
from ppdm.exceptions import SeededReleaseWarning, SpecError
from ppdm.pipeline import make_release

runner = CliRunner()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        warnings.simplefilter("ignore", SeededReleaseWarning)
        yield


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
    names = [a["name"] for a in rep["attributes"]]
    assert names == ["a", "b", "c", "color"]  # the class is not perturbed
    for a in rep["attributes"]:
        assert a["prior_only"] <= a["prior_best"] + 1e-12
        # the single-attribute bound: gain <= rho2(gamma, q*) - q*
        assert a["allowed_gain"] == pytest.approx(
            9 * a["prior_best"] / (1 + 8 * a["prior_best"]) - a["prior_best"]
        )
        for r in a["breach"]:
            assert r["model_posterior"] <= r["bound_spec"] + 1e-12
    assert "spectral_filtering" not in rep["attributes"][3]["attacks"]  # categorical
    assert rep["passed"]
    text = format_audit(rep)
    assert "PASSED" in text and "overall" in text
    # a looser policy passes the weak release too; a tolerance of 0 recovers nothing numeric
    loose = audit_release(releases[1000.0], releases["df"], rho=(0.001, 0.999))
    assert loose["passed"]
    tight = audit_release(releases[9.0], releases["df"], tolerance=0.0)
    assert tight["attributes"][0]["best_recovered"] == 0.0


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
