"""``ppdm perturb --method additive``: the spec records the noise, estimate uses AS2000."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.additive import privacy_interval_width
from ppdm.cli import app
from ppdm.exceptions import DataError, SpecError
from ppdm.perturbation import plan_release
from ppdm.pipeline import estimate_release, load_release, make_release, reconstruct_release
from ppdm.release import AttributeSpec, ReleaseSpec

runner = CliRunner()


#: seeded releases and owner-side warnings are expected here
pytestmark = [
    pytest.mark.filterwarnings("ignore::UserWarning"),
    pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning"),
]


def _table(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "x": np.r_[rng.normal(25, 5, n // 2), rng.normal(75, 5, n // 2)].clip(0, 100),
            "cls": np.repeat(["a", "b"], n // 2),
        }
    )


@pytest.mark.parametrize("kind", ["uniform", "gaussian"])
def test_additive_release_spec_noise_and_estimate(tmp_path, kind):
    df = _table()
    spec = make_release(
        df,
        tmp_path / "r",
        random_state=0,
        class_attribute="cls",
        bounds={"x": (0.0, 100.0)},
        n_bins=20,
        method="additive",
        noise=kind,
        noise_scale=0.5,
    )
    assert spec.method == "additive"
    a = spec.attribute("x")
    # the 95 % interval width is half the range (100)
    assert privacy_interval_width(kind, a.noise["scale"], 0.95) == pytest.approx(50.0)
    rel = load_release(tmp_path / "r")
    assert rel.spec.attribute("x").privacy["relative_interval_width_95"] == pytest.approx(0.5)
    released = rel.frame()
    noise = released["x"] - df["x"]
    # the noise has the recorded variance: sample variance within 5 standard errors
    var = a.get_noise().variance
    kurt = 1.8 if kind == "uniform" else 3.0
    assert abs(noise.var() - var) < 5 * var * np.sqrt((kurt - 1) / len(df))
    assert (released["cls"] == df["cls"]).all()
    est = estimate_release(rel, by_class=True)[0]
    assert est.overall.method == "as2000"
    p = est.overall.counts / est.overall.counts.sum()
    # two modes recovered: most mass in the bins around 25 and 75
    centers = np.arange(20) * 5 + 2.5
    assert p[(np.abs(centers - 25) < 15) | (np.abs(centers - 75) < 15)].sum() > 0.8
    assert set(est.by_class) == {"a", "b"}
    assert np.all(est.overall.stderr >= 0)
    with pytest.raises(SpecError, match="reconstructs substitution releases"):
        reconstruct_release(rel)


def test_additive_cli_and_errors(tmp_path):
    df = _table(1000)
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "r"
    r = runner.invoke(
        app,
        [
            "perturb",
            str(src),
            "--out",
            str(out),
            "--class",
            "cls",
            "--method",
            "additive",
            "--noise",
            "uniform",
            "--noise-scale",
            "0.25",
            "--seed",
            "1",
        ],
    )
    assert r.exit_code == 0, r.output
    spec = json.loads((out / "spec.json").read_text())
    assert spec["method"] == "additive" and spec["attributes"][0]["noise"]["kind"] == "uniform"
    assert "NO rho1-to-rho2 guarantee" in (out / "privacy.txt").read_text()
    r = runner.invoke(app, ["estimate", str(out), "--json"])
    assert r.exit_code == 0 and json.loads(r.output)["attributes"][0]["method"] == "as2000"
    for args, msg in (
        (["--method", "additive", "--gamma", "3"], "--gamma is for substitution"),
        (["--method", "additive", "--copies", "2"], "--copies is for substitution"),
        (["--noise-scale", "0.5"], "for --method additive"),
        (["--method", "additive", "--noise", "laplace"], "Invalid value for '--noise'"),
        (["--method", "additive", "--noise-scale", "0"], "--noise-scale must be > 0"),
        (["--method", "magic"], "Invalid value for '--method'"),
    ):
        r = runner.invoke(app, ["perturb", str(src), "--out", str(tmp_path / "bad"), *args])
        assert r.exit_code == 2 and msg in r.output, (args, r.output)
    with pytest.raises(DataError, match="column 'cls' is not numeric"):
        plan_release(df, method="additive")


def test_spec_validation_of_noise():
    dom = {"kind": "binned", "low": 0.0, "high": 1.0, "n_bins": 4}
    ok = AttributeSpec(name="x", domain=dom, noise={"kind": "gaussian", "scale": 1.0})
    ReleaseSpec(method="additive", attributes=[ok])
    with pytest.raises(ValueError, match="bad noise"):
        AttributeSpec(name="x", domain=dom, noise={"kind": "laplace", "scale": 1.0})
    with pytest.raises(ValueError, match="bad noise"):
        AttributeSpec(name="x", domain=dom, noise={"kind": "gaussian", "scale": -1.0})
    with pytest.raises(ValueError, match="release method is 'substitution'"):
        ReleaseSpec(attributes=[ok])
    with pytest.raises(ValueError, match="needs noise and a domain"):
        ReleaseSpec(method="additive", attributes=[AttributeSpec(name="x", domain=dom)])


@pytest.mark.parametrize("engine", ["partitioned", "dask"])
def test_the_parts_engines_refuse_an_additive_release_by_its_method(tmp_path, engine):
    """They count codes: an additive release's noisy values beyond the bounds were refused
    as 'data row 285 has value -5.19 outside its bounds ... the release does not match its
    spec', as if it had been tampered with."""
    import ppdm

    if engine == "dask":
        pytest.importorskip("dask")
    make_release(_table(), tmp_path / "r", random_state=0, bounds={"x": (0.0, 100.0)}, class_attribute="cls",
                 method="additive", noise="gaussian", noise_scale=0.5)  # fmt: skip
    assert (load_release(tmp_path / "r").frame()["x"] < 0).any()  # values beyond the bounds
    with pytest.raises(SpecError, match="count the codes of substitution releases; estimate "
                       "an additive release with the local engine"):  # fmt: skip
        ppdm.estimate_release(tmp_path / "r", engine=engine)
    with pytest.raises(SpecError, match="Algorithm 2 reconstructs substitution releases"):
        ppdm.reconstruct_release(tmp_path / "r", tmp_path / "parts", engine=engine)
    assert not (tmp_path / "parts").exists()
