"""Split criteria on count arrays, checked against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ppdm.tree import entropy, gain_ratio, info_gain, split_info
from ppdm.tree.pruning import added_errors


def test_entropy_values():
    assert entropy([5, 5]) == pytest.approx(1.0)
    assert entropy([10, 0]) == 0.0
    assert entropy([0, 0]) == 0.0
    # Quinlan's golf example: 9 play, 5 don't
    assert entropy([9, 5]) == pytest.approx(0.940, abs=1e-3)


def test_info_gain_and_gain_ratio_golf_outlook():
    # outlook: sunny (2 play / 3 don't), overcast (4/0), rain (3/2) -- C4.5 book, sec. 2.2
    bags = np.array([[2, 3], [4, 0], [3, 2]], dtype=float)
    assert info_gain(bags) == pytest.approx(0.247, abs=1e-3)
    assert split_info(bags) / 14 == pytest.approx(1.577, abs=1e-3)
    assert gain_ratio(bags) == pytest.approx(0.156, abs=1e-3)


def test_unknown_values_scale_gain_and_add_a_branch():
    # C4.5 book sec. 3.1: one of 14 outlook values unknown
    bags = np.array([[2, 3], [3, 0], [3, 2]], dtype=float)
    assert info_gain(bags, 14.0) == pytest.approx(0.199, abs=1e-3)
    assert split_info(bags, 14.0) / 14 == pytest.approx(1.809, abs=1e-3)


def test_criteria_broadcast_over_candidates():
    bags = np.array([[[4, 0], [0, 4]], [[2, 2], [2, 2]]], dtype=float)
    np.testing.assert_allclose(info_gain(bags), [1.0, 0.0])
    np.testing.assert_allclose(gain_ratio(bags), [1.0, 0.0])


# Counts are 0 or at least 1e-3: like J48, xlog2x treats values below 1e-6 as 0, so
# sub-1e-6 counts break the textbook inequality by design.
@given(arrays(np.float64, (3, 4), elements=st.one_of(st.just(0.0), st.floats(1e-3, 50))))
def test_gain_bounded_by_entropy(bags):
    gain = info_gain(bags)
    assert gain >= -1e-9
    assert gain <= entropy(bags.sum(axis=0)) + 1e-9


def test_added_errors_matches_c45_tables():
    # e = 0: N * (1 - CF ** (1 / N))
    assert added_errors(6, 0, 0.25) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)))
    # C4.5 book sec. 4.2 example: U_25%(1, 6) = 0.390 -> 6 * 0.390 - 1 extra errors
    assert added_errors(6, 1, 0.25) + 1 == pytest.approx(6 * 0.390, abs=0.05)
    assert added_errors(10, 9.8, 0.25) == pytest.approx(0.2)
    assert added_errors(10, 3, 0.6) == 0.0


def test_docstring_examples_run():
    import doctest

    import ppdm.tree.export

    result = doctest.testmod(ppdm.tree.export)
    assert result.attempted > 0 and result.failed == 0
