"""Random number generators: seeded streams for experiments, a CSPRNG for releases.

A release is a security boundary: by default its randomness comes from randomgen's
AES-counter generator keyed from the operating system's entropy pool. A seed makes
runs reproducible (same seed, same bytes) and is meant for experiments and tests only.
"""

from __future__ import annotations

import warnings
from typing import Union

import numpy as np

from .exceptions import SeededReleaseWarning

__all__ = [
    "RandomState",
    "WordStream",
    "check_random_state",
    "release_generator",
    "release_streams",
    "spawn",
]

RandomState = Union[None, int, np.random.SeedSequence, np.random.Generator]


def _aes_generator(seed: int | np.random.SeedSequence | None) -> np.random.Generator:
    from randomgen import AESCounter

    return np.random.Generator(AESCounter(seed))


def check_random_state(random_state: RandomState = None) -> np.random.Generator:
    """Resolve ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator, default=None
        ``None`` gives a fresh generator seeded from OS entropy, an int or a
        ``SeedSequence`` a reproducible PCG64 stream, a ``Generator`` is used as is.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> g = check_random_state(0)
    >>> int(g.integers(10)) == int(check_random_state(0).integers(10))
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be a non-negative int (got {random_state})")
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, np.random.SeedSequence):
        return np.random.default_rng(random_state)
    raise TypeError(
        "random_state must be None, a non-negative int, a SeedSequence or a "
        f"numpy.random.Generator (got {type(random_state).__name__})"
    )


def release_generator(
    random_state: RandomState = None, *, warn: bool = True
) -> np.random.Generator:
    """Generator for drawing a data release.

    With ``random_state=None`` the stream is randomgen's ``AESCounter`` keyed from
    256 bits of OS entropy: a cryptographically strong generator whose output an
    adversary cannot predict. An int seed gives a reproducible AES-counter stream and
    a :class:`~ppdm.exceptions.SeededReleaseWarning`, since anyone who learns the seed
    can undo the perturbation.

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator, default=None
        Seed for experiments and tests only.
    warn : bool, default=True
        Emit the warning for a seeded release.

    Returns
    -------
    numpy.random.Generator

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1 relies on unpredictable substitutions).
    """
    if isinstance(random_state, np.random.Generator):
        gen = random_state
    elif random_state is None:
        return _aes_generator(None)
    elif isinstance(random_state, (int, np.integer, np.random.SeedSequence)):
        check_random_state(random_state)  # same validation as everywhere else
        seed = (
            random_state if isinstance(random_state, np.random.SeedSequence) else int(random_state)
        )
        gen = _aes_generator(seed)
    else:
        check_random_state(random_state)
        raise AssertionError("unreachable")  # pragma: no cover
    if warn:
        warnings.warn(
            "this release is drawn from a seeded generator: anyone who knows the seed can "
            "reproduce the perturbation; use seeds for experiments only",
            SeededReleaseWarning,
            stacklevel=2,
        )
    return gen


def spawn(random_state: RandomState, n: int) -> list[np.random.Generator]:
    """Independent child generators from one parent, via ``SeedSequence.spawn``.

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator
        Parent stream.
    n : int
        Number of children.

    Returns
    -------
    list of numpy.random.Generator
    """
    if isinstance(random_state, np.random.Generator):
        return random_state.spawn(n)
    if isinstance(random_state, np.random.SeedSequence):
        ss = random_state
    else:
        ss = np.random.SeedSequence(None if random_state is None else int(random_state))
    return [np.random.default_rng(s) for s in ss.spawn(n)]


def release_streams(
    random_state: RandomState, n_streams: int, *, warn: bool = True
) -> list[np.random.Generator]:
    """Independent AES-counter streams for a release, one per consumer (attribute, ...).

    Children come from ``SeedSequence.spawn`` of a root keyed from OS entropy
    (``random_state=None``) or from the given seed (with a
    :class:`~ppdm.exceptions.SeededReleaseWarning`). Each stream is consumed in record
    order, so results do not depend on how the records are batched.
    """
    if isinstance(random_state, np.random.Generator):
        root = np.random.SeedSequence(random_state.integers(0, 2**63, size=4).tolist())
    elif random_state is None:
        root = np.random.SeedSequence()
    else:
        check_random_state(random_state)
        root = (
            random_state
            if isinstance(random_state, np.random.SeedSequence)
            else np.random.SeedSequence(int(random_state))
        )
    if random_state is not None and warn:
        warnings.warn(
            "this release is drawn from a seeded generator: anyone who knows the seed can "
            "reproduce the perturbation; use seeds for experiments only",
            SeededReleaseWarning,
            stacklevel=2,
        )
    return [_aes_generator(child) for child in root.spawn(n_streams)]


class WordStream:
    """Raw 32- and 64-bit words of a generator's bit stream, consumed strictly in order.

    Each 64-bit word of the underlying bit generator gives two 32-bit words (its two
    halves, in memory order). A half left over at the end of a call is kept for the
    next call, so the words a consumer sees do not depend on how it splits its
    requests, e.g. into a file's batches.

    Parameters
    ----------
    rng : numpy.random.Generator
        Its bit generator supplies the words.

    Examples
    --------
    >>> a = WordStream(np.random.default_rng(1))
    >>> b = WordStream(np.random.default_rng(1))
    >>> whole = a.uint32(5)
    >>> parts = np.concatenate([b.uint32(3), b.uint32(2)])
    >>> bool((whole == parts).all())
    True
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.generator = rng
        self._bits = rng.bit_generator
        self._spare: np.ndarray | None = None

    def uint32(self, k: int) -> np.ndarray:
        """The next ``k`` 32-bit words."""
        head = 0 if self._spare is None or k == 0 else 1
        rest = k - head
        words = (rest + 1) // 2
        halves = self._bits.random_raw(words).view(np.uint32) if words else np.empty(0, np.uint32)
        tail = halves[rest:]
        if head:
            out = np.concatenate([self._spare, halves[:rest]])
            self._spare = tail if len(tail) else None
            return out
        self._spare = tail if len(tail) else None
        return halves[:rest]

    def uint64(self, k: int) -> np.ndarray:
        """The next ``k`` 64-bit words (a kept 32-bit half is left for :meth:`uint32`)."""
        return self._bits.random_raw(k)
