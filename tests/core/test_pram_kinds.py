"""Invariant PRAM and sdcMicro's pram(pd, alpha) as matrix kinds of a release spec."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from ppdm.attacks.empirical import audit_spec_epsilon
from ppdm.exceptions import MatrixError
from ppdm.matrix import GammaDiagonal, invariant_matrix, matrix_from_spec, retention_matrix
from ppdm.pipeline import estimate_release
from ppdm.release import read_spec

VALUES = ["a", "b", "c", "d", "e"]
SHARES = [0.4, 0.3, 0.15, 0.1, 0.05]


def _sdcmicro_rs(P: np.ndarray, p: np.ndarray, alpha: float) -> np.ndarray:
    """sdcMicro's construction, loop by loop, in its own row-stochastic notation."""
    L = len(p)
    Q = np.empty((L, L))
    for k in range(L):
        s = sum(p[i] * P[i, k] for i in range(L))
        for j in range(L):
            Q[k, j] = P[j, k] * p[j] / s
    return alpha * (P @ Q) + (1 - alpha) * np.eye(L)


def test_invariant_matrix_is_sdcmicros_rs_transposed_and_keeps_the_marginal():
    rng = np.random.default_rng(7)
    P = rng.random((4, 4)) + 0.05
    P /= P.sum(axis=1, keepdims=True)  # row-stochastic, P[j, k] = P(j -> k)
    p = rng.random(4)
    p /= p.sum()
    rs = _sdcmicro_rs(P, p, 0.3)
    m = invariant_matrix(P.T, p, 0.3)  # ppdm's convention: M[h, o] = P(o -> h)
    np.testing.assert_allclose(m, rs.T, atol=1e-14)
    np.testing.assert_allclose(p @ rs, p, atol=1e-14)  # p Rs = p
    np.testing.assert_allclose(m @ p, p, atol=1e-14)  # the same, M p = p
    np.testing.assert_allclose(m.sum(axis=0), 1.0, atol=1e-14)


def test_worked_case_epsilon_against_gamma_diagonal_of_the_same_retention():
    """5 values, retention 0.95 (pd_j fixed), alpha 0.5, marginal (.4, .3, .15, .1, .05)."""
    p = np.array(SHARES)
    P = np.full((5, 5), 0.05 / 4)
    np.fill_diagonal(P, 0.95)
    rs = _sdcmicro_rs(P, p, 0.5)
    # gamma: the largest ratio within a column of Rs (released value across originals)
    direct = max(rs[:, h].max() / rs[:, h].min() for h in range(5))
    m = matrix_from_spec(
        {"kind": "invariant-pram", "retention": 0.95, "alpha": 0.5}, 5, marginal=p * 1000
    )
    assert m.amplification() == pytest.approx(direct, rel=1e-12)
    assert m.epsilon() == pytest.approx(math.log(direct), rel=1e-12)
    gd = GammaDiagonal(5, 0.95 / (0.05 / 4))
    assert gd.epsilon() == pytest.approx(math.log(76))
    # the invariant step costs privacy: its epsilon is above the gamma-diagonal's
    assert m.epsilon() > gd.epsilon() + 0.5
    # the figures docs/pram.md prints
    assert (f"{m.amplification():.1f}", f"{m.epsilon():.2f}") == ("150.7", "5.01")
    # and the retention is not 0.95: above it for the frequent values, below for the rare
    diag = np.diag(m.dense())
    assert diag[0] > 0.95 > diag[-1]


