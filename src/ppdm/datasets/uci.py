"""Loaders for the real data sets used in the papers, vendored inside the package.

Provenance and licences are in ``ppdm/datasets/data/PROVENANCE.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

import numpy as np
import pandas as pd

__all__ = [
    "Dataset",
    "load_pendigits",
    "load_spambase",
    "load_wisconsin",
    "load_boston",
]


@dataclass(frozen=True)
class Dataset:
    """A table (``frame``, all attributes and the class) with a named class column."""

    name: str
    frame: pd.DataFrame
    target: str

    @property
    def X(self) -> pd.DataFrame:  # noqa: N802 - the field's usual name
        return self.frame.drop(columns=[self.target])

    @property
    def y(self) -> pd.Series:
        return self.frame[self.target]


def _open(name: str):
    return resources.files("ppdm.datasets").joinpath("data", name).open("rb")


def _read_dat(name: str, file: str, columns: list[str], dtype) -> Dataset:
    """A gzipped headerless table whose last column is an integer class."""
    with _open(file) as fh:
        frame = pd.read_csv(fh, compression="gzip", header=None, skipinitialspace=True)
    frame.columns = columns
    frame = frame.astype({c: dtype for c in columns[:-1]})
    frame[columns[-1]] = frame[columns[-1]].astype(np.int64)
    return Dataset(name, frame, columns[-1])


def load_pendigits() -> Dataset:
    """UCI Pen-Based Recognition of Handwritten Digits: 10,992 x 16 integers in 0..100;
    class ``digit`` (0..9).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.1 and Table 1 (7494 train / 3498 test).
    """
    cols = [f"a{i + 1}" for i in range(16)] + ["digit"]
    return _read_dat("pendigits", "penbased.dat.gz", cols, np.int64)


def load_spambase() -> Dataset:
    """UCI Spambase: 4,597 e-mails x 57 numeric attributes; class ``spam`` (0/1).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6.1 and Table 1 (3101 train / 1500 test in the paper).
    """
    cols = [f"a{i + 1}" for i in range(57)] + ["spam"]
    return _read_dat("spambase", "spambase.dat.gz", cols, np.float64)


WISCONSIN_COLUMNS = [
    "clump_thickness",
    "cell_size",
    "cell_shape",
    "marginal_adhesion",
    "epithelial_size",
    "bare_nuclei",
    "bland_chromatin",
    "normal_nucleoli",
    "mitoses",
]


def load_wisconsin() -> Dataset:
    """UCI Breast Cancer Wisconsin (Original), 683 complete cases x 9 integers in 1..10.

    Class ``class``: 2 = benign, 4 = malignant.

    References
    ----------
    Islam & Brankovic, Sec. 4 (the WBC data set).

    Examples
    --------
    >>> load_wisconsin().frame.shape
    (683, 10)
    """
    return _read_dat("wisconsin", "wisconsin.dat.gz", WISCONSIN_COLUMNS + ["class"], np.int64)


def load_boston() -> Dataset:
    """Boston housing (Harrison & Rubinfeld 1978), 506 x 13, with a derived binary class:
    ``high_value`` is 1 when ``medv`` (dropped) is above its 80th percentile.

    References
    ----------
    Islam & Brankovic, Sec. 4 (Boston housing, top 20 % vs bottom 80 %).
    """
    with _open("boston.csv.gz") as fh:
        frame = pd.read_csv(fh, compression="gzip")
    frame = frame.drop(columns=["rownames"])
    cut = np.quantile(frame["medv"], 0.8)
    frame["high_value"] = (frame["medv"] > cut).astype(np.int64)
    frame = frame.drop(columns=["medv"])
    return Dataset("boston", frame, "high_value")
