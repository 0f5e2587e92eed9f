"""The experiments' data sets: the seven of Table 1 and the two of Fig. 2.

Table 1 / Figs. 4-6 use Synth1-5 (Agrawal functions 1-5, 100K train / 5K test),
pendigits (7494 / 3498) and spambase (3097 / 1500: our copy has 4597 rows, the paper's
4601). The UCI splits are seeded random splits (the vendored pendigits file merges
UCI's train and test files, so the original split cannot be recovered).

Fig. 2 uses two single-attribute data sets on the integers 1..200, which the paper
leaves open ("similar to those studied in [1]", Agrawal & Srikant 2000, whose figures
use a *plateau* and a *triangles* distribution). We take:

- ``plateau``: uniform on 51..150, nothing outside: half the domain is empty, so the
  raw inverse estimate puts negative counts where the truth is zero, which is exactly
  what the paper's fix targets;
- ``triangles``: two triangular peaks at 50 and 150 over the whole range: every value
  is possible, the mass is uneven.

References
----------
Dowd, Xu & Zhang, Sec. 6.1-6.2 and Table 1; Agrawal & Srikant (2000), Sec. 5.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ppdm.cells import cell_seed_sequence
from ppdm.exceptions import ParameterError
from ppdm.validation import check_int

if TYPE_CHECKING:
    from ppdm.datasets import Dataset

__all__ = [
    "TABLE1_DATASETS",
    "PAPER_ACCURACY",
    "ExperimentData",
    "load_experiment_data",
    "train_test_split_fixed",
    "FIG2_DISTRIBUTIONS",
    "fig2_values",
]

#: The seven data sets of Table 1, in the paper's order.
TABLE1_DATASETS: tuple[str, ...] = (
    "synth1",
    "synth2",
    "synth3",
    "synth4",
    "synth5",
    "pendigits",
    "spambase",
)

#: Table 1's "Ori. Accu" column, in percent.
PAPER_ACCURACY: dict[str, float] = {
    "synth1": 100.0,
    "synth2": 89.36,
    "synth3": 100.0,
    "synth4": 99.22,
    "synth5": 98.48,
    "pendigits": 92.0526,
    "spambase": 91.7333,
}

#: (train, test) sizes: the paper's, and the reduced ones of ``--quick``.
SIZES = {"synth": (100_000, 5_000), "pendigits": (7494, 3498), "spambase": (3097, 1500)}
#: ``--quick`` caps every training set at 1,000 rows and every test set at 500.
QUICK_SIZES = (1_000, 500)


@dataclass(frozen=True)
class ExperimentData:
    """One data set split into train and test, with its class column."""

    name: str
    train: pd.DataFrame
    test: pd.DataFrame
    target: str

    @property
    def X_train(self) -> pd.DataFrame:  # noqa: N802
        return self.train.drop(columns=[self.target])

    @property
    def X_test(self) -> pd.DataFrame:  # noqa: N802
        return self.test.drop(columns=[self.target])


def _data_seed(seed: int, name: str) -> int:
    return int(cell_seed_sequence(seed, ("data", name)).generate_state(1)[0])


def train_test_split_fixed(
    data: Dataset, n_test: int, random_state: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A seeded random train/test split of ``data.frame`` with ``n_test`` test rows.

    Parameters
    ----------
    data : ppdm.datasets.Dataset
    n_test : int
        Rows in the test part.
    random_state : int, default=0

    Returns
    -------
    train, test : pandas.DataFrame
    """
    n = len(data.frame)
    if not 0 < n_test < n:
        raise ParameterError(f"n_test must be in 1..{n - 1} for {data.name} (got {n_test})")
    perm = np.random.default_rng(random_state).permutation(n)
    test = data.frame.iloc[np.sort(perm[:n_test])].reset_index(drop=True)
    train = data.frame.iloc[np.sort(perm[n_test:])].reset_index(drop=True)
    return train, test


@lru_cache(maxsize=16)
def load_experiment_data(name: str, seed: int = 0, quick: bool = False) -> ExperimentData:
    """Load and split one of :data:`TABLE1_DATASETS` (cached per process).

    Parameters
    ----------
    name : str
        ``synth1``..``synth5``, ``pendigits`` or ``spambase``.
    seed : int, default=0
        Master seed; the data seed is derived from ``(seed, "data", name)``.
    quick : bool, default=False
        At most 1,000 training and 500 test rows (a seeded subsample for the UCI sets).

    Returns
    -------
    ExperimentData
        The train and test frames and the name of their class column; the cache hands
        every caller the same frames, which must not be modified.

    References
    ----------
    Dowd, Xu & Zhang, Table 1.
    """
    from ppdm import datasets

    dseed = _data_seed(seed, name)
    if name.startswith("synth") and name[5:].isdigit() and 1 <= int(name[5:]) <= 5:
        n_train, n_test = QUICK_SIZES if quick else SIZES["synth"]
        train, test = datasets.load_synth(
            int(name[5:]), n_train=n_train, n_test=n_test, random_state=dseed
        )
        return ExperimentData(name, train.frame, test.frame, train.target)
    loaders = {"pendigits": datasets.load_pendigits, "spambase": datasets.load_spambase}
    if name not in loaders:
        raise ParameterError(
            f"unknown data set {name!r}; choose one of {', '.join(TABLE1_DATASETS)}"
        )
    data = loaders[name]()
    n_test = SIZES[name][1]
    train, test = train_test_split_fixed(data, n_test, random_state=dseed)
    if quick:  # a seeded subsample of the paper-sized split
        rng = np.random.default_rng(dseed)
        train = train.iloc[np.sort(rng.permutation(len(train))[: QUICK_SIZES[0]])]
        test = test.iloc[np.sort(rng.permutation(len(test))[: QUICK_SIZES[1]])]
        train, test = train.reset_index(drop=True), test.reset_index(drop=True)
    return ExperimentData(name, train, test, data.target)


#: The two Fig. 2 distributions (see the module docstring).
FIG2_DISTRIBUTIONS: tuple[str, ...] = ("plateau", "triangles")
FIG2_DOMAIN = np.arange(1, 201)


def _fig2_weights(name: str) -> np.ndarray:
    v = FIG2_DOMAIN
    if name == "plateau":
        return ((v >= 51) & (v <= 150)).astype(np.float64)
    if name == "triangles":
        return np.maximum(0.0, 50.0 - np.abs(((v - 1) % 100) - 49.5))
    raise ParameterError(
        f"unknown Fig. 2 distribution {name!r}; choose one of {FIG2_DISTRIBUTIONS}"
    )


def fig2_values(name: str, n: int = 10_000, seed: int = 0) -> np.ndarray:
    """``n`` integers in 1..200 drawn from one of :data:`FIG2_DISTRIBUTIONS`.

    Examples
    --------
    >>> v = fig2_values("plateau", 1000)
    >>> int(v.min()) >= 51 and int(v.max()) <= 150
    True
    """
    check_int(n, "n", error=ParameterError)
    w = _fig2_weights(name)
    rng = np.random.default_rng(cell_seed_sequence(seed, ("fig2-data", name)))
    return rng.choice(FIG2_DOMAIN, size=int(n), p=w / w.sum())
