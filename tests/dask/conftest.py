"""Fixtures of the Dask engine tests: small partitioned tables and a 2-worker cluster."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest


@pytest.fixture(autouse=True)
def _quiet_privacy_warnings():
    # seeded releases and data-derived bounds warn by design; the tests use both
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def make_table(n: int, seed: int = 0) -> pd.DataFrame:
    """A table with binned, small-integer, string and class columns."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 12, n).clip(0, 90),
            "kids": rng.integers(0, 4, n),
            "city": rng.choice(["ams", "ber", "cph", "dub"], n),
            "label": rng.choice(["no", "yes"], n, p=[0.7, 0.3]),
        }
    )


def split(frame: pd.DataFrame, k: int) -> list[pd.DataFrame]:
    """``k`` contiguous partitions (index kept, as Dask keeps it)."""
    edges = np.linspace(0, len(frame), k + 1).astype(int)
    return [frame.iloc[a:b] for a, b in zip(edges[:-1], edges[1:])]


@pytest.fixture(scope="session")
def cluster():
    """A LocalCluster of 2 worker processes, one thread each, shared by the session."""
    distributed = pytest.importorskip("distributed")
    with distributed.Client(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as c:
        yield c


@pytest.fixture
def table() -> pd.DataFrame:
    return make_table(6000)


@pytest.fixture
def parquet_dir(tmp_path, table):
    """The table as 5 Parquet partitions."""
    d = tmp_path / "in"
    d.mkdir()
    for i, part in enumerate(split(table, 5)):
        part.to_parquet(d / f"p{i}.parquet", index=False)
    return d


@pytest.fixture
def splitter():
    return split
