"""Per-partition random streams: one root drawn on the client, children by index.

A partitioned run draws its root entropy once, on the client (256 bits from the OS
for a release, or the experiment's seed), and ships it to every task. Each task then
derives its own streams from ``(purpose, partition, stream)`` with
``SeedSequence(entropy, spawn_key=...)`` (AES-counter streams for perturbation,
through :func:`ppdm.random.release_streams`; PCG64 for the miner's side): the streams are independent, reproducible
for a given seed and partitioning, and do not depend on which worker runs the task or
in what order. The root is never written to a release spec.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1 needs unpredictable substitutions);
O'Neill (2015) and NumPy's ``SeedSequence`` design for independent child streams.
"""

from __future__ import annotations

import secrets
import warnings

import numpy as np

from ..exceptions import SeededReleaseWarning
from ..random import RandomState, check_random_state

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

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator, default=None
        ``None`` draws 256 bits of OS entropy (for releases); an int or SeedSequence
        gives a reproducible root; a Generator is asked for 256 bits.
    warn : bool, default=False
        Emit a :class:`~ppdm.exceptions.SeededReleaseWarning` when a release is drawn
        from a seed.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> resolve_root(7).entropy
    7
    >>> resolve_root(None).entropy.bit_length() <= 256
    True
    """
    if random_state is None:
        return np.random.SeedSequence(secrets.randbits(256))
    if isinstance(random_state, np.random.SeedSequence):
        root = random_state
    elif isinstance(random_state, np.random.Generator):
        root = np.random.SeedSequence(random_state.integers(0, 2**63, size=4).tolist())
    else:
        check_random_state(random_state)  # one validation, one message, everywhere
        root = np.random.SeedSequence(int(random_state))
    if warn:
        warnings.warn(
            "this release is drawn from a seeded generator: anyone who knows the seed can "
            "reproduce the perturbation; use seeds for experiments only",
            SeededReleaseWarning,
            stacklevel=3,
        )
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
    if int(partition) < 0:
        raise ValueError(f"partition must be >= 0 (got {partition})")
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
