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
from .pipeline import (
    AttributeEstimate,
    estimate_release,
    load_release,
    reconstruct_release,
    save_release,
    with_privacy,
)
from .pipeline import Release as StoredRelease
from .random import RandomState
from .report import privacy_report

__all__ = ["Release", "load", "perturb"]


class Release(StoredRelease):
    """A release, in memory or on disk, with what a Python user asks of it.

    Attributes
    ----------
    spec : ReleaseSpec
        The public spec, with every perturbed attribute's privacy figures.
    data_path : Path or None
        The data file; ``None`` for a release in memory (not yet saved).

    Examples
    --------
    >>> import ppdm, pandas as pd
    >>> df = pd.DataFrame({"age": [23, 41, 35, 62] * 50, "y": ["a", "b", "a", "b"] * 50})
    >>> rel = ppdm.perturb(df, class_attribute="y", gamma=9, bounds={"age": (20, 70)})
    >>> rel.data.shape, rel.privacy["attributes"][0]["gamma"]
    ((200, 2), 9.0)
    """

    @property
    def data(self) -> pd.DataFrame:
        """The perturbed table (read from its file for a release on disk)."""
        return self.frame()

    @property
    def privacy(self) -> dict:
        """The privacy report, as ``privacy.json`` states it
        (:func:`ppdm.report.privacy_report`)."""
        return privacy_report(self.spec)

    def estimate(
        self, method: str = "set-scale", *, by_class: bool = False
    ) -> list[AttributeEstimate]:
        """Every perturbed attribute's estimated original distribution, with standard
        errors (:func:`ppdm.pipeline.estimate_release`)."""
        return estimate_release(self, method, by_class=by_class)

    def reconstruct(
        self, method: str = "set-scale", *, by_class: bool = False, random_state: RandomState = None
    ) -> pd.DataFrame:
        """A table rebuilt by Algorithm 2 (:func:`ppdm.pipeline.reconstruct_release`)."""
        return reconstruct_release(
            self, method=method, by_class=by_class, random_state=random_state
        )

    def save(
        self, directory: str | os.PathLike, *, fmt: str = "csv", overwrite: bool = False
    ) -> Release:
        """Write the release to ``directory``, whole or not at all, and return it as
        opened from there (:func:`ppdm.pipeline.save_release`)."""
        saved = save_release(self, directory, fmt=fmt, overwrite=overwrite)
        return Release(saved.spec, saved.data_path)


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
    opened = load_release(directory)
    return Release(opened.spec, opened.data_path)
