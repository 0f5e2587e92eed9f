import numpy as np
import pandas as pd
import pytest

from ppdm.datasets import AGRAWAL_COLUMNS, agrawal, agrawal_class, load_synth
from ppdm.exceptions import ParameterError

# One hand-made record, varied per case: a young, low-income applicant.
BASE = {
    "salary": 60_000.0,
    "commission": 20_000.0,
    "age": 30,
    "elevel": 0,
    "car": 1,
    "zipcode": 1,
    "hvalue": 500_000.0,
    "hyears": 10,
    "loan": 150_000.0,
}


def _cls(function, **changes):
    row = {k: np.array([v]) for k, v in {**BASE, **changes}.items()}
    return int(agrawal_class(row, function)[0])


# (function, changes, expected class); 0 = group A, 1 = group B.
CASES = [
    # f1: group A iff age < 40 or age >= 60
    (1, {"age": 39}, 0),
    (1, {"age": 40}, 1),
    (1, {"age": 59}, 1),
    (1, {"age": 60}, 0),
    # f2: salary band by age, bounds inclusive
    (2, {"age": 30, "salary": 50_000.0}, 0),
    (2, {"age": 30, "salary": 100_000.0}, 0),
    (2, {"age": 30, "salary": 100_001.0}, 1),
    (2, {"age": 50, "salary": 60_000.0}, 1),
    (2, {"age": 50, "salary": 125_000.0}, 0),
    (2, {"age": 70, "salary": 25_000.0}, 0),
    (2, {"age": 70, "salary": 80_000.0}, 1),
    # f3: elevel set by age
    (3, {"age": 30, "elevel": 1}, 0),
    (3, {"age": 30, "elevel": 2}, 1),
    (3, {"age": 50, "elevel": 0}, 1),
    (3, {"age": 50, "elevel": 3}, 0),
    (3, {"age": 70, "elevel": 1}, 1),
    (3, {"age": 70, "elevel": 4}, 0),
    # f4: salary band by age and elevel
    (4, {"age": 30, "elevel": 0, "salary": 30_000.0}, 0),
    (4, {"age": 30, "elevel": 2, "salary": 30_000.0}, 1),
    (4, {"age": 30, "elevel": 2, "salary": 90_000.0}, 0),
    (4, {"age": 50, "elevel": 2, "salary": 60_000.0}, 0),
    (4, {"age": 50, "elevel": 4, "salary": 60_000.0}, 1),
    (4, {"age": 50, "elevel": 4, "salary": 120_000.0}, 0),
    (4, {"age": 70, "elevel": 3, "salary": 95_000.0}, 0),
    (4, {"age": 70, "elevel": 0, "salary": 95_000.0}, 1),
    (4, {"age": 70, "elevel": 0, "salary": 30_000.0}, 0),
    # f5: loan band by age and salary
    (5, {"age": 30, "salary": 60_000.0, "loan": 150_000.0}, 0),
    (5, {"age": 30, "salary": 60_000.0, "loan": 350_000.0}, 1),
    (5, {"age": 30, "salary": 30_000.0, "loan": 350_000.0}, 0),
    (5, {"age": 50, "salary": 80_000.0, "loan": 250_000.0}, 0),
    (5, {"age": 50, "salary": 30_000.0, "loan": 250_000.0}, 1),
    (5, {"age": 50, "salary": 30_000.0, "loan": 450_000.0}, 0),
    (5, {"age": 70, "salary": 30_000.0, "loan": 450_000.0}, 0),
    (5, {"age": 70, "salary": 90_000.0, "loan": 450_000.0}, 1),
    (5, {"age": 70, "salary": 90_000.0, "loan": 200_000.0}, 0),
    # f6: f2 on salary + commission
    (6, {"age": 30, "salary": 40_000.0, "commission": 20_000.0}, 0),
    (6, {"age": 30, "salary": 40_000.0, "commission": 0.0}, 1),
    (6, {"age": 50, "salary": 60_000.0, "commission": 20_000.0}, 0),
    (6, {"age": 70, "salary": 60_000.0, "commission": 20_000.0}, 1),
    # f7: 2/3 (salary + commission) - loan/5 - 20000 > 0
    (7, {"salary": 60_000.0, "commission": 0.0, "loan": 99_000.0}, 0),  # 40000-19800-20000 > 0
    (7, {"salary": 60_000.0, "commission": 0.0, "loan": 100_000.0}, 1),  # exactly 0 -> B
    # f8: 2/3 (salary + commission) - 5000 elevel - 20000 > 0
    (8, {"salary": 45_000.0, "commission": 0.0, "elevel": 1}, 0),  # 30000-5000-20000
    (8, {"salary": 45_000.0, "commission": 0.0, "elevel": 2}, 1),  # 30000-10000-20000
    # f9: ... - 5000 elevel - loan/5 - 10000 > 0
    (9, {"salary": 45_000.0, "commission": 0.0, "elevel": 2, "loan": 50_000.0}, 1),
    (9, {"salary": 45_000.0, "commission": 0.0, "elevel": 2, "loan": 40_000.0}, 0),
    # f10: ... - 5000 elevel + equity/5 - 10000 > 0, equity = hvalue (hyears-20)/10 if hyears>=20
    (
        10,
        {"salary": 30_000.0, "commission": 0.0, "elevel": 2, "hyears": 10},
        1,
    ),  # 20000-10000-10000
    (10, {"salary": 30_000.0, "commission": 0.0, "elevel": 2, "hyears": 20}, 1),  # equity 0
    (10, {"salary": 30_000.0, "commission": 0.0, "elevel": 2, "hyears": 21}, 0),  # equity 50000
    (
        10,
        {"salary": 15_000.0, "commission": 0.0, "elevel": 4, "hyears": 30, "hvalue": 100_000.0},
        1,
    ),  # 10000-20000+20000-10000 = 0
    (
        10,
        {"salary": 15_000.0, "commission": 0.0, "elevel": 4, "hyears": 30, "hvalue": 150_000.0},
        0,
    ),
]