def test_sdcmicro_retentions_are_drawn_above_pd_from_the_given_generator():
    p = np.array(SHARES) * 1000
    entry = {"kind": "sdcmicro-pram", "pd": 0.7, "alpha": 0.5}
    a = matrix_from_spec(entry, 5, marginal=p, rng=np.random.default_rng(1)).to_spec()
    b = matrix_from_spec(entry, 5, marginal=p, rng=np.random.default_rng(2)).to_spec()
    for spec in (a, b):
        r = np.array(spec["retention"])
        assert np.all((r >= 0.7) & (r <= 1.0))
        # the written matrix is invariant PRAM of the written retentions
        np.testing.assert_allclose(
            spec["matrix"], invariant_matrix(retention_matrix(r), p, 0.5), atol=1e-15
        )
    assert a["retention"] != b["retention"]
    assert "seed" not in a


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"kind": "sdcmicro-pram", "pd": 0.0, "alpha": 0.5}, "pd must be a number in (0, 1]"),
        ({"kind": "sdcmicro-pram", "pd": 1.5, "alpha": 0.5}, "(got 1.5)"),
        ({"kind": "sdcmicro-pram", "pd": 0.8, "alpha": -0.1}, "alpha must be in [0, 1]"),
        ({"kind": "invariant-pram", "retention": [0.9, 0.0], "alpha": 0.5}, "value 2"),
        ({"kind": "invariant-pram", "base": [[0.9, 0.3], [0.2, 0.7]], "alpha": 0.5}, "column 1"),
        ({"kind": "invariant-pram", "base": [[1.1, 0.3], [-0.1, 0.7]], "alpha": 0.5}, "-0.1"),
    ],
)
def test_bad_parameters_are_named(entry, words):
    with pytest.raises(MatrixError, match=None) as info:
        matrix_from_spec(
            entry, 2 if "base" in entry or "retention" in entry else 3, marginal=[1, 2]
        )
    assert words in str(info.value)


def _table(tmp_path, n=20_000, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "job": rng.choice(VALUES, n, p=SHARES),
            "region": rng.choice(["north", "south"], n),
            "y": rng.integers(0, 2, n),
        }
    )
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _spec(tmp_path, entry) -> object:
    path = tmp_path / "spec.json"
    attrs = [{"name": "job", "matrix": entry}, {"name": "region", "perturbed": False}]
    path.write_text(json.dumps({"attributes": attrs}))
    return path


@pytest.mark.parametrize(
    "entry",
    [
        {"kind": "invariant-pram", "retention": 0.8, "alpha": 0.5},
        {"kind": "sdcmicro-pram", "pd": 0.8, "alpha": 0.5},
    ],
    ids=["invariant-pram", "sdcmicro-pram"],
)
def test_release_states_the_marginal_leak_and_estimates_within_theory(run_cli, tmp_path, entry):
    frame, data = _table(tmp_path)
    spec = _spec(tmp_path, entry)
    code, out, err = run_cli("report", spec)  # a hand-written spec: no figures before the data
    assert code == 0, err
    assert "built from the data's marginal" in err
    rel, owner = tmp_path / "rel", tmp_path / "owner"
    code, out, err = run_cli(
        "perturb", data, "--out", rel, "--spec", spec, "--class", "y", "--seed", "5",
        "--owner-report", owner,
    )  # fmt: skip
    assert code == 0, err
    released = read_spec(rel)
    a = released.attribute("job")
    m = a.get_matrix()
    truth = frame["job"].value_counts().reindex(VALUES).to_numpy()
    # the released matrix keeps the data's marginal, and so reveals it: the leak is stated
    np.testing.assert_allclose(m.dense() @ truth, truth, rtol=1e-12)
    w, v = np.linalg.eig(m.dense())
    fixed = np.real(v[:, np.argmin(np.abs(w - 1))])
    np.testing.assert_array_equal(np.rint(fixed / fixed.sum() * released.n_records), truth)
    text = (rel / "privacy.txt").read_text()
    assert "job: its " + entry["kind"] + " matrix is built from the data's marginal" in text
    report = json.loads((rel / "privacy.json").read_text())
    job = next(x for x in report["attributes"] if x["name"] == "job")
    assert job["marginal_from_data"] is True
    assert job["gamma"] == pytest.approx(m.amplification())
    assert f"{m.amplification():.4g}" in text and f"{m.epsilon():.3f}" in text
    # the owner's transition counts stay outside the release and add up to the data
    assert sorted(p.name for p in rel.iterdir() if not p.name.startswith(".")) == [
        "data.csv", "privacy.json", "privacy.txt", "spec.json",
    ]  # fmt: skip
    assert not any("transition" in p.read_text(errors="ignore") for p in rel.rglob("*.*"))
    table = pd.read_csv(owner / "transitions.csv", dtype={"original": str, "released": str})
    assert table.groupby("original")["count"].sum().reindex(VALUES).tolist() == truth.tolist()
    released_data = pd.read_csv(rel / "data.csv")
    assert table.groupby("released")["count"].sum().reindex(VALUES).tolist() == (
        released_data["job"].value_counts().reindex(VALUES).tolist()
    )
    # the raw inverse estimate is unbiased, with the covariance of Ma & Sivakumar Thm 2
    (est,) = estimate_release(rel, "inverse")
    sd = np.sqrt(m.estimate_variance(truth))
    assert np.all(np.abs(est.overall.counts - truth) <= 4.5 * sd)  # 5 values, 4.5 sd each
    # the empirical epsilon of the sampler stays below the stated one
    (audit,) = audit_spec_epsilon(released, trials=200_000, random_state=11)
    assert audit.stated == pytest.approx(m.epsilon())
    assert audit.confidence == 0.95 and audit.within_stated
    assert audit.lower_bound > 0.5 * audit.stated


