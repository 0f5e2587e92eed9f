"""The random streams of a release: each perturbed attribute (and copy) its own AES-counter
stream under the release's root, addressed by row; the order of a record's copies; and
the check every draw makes of a batch's class.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..exceptions import DataError
from ..random import RandomState, WordStream, resolve_seed, stream_generator, warn_seeded_release

if TYPE_CHECKING:
    import pandas as pd

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


def attribute_streams(spec, root: np.random.SeedSequence, row_offset: int):
    """Per copy, per perturbed attribute: name, domain, matrix and its two word streams,
    keyed by ``(SUBSTITUTE, a, c)`` and ``(REPRESENTATIVE, a, c)`` (by name, never by
    position) and starting at row ``row_offset``."""
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


def record_major(copies: list[pd.DataFrame]) -> pd.DataFrame:
    """A batch's copies record by record: row ``i * m + c`` is copy ``c`` of the batch's
    record ``i``. Each batch holds its records' copies whole, so the release is the same
    whatever the batches (and ``row // m`` is a row's record).

    References
    ----------
    Kang, Sec. 2 (m independent copies of each record).
    """
    import pandas as pd

    m, n = len(copies), len(copies[0])
    order = (np.arange(n)[:, None] + n * np.arange(m)[None, :]).reshape(-1)
    return pd.concat(copies, ignore_index=True).take(order).reset_index(drop=True)


def check_class_known(batch: pd.DataFrame, spec, offset: int) -> None:
    """Every record of a release has its class: by-class estimation, reconstruction and
    mining count each class's records apart, and a record without one would make the
    release unusable for them (a perturbed class's own domain refuses it as it encodes)."""
    name = spec.class_attribute
    if name is None or name not in batch.columns:
        return
    missing = batch[name].isna().to_numpy()
    if missing.any():
        row = offset + int(np.flatnonzero(missing)[0]) + 1
        raise DataError(
            f"class column {name!r} data row {row} has no value: every record of a release "
            "needs its class (by-class estimates, reconstruction and mining count records per "
            "class); drop the rows without one"
        )
