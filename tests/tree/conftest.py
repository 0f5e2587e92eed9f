"""Shared fixtures of the C4.5 tests."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from ppdm_papers.weka import weka_available


def synthetic(n: int, seed: int, missing: float = 0.0) -> pd.DataFrame:
    """Mixed categorical / numeric data with a noisy three-class concept.

    ``missing`` is the fraction of values blanked in four of the five attributes.
    """
    rng = np.random.default_rng(seed)
    color = rng.choice(["red", "green", "blue"], n)
    shape = rng.choice(["circle", "square", "star", "tri"], n, p=[0.4, 0.3, 0.2, 0.1])
    a = rng.normal(0, 1, n).round(2)
    b = rng.integers(0, 20, n).astype(float)
    c = rng.uniform(0, 100, n).round(1)
    score = (color == "red") * 1.2 + (shape == "star") * 0.8 + a + (b > 10) * 0.7 - (c > 70) * 0.9
    noisy = score + rng.normal(0, 0.6, n)
    cls = np.where(noisy > 0.8, "yes", np.where(score < -0.5, "maybe", "no"))
    df = pd.DataFrame({"color": color, "shape": shape, "a": a, "b": b, "c": c, "cls": cls})
    if missing:
        for col in ["color", "a", "b", "shape"]:
            m = rng.random(n) < missing
            df.loc[m, col] = None if df[col].dtype == object else np.nan
    return df


@pytest.fixture
def needs_weka(monkeypatch):
    if not weka_available():
        pytest.skip("Weka's J48 is not installed (/usr/share/java/weka.jar); run `make weka`")
    # Each J48 run is a short JVM: its client compiler alone builds the same tree (Java's
    # floating point is strict) for about a third less CPU than with the server compiler.
    if "JAVA_TOOL_OPTIONS" not in os.environ:
        monkeypatch.setenv("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1")