def test_owner_report_inside_the_release_is_refused(run_cli, tmp_path):
    _, data = _table(tmp_path, n=200)
    spec = _spec(tmp_path, {"kind": "invariant-pram", "retention": 0.8, "alpha": 0.5})
    rel = tmp_path / "rel"
    code, out, err = run_cli(
        "perturb", data, "--out", rel, "--spec", spec, "--owner-report", rel / "owner"
    )
    assert code == 2
    assert "lies inside the release directory" in err and "Traceback" not in err
    assert not rel.exists()


def test_a_value_absent_from_the_data_is_refused(run_cli, tmp_path):
    _, data = _table(tmp_path, n=300)
    path = tmp_path / "spec.json"
    attrs = [
        {
            "name": "job",
            "domain": {"kind": "categorical", "values": [*VALUES, "zz"]},
            "matrix": {"kind": "invariant-pram", "retention": 0.8, "alpha": 0.5},
        },
    ]
    path.write_text(json.dumps({"attributes": attrs}))
    code, out, err = run_cli("perturb", data, "--out", tmp_path / "rel", "--spec", path)
    assert code == 1
    assert "spec attribute 'job': value 'zz' of its domain never occurs in the data" in err
    assert [x for x in err.splitlines() if x.startswith("error:")] == err.splitlines()[-1:]
    assert "Traceback" not in err


STRATIFIED = {
    "kind": "stratified",
    "strata": "region",
    "matrices": {
        "north": {"kind": "gamma-diagonal", "gamma": 9.0},
        "south": {"kind": "invariant-pram", "retention": 0.9, "alpha": 0.5},
    },
}


