"""Numbers in CSV text: the quick paths of ``numbers_of_text`` decide as the full casts do."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.io.kinds import _has_leading_zero, infer_kind, numbers_of_text

TEXTS = st.lists(st.one_of(st.none(), st.text(alphabet="0159+-. \t\n\ve", max_size=5)), max_size=8)


def _regex(array) -> bool:
    return (
        bool(len(array))
        and pc.any(pc.match_substring_regex(array, r"^\s*[+-]?0[0-9]")).as_py() is True
    )


@settings(max_examples=400, deadline=None)
@given(TEXTS, st.integers(0, 3), st.booleans())
def test_leading_zero_check_is_the_regex(values, cut, large):
    arr = pa.array(values, type=pa.large_string() if large else pa.string())
    for a in (arr, arr.slice(cut), arr.slice(0, max(0, len(arr) - cut))):
        assert _has_leading_zero(a) == _regex(a)
    chunked = pa.chunked_array([arr, arr.slice(cut)], type=arr.type)
    assert _has_leading_zero(chunked) == _regex(chunked)


@settings(max_examples=400, deadline=None)
@given(TEXTS)
def test_int_texts_are_the_texts_the_cast_takes(values):
    arr = pa.array(values, type=pa.string())
    try:
        cast = pc.cast(arr, pa.int64())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        cast = None
    got = numbers_of_text(arr, "int")
    if cast is None or _regex(arr):
        assert got is None
    else:
        assert got is not None and got.equals(cast)


@pytest.mark.parametrize(
    "values, kind",
    [
        (["1", "2", None], "int"),
        (["1", "2.5"], "float"),
        (["1.0", "2"], "float"),
        (["00501", "2"], "str"),
        (["-05", "2"], "str"),
        ([" 07", "2"], "str"),
        (["-5", "7"], "int"),
        (["-5", "+2"], "float"),  # Arrow's integers take no plus sign; its floats do
        (["-5", "+2", " 3"], "str"),
        (["0", "0.5"], "float"),
        (["1e3", "2"], "float"),
    ],
)
def test_kinds_of_text(values, kind):
    assert infer_kind(pa.array(values)) == kind
