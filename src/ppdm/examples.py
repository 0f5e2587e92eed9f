"""A small release of built-in data, for examples and docs: the table, its spec, its release.

References
----------
Agrawal, Imielinski & Swami (1993) (the data); Dowd, Xu & Zhang, Algorithm 1 (the release).
"""

from __future__ import annotations

import warnings

import pandas as pd

from .datasets.agrawal import agrawal
from .domain import BinnedDomain
from .exceptions import SeededReleaseWarning
from .matrix import GammaDiagonal
from .perturbation import perturb_frame
from .release import AttributeSpec, ReleaseSpec

__all__ = ["AGRAWAL_BINS", "AGRAWAL_BOUNDS", "agrawal_release", "agrawal_spec"]

#: Public bounds of the Agrawal attributes (from the generator's definition, not the data).
AGRAWAL_BOUNDS: dict[str, tuple[float, float]] = {
    "salary": (20_000.0, 150_000.0),
    "commission": (0.0, 75_000.0),
    "age": (20.0, 81.0),
    "elevel": (0.0, 5.0),
    "car": (1.0, 21.0),
    "zipcode": (1.0, 10.0),
    "hvalue": (0.0, 1_350_000.0),
    "hyears": (1.0, 31.0),
    "loan": (0.0, 500_000.0),
}
#: N per attribute: integer attributes keep one bin per value.
AGRAWAL_BINS = {"elevel": 5, "car": 20, "zipcode": 9}


def agrawal_spec(frame: pd.DataFrame, gamma: float, n_bins: int):
    """A release spec for Agrawal data with the generator's public bounds (nothing leaks)."""
    attrs = []
    for col in frame.columns:
        if col == "group":
            attrs.append(AttributeSpec(name=col, perturbed=False))
            continue
        lo, hi = AGRAWAL_BOUNDS[col]
        dom = BinnedDomain(lo, hi, AGRAWAL_BINS.get(col, n_bins))
        attrs.append(
            AttributeSpec(
                name=col,
                domain=dom.to_spec(),
                matrix=GammaDiagonal(dom.n_values, gamma).to_spec(),
            )
        )
    return ReleaseSpec(class_attribute="group", attributes=attrs)


def agrawal_release(
    n: int = 4000,
    *,
    function: int = 1,
    gamma: float = 19.0,
    n_bins: int = 10,
    random_state: int = 0,
) -> tuple[pd.DataFrame, ReleaseSpec, pd.DataFrame]:
    """Agrawal's age and salary with the class ``group``, and a seeded release of them.

    For examples only: the release is seeded (anyone who knows the seed can undo it), so
    the seeded-release warning is not raised here. Both attributes are binned over
    :data:`AGRAWAL_BOUNDS`; returns the original, the spec and the release (``group`` as is).
    """
    df = agrawal(n, function=function, random_state=random_state)[["age", "salary", "group"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededReleaseWarning)
        spec = agrawal_spec(df, gamma, n_bins)
        release = perturb_frame(df, spec, random_state=random_state)
    return df, spec, release
