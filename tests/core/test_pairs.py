"""Two-way tables of perturbed attributes: estimate, bootstrap, baseline, command line."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from ppdm.estimate import (
    _reperturb_joint,
    estimate_joint_counts,
    get_estimator,
    iterative_bayesian_update,
    joint_stderr,
)
from ppdm.matrix import ExplicitMatrix, GammaDiagonal, KroneckerMatrix
from ppdm.pairs import estimate_pairs
from ppdm.pipeline import make_release

SKEWED = ExplicitMatrix(np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.3], [0.1, 0.2, 0.6]]))
TRUTH = np.array([[300, 20, 10, 5], [50, 200, 10, 40], [5, 5, 100, 220]], dtype=float)


def _kron():
    return KroneckerMatrix([SKEWED, GammaDiagonal(4, 5.0)])


def test_joint_ibu_is_ibu_with_the_dense_product():
    k = _kron()
    y = k.apply(TRUTH) + np.arange(12).reshape(3, 4)  # not exactly an image of M
    dense = ExplicitMatrix(k.dense())
    expected = iterative_bayesian_update(y.ravel(), dense)
    np.testing.assert_allclose(estimate_joint_counts(y, k, "ibu").ravel(), expected, rtol=1e-9)


def test_reperturbed_tables_have_the_model_mean_and_covariance():
    k = _kron()
    reps = 4000
    ys = _reperturb_joint(TRUTH.astype(np.int64), k, reps, np.random.default_rng(0))
    assert ys.shape == (12, reps)
    assert np.all(ys.sum(axis=0) == TRUTH.sum())  # records are moved, never lost
    # Ma & Sivakumar, Theorem 1: Cov(y) = sum_o x_o (diag(m_o) - m_o m_o^T)
    dense = k.dense()
    x = TRUTH.ravel()
    cov = np.diag(dense @ x) - (dense * x) @ dense.T
    se = np.sqrt(np.diag(cov) / reps)
    z = (ys.mean(axis=1) - dense @ x) / se
    assert np.max(np.abs(z)) < 4.5  # 12 cells, each |z| > 4.5 with p < 7e-6
    sd = ys.std(axis=1, ddof=1)
    # the sd of a sample sd is about sd / sqrt(2 reps): 1.1 % here, so 6 % is > 5 of them
    np.testing.assert_allclose(sd, np.sqrt(np.diag(cov)), rtol=0.06)


@pytest.mark.parametrize("method", ["ibu", "norm-sub", "inverse"])
def test_joint_stderr_matches_the_spread_of_fresh_releases(method):
    k = _kron()
    fresh = _reperturb_joint(TRUTH.astype(np.int64), k, 300, np.random.default_rng(1))
    est = get_estimator(method)
    if est.fix is not None:  # every fresh table at once, as the bootstrap does
        many = est.fix(k.flat().inverse_apply(fresh), fresh.sum(axis=0))
    else:
        many = est.estimate(fresh, k.flat())
    spread = many.std(axis=1, ddof=1).reshape(TRUTH.shape)
    y = fresh[:, 0].reshape(TRUTH.shape)
    se = joint_stderr(y, k, method)
    assert se.shape == TRUTH.shape
    # B = 200 and 300 fresh samples: each sd is within ~5 % of its own; the plug-in table
    # differs from the truth, so the average ratio is held to 20 %
    assert 0.8 < se.mean() / spread.mean() < 1.2


def _dependent(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 6, n))
    c = rng.integers(0, 6, n)
    return pd.DataFrame(
        {
            "a": a.astype(str),
            "b": b.astype(str),
            "c": c.astype(str),
            "y": np.where(a > 2, "hi", "lo"),
        }
    )


def _release(df, tmp_path, **kw):
    out = tmp_path / "rel"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, out, class_attribute="y", gamma=9.0, random_state=3, **kw)
    return out


def _truth(df, a, b, labels):
    t = pd.crosstab(df[a], df[b]).reindex(index=labels[0], columns=labels[1], fill_value=0)
    return t.to_numpy(dtype=float)


def test_dependent_pairs_beat_the_product_of_their_margins(tmp_path):
    df = _dependent(20_000, 0)
    rel = _release(df, tmp_path)
    (dep, ind) = estimate_pairs(rel, [("a", "b"), ("a", "c")], "ibu", replicates=50)
    err = {}
    for est in (dep, ind):
        truth = _truth(df, *est.names, est.labels)
        n = truth.sum()
        err[est.names] = (
            np.abs(est.counts - truth).sum() / n,
            np.abs(est.independent - truth).sum() / n,
        )
        assert est.counts.sum() == pytest.approx(n)
    # independent perturbations keep independence: the released table's test tells them apart
    assert dep.independence_p < 1e-9 < 1e-3 < ind.independence_p
    pair, product = err[("a", "b")]
    # b copies a 80 % of the time: the product of margins misses most of that mass
    assert product > 0.5 and pair < product / 3
    # independent attributes: the product is the better estimate (fewer parameters)
    pair, product = err[("a", "c")]
    assert product < pair


def test_estimate_pairs_command(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from ppdm.cli import app

    df = _dependent(3000, 1)
    rel = _release(df, tmp_path)
    runner = CliRunner()
    res = runner.invoke(app, ["estimate", str(rel), "--pairs", "a,b", "--method", "ibu"])
    assert res.exit_code == 0, res.output
    assert "a x b (ibu)" in res.output and "if independent" in res.output
    words = " ".join(res.output.split())  # the caption wraps at the terminal's width
    assert "released table's independence test: p = " in words
    assert "(dependence shown: the joint estimate can find it)" in words
    res = runner.invoke(app, ["estimate", str(rel), "--pairs", "a,b", "--json"])
    payload = json.loads(res.stdout)
    (pair,) = payload["pairs"]
    assert (pair["rows"], pair["columns"], pair["method"]) == ("a", "b", "set-scale")
    assert np.asarray(pair["estimated_counts"]).shape == (6, 6)
    assert pair["stderr_kind"] == "bootstrap (B=200)"
    assert 0 <= pair["released_independence_p"] < 1e-3
    plots = tmp_path / "plots"
    res = runner.invoke(app, ["estimate", str(rel), "--pairs", "a,b", "--plot", str(plots)])
    assert res.exit_code == 0, res.output
    assert (plots / "a__x__b.png").stat().st_size > 5000
    for flag, message in (
        ("a", "give two different attributes as A,B (got 'a')"),
        ("a,y", "attribute 'y' is released as is"),
        ("a,zz", "the release has no attribute 'zz'"),
    ):
        res = runner.invoke(app, ["estimate", str(rel), "--pairs", flag])
        assert res.exit_code == 2
        assert f"error: --pairs: {message}" in res.output
