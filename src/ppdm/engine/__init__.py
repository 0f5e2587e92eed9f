"""Partitioned engines: the release pipeline, partition by partition, locally or on Dask.

Both engines run the same kernels on streams addressed by row: for the same seed they
give bit-identical results whatever the partitioning (docs/dask.md). Dask is imported
only when it is used.

References
----------
Dowd, Xu & Zhang, Algorithms 1 and 2 (two-pass streaming reconstruction).
"""

from . import frames
from .executors import (
    ENGINES,
    DaskExecutor,
    EngineError,
    LocalExecutor,
    client,
    map_cells,
    open_executor,
)
from .frames import *  # noqa: F403 - the in-memory API, listed once in frames.__all__
from .kernels import resolve_root
from .workflows import (
    DATA_DIR,
    estimate_release_partitioned,
    make_release_partitioned,
    partitions_of,
    reconstruct_release_partitioned,
)

__all__ = [
    "ENGINES",
    "DATA_DIR",
    "EngineError",
    "LocalExecutor",
    "DaskExecutor",
    "client",
    "open_executor",
    "map_cells",
    "resolve_root",
    "partitions_of",
    "make_release_partitioned",
    "estimate_release_partitioned",
    "reconstruct_release_partitioned",
]
__all__ += frames.__all__  # the in-memory API: Dask DataFrames and lists of partitions
