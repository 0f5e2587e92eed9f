"""The Python face of ppdm: a release made, opened and mined in a few calls.

>>> import ppdm
>>> rel = ppdm.perturb(frame, class_attribute="class", gamma=9)   # doctest: +SKIP
>>> rel.privacy["per_record"]["epsilon"], rel.estimate()[0].estimate   # doctest: +SKIP
>>> rel.save("release")                                              # doctest: +SKIP
>>> ppdm.mine(ppdm.load("release")).estimate                          # doctest: +SKIP

Everything here is the library's own functions under short names; a release made in
memory is the same bytes, once saved, as :func:`ppdm.pipeline.make_release` writes for
the same table, options and seed.

References
----------
Dowd, Xu & Zhang, Sec. 3 (Algorithm 1) and Sec. 5 (the figures a release states).
"""

from __future__ import annotations

import os

import pandas as pd

from .exceptions import DataError, ParameterError
from .options import PlanOptions, plan_options
from .perturbation import perturb_frame, plan_release
from .pipeline import Release, load_release, with_privacy
from .random import RandomState

__all__ = ["load", "perturb"]


def perturb(
    frame: pd.DataFrame,
    options: PlanOptions | None = None,
    *,
    random_state: RandomState = None,
    **plan_keywords,
) -> Release:
    """Perturb a table in memory and return the release (not yet written anywhere).

    Parameters
    ----------
    frame : DataFrame
        The original table. Never modified.
    options : PlanOptions, optional
        The release plan (:class:`ppdm.options.PlanOptions`).
    random_state : None or int
        ``None`` for a real release (a CSPRNG seeded from the OS); an int only for
        experiments (it is never written into the spec).
    **plan_keywords
        Fields of :class:`~ppdm.options.PlanOptions` one by one (``class_attribute``,
        ``gamma``, ``n_bins``, ``bounds``, ``epsilon_record``, ...).

    Returns
    -------
    Release
        ``.data`` (the perturbed table), ``.spec``, ``.privacy``, ``.estimate()``,
        ``.reconstruct()`` and ``.save(directory)``.

    Examples
    --------
    >>> import pandas as pd, ppdm
    >>> df = pd.DataFrame({"x": [1, 2, 3, 4] * 25, "y": ["a", "b"] * 50})
    >>> rel = ppdm.perturb(df, class_attribute="y", gamma=5, random_state=0)
    >>> rel.spec.n_records, rel.privacy["attributes"][0]["epsilon"].__round__(3)
    (100, 1.609)

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (Algorithm 1).
    """
    if not isinstance(frame, pd.DataFrame):
        raise ParameterError(
            f"frame must be a pandas DataFrame (got {type(frame).__name__}); "
            "for a file use ppdm.pipeline.make_release"
        )
    if len(frame) == 0:
        raise DataError("the input table is empty: nothing to perturb")
    opts = plan_options(options, **plan_keywords)
    spec = plan_release(frame, opts)
    data = perturb_frame(frame, spec, random_state)
    spec = with_privacy(spec.model_copy(update={"n_records": len(frame)}))
    return Release(spec, None, data.reset_index(drop=True))


def load(directory: str | os.PathLike) -> Release:
    """Open a release directory (:func:`ppdm.pipeline.load_release`)."""
    return load_release(directory)