def test_stratified_release_estimates_and_audits_per_stratum(run_cli, tmp_path):
    frame, data = _table(tmp_path, seed=3)
    rel = tmp_path / "rel"
    code, out, err = run_cli(
        "perturb", data, "--out", rel, "--spec", _spec(tmp_path, STRATIFIED), "--seed", "4",
        "--class", "y",
    )  # fmt: skip
    assert code == 0, err
    released = read_spec(rel)
    m = released.attribute("job").get_matrix()
    south = (frame["region"] == "south").to_numpy()
    truth = {
        v: frame.loc[mask, "job"].value_counts().reindex(VALUES).to_numpy()
        for v, mask in (("north", ~south), ("south", south))
    }
    # the south stratum's matrix keeps the south marginal; the north one is gamma-diagonal 9
    np.testing.assert_allclose(m.matrices["south"].dense() @ truth["south"], truth["south"])
    assert m.matrices["north"].amplification() == pytest.approx(9.0)
    # the attribute states the least private stratum's gamma, and both strata's
    text = (rel / "privacy.txt").read_text()
    worst = max(mv.amplification() for mv in m.matrices.values())
    assert released.attribute("job").privacy["gamma"] == pytest.approx(worst)
    assert f"gamma per stratum: north 9, south {m.matrices['south'].amplification():.4g}" in text
    assert "invariant-pram matrix of stratum region = south is built from the data" in text
    # the stratum column is released as is
    assert pd.read_csv(rel / "data.csv")["region"].tolist() == frame["region"].tolist()
    # each stratum's raw estimate is within its theoretical standard error; the sum too
    (est,) = estimate_release(rel, "inverse")
    var = 0
    for v in ("north", "south"):
        sd = np.sqrt(m.matrices[v].estimate_variance(truth[v]))
        assert np.all(np.abs(est.by_stratum[v].counts - truth[v]) <= 4.5 * sd)
        np.testing.assert_allclose(est.by_stratum[v].stderr, sd, rtol=0.15)
        var = var + sd**2
    overall = truth["north"] + truth["south"]
    assert np.all(np.abs(est.overall.counts - overall) <= 4.5 * np.sqrt(var))
    # the empirical epsilon of each stratum's sampler is within its stated epsilon
    audits = audit_spec_epsilon(released, trials=200_000, random_state=12)
    assert [a.attribute for a in audits] == ["job [region=north]", "job [region=south]"]
    for a in audits:
        v = a.attribute.split("=")[1].rstrip("]")
        assert a.stated == pytest.approx(m.matrices[v].epsilon())
        assert a.within_stated and a.lower_bound > 0.5 * a.stated
    # a tool that needs one matrix refuses in one line
    code, out, err = run_cli("reconstruct", rel, "--out", tmp_path / "rec")
    assert code == 1 and "one matrix per value of 'region'" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda s: s["attributes"][0]["matrix"]["matrices"].update(
                west={"kind": "gamma-diagonal", "gamma": 9.0}
            ),
            "stratum 'west' of column 'region' never occurs in the data",
        ),
        (
            lambda s: s["attributes"][0]["matrix"]["matrices"].pop("north"),
            "column 'region' holds the stratum 'north', which has no matrix",
        ),
        (
            lambda s: s["attributes"][1].update(perturbed=True),
            "stratified by 'region', which the spec must list with perturbed: false",
        ),
    ],
    ids=["unseen-stratum", "stratum-without-matrix", "stratum-perturbed"],
)
def test_bad_strata_are_refused_in_one_line(run_cli, tmp_path, change, words):
    _, data = _table(tmp_path, n=400)
    path = _spec(tmp_path, json.loads(json.dumps(STRATIFIED)))
    spec = json.loads(path.read_text())
    change(spec)
    path.write_text(json.dumps(spec))
    code, out, err = run_cli("perturb", data, "--out", tmp_path / "rel", "--spec", path)
    assert code == 1, err
    errors = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and words in errors[0] and "Traceback" not in err
    assert not (tmp_path / "rel").exists()


def test_stratified_release_does_not_depend_on_the_batch_size(tmp_path):
    from ppdm.pipeline import make_release
    from ppdm.release import ReleaseSpec

    frame, data = _table(tmp_path, n=3_000, seed=5)
    spec = ReleaseSpec.model_validate(json.loads(_spec(tmp_path, STRATIFIED).read_text()))
    released = []
    for size in (500, 1_237):
        out = tmp_path / f"rel{size}"
        with pytest.warns(Warning):  # a seeded release is warned about
            make_release(data, out, random_state=6, batch_size=size, spec=spec, class_attribute="y")
        released.append((out / "data.csv").read_bytes())
    assert released[0] == released[1]
    assert pd.read_csv(tmp_path / "rel500" / "data.csv")["job"].tolist() != frame["job"].tolist()


def test_a_partitioned_input_refuses_a_matrix_built_from_the_data(run_cli, tmp_path):
    frame, _ = _table(tmp_path, n=400)
    parts = tmp_path / "parts"
    parts.mkdir()
    frame.iloc[:200].to_parquet(parts / "a.parquet")
    frame.iloc[200:].to_parquet(parts / "b.parquet")
    spec = _spec(tmp_path, {"kind": "sdcmicro-pram", "pd": 0.8, "alpha": 0.5})
    code, out, err = run_cli("perturb", parts, "--out", tmp_path / "rel", "--spec", spec)
    assert code == 1
    errors = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(errors) == 1 and "ppdm perturb of one input file" in errors[0]
    assert "Traceback" not in err and not (tmp_path / "rel").exists()


