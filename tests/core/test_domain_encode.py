"""Binned encoding and decoding against their defining formulas.

``BinnedDomain.encode`` decides its common case (no missing value, every value in
bounds) from three reductions instead of a mask per condition; these tests hold it to
the definition on arbitrary values, including NaN, infinities, the bounds themselves
and values a hair outside them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ppdm.domain import BinnedDomain
from ppdm.exceptions import DomainError


def reference_encode(x: np.ndarray, dom: BinnedDomain) -> np.ndarray:
    """floor((clip(x) - low) / width), clipped to 0..N-1; missing -> N."""
    x = np.asarray(x, dtype=np.float64)
    missing = np.isnan(x)
    clipped = np.clip(x, dom.low, dom.high)
    with np.errstate(invalid="ignore"):
        codes = np.floor((clipped - dom.low) / dom.width)
    codes = np.clip(np.where(missing, 0.0, codes), 0, dom.n_bins - 1).astype(np.int32)
    codes[missing] = dom.n_bins
    return codes


bounds = st.tuples(
    st.floats(-1e6, 1e6, allow_nan=False), st.floats(1e-3, 1e6, allow_nan=False)
).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=300, deadline=None)
@given(
    lh=bounds,
    n_bins=st.integers(2, 300),
    data=st.data(),
)
def test_encode_equals_the_definition(lh, n_bins, data):
    low, high = lh
    dom = BinnedDomain(low, high, n_bins, missing_category=True, out_of_bounds="clip")
    special = st.sampled_from(
        [low, high, np.nextafter(low, -np.inf), np.nextafter(high, np.inf), np.nan,
         np.inf, -np.inf, (low + high) / 2]
    )  # fmt: skip
    values = data.draw(
        hnp.arrays(
            np.float64,
            st.integers(0, 60),
            elements=st.one_of(st.floats(low - abs(low) - 10, high + abs(high) + 10), special),
        )
    )
    np.testing.assert_array_equal(dom.encode(values), reference_encode(values, dom))


def test_inf_and_minus_inf_together_are_not_missing():
    dom = BinnedDomain(0.0, 10.0, 5, out_of_bounds="clip")
    # their sum is NaN, but no value is missing: clipped to the end bins
    assert dom.encode(np.array([np.inf, -np.inf, 3.0])).tolist() == [4, 0, 1]


def test_missing_without_a_category_names_the_row():
    dom = BinnedDomain(0.0, 10.0, 5)
    with pytest.raises(DomainError, match=r"column 'a' has a missing value at data row 12\b"):
        dom.encode(np.array([1.0, np.nan]), column="a", row_offset=10)


def test_out_of_bounds_error_names_the_first_row_and_value():
    dom = BinnedDomain(0.0, 10.0, 5)
    with pytest.raises(DomainError, match=r"data row 3 has value 10.5 outside"):
        dom.encode(np.array([1.0, 2.0, 10.5, -1.0]), column="a")


def test_empty_column_encodes_to_nothing():
    assert BinnedDomain(0.0, 1.0, 4).encode(np.array([])).shape == (0,)


def test_encode_leaves_its_input_alone():
    x = np.array([5.0, 20.0, np.nan])
    BinnedDomain(0.0, 10.0, 5, missing_category=True, out_of_bounds="clip").encode(x)
    assert x[1] == 20.0 and np.isnan(x[2])


@pytest.mark.parametrize("representative", ["left", "center", "right"])
def test_decode_reads_the_representatives_and_clips_stray_codes(representative):
    dom = BinnedDomain(0.0, 10.0, 5, missing_category=True, representative=representative)
    reps = dom.representatives()
    out = dom.decode(np.array([-3, 0, 4, 5, 9]))
    np.testing.assert_array_equal(out[:3], [reps[0], reps[0], reps[4]])
    assert np.isnan(out[3]) and np.isnan(out[4])


@pytest.mark.parametrize("low", [-3.0, 5.0])
def test_no_values_encode_to_no_codes(low):
    # the bounds check must not read a first row that is not there
    codes = BinnedDomain(low, low + 10.0, 4).encode(np.array([], dtype=np.float64))
    assert codes.dtype == np.int32 and codes.shape == (0,)
