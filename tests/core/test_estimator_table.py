"""The estimator name table: every entry's declared properties hold, and only they do."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

from ppdm.bayesnet import FIXES, LEARNING_FIXES, PramScheme, fix_negative_counts
from ppdm.bayesnet.estimation import estimate_family, estimate_parameters
from ppdm.bayesnet.network import BayesNet, Node
from ppdm.cli._options import EstimationMethod, NegativeFix
from ppdm.estimate import (
    ESTIMATORS,
    METHODS,
    Estimator,
    estimate_counts,
    estimate_joint_counts,
    get_estimator,
    point_estimate,
)
from ppdm.exceptions import SpecError
from ppdm.matrix import GammaDiagonal, KroneckerMatrix, symmetric_binary

MATRIX = GammaDiagonal(6, 1.5)


def _samples(count: int = 60) -> np.ndarray:
    """Small, skewed perturbed histograms (N = 6, gamma = 1.5): raw estimates go negative."""
    rng = np.random.default_rng(7)
    released = MATRIX.apply(np.array([0.6, 0.3, 0.05, 0.05, 0.0, 0.0]))
    return rng.multinomial(40, released, size=count).T.astype(np.float64)


def test_the_samples_have_negative_raw_estimates():
    raw = MATRIX.inverse_apply(_samples())
    assert (raw < 0).any(axis=0).mean() > 0.5


@pytest.mark.parametrize("name", METHODS)
def test_declared_properties_hold_and_the_undeclared_ones_fail_somewhere(name):
    est = ESTIMATORS[name]
    y = _samples()
    out = point_estimate(y, MATRIX, name)
    sums = np.isclose(out.sum(axis=0), y.sum(axis=0), rtol=1e-9, atol=1e-6)
    nonneg = (out >= -1e-12).all(axis=0)
    assert sums.all() == est.sums_to_n
    assert nonneg.all() == est.nonnegative
    # linear: the estimate of a sum of histograms is the sum of their estimates
    pair = point_estimate(y[:, :30] + y[:, 30:], MATRIX, name)
    additive = np.isclose(pair, out[:, :30] + out[:, 30:], rtol=1e-9, atol=1e-6).all(axis=0)
    assert additive.all() == est.linear


@pytest.mark.parametrize("name", METHODS)
def test_columns_equal_one_histogram_at_a_time(name):
    y = _samples(8)
    together = point_estimate(y, MATRIX, name)
    for k in range(y.shape[1]):
        np.testing.assert_allclose(together[:, k], point_estimate(y[:, k], MATRIX, name))


def test_only_a_linear_estimator_gets_the_analytic_standard_error():
    y = _samples(1)[:, 0]
    kinds = {m: estimate_counts(y, MATRIX, m, replicates=20).stderr_kind for m in METHODS}
    assert {m for m, k in kinds.items() if k == "analytic"} == {
        m for m in METHODS if ESTIMATORS[m].linear
    }


def test_a_new_entry_serves_estimates_joint_tensors_and_network_counts(monkeypatch):
    halve = Estimator(
        "halve", "half the raw estimate", False, False, True, fix=lambda raw, total: raw / 2
    )
    monkeypatch.setitem(ESTIMATORS, "halve", halve)
    y = np.array([60.0, 20.0, 20.0])
    np.testing.assert_allclose(point_estimate(y, GammaDiagonal(3, 5.0), "halve"), [40, 5, 5])
    joint = KroneckerMatrix([GammaDiagonal(2, 3.0), GammaDiagonal(2, 3.0)])
    t = np.array([[10.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(
        estimate_joint_counts(t, joint, "halve"), estimate_joint_counts(t, joint) / 2
    )
    raw = np.array([[4.0, -2.0], [1.0, 6.0]])
    # only the configuration with a negative is fixed
    np.testing.assert_allclose(fix_negative_counts(raw, "halve"), [[4.0, -1.0], [1.0, 3.0]])


def test_network_fixes_are_the_table_fixes_on_the_columns_with_a_negative():
    rng = np.random.default_rng(3)
    raw = rng.normal(2.0, 3.0, size=(4, 50))
    bad = (raw < 0).any(axis=0)
    assert 0 < bad.sum() < 50
    for fix in FIXES:
        est = get_estimator(fix)
        out = fix_negative_counts(raw, fix)
        np.testing.assert_array_equal(out[:, ~bad], raw[:, ~bad])
        expect = est.fix(raw[:, bad], np.clip(raw[:, bad].sum(axis=0), 0, None))
        np.testing.assert_allclose(out[:, bad], expect)
    assert set(LEARNING_FIXES) == {
        m for m in FIXES if m in ESTIMATORS and ESTIMATORS[m].nonnegative
    }


def test_set_scale_learns_parameters_with_the_parent_totals_kept():
    net = BayesNet(
        [Node("A", ("0", "1")), Node("B", ("0", "1", "2"), ("A",))],
        {"A": [0.5, 0.5], "B": [0.9, 0.5, 0.05, 0.3, 0.05, 0.2]},
    )
    scheme = PramScheme(net.cardinalities, [(["A"], symmetric_binary(0.3))])
    rng = np.random.default_rng(0)
    data = pd.DataFrame({"A": rng.integers(0, 2, 60), "B": rng.integers(0, 3, 60)})
    released = scheme.randomize(data, random_state=1)
    fam = estimate_family(released, "B", ["A"], scheme, fix="set-scale")
    np.testing.assert_allclose(fam.counts.sum(axis=0), np.clip(fam.raw.sum(axis=0), 0, None))
    fit = estimate_parameters(net, released, scheme, fix="set-scale")
    np.testing.assert_allclose(fit.network.cpd("B").sum(axis=0), 1.0)


def test_wrong_names_are_one_line_errors_naming_the_choices():
    with pytest.raises(SpecError, match=r"^method must be one of inverse, zero, set-scale"):
        point_estimate(np.ones(3), GammaDiagonal(3, 5.0), "clip")
    joint = KroneckerMatrix([GammaDiagonal(2, 3.0)])
    with pytest.raises(SpecError, match="^method must be one of inverse, .*ibu \\(got 'clip'\\)"):
        estimate_joint_counts(np.ones(2), joint, "clip")
    net = BayesNet([Node("A", ("0", "1"))], {"A": [0.5, 0.5]})
    scheme = PramScheme(net.cardinalities, [])
    with pytest.raises(SpecError, match="to learn parameters \\(got 'none'\\)"):
        estimate_parameters(net, pd.DataFrame({"A": [0, 1]}), scheme, fix="none")
    with pytest.raises(SpecError, match="fix must be one of inverse, zero, set-scale, norm-sub"):
        fix_negative_counts(np.ones((2, 2)), "ibu")


def test_the_command_line_offers_the_table():
    # the choices are built from the tables; bn learn's is read without the
    # Bayesian-network package (a cheap start-up), so it must agree with it
    assert [m.value for m in EstimationMethod] == list(METHODS)
    assert [f.value for f in NegativeFix] == list(LEARNING_FIXES)


@pytest.mark.parametrize(
    ("command", "flag", "names"),
    [
        (["estimate"], "--method", METHODS),
        (["reconstruct"], "--method", METHODS),
        (["bn", "learn"], "--fix", LEARNING_FIXES),
    ],
)
def test_help_lists_every_table_entry(run_cli, monkeypatch, command, flag, names):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_cli(*command, "--help")
    line = next(x for x in out.splitlines() if f" {flag} " in x)
    assert code == 0 and f"<{'|'.join(names)}>" in line, line


def test_the_table_pickles():
    # an entry travels to worker processes with the work that names it
    assert pickle.loads(pickle.dumps(ESTIMATORS)) == ESTIMATORS


def test_set_scale_zeroes_negative_counts_and_rescales_to_the_total():
    fixed = get_estimator("set-scale").fix(np.array([6.0, -2.0, 2.0]), 6.0)
    np.testing.assert_allclose(fixed, [4.5, 0.0, 1.5])
