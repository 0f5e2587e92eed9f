"""Random number generators: seeded streams for experiments, keyed CSPRNG streams for releases.

A release draws from randomgen's AES-counter generator under a root of 256 bits from the
operating system (:func:`resolve_seed`); every stream is named (:func:`stream_key`), not
numbered, and addressed by row (:class:`WordStream`).
"""

from __future__ import annotations

import hashlib
import secrets
import warnings
from typing import Union

import numpy as np

from .exceptions import ParameterError, SeededReleaseWarning
from .validation import check_at_least, check_int

__all__ = [
    "RandomState",
    "WordStream",
    "check_random_state",
    "perturbation_generator",
    "release_generator",
    "resolve_seed",
    "stream_generator",
    "stream_key",
    "warn_seeded_release",
]

RandomState = Union[None, int, np.random.SeedSequence, np.random.Generator]

#: Bits of operating-system entropy in the root of an unseeded run.
ROOT_BITS = 256


def check_random_state(random_state: RandomState = None) -> np.random.Generator:
    """Resolve ``random_state`` into a :class:`numpy.random.Generator` (experiments).

    ``None`` gives a fresh generator seeded from OS entropy, an int or a
    ``SeedSequence`` a reproducible PCG64 stream, a ``Generator`` is used as is.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return np.random.default_rng(
            check_int(random_state, "random_state", low=0, error=ParameterError)
        )
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    raise ParameterError(
        "random_state must be None, a non-negative int, a SeedSequence or a "
        f"numpy.random.Generator (got {type(random_state).__name__})"
    )


def resolve_seed(random_state: RandomState = None) -> np.random.SeedSequence:
    """The root of a run: 256 bits of OS entropy (``secrets``, a real release), or the
    given seed (a Generator is asked for 256 bits). The root is never written out."""
    if random_state is None:
        return np.random.SeedSequence(secrets.randbits(ROOT_BITS))
    if isinstance(random_state, np.random.SeedSequence):
        return random_state
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**64, size=ROOT_BITS // 64, dtype=np.uint64)
        return np.random.SeedSequence(int.from_bytes(words.tobytes(), "little"))
    check_random_state(random_state)  # one validation, one message, everywhere
    return np.random.SeedSequence(int(random_state))


def digest_generator(*parts: bytes) -> np.random.Generator:
    """A PCG64 generator seeded from the SHA-256 digest of ``parts``: the same input, the
    same stream (the bootstrap of a result computed from it)."""
    digest = hashlib.sha256(b"".join(parts)).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def warn_seeded_release(stacklevel: int = 2) -> None:
    """Warn that a release is drawn from a seed (``stacklevel`` counted from the caller)."""
    warnings.warn(
        "this release is drawn from a seeded generator: anyone who knows the seed can "
        "reproduce the perturbation; use seeds for experiments only",
        SeededReleaseWarning,
        stacklevel=stacklevel + 1,
    )


def _int_bytes(value: int) -> bytes:
    value = int(value)
    if value < 0:
        raise ParameterError(f"stream key parts must be non-negative (got {value})")
    return value.to_bytes(max(1, (value.bit_length() + 7) // 8), "little")


def _field(tag: bytes, data: bytes) -> bytes:
    # type tag and length prefix: no two different names encode to the same bytes
    return tag + len(data).to_bytes(8, "little") + data


def stream_key(root: np.random.SeedSequence, *name: str | int) -> int:
    """The 128-bit AES key of the stream called ``name`` under ``root``.

    ``BLAKE2b-128(root entropy, root spawn key, name...)``, each part type-tagged and
    length-prefixed: the whole entropy of ``root`` enters the hash, not only
    SeedSequence's 128-bit pool. ``name`` is e.g. ``("substitute", "age", 0)``.
    """
    h = hashlib.blake2b(digest_size=16, person=b"ppdm-stream-v1")
    entropy = root.entropy
    parts = [entropy] if isinstance(entropy, (int, np.integer)) else list(entropy or [])
    h.update(_field(b"E", b"".join(_field(b"i", _int_bytes(p)) for p in parts)))
    h.update(_field(b"K", b"".join(_field(b"i", _int_bytes(p)) for p in root.spawn_key)))
    for part in name:
        if isinstance(part, str):
            h.update(_field(b"s", part.encode("utf-8")))
        elif isinstance(part, (int, np.integer)) and not isinstance(part, bool):
            h.update(_field(b"i", _int_bytes(part)))
        else:
            raise ParameterError(
                f"stream name parts must be str or int (got {type(part).__name__})"
            )
    return int.from_bytes(h.digest(), "little")


def stream_generator(root: np.random.SeedSequence, *name: str | int) -> np.random.Generator:
    """The AES-counter generator of the stream ``name`` under ``root``, at position 0."""
    from randomgen import AESCounter

    return np.random.Generator(AESCounter(key=stream_key(root, *name)))


def release_generator(
    random_state: RandomState = None, *, warn: bool = True, name: tuple = ("release",)
) -> np.random.Generator:
    """Generator for drawing a data release (one stream).

    With ``random_state=None`` the stream is randomgen's ``AESCounter`` under a root
    of 256 bits of OS entropy (:func:`resolve_seed`), keyed by ``name``: a
    cryptographically strong generator whose output an adversary cannot predict. An
    int seed gives a reproducible AES-counter stream and a
    :class:`~ppdm.exceptions.SeededReleaseWarning`, since anyone who learns the seed
    can undo the perturbation. A Generator is used as is (and warned about).

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator, default=None
        Seed for experiments and tests only.
    warn : bool, default=True
        Emit the warning for a seeded release.
    name : tuple of str or int, default=("release",)
        The stream's name (see :func:`stream_key`).

    Returns
    -------
    numpy.random.Generator

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1 relies on unpredictable substitutions).
    """
    if isinstance(random_state, np.random.Generator):
        gen = random_state
    else:
        gen = stream_generator(resolve_seed(random_state), *name)
    if random_state is not None and warn:
        warn_seeded_release(stacklevel=2)
    return gen


def perturbation_generator(random_state: RandomState, *name: str | int) -> np.random.Generator:
    """Generator of a library perturbation call: the AES-counter stream ``name`` under
    OS entropy for ``None`` (a release), else :func:`check_random_state`'s."""
    if random_state is None:
        return stream_generator(resolve_seed(None), *name)
    return check_random_state(random_state)


