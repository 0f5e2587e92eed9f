"""PRAM schemes, privacy figures and marginal matrices."""

import numpy as np
import pandas as pd
import pytest

from ppdm.bayesnet import (
    PramScheme,
    binary_randomization,
    grouped_symmetric,
    marginal_matrix,
    scheme_matrix,
)
from ppdm.exceptions import MatrixError, SpecError
from ppdm.matrix import ExplicitMatrix, symmetric_binary, symmetric_channel
from ppdm_papers.bn_networks import table1_scheme


def test_table1_privacy_figures():
    priv = table1_scheme().privacy().set_index("variable")
    # gamma as printed in Table 1 for the symmetric channels
    assert priv.loc["A", "gamma"] == pytest.approx(3.0)
    assert priv.loc["D", "gamma"] == pytest.approx(3.0)
    assert priv.loc["L", "gamma"] == pytest.approx(0.7 / 0.15)
    assert priv.loc["E", "gamma"] == pytest.approx(4.0)
    # C, F: max(0.9/0.25, 0.75/0.1) = 7.5 by Evfimievski's definition (the paper prints 9)
    assert priv.loc["C", "gamma"] == pytest.approx(7.5)
    assert priv.loc["A", "K"] == 2 and priv.loc["L", "K"] == 3
    assert not priv.loc["T", "randomized"] and np.isinf(priv.loc["T", "gamma"])
    assert priv.loc["A", "rho2@0.1"] == pytest.approx(3 * 0.1 / (0.9 + 3 * 0.1))


def test_grouped_categories_lower_k():
    m = grouped_symmetric(4, [[0, 1], [2, 3]], 0.3)
    assert (m.dense()[:2, 2:] == 0).all()
    s = PramScheme({"V": 4}, [(["V"], m)])
    assert s.privacy().loc[0, "K"] == 2
    assert PramScheme({"V": 4}, [(["V"], symmetric_channel(4, 0.3))]).privacy().loc[0, "K"] == 4


def test_scheme_spec_round_trip():
    spec = {
        "variables": {"A": 2, "B": 3, "C": 2, "D": 2},
        "randomize": [
            {"variables": ["A"], "matrix": {"kind": "binary", "p1": 0.1, "p2": 0.25}},
            {
                "variables": ["B"],
                "matrix": {"kind": "block-diagonal", "groups": [[0, 2], [1]], "p": 0.2},
            },
            {"variables": ["C", "D"], "matrix": {"kind": "symmetric", "p": 0.3}},
        ],
    }
    s = PramScheme.from_spec(spec)
    back = PramScheme.from_spec(s.to_spec())
    assert back.cardinalities == s.cardinalities
    for r1, r2 in zip(s.randomizations, back.randomizations):
        assert r1.variables == r2.variables
        np.testing.assert_array_equal(r1.matrix.dense(), r2.matrix.dense())
    assert s.randomization_of("D").n_values == 4


@pytest.mark.parametrize(
    "spec, match",
    [
        (
            {
                "variables": {"A": 2},
                "randomize": [
                    {"variables": ["Z"], "matrix": {"kind": "symmetric-binary", "p": 0.1}}
                ],
            },
            "not in 'variables'",
        ),
        (
            {
                "variables": {"A": 3},
                "randomize": [
                    {"variables": ["A"], "matrix": {"kind": "symmetric-binary", "p": 0.1}}
                ],
            },
            "needs 2 values",
        ),
        (
            {
                "variables": {"A": 2},
                "randomize": [
                    {"variables": ["A"], "matrix": {"kind": "binary", "p1": 0.5, "p2": 0.5}}
                ],
            },
            "singular",
        ),
        (
            {
                "variables": {"A": 2},
                "randomize": [{"variables": ["A"], "matrix": {"kind": "wobbly"}}],
            },
            "matrix kind must be",
        ),
        (
            {
                "variables": {"A": 2},
                "randomize": [{"variables": ["A"], "matrix": {"kind": "binary", "p1": 0.1}}],
            },
            "needs the key 'p2'",
        ),
        ({"variables": {"A": 1}}, "cardinality must be"),
        (
            {
                "variables": {"A": 2, "B": 2},
                "randomize": [
                    {"variables": ["A"], "matrix": {"kind": "symmetric-binary", "p": 0.1}},
                    {"variables": ["A", "B"], "matrix": {"kind": "symmetric", "p": 0.1}},
                ],
            },
            "two randomized groups",
        ),
    ],
)
def test_bad_schemes(spec, match):
    with pytest.raises((SpecError, MatrixError), match=match):
        PramScheme.from_spec(spec)


def test_randomize_transition_rates():
    n = 400_000
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {"A": rng.integers(0, 2, n).astype(np.int8), "S": rng.integers(0, 2, n).astype(np.int8)}
    )
    s = PramScheme({"A": 2, "S": 2}, [(["A"], binary_randomization(0.1, 0.25))])
    out = s.randomize(frame, random_state=11)
    assert out["S"].equals(frame["S"])
    assert out.equals(s.randomize(frame, random_state=11))
    for k, p_change in ((0, 0.1), (1, 0.25)):
        sel = frame["A"] == k
        rate = (out.loc[sel, "A"] != k).mean()
        assert abs(rate - p_change) < 5 * np.sqrt(p_change * (1 - p_change) / sel.sum())


def test_randomize_checks_codes():
    s = PramScheme({"A": 2}, [(["A"], symmetric_binary(0.2))])
    with pytest.raises(SpecError, match="codes 0..1"):
        s.randomize(pd.DataFrame({"A": [0, 2]}), random_state=0)
    with pytest.raises(SpecError, match="no column"):
        s.randomize(pd.DataFrame({"B": [0, 1]}), random_state=0)


def test_marginal_matrix_case_d():
    m1, m2 = symmetric_binary(0.2).dense(), symmetric_channel(3, 0.3).dense()
    joint = ExplicitMatrix(np.kron(m1, m2))
    np.testing.assert_allclose(marginal_matrix(joint, [2, 3], [0]).dense(), m1)
    np.testing.assert_allclose(marginal_matrix(joint, [2, 3], [1]).dense(), m2)
    # a joint channel where X's flip depends on Y has no marginal matrix
    dep = np.zeros((4, 4))
    for x in range(2):
        for y in range(2):
            p = 0.1 if y == 0 else 0.3
            for xo in range(2):
                dep[xo * 2 + y, x * 2 + y] = (1 - p) if xo == x else p
    with pytest.raises(MatrixError, match="not defined"):
        marginal_matrix(ExplicitMatrix(dep), [2, 2], [0])


def test_scheme_matrix_shorthands():
    assert scheme_matrix(
        {"kind": "symmetric-ternary", "p": 0.3}, 3
    ).amplification() == pytest.approx(0.7 / 0.15)
    assert scheme_matrix(
        {"kind": "gamma-diagonal", "gamma": 4.0}, 3
    ).amplification() == pytest.approx(4.0)
    assert scheme_matrix({"kind": "identity"}, 2).kind == "identity"
