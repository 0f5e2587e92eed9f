"""Exceptions and warnings raised by ppdm.

Every error subclasses a builtin so callers can catch ``ValueError`` as usual.
"""

from __future__ import annotations

__all__ = [
    "PpdmError",
    "DomainError",
    "MatrixError",
    "SpecError",
    "OptionError",
    "DataError",
    "OutputError",
    "OutputTakenError",
    "ParameterError",
    "NotFittedError",
    "PrivacyWarning",
    "BoundsLeakWarning",
    "SeededReleaseWarning",
]


class PpdmError(Exception):
    """Base class of every ppdm error."""


class DomainError(PpdmError, ValueError):
    """A value does not fit an attribute's domain (out of bounds, missing, unknown)."""


class MatrixError(PpdmError, ValueError):
    """A perturbation matrix breaks a rule (negative, not column-stochastic, singular)."""


class SpecError(PpdmError, ValueError):
    """A release spec is malformed or does not match the data."""


class OptionError(SpecError):
    """A release option has a bad value; ``field`` names the option, and the message starts
    with it, so a front end can name it its own way (``--bins`` for ``n_bins``)."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field

    def __reduce__(self):
        return type(self), (self.field, str(self))


class DataError(PpdmError, ValueError):
    """An input table is unusable (empty, unknown column, wrong shape)."""


class OutputError(PpdmError, ValueError):
    """An output path would lose or leak data (an input, the root, a non-empty directory)."""


class OutputTakenError(OutputError):
    """Another ppdm process is writing the output, or wrote it while this one worked."""


class ParameterError(PpdmError, ValueError):
    """A function argument has a bad value (a count, a level, a choice, a tolerance)."""


class PrivacyWarning(UserWarning):
    """Something weakens the stated privacy guarantee."""


class BoundsLeakWarning(PrivacyWarning):
    """Domain bounds were taken from the data, so a release reveals its min and max."""


class SeededReleaseWarning(PrivacyWarning):
    """A release was drawn from a seeded (guessable) generator."""


class NotFittedError(PpdmError, ValueError, AttributeError):
    """An estimator was used before ``fit``.

    Like scikit-learn's ``NotFittedError`` it is both a ``ValueError`` and an
    ``AttributeError``, so code written for scikit-learn estimators catches it.
    """