def test_stratum_matrices_follow_the_sorted_domain(run_cli, tmp_path):
    """A spec listing values out of order: each stratum's explicit matrix is permuted
    with the domain, as a single explicit matrix is."""
    _, data = _table(tmp_path, n=2_000)
    m = np.full((5, 5), 0.1)
    np.fill_diagonal(m, 0.6)
    m[0, 0], m[1, 0] = 0.5, 0.2  # 'e' (listed first) is released as 'd' w.p. 0.2
    entry = json.loads(json.dumps(STRATIFIED))
    entry["matrices"]["north"] = {"kind": "explicit", "matrix": m.tolist()}
    spec = json.loads(_spec(tmp_path, entry).read_text())
    spec["attributes"][0]["domain"] = {"kind": "categorical", "values": VALUES[::-1]}
    path = tmp_path / "unsorted.json"
    path.write_text(json.dumps(spec))
    code, out, err = run_cli(
        "perturb", data, "--out", tmp_path / "rel", "--spec", path, "--seed", "1"
    )  # fmt: skip
    assert code == 0, err
    released = read_spec(tmp_path / "rel").attribute("job")
    assert released.domain["values"] == VALUES
    north = np.array(released.matrix["matrices"]["north"]["matrix"])
    assert north[4, 4] == 0.5 and north[3, 4] == 0.2 and north[0, 0] == 0.6


def test_a_stratified_release_has_its_html_report_and_by_class_falls_back_to_strata(
    run_cli, tmp_path
):
    _, data = _table(tmp_path, n=2_000)
    rel = tmp_path / "rel"
    spec = _spec(tmp_path, STRATIFIED)
    code, out, err = run_cli("perturb", data, "--out", rel, "--spec", spec, "--class", "y")
    assert code == 0, err
    (est,) = estimate_release(rel, "inverse", by_class=True)  # per stratum, not per class
    assert est.by_class is None and sorted(est.by_stratum) == ["north", "south"]
    code, out, err = run_cli("report", rel, "--html", tmp_path / "r.html")
    assert code == 0, err
    assert "gamma per stratum" in out


def test_unseeded_retentions_come_from_the_release_csprng(tmp_path):
    from ppdm.perturbation import plan_release, realise_matrices
    from ppdm.release import ReleaseSpec

    frame, _ = _table(tmp_path, n=500)
    spec = ReleaseSpec.model_validate(
        json.loads(_spec(tmp_path, {"kind": "sdcmicro-pram", "pd": 0.6, "alpha": 0.5}).read_text())
    )
    with pytest.warns(Warning):  # the value list is read off the data
        plan = plan_release(frame, spec=spec, class_attribute="y")
    drawn = [realise_matrices(plan, [frame]).attribute("job").matrix["retention"] for _ in range(2)]
    assert drawn[0] != drawn[1]  # 256 bits of OS entropy each time, no seed anywhere
    assert all(0.6 <= r <= 1.0 for r in drawn[0] + drawn[1])
    seeded = [
        realise_matrices(plan, [frame], random_state=3).attribute("job").matrix["retention"]
        for _ in range(2)
    ]
    assert seeded[0] == seeded[1]  # an experiment's seed reproduces them


def test_stratified_estimate_json_lists_every_stratum(run_cli, tmp_path):
    _, data = _table(tmp_path, n=1_000)
    rel = tmp_path / "rel"
    spec = _spec(tmp_path, STRATIFIED)
    code, out, err = run_cli("perturb", data, "--out", rel, "--spec", spec, "--class", "y")
    assert code == 0, err
    code, out, err = run_cli("estimate", rel, "--method", "inverse", "--json")
    assert code == 0, err
    (job,) = json.loads(out)["attributes"]
    assert job["strata"] == "region" and sorted(job["by_stratum"]) == ["north", "south"]
    total = np.sum([job["by_stratum"][v]["estimated_counts"] for v in ("north", "south")], axis=0)
    np.testing.assert_allclose(job["estimated_counts"], total)
