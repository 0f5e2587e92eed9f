import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.domain import BinnedDomain, CategoricalDomain, infer_domain
from ppdm.exceptions import BoundsLeakWarning, DomainError
from ppdm.io import read_table
from ppdm.perturbation import perturb_batches, perturb_frame, plan_release
from ppdm.pipeline import (
    estimate_release,
    load_release,
    make_release,
    reconstruct_frame,
    reconstruct_release,
)
from ppdm.release import ReleaseSpec

runner = CliRunner()


def table(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.normal(45, 12, n).clip(18, 90).round(1),
            "color": rng.choice(["r", "g", "b"], n, p=[0.6, 0.3, 0.1]),
            "k": rng.integers(1, 6, n),
        }
    )
    df["cls"] = np.where(df["age"] > 50, "old", "young")
    return df


#: seeded releases and owner-side warnings are expected here
pytestmark = [
    pytest.mark.filterwarnings("ignore::ppdm.exceptions.BoundsLeakWarning"),
    pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning"),
]


def test_domain_rules():
    d = infer_domain(pd.Series([1, 2, 2, 3]), column="k", max_bins=20)
    assert isinstance(d, CategoricalDomain) and d.n_values == 3
    d = infer_domain(pd.Series(np.linspace(0, 1, 100)), column="x", n_bins=7)
    assert isinstance(d, BinnedDomain) and d.n_bins == 7 and d.bounds_from_data
    d = infer_domain(pd.Series(np.arange(50)), column="x", n_bins=10, bounds=(0, 100))
    assert isinstance(d, BinnedDomain) and not d.bounds_from_data
    with pytest.warns(BoundsLeakWarning):
        warnings.simplefilter("always", BoundsLeakWarning)
        infer_domain(pd.Series([0.5, 1.5, 2.7]), column="x")
    with pytest.raises(
        DomainError, match=r"column 'x' data row 3 has value 11.0 outside its bounds"
    ):
        BinnedDomain(0, 10, 5).encode(np.array([1.0, 2.0, 11.0]), column="x")
    clipped = BinnedDomain(0, 10, 5, out_of_bounds="clip").encode(np.array([-3.0, 11.0]))
    assert clipped.tolist() == [0, 4]
    with pytest.raises(DomainError, match=r"column 'c' has a missing value at data row 2"):
        CategoricalDomain(("a", "b")).encode(pd.Series(["a", None]), column="c")
    d = CategoricalDomain(("a", "b"), missing_category=True)
    assert d.encode(pd.Series(["a", None])).tolist() == [0, 2]
    for rep, expected in (("left", 0.0), ("right", 2.0), ("center", 1.0)):
        assert BinnedDomain(0, 10, 5, representative=rep).decode(np.array([0]))[0] == expected
    r = BinnedDomain(0, 10, 5, representative="random").decode(np.zeros(100, int), random_state=0)
    assert np.all((r >= 0) & (r < 2))


def test_identity_matrix_leaves_data_unchanged():
    df = table()
    spec = plan_release(df, class_attribute="cls", n_bins=10)
    ident = ReleaseSpec(
        class_attribute="cls",
        attributes=[
            a
            if not a.perturbed
            else a.model_copy(
                update={"matrix": {"kind": "identity", "n_values": a.get_domain().n_values}}
            )
            for a in spec.attributes
        ],
    )
    out = perturb_frame(df, ident, random_state=0)
    dom = ident.attribute("age").get_domain()
    np.testing.assert_array_equal(dom.encode(out["age"]), dom.encode(df["age"]))
    assert out["color"].tolist() == df["color"].tolist()
    assert out["k"].tolist() == df["k"].tolist()
    rec = reconstruct_frame(out, ident, random_state=1)
    for col in ("color", "k", "cls"):
        assert sorted(rec[col].tolist()) == sorted(df[col].tolist())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch=st.integers(1, 700), seed=st.integers(0, 10_000))
