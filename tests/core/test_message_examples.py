"""The one-line messages of the shared validators and caps, word for word, and the plain
renderings they are built from."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ppdm.cli._common import reflow_help
from ppdm.exceptions import ParameterError
from ppdm.limits import check_copies, check_n_records, check_n_values, check_numbers
from ppdm.options import PlanOptions, plan_options
from ppdm.validation import (
    check_at_least,
    check_int,
    check_interval,
    check_probability,
    show,
    visible,
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_probability(1, "rho2"), "rho2 must be in (0, 1) (got 1)"),
        (lambda: check_int(1, "N", low=2), "N must be an integer >= 2 (got 1)"),
        (lambda: check_at_least(0, "--jobs", 1), "--jobs must be >= 1 (got 0)"),
        (
            lambda: check_interval(5, 1, "--bounds 'x=5:1'"),
            "--bounds 'x=5:1' must have low < high (got 5:1)",
        ),
        (
            lambda: check_n_values(10**7, "--bins"),
            "--bins is 10000000, above the cap of 65536 values per attribute "
            "(ppdm.limits.MAX_VALUES)",
        ),
        (
            lambda: check_copies(10**30, "--copies"),
            f"--copies is {10**30}, above the cap of 1000 copies (ppdm.limits.MAX_COPIES)",
        ),
        (
            lambda: check_n_records(1e13, "--n"),
            "--n is 10000000000000, above the cap of 1000000000 records (ppdm.limits.MAX_RECORDS)",
        ),
        (
            lambda: check_numbers({"a": [1, {"g": float("inf")}]}, "spec 'x.json'"),
            "spec 'x.json' field a.1.g: inf is not a finite number",
        ),
    ],
)
def test_a_bad_value_is_one_line_naming_it_the_rule_and_the_value(call, message):
    with pytest.raises(ParameterError, match=f"^{re.escape(message)}$"):
        call()


def test_a_good_value_comes_back_in_plain_python():
    assert check_interval(20, 80, "bounds for 'age'") == (20.0, 80.0)
    assert (check_n_values(20, "--bins"), check_n_records(1000, "--n")) == (20, 1000)
    assert plan_options(PlanOptions(gamma=19), n_bins=10).n_bins == 10
    assert plan_options(gamma=19).gamma == 19.0


def test_values_are_shown_plain_short_and_visible():
    assert (show(np.float64(0.5)), show("x" * 50, width=10)) == ("0.5", "'xxxxxx...")
    assert (visible("good\nclass"), visible("bad\tclass"), visible("été")) == (
        "good\\nclass",
        "bad\\tclass",
        "été",
    )


def test_help_paragraphs_are_joined_but_lists_kept():
    text = "First line.\n\nOne sentence\nin two lines.\n\n- a\n- b"
    assert reflow_help(text) == "First line.\n\nOne sentence in two lines.\n\n- a\n- b"
