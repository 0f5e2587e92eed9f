"""Algorithm 1 over batches: every record's perturbed values drawn from its attribute's
stream, the same bytes whatever the batch size, partitioning or engine.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1, RRP) and Sec. 3.2 (continuous attributes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import pandas as pd

from ..exceptions import DataError, ParameterError, SpecError
from ..matrix import PerturbationMatrix, needs_data
from ..mechanism import mechanism_of
from ..mechanism.streams import release_root
from ..random import RandomState, perturbation_generator
from ..release import ReleaseSpec
from ..validation import check_at_least


def perturb_codes(
    codes: np.ndarray, matrix: PerturbationMatrix, random_state: RandomState = None
) -> np.ndarray:
    """Algorithm 1 on an array of codes: one random word per value, O(1) per value.

    Parameters
    ----------
    codes : int array
        Original codes in ``0..N-1``.
    matrix : PerturbationMatrix
    random_state : None, int, SeedSequence or Generator
        ``None`` (a release) draws from an AES-counter stream under 256 bits of OS
        entropy; an int or SeedSequence gives a reproducible PCG64 stream
        (experiments), a Generator is used as is.

    Returns
    -------
    int32 array
        Perturbed codes.

    Examples
    --------
    >>> from ppdm.matrix import identity
    >>> perturb_codes(np.array([2, 0, 1]), identity(3), 0).tolist()
    [2, 0, 1]

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1).
    """
    codes = np.asarray(codes)
    if codes.size and (codes.min() < 0 or codes.max() >= matrix.n_values):
        raise DataError(f"codes must lie in 0..{matrix.n_values - 1}")
    return matrix.draw(codes, perturbation_generator(random_state, "perturb-codes"))


def perturb_batches(
    batches: Iterable[pd.DataFrame],
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
    row_offset: int = 0,
    transitions: dict[str, np.ndarray] | None = None,
) -> Iterator[pd.DataFrame]:
    """Perturb a table batch by batch (Algorithm 1 on every perturbed attribute).

    Values are encoded in their domain, substituted through the matrix and decoded (an
    additive release adds its noise instead); inputs are never modified. With
    ``spec.copies = m > 1`` every record is released m times in a row, each copy
    independent (amplification gamma^m). The streams are addressed by row (README.md,
    Randomness): the output does not depend on the batches.

    Parameters
    ----------
    random_state : None, int, SeedSequence or Generator
        ``None`` for releases (a root of 256 bits of OS entropy); a seed for
        experiments (warned unless ``warn`` is false).
    row_offset : int, default=0
        Row address of the first record in the streams (a partition's first row).
    transitions : dict, optional
        Filled with ``transitions[name][o, h]``, the records of original code ``o``
        released as ``h`` over all copies (the owner's view, never released).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1) and Sec. 3.2; Kang, Sec. 2 (copies).
    """
    check_at_least(row_offset, "row_offset", 0, error=ParameterError)
    unbuilt = [a.name for a in spec.perturbed_attributes() if needs_data(a.matrix)]
    if unbuilt:
        raise SpecError(
            f"attribute {unbuilt[0]!r}: its {spec.attribute(unbuilt[0]).matrix['kind']} matrix "
            "is built from the data (its marginal, its strata) in a counting pass that only "
            "ppdm perturb of one input file makes (not a directory or glob of parts, nor "
            "--engine dask); in Python, ppdm.perturbation.realise_matrices"
        )
    root = release_root(random_state, warn)
    yield from mechanism_of(spec).perturb(batches, spec, root, int(row_offset), transitions)


def perturb_frame(
    frame: pd.DataFrame,
    spec: ReleaseSpec,
    random_state: RandomState = None,
    *,
    warn: bool = True,
) -> pd.DataFrame:
    """Perturb a whole in-memory table (see :func:`perturb_batches`).

    Examples
    --------
    >>> import warnings
    >>> from ppdm.perturbation import plan_release
    >>> df = pd.DataFrame({"x": [1, 2, 3, 1], "y": ["a", "b", "a", "b"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     spec = plan_release(df, class_attribute="y")
    ...     out = perturb_frame(df, spec, random_state=0)
    >>> out.shape, out["y"].tolist()
    ((4, 2), ['a', 'b', 'a', 'b'])
    """
    if len(frame) == 0:
        raise DataError("the input table is empty: nothing to perturb")
    return next(iter(perturb_batches([frame], spec, random_state, warn=warn)))
