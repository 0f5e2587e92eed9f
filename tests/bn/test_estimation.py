"""Estimation of N_ijk and theta_ijk from randomized data: Theorems 1-2, Kronecker, convergence."""

import numpy as np
import pandas as pd
import pytest

from ppdm.bayesnet import (
    PramScheme,
    binary_randomization,
    cpd_from_counts,
    estimate_family,
    estimate_parameters,
    fix_negative_counts,
    forward_sample,
)
from ppdm.estimate import estimate_joint_counts
from ppdm.exceptions import DataError, ParameterError
from ppdm.matrix import ExplicitMatrix, KroneckerMatrix, symmetric_binary, symmetric_channel
from ppdm_papers.bayesnet import clean_ml
from ppdm_papers.bn_networks import fig3_network, symmetric_scheme

CARDS = (2, 2, 3)  # child X, parents P1 (binary), P2 (ternary)
MATS = (binary_randomization(0.1, 0.25), symmetric_binary(0.2), symmetric_channel(3, 0.3))


def _dense(matrices):
    """``P^t``: the Kronecker product of the axes' matrices, formed in full."""
    out = np.ones((1, 1))
    for m in matrices:
        out = np.kron(out, m.dense())
    return out


def theorem1_moments(counts, matrices):
    """Theorem 1, literally: ``E[N~ | D] = P^t N`` and ``Cov[N~ | D] = sum_l N(l) V_l``,
    ``V_l = diag(p_l) - p_l p_l^T`` with ``p_l`` the l-th column of ``P^t``."""
    mt = _dense(matrices)
    n = np.asarray(counts, dtype=np.float64).ravel()
    cov = sum(nl * (np.diag(mt[:, l]) - np.outer(mt[:, l], mt[:, l])) for l, nl in enumerate(n))
    return mt @ n, cov


def theorem2_covariance(counts, matrices):
    """Theorem 2, literally: ``Cov[N^ | D] = (P^-1)^t Cov[N~ | D] P^-1``."""
    inv = np.linalg.inv(_dense(matrices))
    return inv @ theorem1_moments(counts, matrices)[1] @ inv.T


def _family_data(n, seed):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({v: rng.integers(0, k, n).astype(np.int8) for v, k in zip("XPQ", CARDS)})


def _scheme():
    return PramScheme(dict(zip("XPQ", CARDS)), [([v], m) for v, m in zip("XPQ", MATS)])


def _counts(frame):
    idx = (frame["X"].to_numpy(np.int64) * 2 + frame["P"]) * 3 + frame["Q"]
    return np.bincount(idx, minlength=12).astype(float)


def test_theorem1_expectation_and_covariance_match_simulation():
    n, reps = 300, 20_000
    data = _family_data(n, 0)
    big = pd.concat([data] * reps, ignore_index=True)
    released = _scheme().randomize(big, random_state=1)
    idx = (released["X"].to_numpy(np.int64) * 2 + released["P"]) * 3 + released["Q"]
    idx += np.repeat(np.arange(reps), n) * 12
    sims = np.bincount(idx, minlength=12 * reps).reshape(reps, 12).astype(float)
    mean, cov = theorem1_moments(_counts(data), MATS)
    # expectation: every cell within 4.5 standard errors of the mean of `reps` draws
    se = np.sqrt(np.diag(cov) / reps)
    assert np.all(np.abs(sims.mean(axis=0) - mean) < 4.5 * se)
    # covariance: the sample covariance entry (a, b) has s.d. ~ sqrt((S_aa S_bb + S_ab^2) / reps)
    sample = np.cov(sims, rowvar=False)
    sd = np.sqrt((np.outer(np.diag(cov), np.diag(cov)) + cov**2) / reps)
    assert np.all(np.abs(sample - cov) < 5 * sd)
    # Theorem 2: the raw estimate is unbiased with covariance (P^-1)^t Cov P^-1
    inv = np.linalg.inv(np.kron(np.kron(MATS[0].dense(), MATS[1].dense()), MATS[2].dense()))
    est = sims @ inv.T
    cov2 = theorem2_covariance(_counts(data), MATS)
    assert np.all(np.abs(est.mean(axis=0) - _counts(data)) < 4.5 * np.sqrt(np.diag(cov2) / reps))


def test_factored_estimate_equals_dense():
    data = _scheme().randomize(_family_data(5_000, 2), random_state=3)
    fam = estimate_family(data, "X", ["P", "Q"], _scheme(), fix="none")
    dense = np.kron(np.kron(MATS[0].dense(), MATS[1].dense()), MATS[2].dense())
    expected = np.linalg.solve(dense, _counts(data))
    np.testing.assert_allclose(fam.raw.ravel(), expected, rtol=1e-10, atol=1e-8)
    # and the shared KroneckerMatrix path agrees
    joint = estimate_joint_counts(
        _counts(data).reshape(CARDS), KroneckerMatrix(list(MATS)), "inverse"
    )
    np.testing.assert_allclose(fam.raw.ravel(), joint.ravel(), rtol=1e-10, atol=1e-8)


def test_factored_covariance_equals_theorem2_dense():
    data = _scheme().randomize(_family_data(5_000, 4), random_state=5)
    fam = estimate_family(data, "X", ["P", "Q"], _scheme(), fix="none")
    # the plug-in uses N~ for E[N~] = M N^, so it is Theorem 2 evaluated at the raw estimate
    dense = theorem2_covariance(fam.raw.reshape(CARDS), MATS)
    blocks = dense.reshape(2, 6, 2, 6)
    for j in range(6):
        np.testing.assert_allclose(fam.covariance[j], blocks[:, j, :, j], rtol=1e-9, atol=1e-6)


