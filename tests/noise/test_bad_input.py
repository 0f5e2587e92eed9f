"""Bad input: a clear error naming what is wrong."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.exceptions import DataError, ParameterError
from ppdm.noise import add_attribute_noise, add_class_noise, all_leaves_probability, leaf_info
from ppdm.tree import C45Classifier

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")


def separable():
    """Two pure leaves: no heterogeneous leaf."""
    X = pd.DataFrame({"a": np.arange(20.0), "b": np.arange(20) % 3, "s": ["u", "v"] * 10})
    y = (X["a"] > 9).astype(int).to_numpy()
    return X, y


def test_single_class():
    X, _ = separable()
    with pytest.raises(DataError, match="single value 1"):
        add_class_noise(X, np.ones(20, dtype=int), "random")
    with pytest.raises(DataError, match="single value"):
        add_attribute_noise(X[["a", "b"]], np.ones(20, dtype=int), "tia")


def test_missing_class_values_are_counted_and_the_first_named():
    X, y = separable()
    y = y.astype(float)
    y[[4, 9, 11]] = np.nan
    with pytest.raises(DataError, match="3 missing value.s., the first at data row 5"):
        add_class_noise(X, y, "random")


def test_nothing_to_perturb():
    X, y = separable()
    for technique in ("random", "probabilistic", "all-leaves"):
        with pytest.raises(DataError, match="nothing to perturb"):
            add_class_noise(X[["a", "b"]], y, technique)
    with pytest.raises(DataError, match="nothing to perturb: the tree built"):
        add_attribute_noise(X[["a", "b"]], y, "tia", scope="heterogeneous")
    with pytest.raises(DataError, match="nothing to perturb: no leaves have a LIA"):
        add_attribute_noise(X[["a", "b"]], y, "lia")


def test_non_numeric_attribute():
    X, y = separable()
    y = y.copy()
    y[0] = 1  # one heterogeneous leaf
    with pytest.raises(DataError, match=r"attribute 's' is not numeric \(dtype"):
        add_attribute_noise(X, y, "tia")
    r = add_attribute_noise(X, y, "tia", attributes=["b"], random_state=0)
    assert r.X["s"].equals(X["s"])


def test_bad_parameters():
    X, y = separable()
    y = y.copy()
    y[0] = 1
    with pytest.raises(ParameterError, match="technique must be one of random, probabilistic"):
        add_class_noise(X, y, "shuffle")
    with pytest.raises(ParameterError, match="target must be one of lia, tia, both"):
        add_attribute_noise(X, y, "all")
    with pytest.raises(ParameterError, match="scope must be one of"):
        add_attribute_noise(X, y, "tia", scope="some")
    with pytest.raises(ParameterError, match="boundary must be one of"):
        add_attribute_noise(X, y, "tia", attributes=["b"], boundary="clip")
    with pytest.raises(DataError, match="attributes names columns not in X"):
        add_attribute_noise(X, y, "tia", attributes=["zzz"])
    with pytest.raises(DataError, match="outside its bounds"):
        add_attribute_noise(X, y, "tia", attributes=["b"], bounds={"b": (0, 1)})
    with pytest.raises(ParameterError, match="n_total must be"):
        all_leaves_probability([[3, 1]], 2)
    with pytest.raises(DataError, match="labels the tree does not know"):
        leaf_info(C45Classifier().fit(X[["a"]], y), X[["a"]], y + 5)
