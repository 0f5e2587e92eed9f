"""A small release of built-in data, for examples and docs: the table, its spec, its release.

References
----------
Agrawal, Imielinski & Swami (1993) (the data); Dowd, Xu & Zhang, Algorithm 1 (the release).
"""

from __future__ import annotations

import warnings

import pandas as pd

from .datasets.agrawal import agrawal
from .exceptions import BoundsLeakWarning, SeededReleaseWarning
from .perturbation import perturb_frame, plan_release
from .release import ReleaseSpec

__all__ = ["AGRAWAL_BOUNDS", "agrawal_release"]

#: Owner bounds of the example's attributes (their ranges in Agrawal et al.'s generator).
AGRAWAL_BOUNDS = {"age": (20.0, 81.0), "salary": (20_000.0, 150_000.0)}


def agrawal_release(
    n: int = 4000,
    *,
    function: int = 1,
    gamma: float = 19.0,
    n_bins: int = 10,
    random_state: int = 0,
) -> tuple[pd.DataFrame, ReleaseSpec, pd.DataFrame]:
    """Agrawal's age and salary with the class ``group``, and a seeded release of them.

    For examples only: the release is drawn from a seeded generator (anyone who knows
    the seed can undo it), so the seeded-release warning is not raised here.

    Parameters
    ----------
    n : int, default=4000
        Records.
    function : int, default=1
        Agrawal's class function (1 depends on age alone).
    gamma, n_bins : float, int
        Amplification and number of bins of both attributes (owner bounds
        :data:`AGRAWAL_BOUNDS`).
    random_state : int, default=0
        Seed of the data and of the perturbation.

    Returns
    -------
    original : DataFrame
        Columns ``age``, ``salary``, ``group``.
    spec : ReleaseSpec
    release : DataFrame
        The perturbed table (``group`` released as is).

    Examples
    --------
    >>> df, spec, rel = agrawal_release(1000)
    >>> list(rel.columns), len(rel)
    (['age', 'salary', 'group'], 1000)
    """
    df = agrawal(n, function=function, random_state=random_state)[["age", "salary", "group"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededReleaseWarning)
        warnings.simplefilter("ignore", BoundsLeakWarning)
        spec = plan_release(
            df, class_attribute="group", gamma=gamma, n_bins=n_bins, bounds=AGRAWAL_BOUNDS
        )
        release = perturb_frame(df, spec, random_state=random_state)
    return df, spec, release