def test_simultaneous_groups_cases_b_c_d_match_the_dense_estimate():
    data = _family_data(20_000, 6).assign(Z=lambda f: (f["X"] + f["Q"]) % 2)
    rng = np.random.default_rng(0)
    cases = {
        "b": [(["P", "Q"], 6), (["X"], 2)],  # parents together
        "c": [(["X", "P"], 4), (["Q"], 3)],  # child with a parent
        "d": [(["X", "Z"], 4), (["P"], 2), (["Q"], 3)],  # child with a non-parent
    }
    for groups in cases.values():
        mats = []
        for _, size in groups:
            m = rng.random((size, size)) + np.eye(size) * size  # generic, non-separable
            mats.append(ExplicitMatrix(m / m.sum(axis=0)))
        scheme = PramScheme(
            {"X": 2, "P": 2, "Q": 3, "Z": 2}, [(v, m) for (v, _), m in zip(groups, mats)]
        )
        released = scheme.randomize(data, random_state=7)
        fam = estimate_family(released, "X", ["P", "Q"], scheme, fix="none")
        # dense reference: invert the joint of all grouped variables, sum out extras
        order = [v for v, _ in groups for v in v]
        cards = [scheme.cardinalities[v] for v in order]
        idx = np.zeros(len(released), dtype=np.int64)
        for v, k in zip(order, cards):
            idx = idx * k + released[v].to_numpy(np.int64)
        y = np.bincount(idx, minlength=int(np.prod(cards))).astype(float)
        full = np.ones((1, 1))
        for m in mats:
            full = np.kron(full, m.dense())
        x = np.linalg.solve(full, y).reshape(cards)
        keep = [order.index(v) for v in "XPQ"]
        drop = tuple(i for i in range(len(order)) if i not in keep)
        x = x.sum(axis=drop) if drop else x
        remaining = [i for i in range(len(order)) if i in keep]
        x = np.transpose(x, [remaining.index(i) for i in keep])
        np.testing.assert_allclose(fam.raw.reshape(CARDS), x, rtol=1e-9, atol=1e-6)


def test_fix_keeps_parent_totals_and_makes_counts_non_negative():
    raw = np.array([[5.0, -2.0, 1.0], [-1.0, 4.0, -3.0], [2.0, 1.0, 1.0]])
    fixed = fix_negative_counts(raw)
    assert (fixed >= 0).all()
    np.testing.assert_allclose(fixed.sum(axis=0), np.clip(raw.sum(axis=0), 0, None))
    np.testing.assert_array_equal(fix_negative_counts(np.abs(raw)), np.abs(raw))
    zero = fix_negative_counts(raw, "zero")
    np.testing.assert_array_equal(zero, np.clip(raw, 0, None))
    with pytest.raises(ValueError, match="fix must be"):
        fix_negative_counts(raw, "clip")


def test_map_estimate_and_empty_configurations():
    counts = np.array([[3.0, 0.0], [1.0, 0.0]])
    np.testing.assert_allclose(cpd_from_counts(counts, prior=1.0), [[4 / 6, 0.5], [2 / 6, 0.5]])
    with pytest.raises(ParameterError, match="alpha must be > 0"):
        cpd_from_counts(counts, prior=0.0)
    with pytest.raises(DataError, match="counts must be >= 0"):
        cpd_from_counts(-counts)


def test_learnt_parameters_converge_like_one_over_sqrt_n():
    net = fig3_network()
    structure = net.structure()
    scheme = symmetric_scheme(net, 0.2)
    ns = [4_000, 16_000, 64_000, 256_000]
    reps = 4
    true = np.concatenate([net.cpd(v)[:-1].ravel() for v in net.names])
    rms, zs = [], []
    for n in ns:
        sq = []
        for r in range(reps):
            data = forward_sample(net, n, random_state=1000 * r + n)
            fit = estimate_parameters(structure, scheme.randomize(data, random_state=r + n), scheme)
            clean = clean_ml(structure, data)
            theta = np.concatenate([fit.network.cpd(v)[:-1].ravel() for v in net.names])
            se = np.concatenate([fit.stderr[v][:-1].ravel() for v in net.names])
            ref = np.concatenate([clean.cpd(v)[:-1].ravel() for v in net.names])
            sq.append((theta - true) ** 2)
            zs.append((theta - ref) / se)  # Theorems 1-2: conditional on D
        rms.append(np.sqrt(np.mean(sq)))
    zs = np.concatenate(zs)
    # standardised errors behave like N(0, 1): no outlier beyond 4.5 and unit mean square
    # (216 values, chi2 bounds at 1e-4: [0.68, 1.4]) once n is large enough for the
    # normal approximation; the smallest n carries the fixes at the boundary
    big = zs[len(zs) // len(ns) :]
    assert np.max(np.abs(big)) < 4.5
    assert 0.68 < np.mean(big**2) < 1.4
    # error shrinks like n^-1/2: the log-log slope is -1/2 within sampling error
    slope = np.polyfit(np.log(ns), np.log(rms), 1)[0]
    assert -0.7 < slope < -0.3
    assert rms[-1] < rms[0] / 4 * 1.6