class WordStream:
    """Raw 32- and 64-bit words of a generator's bit stream, addressed by row.

    Row ``r`` gets 32-bit word ``r`` from :meth:`uint32` (the halves of each 64-bit word,
    in memory order), 64-bit word ``r`` from :meth:`uint64` or :attr:`generator`. A
    stream made with ``row=r0`` starts at row ``r0`` (``rng``'s bit generator must
    support ``advance``); a half word left over is kept for the next call. So the words
    depend neither on how requests are split (batches) nor on where the run starts.
    """

    def __init__(self, rng: np.random.Generator, row: int = 0) -> None:
        check_at_least(row, "row", 0, error=ParameterError)
        self._generator = rng
        self._bits = rng.bit_generator
        self._spare: np.ndarray | None = None
        self._row: int | None = int(row)  # None once positioned

    def _position(self, halves: bool) -> None:
        row, self._row = self._row, None
        if not row:
            return
        self._bits.advance(row // 2 if halves else row)
        if halves and row % 2:
            self._spare = self._bits.random_raw(1).view(np.uint32)[1:]

    @property
    def generator(self) -> np.random.Generator:
        """The generator, positioned at 64-bit word ``row`` (one double per value)."""
        self._position(halves=False)
        return self._generator

    def uint32(self, k: int) -> np.ndarray:
        """The next ``k`` 32-bit words."""
        self._position(halves=True)
        if k == 0:  # keeps a spare half word for the next request
            return np.empty(0, np.uint32)
        head = 0 if self._spare is None else 1
        rest = k - head
        words = (rest + 1) // 2
        halves = self._bits.random_raw(words).view(np.uint32) if words else np.empty(0, np.uint32)
        out = np.concatenate([self._spare, halves[:rest]]) if head else halves[:rest]
        self._spare = halves[rest:] if len(halves) > rest else None
        return out

    def uint64(self, k: int) -> np.ndarray:
        """The next ``k`` 64-bit words (a kept 32-bit half is left for :meth:`uint32`)."""
        self._position(halves=False)
        return self._bits.random_raw(k)
