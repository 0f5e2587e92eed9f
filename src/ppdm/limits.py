"""Caps on the size of the work a single input can ask for.

Every cap is a named constant with the measurement that sets it, so a request far above
what the machine can do fails at once with one line naming the column or flag, the
value and the cap, instead of allocating for minutes and dying with a ``MemoryError``.

The caps are checked where sizes come from the outside: domains and matrices built
from options or specs (:func:`check_n_values`), record counts asked of samplers
(:func:`check_n_records`) and spec files read from disk (:data:`MAX_SPEC_BYTES`).
"""

from __future__ import annotations

import math
import numbers

__all__ = [
    "MAX_VALUES",
    "MAX_DENSE_VALUES",
    "MAX_RECORDS",
    "MAX_SPEC_BYTES",
    "MAX_NESTING",
    "check_n_values",
    "check_n_records",
    "format_bytes",
]

MAX_VALUES: int = 65_536
"""Largest N (codes of one attribute) for a matrix with structure ``a I + b J``.

Gamma-diagonal matrices are sampled, inverted, iterated (IBU) and given standard errors
in closed form, O(N) per step, so N is bounded by what the rest of a run holds per
value: domain labels, per-class count tables and the tie-group tables of
matrix-based reconstruction. At N = 10,000 a one-column estimate takes about a
second; 65,536 (2^16) keeps every per-value table of a run well under a gigabyte while
leaving room far beyond any useful resolution (each code needs many records for its
estimate to be meaningful: Kang's bound grows like N^1.5 / sqrt(n)).
"""

MAX_DENSE_VALUES: int = 4_096
"""Largest N for an explicit (dense) perturbation matrix.

An explicit matrix is held, inverted and used for the covariance ``M^-1 Cov(y) M^-T``
as dense N x N arrays: at N = 4,096 each is 128 MiB and an inverse takes a few seconds
on one core; the O(N^3) work and O(N^2) memory grow 64-fold and 16-fold per
quadrupling of N, and at N = 10,000 a single estimate took minutes.
"""

MAX_RECORDS: int = 1_000_000_000
"""Largest number of records a sampler may be asked for in one call (10^9).

Sampling holds one uniform (8 bytes) and one code per record and node at a time, so
10^9 records of even a single node need about 9 GB; beyond that a request is a typo
(``--n 1e13``) rather than a plan.
"""

MAX_SPEC_BYTES: int = 16 * 1024 * 1024
"""Largest spec file (JSON or YAML) read, 16 MiB.

A release spec holds one small mapping per attribute; even an explicit 4,096 x 4,096
matrix written out in full is far larger than any hand-written spec, and a larger file
is refused before it is parsed.
"""

MAX_NESTING: int = 100
"""Deepest nesting of mappings and lists accepted in a spec file.

A release spec is at most five levels deep (spec, attributes, attribute, matrix,
rows); deeper input is refused with one line instead of exhausting the parser's stack.
"""


def format_bytes(n: int) -> str:
    """Human-readable size, e.g. ``'16.0 MiB'``.

    Examples
    --------
    >>> format_bytes(16 * 1024 * 1024)
    '16.0 MiB'
    >>> format_bytes(512)
    '512 B'
    """
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"  # pragma: no cover


def _as_count(value, what: str, error: type[Exception]) -> int:
    """``value`` as a Python int >= 1, or ``error`` naming ``what`` (never Overflow/TypeError)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise error(f"{what} must be a whole number (got {_show(value)})")
    if isinstance(value, numbers.Integral):
        return int(value)
    v = float(value)
    if not math.isfinite(v) or v != math.floor(v):
        raise error(f"{what} must be a whole number (got {_show(value)})")
    return int(v)


def _show(value, width: int = 40) -> str:
    """A plain, truncated rendering of ``value`` for messages."""
    if hasattr(value, "item") and callable(value.item):
        try:
            value = value.item()
        except (ValueError, TypeError):
            pass
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def check_n_values(
    n, what: str = "N", *, dense: bool = False, error: type[Exception] = ValueError
) -> int:
    """Check a number of codes against :data:`MAX_VALUES` (or :data:`MAX_DENSE_VALUES`).

    Parameters
    ----------
    n : int
        The requested number of codes.
    what : str
        How the message names it, e.g. ``"--bins"`` or ``"column 'age': n_bins"``.
    dense : bool, default=False
        Use the cap of dense (explicit) matrices.
    error : exception class, default=ValueError

    Returns
    -------
    int

    Examples
    --------
    >>> check_n_values(20, "--bins")
    20
    >>> check_n_values(10**7, "--bins")
    Traceback (most recent call last):
    ...
    ValueError: --bins is 10000000, above the cap of 65536 values per attribute (ppdm.limits.MAX_VALUES)
    """
    value = _as_count(n, what, error)
    cap, name = (MAX_DENSE_VALUES, "MAX_DENSE_VALUES") if dense else (MAX_VALUES, "MAX_VALUES")
    if value > cap:
        kind = " for an explicit matrix" if dense else ""
        raise error(
            f"{what} is {value}, above the cap of {cap} values per attribute{kind} "
            f"(ppdm.limits.{name})"
        )
    return value


def check_n_records(n, what: str = "n", *, error: type[Exception] = ValueError) -> int:
    """Check a requested number of records: a whole number in ``1..MAX_RECORDS``.

    Examples
    --------
    >>> check_n_records(1000, "--n")
    1000
    >>> check_n_records(1e13, "--n")
    Traceback (most recent call last):
    ...
    ValueError: --n is 10000000000000, above the cap of 1000000000 records (ppdm.limits.MAX_RECORDS)
    """
    value = _as_count(n, what, error)
    if value < 1:
        raise error(f"{what} must be >= 1 (got {value})")
    if value > MAX_RECORDS:
        raise error(
            f"{what} is {value}, above the cap of {MAX_RECORDS} records (ppdm.limits.MAX_RECORDS)"
        )
    return value
