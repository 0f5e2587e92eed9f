"""The ordinal matrix's amplification bound, the budget split and the quick run's CSVs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm_papers import ordinal as od
from ppdm_papers.registry import RunContext, get


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 60), gamma=st.floats(1.001, 1e4))
def test_ordinal_matrix_ratio_within_every_released_value_is_at_most_gamma(n, gamma):
    m = od.ordinal_matrix(n, gamma).dense()  # m[h, k] = P(k -> h)
    np.testing.assert_allclose(m.sum(axis=0), 1.0, rtol=0, atol=1e-12)
    assert np.all(m > 0)
    ratios = m.max(axis=1) / m.min(axis=1)
    assert ratios.max() <= gamma * (1 + 1e-12)
    # The end rows reach the bound: no looser construction hides behind it.
    assert ratios[0] == pytest.approx(gamma, rel=1e-12)
    assert ratios[-1] == pytest.approx(gamma, rel=1e-12)


def test_ordinal_matrix_is_distance_aware():
    m = od.ordinal_matrix(10, 9.0).dense()
    # Within a column (one original code) the probability falls with distance over the
    # inner codes; the two end codes also collect the tails beyond them (a_end > a_inner).
    col = m[1:-1, 4]
    assert np.all(np.diff(col[3:]) < 0) and np.all(np.diff(col[:4]) > 0)
    assert m[0, 0] > m[1, 1] == pytest.approx(m[5, 5])


@settings(max_examples=40, deadline=None)
@given(
    w=st.lists(st.floats(0.0, 5.0), min_size=1, max_size=30),
    gamma0=st.floats(1.5, 20.0),
    share=st.floats(0.0, 0.95),
)
def test_budget_split_spends_exactly_the_budget(w, gamma0, share):
    eps = len(w) * np.log(gamma0)
    g = od.budget_gammas(np.array(w), eps, share)
    assert np.log(g).sum() == pytest.approx(eps, rel=1e-12)
    assert np.all(g > 1.0)


def test_quick_run_writes_releases_at_the_stated_privacy(tmp_path):
    paths = get("ordinal")(RunContext(out=tmp_path, quick=True, progress=False))
    assert {p.name for p in paths} >= {"ordinal.csv", "split.csv", "ordinal.png"}
    ordinal = pd.read_csv(tmp_path / "ordinal.csv")
    assert list(ordinal.columns) == [
        "dataset", "gamma", "N", "rep", "variant", "measure", "value", "amplification"
    ]  # fmt: skip
    assert set(ordinal["variant"]) == {"gamma-diagonal", "ordinal"}
    np.testing.assert_allclose(ordinal["amplification"], ordinal["gamma"], rtol=1e-12)
    acc = ordinal[ordinal["measure"].isin(od.LEARNERS)]["value"]
    assert acc.between(0, 1).all()
    split = pd.read_csv(tmp_path / "split.csv")
    m = split["dataset"].map({"synth1": 9, "wisconsin": 9})
    np.testing.assert_allclose(split["epsilon"], m * np.log(split["gamma"]), rtol=1e-12)
    np.testing.assert_allclose(split["epsilon_spent"], split["epsilon"], rtol=1e-12)
    equal = split[split["variant"] == "equal"]
    np.testing.assert_allclose(equal["gamma_min"], equal["gamma"], rtol=1e-12)
    np.testing.assert_allclose(equal["gamma_max"], equal["gamma"], rtol=1e-12)
    unequal = split[split["variant"] != "equal"]
    assert (unequal["gamma_max"] > unequal["gamma"]).all()
    summary = pd.read_csv(tmp_path / "ordinal_summary.csv")
    assert (summary["reps"] == 3).all()
    np.testing.assert_allclose(summary["diff"], summary["mean"] - summary["mean_base"])