@pytest.mark.parametrize("function,changes,expected", CASES)
def test_class_functions_on_hand_made_rows(function, changes, expected):
    assert _cls(function, **changes) == expected


def test_every_function_has_cases():
    assert {c[0] for c in CASES} == set(range(1, 11))


@pytest.mark.parametrize("function", range(1, 11))
def test_ranges_and_types(function):
    t = agrawal(20_000, function=function, random_state=function)
    assert list(t.columns) == [*AGRAWAL_COLUMNS, "group"]
    assert t["salary"].between(20_000, 150_000).all()
    hi = t["salary"] >= 75_000
    assert (t.loc[hi, "commission"] == 0).all()
    assert t.loc[~hi, "commission"].between(10_000, 75_000).all()
    assert set(t["age"].unique()) == set(range(20, 81))
    assert set(t["elevel"].unique()) == set(range(5))
    assert set(t["car"].unique()) == set(range(1, 21))
    assert set(t["zipcode"].unique()) == set(range(1, 10))
    k = 10 - t["zipcode"]
    assert (t["hvalue"] >= 50_000 * k).all() and (t["hvalue"] < 150_000 * k).all()
    assert set(t["hyears"].unique()) == set(range(1, 31))
    assert t["loan"].between(0, 500_000).all()
    assert set(t["group"].unique()) <= {0, 1}
    # the stored class is the function applied to the stored attributes
    np.testing.assert_array_equal(t["group"].to_numpy(), agrawal_class(t, function))


def test_same_seed_same_table_and_different_seed_differs():
    a = agrawal(1000, function=5, perturbation=0.05, random_state=7)
    b = agrawal(1000, function=5, perturbation=0.05, random_state=7)
    c = agrawal(1000, function=5, perturbation=0.05, random_state=8)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(c)


def test_perturbation_keeps_ranges_and_changes_values():
    clean = agrawal(20_000, function=2, random_state=3)
    noisy = agrawal(20_000, function=2, perturbation=0.2, random_state=3)
    # the class is fixed before the attributes are perturbed, as in MOA
    np.testing.assert_array_equal(clean["group"], noisy["group"])
    assert noisy["salary"].between(20_000, 150_000).all()
    assert noisy["age"].between(20, 80).all() and noisy["age"].dtype.kind == "i"
    assert noisy["hyears"].between(1, 30).all() and noisy["hyears"].dtype.kind == "i"
    assert noisy["loan"].between(0, 500_000).all()
    assert noisy["hvalue"].between(0, 1_350_000).all()
    assert ((noisy["commission"] == 0) == (clean["commission"] == 0)).all()
    assert noisy.loc[noisy["commission"] > 0, "commission"].between(10_000, 75_000).all()
    # noise of +-0.2 * range: mean absolute move of a uniform is 0.1 * range, before clipping
    moved = (noisy["salary"] - clean["salary"]).abs().mean() / 130_000
    assert 0.08 < moved < 0.1 + 1e-9
    # categorical attributes are not perturbed
    for col in ("elevel", "car", "zipcode"):
        np.testing.assert_array_equal(clean[col], noisy[col])
    # the class of the perturbed attributes no longer always matches: label noise
    assert (agrawal_class(noisy, 2) != noisy["group"]).mean() > 0.01


def test_balance_alternates_classes():
    t = agrawal(1001, function=1, balance=True, random_state=0)
    g = t["group"].to_numpy()
    np.testing.assert_array_equal(g[0::2], 1)
    np.testing.assert_array_equal(g[1::2], 0)
    np.testing.assert_array_equal(g, agrawal_class(t, 1))


def test_load_synth_splits():
    train, test = load_synth(3, n_train=500, n_test=50, random_state=1)
    assert len(train.frame) == 500 and len(test.frame) == 50
    np.testing.assert_array_equal(train.y, agrawal_class(train.frame, 3))
    whole = agrawal(550, function=3, random_state=1)
    pd.testing.assert_frame_equal(test.frame, whole.iloc[500:].reset_index(drop=True))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"n": -1}, "n must be"),
        ({"n": 10, "function": 11}, "function must be in 1..10"),
        ({"n": 10, "perturbation": 1.5}, r"perturbation must be in \[0, 1\] \(got 1.5\)"),
    ],
)
def test_errors_name_parameter(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        agrawal(**kwargs)


def test_registry_has_synth():
    from ppdm.cli._datasets import _registry

    reg = _registry()
    d = reg["synth1"]()
    assert d.frame.shape == (105_000, 10) and d.target == "group"
