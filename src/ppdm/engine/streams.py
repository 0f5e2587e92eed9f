"""The root of a partitioned run: drawn once on the client, shipped to every task.

A partitioned run draws its root entropy once, on the client
(:func:`ppdm.random.resolve_seed`: 256 bits from the OS for a release, or the
experiment's seed), and ships it to every task. Every stream under it is an
AES-counter stream keyed by the root and the stream's name and addressed by row: the
perturbation's (see :func:`ppdm.perturbation.perturb_batches`) and the reconstruction's
rank keys and representatives (see :func:`ppdm.pipeline.rank_keys`), so neither a
release nor its reconstruction depends on the partitioning, on which worker runs a
task or in what order. The root is never written to any output.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1 needs unpredictable substitutions) and Sec. 4.1
(Algorithm 2's random tie breaking).
"""

from __future__ import annotations

import numpy as np

from ..random import RandomState, resolve_seed, warn_seeded_release

__all__ = ["resolve_root"]


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
