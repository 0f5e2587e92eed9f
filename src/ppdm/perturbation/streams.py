"""The random streams of a release: each perturbed attribute (and copy) its own AES-counter
stream under the release's root, addressed by row.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1).
"""

from __future__ import annotations

import numpy as np

from ..random import (
    RandomState,
    WordStream,
    resolve_seed,
    stream_generator,
    warn_seeded_release,
)
from ..release import ReleaseSpec

# the keys of the streams (one per attribute and copy, under the release root)
SUBSTITUTE, REPRESENTATIVE, ADDITIVE = "substitute", "representative", "additive-noise"


def release_root(random_state: RandomState, warn: bool) -> np.random.SeedSequence:
    root = resolve_seed(random_state)
    if random_state is not None and warn:
        warn_seeded_release(stacklevel=3)
    return root


def unit_uniforms(stream: WordStream, k: int) -> np.ndarray:
    """``k`` uniforms in (0, 1), one 64-bit word ``w`` each: ``((w >> 11) + 1/2) / 2^53``."""
    words = stream.uint64(k) >> np.uint64(11)
    return (words.astype(np.float64) + 0.5) * 2.0**-53


def attribute_streams(spec: ReleaseSpec, root: np.random.SeedSequence, row_offset: int):
    """Per copy, per perturbed attribute: name, domain, matrix and its two word streams.

    The substitution stream of attribute ``a`` in copy ``c`` is keyed by
    ``(SUBSTITUTE, a, c)``, the random-representative stream by
    ``(REPRESENTATIVE, a, c)``: keyed by name, never by position. Both start at row
    ``row_offset`` and are then read in record order across batches.
    """
    return [
        [
            (
                a.name,
                a.get_domain(),
                a.get_matrix(),
                WordStream(stream_generator(root, SUBSTITUTE, a.name, c), row=row_offset),
                WordStream(stream_generator(root, REPRESENTATIVE, a.name, c), row=row_offset),
            )
            for a in spec.perturbed_attributes()
        ]
        for c in range(spec.copies)
    ]
