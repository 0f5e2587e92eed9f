"""Shared validators of parameters: amplification, probabilities, counts, choices.

Each returns the value in its plain Python form, or raises ``error`` with one line naming
the parameter (as the caller calls it: a keyword, a field, a flag), the rule and the value.

References
----------
Evfimievski, Gehrke & Srikant (2003), amplification gamma and rho1-to-rho2 breaches,
as used by Dowd, Xu & Zhang, Sec. 5.1.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

from .exceptions import DataError, MatrixError, ParameterError

__all__ = [
    "show",
    "MAX_GAMMA",
    "check_gamma",
    "check_amplification",
    "check_probability",
    "check_positive",
    "check_int",
    "check_at_least",
    "check_choice",
    "check_interval",
    "check_two_classes",
    "visible",
]


def show(value, width: int = 40) -> str:
    """A plain, truncated rendering of ``value`` for messages (``3``, not ``np.int64(3)``)."""
    if hasattr(value, "item") and callable(value.item):
        try:
            value = value.item()
        except (ValueError, TypeError):
            pass
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def visible(text) -> str:
    """``text`` with its control characters (a tab, a line break) written as escapes, for a
    figure's one-line title or tick label."""
    import unicodedata

    text = str(text)
    if text.isprintable():
        return text
    return "".join(
        repr(ch)[1:-1] if unicodedata.category(ch).startswith("C") else ch for ch in text
    )


def _number(value, name: str, rule: str, error: type[Exception]) -> float:
    """``value`` as a float, or ``error`` saying it must be a number (never TypeError)."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, str)):
        raise error(f"{name} must be a number {rule} (got {show(value)})")
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        raise error(f"{name} must be a number {rule} (got {show(value)})") from None


#: The largest gamma of a matrix to build: past it the closed forms (``gamma + N - 1``
#: times a count, Kang's bound) overflow a float. Any gamma above about 2e10 already
#: changes almost no value (:func:`ppdm.privacy.changes_nothing`).
MAX_GAMMA = 1e300


def check_gamma(gamma, name: str = "gamma", *, error: type[Exception] = MatrixError) -> float:
    """Validate the amplification ``gamma`` of a matrix, a number > 1 and at most
    :data:`MAX_GAMMA`; return it as a float.

    ``name`` is how the message names the value (a keyword, a field or a flag);
    ``error`` is the exception class raised (default :class:`~ppdm.exceptions.MatrixError`).

    Examples
    --------
    >>> check_gamma(9)
    9.0
    >>> check_gamma(1)
    Traceback (most recent call last):
    ...
    ppdm.exceptions.MatrixError: gamma must be > 1 (got 1): gamma = 1 makes the matrix singular and gamma < 1 is not a valid amplification

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5.1 (gamma-diagonal matrices need gamma > 1).
    """
    g = _number(gamma, name, "> 1", error)
    if g == math.inf:
        raise error(
            f"{name} must be a finite number (got {show(gamma)}): infinite amplification "
            "releases every value as it is"
        )
    if not math.isfinite(g) or g <= 1.0:
        raise error(
            f"{name} must be > 1 (got {show(gamma)}): gamma = 1 makes the matrix singular "
            "and gamma < 1 is not a valid amplification"
        )
    if g > MAX_GAMMA:
        raise error(
            f"{name} must be at most {MAX_GAMMA:g} (got {show(gamma)}): past it ppdm's "
            "arithmetic overflows, and a gamma above about 2e10 protects nothing"
        )
    return g


def check_amplification(
    gamma, name: str = "gamma", *, error: type[Exception] = ParameterError
) -> float:
    """Validate the amplification of a built matrix: a number >= 1, ``inf`` (a zero entry) allowed.

    References
    ----------
    Evfimievski, Gehrke & Srikant (2003), Definition 3 (amplification).
    """
    g = _number(gamma, name, ">= 1", error)
    if not g >= 1.0:
        raise error(f"{name} must be >= 1 (got {show(gamma)})")
    return g


def check_probability(
    p, name: str, *, closed: bool = False, error: type[Exception] = ParameterError
) -> float:
    """Validate a probability: in ``(0, 1)``, or in ``[0, 1]`` when ``closed``."""
    interval = "[0, 1]" if closed else "(0, 1)"
    r = _number(p, name, f"in {interval}", error)
    inside = 0.0 <= r <= 1.0 if closed else 0.0 < r < 1.0
    if not inside:
        raise error(f"{name} must be in {interval} (got {show(p)})")
    return r


def check_positive(x, name: str, *, error: type[Exception] = ParameterError) -> float:
    """Validate a finite number > 0 (a scale, a width, a tolerance)."""
    v = _number(x, name, "> 0", error)
    if not math.isfinite(v):
        raise error(f"{name} must be a finite number > 0 (got {show(x)})")
    if not v > 0:
        raise error(f"{name} must be > 0 (got {show(x)})")
    return v


def check_int(n, name: str, *, low: int = 1, error: type[Exception] = ParameterError) -> int:
    """Validate an integer (not a bool, not a float) ``>= low``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < low:
        raise error(f"{name} must be an integer >= {low} (got {show(n)})")
    return int(n)


def check_at_least(n, name: str, low: int, *, error: type[Exception] = ParameterError):
    """Validate a number ``>= low`` (its type checked elsewhere, e.g. by a parser)."""
    v = _number(n, name, f">= {low}", error)
    if not v >= low:
        raise error(f"{name} must be >= {low} (got {show(n)})")
    return n


def check_choice(
    value, name: str, choices: Iterable[str], *, error: type[Exception] = ParameterError
) -> str:
    """Validate one of a fixed set of words."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise error(f"{name} must be one of {listed} (got {show(value)})")
    return value


def check_interval(low, high, name: str, *, error: type[Exception] = ParameterError):
    """Validate bounds ``low < high``: finite numbers, ``high - low`` finite too."""
    got = f"(got {show(low)}:{show(high)})"
    if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (low, high)):
        raise error(f"{name} must be two numbers (low, high) {got}")
    lo, hi = float(low), float(high)
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(hi - lo)):
        raise error(f"{name} must be finite, and high - low a finite number {got}")
    if not lo < hi:
        raise error(f"{name} must have low < high {got}")
    return lo, hi


def check_two_classes(values, what: str, learner: str = "a classifier", hint: str = "") -> None:
    """Raise :class:`DataError` unless ``values`` (a class column; missing values left out)
    hold at least two classes, naming ``what`` and its one value."""
    import pandas as pd

    classes = pd.Series(values).dropna().unique()
    if len(classes) < 2:
        had = f"one value, {show(classes[0])}" if len(classes) else "no value"
        raise DataError(
            f"{what} has {had}: {learner} needs at least two classes to learn from{hint}"
        )
