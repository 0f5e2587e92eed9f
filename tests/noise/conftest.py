"""Shared fixtures of the Islam & Brankovic noise tests."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ppdm.datasets import load_boston, load_wisconsin
from ppdm.tree import C45Classifier
from ppdm_papers.data import train_test_split_fixed

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")


@pytest.fixture(scope="session")
def boston300():
    d = load_boston()
    train, _ = train_test_split_fixed(d, len(d.frame) - 300, random_state=0)
    X, y = train.drop(columns=[d.target]), train[d.target]
    return X, y, C45Classifier().fit(X, y)


@pytest.fixture(scope="session")
def wbc350():
    d = load_wisconsin()
    train, _ = train_test_split_fixed(d, len(d.frame) - 350, random_state=0)
    X, y = train.drop(columns=[d.target]), train[d.target]
    return X, y, C45Classifier().fit(X, y)


@pytest.fixture
def two_level():
    """x0 <= 4: (x1 <= 0: class 0, x1 > 0: class 1); x0 > 4: class 2 (one record of class 1).

    x2 is tested nowhere (TIA); x1 is a LIA of the right leaf, the only
    heterogeneous one (12 records of class 2, one of class 1).
    """
    rows = [[a, b, 5 + a % 3] for a in (1, 2, 3, 4) for b in (0, 1)] * 2
    rows += [[7 + i % 3, i % 2, 5 + i % 4] for i in range(12)] + [[8, 1, 6]]
    X = pd.DataFrame(rows, columns=["x0", "x1", "x2"])
    y = np.array([b for a in (1, 2, 3, 4) for b in (0, 1)] * 2 + [2] * 12 + [1])
    return X, y
