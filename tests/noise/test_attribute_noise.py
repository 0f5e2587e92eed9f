"""Attribute noise on LIA / TIA: selection, domain, the paper's noise, re-identification."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from ppdm.exceptions import ParameterError
from ppdm.noise import (
    DiscreteNoise,
    add_attribute_noise,
    discrete_gaussian,
    innocent_attributes,
    leaf_index,
    paper_noise,
    reidentification,
)
from ppdm.tree import Tree

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")


def _hand_built_tree():
    """a? (b? L2 | L3) | (c? L5 | (a? L7 | L8)); d and e are tested nowhere.

    Nodes in preorder: 0 a, 1 b, 2 leaf, 3 leaf, 4 c, 5 leaf, 6 a, 7 leaf, 8 leaf.
    """
    feature = np.array([0, 1, -1, -1, 2, -1, 0, -1, -1])
    children = np.array([1, 4, 2, 3, 5, 6, 7, 8])
    start = np.array([0, 2, 0, 0, 4, 0, 6, 0, 0])
    count = np.array([2, 2, 0, 0, 2, 0, 2, 0, 0])
    value = np.ones((9, 2))
    tree = Tree(
        feature,
        np.zeros(9, dtype=bool),
        np.where(feature >= 0, 0.5, np.nan),
        start,
        count,
        children,
        value,
        np.zeros(9, dtype=bool),
    )
    return SimpleNamespace(tree_=tree, feature_names_=["a", "b", "c", "d", "e"])


def test_lia_tia_on_a_hand_built_tree():
    table = innocent_attributes(_hand_built_tree()).set_index("leaf")
    assert table.index.tolist() == [2, 3, 5, 7, 8]
    assert table.loc[2, "path"] == ["a", "b"] and table.loc[2, "lia"] == ["c"]
    assert table.loc[3, "lia"] == ["c"]
    for leaf in (5, 7, 8):  # a tested twice on the way to 7 and 8
        assert table.loc[leaf, "path"] == ["a", "c"]
        assert table.loc[leaf, "lia"] == ["b"]
    assert all(t == ["d", "e"] for t in table["tia"])


@pytest.mark.parametrize(
    ("target", "scope", "left", "right"),
    [
        ("tia", "all", {"x2"}, {"x2"}),
        ("lia", "all", set(), {"x1"}),
        ("both", "all", {"x2"}, {"x1", "x2"}),
        ("tia", "heterogeneous", set(), {"x2"}),
        ("both", "heterogeneous", set(), {"x1", "x2"}),
    ],
)
def test_selection_on_a_fitted_tree(two_level, target, scope, left, right):
    X, y = two_level
    r = add_attribute_noise(X, y, target, scope=scope, random_state=0)
    leaf = leaf_index(r.tree, X)
    right_rows = X["x0"].to_numpy() > 4
    names = np.array(r.columns)
    for rows, expected in ((~right_rows, left), (right_rows, right)):
        got = r.eligible[rows]
        assert (got == got[0]).all()  # the same attributes for every record of a side
        assert set(names[got[0]]) == expected
    # tested attributes are never perturbed, so every record stays in its leaf
    assert not r.eligible[:, 0].any()
    np.testing.assert_array_equal(leaf_index(r.tree, r.X), leaf)
    assert not r.changed[~r.eligible].any()


def test_paper_noise_preset():
    noise = paper_noise()
    assert noise.relative
    assert noise.sd == pytest.approx(0.276, abs=1e-9)
    assert noise.probabilities @ noise.offsets == pytest.approx(0.0, abs=1e-12)
    np.testing.assert_allclose(noise.offsets[[0, -1]], [-1.0, 1.0])
    np.testing.assert_allclose(noise.probabilities, noise.probabilities[::-1])
    assert paper_noise(0.1).sd == pytest.approx(0.1, abs=1e-9)
    assert discrete_gaussian(2.0).sd == pytest.approx(2.0, abs=1e-9)


def test_values_stay_in_domain_and_integer(wbc350):
    X, y, tree = wbc350
    for boundary in ("reflect", "resample"):
        r = add_attribute_noise(X, y, "both", tree=tree, boundary=boundary, random_state=1)
        assert (r.X.dtypes == X.dtypes).all()
        for c in r.columns:
            lo, hi = X[c].min(), X[c].max()
            assert r.X[c].between(lo, hi).all(), (boundary, c)
        assert r.changed.sum() > 0


def test_float_attributes_keep_float_and_bounds(boston300):
    X, y, tree = boston300
    r = add_attribute_noise(
        X, y, "tia", tree=tree, noise=discrete_gaussian(0.5, step=0.1), random_state=2
    )
    for c in r.columns:
        assert r.X[c].dtype == X[c].dtype
        assert r.X[c].between(X[c].min(), X[c].max()).all()


@pytest.mark.parametrize("boundary", ["reflect", "resample"])
def test_released_values_follow_the_transition_law(boundary):
    # one attribute, 20000 records at each of three values near and away from the bounds
    n = 20000
    x = np.repeat([1, 2, 6], n)
    X = pd.DataFrame({"t": np.tile([0, 1], x.size // 2), "x": x, "lo": 1, "hi": 10})
    X.loc[0, "x"], X.loc[1, "x"] = 1, 10
    y = X["t"].to_numpy()
    r = add_attribute_noise(
        X, y, "tia", attributes=["x"], boundary=boundary, random_state=3, bounds={"x": (1, 10)}
    )
    support = np.arange(1, 11, dtype=float)
    for v in (1, 2, 6):
        rows = X["x"].to_numpy() == v
        expected = r.transition("x", [v], support)[0]
        assert expected.sum() == pytest.approx(1.0)
        observed = np.bincount(r.X["x"].to_numpy()[rows] - 1, minlength=10)
        keep = expected > 0
        assert observed[~keep].sum() == 0
        chi2 = stats.chisquare(observed[keep], expected[keep] * rows.sum())
        assert chi2.pvalue > 1e-4, (v, observed, expected)


def test_reidentification_by_hand():
    # two records differing on one TIA: p(X -> Y) is the noise law's mass
    noise = DiscreteNoise([-1.0, 0.0, 1.0], [0.25, 0.5, 0.25])
    X = pd.DataFrame({"t": [0] * 4 + [1] * 4, "z": [3, 4, 3, 4, 3, 4, 3, 4]})
    y = X["t"].to_numpy()
    r = add_attribute_noise(X, y, "tia", noise=noise, bounds={"z": (0, 9)}, random_state=0)
    rep = reidentification(r, threshold=0.2)
    t = rep.per_target
    released = r.X["z"].to_numpy()
    for i in range(len(X)):
        p = np.array([{0: 0.5, 1: 0.25, -1: 0.25}.get(d, 0.0) for d in released - X["z"][i]])
        assert t.loc[i, "p_true"] == pytest.approx(p[i])
        assert t.loc[i, "posterior_true"] == pytest.approx(p[i] / p.sum())
        assert t.loc[i, "n_candidates"] == (p >= 0.2).sum()
        assert t.loc[i, "n_possible"] == (p > 0).sum()
    assert rep.attributes == ["z"]
    assert rep.summary()["n_targets"] == len(X)
    assert rep.summary()["median_possible"] == t["n_possible"].median()


def test_noise_must_have_mean_zero():
    with pytest.raises(ParameterError, match="mean zero"):
        DiscreteNoise([0.0, 1.0], [0.5, 0.5])
    with pytest.raises(ParameterError, match="sum to 1"):
        DiscreteNoise([-1.0, 1.0], [0.5, 0.6])
    with pytest.raises(ParameterError, match="sd_fraction must be in"):
        paper_noise(0.9)


def test_a_column_without_values_is_left_as_it_is(wbc350):
    # an all-missing column crashed the tree ("index -1 is out of bounds") and then the
    # noise ("bounds ... (nan, nan)"); it has nothing to perturb
    X, y, _ = wbc350
    X = X.assign(empty=np.nan)
    r = add_attribute_noise(X, y, "both", random_state=1)
    assert r.X["empty"].isna().all() and r.changed.sum() > 0
    assert not any("empty" in p for p in r.innocent["perturbed"])
    assert not r.eligible[:, list(X.columns).index("empty")].any()


def test_values_too_large_for_relative_noise_are_refused(wbc350):
    from ppdm.exceptions import DataError

    X, y, _ = wbc350
    X = X.astype(float)
    X.iloc[0, 0] = 1e308  # twice it overflows: inf, then NaN after reflection
    with pytest.raises(DataError, match="too large for noise relative to the value"):
        add_attribute_noise(X, y, "both", random_state=1)
