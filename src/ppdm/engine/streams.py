"""Per-partition random streams: one root drawn on the client, children by index.

A partitioned run draws its root entropy once, on the client
(:func:`ppdm.random.resolve_seed`: 256 bits from the OS for a release, or the
experiment's seed), and ships it to every task. Perturbation streams are AES-counter
streams keyed by the root and the attribute's name and addressed by row (see
:func:`ppdm.perturb.perturb_batches`), so a release is independent of the
partitioning. The miner's side (ties, multiset splits) derives PCG64 streams from
``(purpose, partition, stream)`` with ``SeedSequence(entropy, spawn_key=...)``:
independent, reproducible for a given seed and partitioning, and independent of which
worker runs the task or in what order. The root is never written to any output.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1 needs unpredictable substitutions);
O'Neill (2015) and NumPy's ``SeedSequence`` design for independent child streams.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import ParameterError
from ..random import RandomState, resolve_seed, warn_seeded_release
from ..validation import check_at_least

__all__ = [
    "PERTURB",
    "RECONSTRUCT",
    "SPLIT",
    "resolve_root",
    "partition_seed",
    "partition_generators",
]

#: Purposes, the first element of every child's spawn key.
PERTURB, RECONSTRUCT, SPLIT = 0, 1, 2


def resolve_root(random_state: RandomState = None, *, warn: bool = False) -> np.random.SeedSequence:
    """The root of a partitioned run, drawn once on the client.

    :func:`ppdm.random.resolve_seed` (256 bits of OS entropy for ``None``, else a
    reproducible root), and with ``warn=True`` a
    :class:`~ppdm.exceptions.SeededReleaseWarning` when a release is drawn from a seed.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     root = resolve_root(7, warn=True)
    >>> (root.entropy, caught[0].category.__name__)
    (7, 'SeededReleaseWarning')
    """
    root = resolve_seed(random_state)
    if warn and random_state is not None:
        warn_seeded_release(stacklevel=3)
    return root


def partition_seed(
    root: np.random.SeedSequence, purpose: int, partition: int
) -> np.random.SeedSequence:
    """The seed of partition ``partition`` for ``purpose``; its consumers ``spawn`` from it.

    The children of ``partition_seed(root, p, i).spawn(k)`` have spawn keys
    ``root.spawn_key + (p, i, j)``, ``j < k``: one independent stream per attribute
    (and role), whatever worker draws them.

    Examples
    --------
    >>> root = resolve_root(1)
    >>> [s.spawn_key for s in partition_seed(root, PERTURB, 3).spawn(2)]
    [(0, 3, 0), (0, 3, 1)]
    """
    check_at_least(partition, "partition", 0, error=ParameterError)
    return np.random.SeedSequence(
        root.entropy,
        spawn_key=tuple(root.spawn_key) + (int(purpose), int(partition)),
        pool_size=root.pool_size,
    )


def partition_generators(
    root: np.random.SeedSequence, purpose: int, partition: int, n: int
) -> list[np.random.Generator]:
    """``n`` PCG64 streams of one partition (the miner's side: ties, draws, splits).

    Examples
    --------
    >>> a = partition_generators(resolve_root(1), RECONSTRUCT, 2, 2)
    >>> b = partition_generators(resolve_root(1), RECONSTRUCT, 2, 2)
    >>> int(a[1].integers(100)) == int(b[1].integers(100))
    True
    """
    return [np.random.default_rng(s) for s in partition_seed(root, purpose, partition).spawn(n)]