def test_streaming_and_in_memory_perturbation_are_identical(batch, seed):
    df = table(1000, seed=seed % 7)
    spec = plan_release(df, class_attribute="cls", n_bins=8)
    whole = perturb_frame(df, spec, random_state=seed)
    parts = pd.concat(
        perturb_batches((df.iloc[i : i + batch] for i in range(0, len(df), batch)), spec, seed),
        ignore_index=True,
    )
    pd.testing.assert_frame_equal(whole, parts)


def test_streaming_and_in_memory_reconstruction_are_identical(tmp_path):
    df = table(3000)
    spec = make_release(
        df, tmp_path / "rel", random_state=5, class_attribute="cls", n_bins=8, batch_size=700
    )
    rel = load_release(tmp_path / "rel")
    streamed = reconstruct_release(rel, None, by_class=True, random_state=9, batch_size=700)
    memory = reconstruct_frame(rel.frame(), spec, by_class=True, random_state=9, batch_size=700)
    pd.testing.assert_frame_equal(streamed, memory)


def test_release_is_reproducible_with_a_seed_and_fresh_without(tmp_path):
    df = table(500)
    make_release(df, tmp_path / "a", random_state=42, class_attribute="cls")
    make_release(df, tmp_path / "b", random_state=42, class_attribute="cls")
    make_release(df, tmp_path / "c", class_attribute="cls")
    a, b, c = ((tmp_path / x / "data.csv").read_bytes() for x in "abc")
    assert a == b
    assert a != c
    spec = json.loads((tmp_path / "a" / "spec.json").read_text())
    assert "seed" not in json.dumps(spec).lower()


def test_release_spec_and_privacy_report(tmp_path):
    df = table(1000)
    make_release(
        df,
        tmp_path / "rel",
        random_state=1,
        class_attribute="cls",
        gamma=9,
        n_bins=10,
        bounds={"age": (0, 100)},
    )
    report = json.loads((tmp_path / "rel" / "privacy.json").read_text())
    by_name = {a["name"]: a for a in report["attributes"]}
    assert by_name["age"]["gamma"] == pytest.approx(9)
    assert by_name["age"]["rho2"]["0.1"] == pytest.approx(0.5)
    assert by_name["age"]["epsilon"] == pytest.approx(np.log(9))
    assert by_name["age"]["bounds_from_data"] is False
    assert by_name["k"]["bounds_from_data"] is True
    assert "kang_bound" in by_name["age"]
    assert report["unperturbed"] == ["cls"]
    text = (tmp_path / "rel" / "privacy.txt").read_text()
    assert "LEAKS" in text and "k:" in text


def test_estimates_are_close_to_the_truth(tmp_path):
    """Set-scale estimate of every bin within 5 standard errors of the true count."""
    df = table(20000)
    make_release(
        df,
        tmp_path / "rel",
        random_state=2,
        class_attribute="cls",
        bounds={"age": (0, 100)},
        n_bins=10,
    )
    spec = load_release(tmp_path / "rel").spec
    for est in estimate_release(tmp_path / "rel", "inverse"):
        dom = spec.attribute(est.name).get_domain()
        true = np.bincount(dom.encode(df[est.name]), minlength=dom.n_values)
        z = (est.overall.counts - true) / np.maximum(est.overall.stderr, 1e-9)
        assert np.all(np.abs(z) < 5), (est.name, z)


@pytest.mark.parametrize("ext", ["csv", "parquet"])
def test_cli_round_trip(tmp_path, ext):
    df = table(1500)
    src = tmp_path / f"orig.{ext}"
    df.to_csv(src, index=False) if ext == "csv" else df.to_parquet(src, index=False)
    before = src.read_bytes()
    rel = tmp_path / "rel"
    r = runner.invoke(
        app,
        ["perturb", str(src), "--out", str(rel), "--class", "cls", "--bins", "10", "--seed", "3"],
    )
    assert r.exit_code == 0, r.output
    assert src.read_bytes() == before
    assert {p.name for p in rel.iterdir()} == {
        f"data.{ext}",
        "spec.json",
        "privacy.json",
        "privacy.txt",
        ".ppdm-output",  # the mark that lets --overwrite replace it
    }
    r = runner.invoke(app, ["estimate", str(rel), "--json", "--method", "ibu"])
    assert r.exit_code == 0, r.output
    payload = json.loads(r.output)
    names = [a["name"] for a in payload["attributes"]]
    assert names == ["age", "color", "k"]
    for a in payload["attributes"]:
        assert set(a) >= {"name", "method", "perturbed_counts", "estimated_counts", "stderr"}
        assert ("bins" in a) or ("values" in a)
        assert sum(a["estimated_counts"]) == pytest.approx(1500, rel=1e-6)
    out = tmp_path / f"rec.{ext}"
    r = runner.invoke(
        app, ["reconstruct", str(rel), "--out", str(out), "--by-class", "--seed", "1"]
    )
    assert r.exit_code == 0, r.output
    rec = read_table(out)
    assert list(rec.columns) == list(df.columns)
    assert len(rec) == len(df)
    assert rec["cls"].tolist() == df["cls"].tolist()
    r = runner.invoke(
        app, ["reconstruct", str(rel), "--out", str(tmp_path / "rec.arff"), "--seed", "1"]
    )
    assert r.exit_code == 0 and (tmp_path / "rec.arff").read_text().startswith("@relation")
    r = runner.invoke(app, ["report", str(rel)])
    assert r.exit_code == 0 and "gamma" in r.output
    r = runner.invoke(app, ["estimate", str(rel), "--plot", str(tmp_path / "plots")])
    assert r.exit_code == 0 and len(list((tmp_path / "plots").glob("*.png"))) == 3


def test_copies_pool_counts_and_compound_gamma(tmp_path):
    df = table(3000)
    make_release(
        df, tmp_path / "rel", random_state=4, class_attribute="cls", copies=3, gamma=4, n_bins=10
    )
    rel = load_release(tmp_path / "rel")
    assert len(rel.frame()) == 9000 and rel.spec.n_records == 3000
    report = json.loads((tmp_path / "rel" / "privacy.json").read_text())
    assert report["attributes"][0]["gamma"] == pytest.approx(64)
    est = {e.name: e for e in estimate_release(rel, "inverse")}
    color = est["color"]
    # pooled copies: the closed-form inverse of gamma 4, N 3 applied to the mean copy,
    # X_hat = ((gamma + N - 1) y / copies - n) / (gamma - 1)
    y = rel.frame()["color"].value_counts().reindex(color.labels).to_numpy(dtype=float)
    np.testing.assert_allclose(color.overall.counts, ((4 + 2) * y / 3 - 3000) / 3, rtol=1e-9)
    # Var of one copy's X_hat_b: x_b (1 - 2o - lam) / lam + n o (1 - o) / lam^2, lam 1/2, o 1/6;
    # the mean of 3 independent copies has a third of it
    truth = df["color"].value_counts().reindex(color.labels).to_numpy(dtype=float)
    var = (truth / 3 + 3000 * (1 / 6) * (5 / 6) / 0.25) / 3
    np.testing.assert_allclose(color.overall.stderr, np.sqrt(var), rtol=0.05)
    assert (np.abs(color.overall.counts - truth) < 4 * np.sqrt(var)).all()


def test_estimate_by_class_prints_a_table_per_class(tmp_path, monkeypatch):
    """Each class's estimates as a table like the overall one, its rows the per-class
    estimates ``estimate_release`` computes."""
    monkeypatch.setenv("COLUMNS", "200")
    df = table(1500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "rel", random_state=2, class_attribute="cls", n_bins=8)
    r = CliRunner().invoke(app, ["estimate", str(tmp_path / "rel"), "--by-class"])
    assert r.exit_code == 0, r.output
    assert "±" not in r.output  # no wrapped lists of value±se
    results = estimate_release(load_release(tmp_path / "rel"), "set-scale", by_class=True)
    for res in results:
        for c, ec in res.by_class.items():
            title = f"{res.name}: class {c} (set-scale)"
            assert title in r.output
            block = r.output.split(title, 1)[1]
            rows = [x for x in block.splitlines() if x.startswith("│")][: len(res.labels)]
            shown = [float(x.split("│")[3]) for x in rows]
            assert shown == pytest.approx(np.round(ec.counts, 1), abs=0.051)
