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
from pathlib import Path

import pandas as pd

from . import pipeline
from .exceptions import DataError, OptionError, ParameterError
from .options import PlanOptions, plan_options
from .perturbation import perturb_frame, plan_release
from .pipeline import AttributeEstimate, load_release, save_release, with_privacy
from .pipeline import Release as StoredRelease
from .publish import check_output, operation
from .random import RandomState
from .release import ReleaseSpec
from .report import privacy_report

__all__ = [
    "ENGINES",
    "Release",
    "estimate_release",
    "is_parts",
    "load",
    "make_release",
    "perturb",
    "reconstruct_release",
    "resolve_engine",
]

#: Where a release is made, estimated or reconstructed: ``"local"`` streams one file in
#: this process, ``"partitioned"`` runs partition by partition in this process, ``"dask"``
#: one task per partition on a Dask cluster. For the same seed all three give the same bytes.
ENGINES = ("local", "partitioned", "dask")


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
        return pipeline.estimate_release(self, method, by_class=by_class)

    def reconstruct(
        self, method: str = "set-scale", *, by_class: bool = False, random_state: RandomState = None
    ) -> pd.DataFrame:
        """A table rebuilt by Algorithm 2 (:func:`ppdm.pipeline.reconstruct_release`)."""
        return pipeline.reconstruct_release(
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
            "for a file use ppdm.make_release"
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


def resolve_engine(engine: str | None, parts: bool, scheduler=None) -> str:
    """The engine asked for, checked: ``None`` is ``"local"`` (``"dask"`` with a scheduler),
    and ``"local"`` on parts is ``"partitioned"``.
    """
    if engine is None:
        engine = "dask" if scheduler is not None else "local"
    if engine == "local" and parts:  # in this process, partition by partition
        engine = "partitioned"
    if engine not in ENGINES:
        raise OptionError("engine", f"engine must be one of {', '.join(ENGINES)} (got {engine!r})")
    if scheduler is not None and engine != "dask":
        raise OptionError("scheduler", f"scheduler is only for engine 'dask' (got {engine!r})")
    if engine == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise ParameterError(
                "engine 'dask' needs the dask extra: pip install 'ppdm[dask]'"
            ) from None
    return engine


def is_parts(data) -> bool:
    """A directory or a glob of table parts (the partitioned engines' input)."""
    if isinstance(data, pd.DataFrame) or not isinstance(data, (str, os.PathLike)):
        return not isinstance(data, pd.DataFrame)  # a list of frames, a dask DataFrame
    from .io import is_glob

    path = Path(data)
    return path.is_dir() or (not path.exists() and is_glob(path))


def make_release(
    data,
    out_dir: str | os.PathLike,
    *,
    engine: str | None = None,
    scheduler=None,
    fmt: str | None = None,
    **keywords,
) -> ReleaseSpec:
    """Perturb a table into a release directory, on the engine asked for.

    Parameters
    ----------
    data : path, glob, DataFrame, list of DataFrame or dask DataFrame
        A file (CSV or Parquet), a directory or glob of parts, or frames. Never modified.
    out_dir : path
        The release directory, published whole or not at all.
    engine : {"local", "partitioned", "dask"}, optional
        Default: ``"partitioned"`` for parts (a directory, a glob, frames), else
        ``"local"``; ``"dask"`` when a ``scheduler`` is given.
    scheduler : str or distributed.Client, optional
        The Dask scheduler (``engine="dask"``).
    fmt : {"csv", "parquet"}, optional
        The release's data format (``"local"`` only: parts are written as Parquet).
    **keywords
        Of :func:`ppdm.pipeline.make_release` (``random_state``, ``overwrite``,
        ``options``, the plan's fields, and for ``"local"`` ``batch_size``,
        ``progress``, ``on_pass`` and ``owner_report``).

    Returns
    -------
    ReleaseSpec

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 1.
    """
    parts = is_parts(data)
    engine = resolve_engine(engine, parts, scheduler)
    if engine == "local":
        return pipeline.make_release(data, out_dir, fmt=fmt, **keywords)
    from .engine import make_release_partitioned

    if fmt not in (None, "parquet"):
        raise OptionError(
            "fmt", f"fmt {fmt}: a partitioned release is written as Parquet parts ({engine})"
        )
    for name in ("progress", "on_pass"):  # the local passes' callbacks: nothing to call
        keywords.pop(name, None)
    for name in ("batch_size", "owner_report"):
        if keywords.pop(name, None) is not None:
            raise OptionError(name, f"{name} is for engine 'local' (not {engine})")
    return make_release_partitioned(
        data, out_dir, engine="local" if engine == "partitioned" else "dask",
        scheduler=scheduler, **keywords,
    )  # fmt: skip


def estimate_release(
    release,
    method: str = "set-scale",
    *,
    by_class: bool = False,
    engine: str | None = None,
    scheduler=None,
    batch_size: int | None = None,
) -> list[AttributeEstimate]:
    """Estimate every perturbed attribute's original distribution, on the engine asked
    for (default ``"local"``; ``"dask"`` when a ``scheduler`` is given): the same
    estimates whichever.

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3.
    """
    engine = resolve_engine(engine, False, scheduler)
    if engine == "local":
        return pipeline.estimate_release(release, method, by_class=by_class, batch_size=batch_size)
    from .engine import estimate_release_partitioned

    return estimate_release_partitioned(
        release, method, by_class=by_class, scheduler=scheduler,
        engine="local" if engine == "partitioned" else "dask",
    )  # fmt: skip


def reconstruct_release(
    release,
    out: str | os.PathLike | None = None,
    *,
    engine: str | None = None,
    scheduler=None,
    overwrite: bool = False,
    **keywords,
):
    """Reconstruct a release by Algorithm 2, on the engine asked for.

    Parameters
    ----------
    release : Release or path
    out : path, optional
        A file (.csv, .parquet, .arff), or a directory of Parquet parts (a name without
        extension); ``None`` returns the table (``"local"`` only).
    engine : {"local", "partitioned", "dask"}, optional
        Default: ``"partitioned"`` for an ``out`` without extension, else ``"local"``;
        ``"dask"`` when a ``scheduler`` is given.
    **keywords
        ``method``, ``by_class``, ``random_state``, and for ``"local"``
        ``batch_size`` and ``progress``.

    Returns
    -------
    DataFrame, Path or None

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2.
    """
    parts = out is not None and not Path(out).suffix
    engine = resolve_engine(engine, parts, scheduler)
    if engine == "local":
        with operation():  # the release is this call's input: out may not touch it
            rel = load_release(release)
            if out is not None:
                check_output(out, flag="out", overwrite=overwrite, keep_files=True)
            return pipeline.reconstruct_release(rel, out, **keywords)
    from .engine import reconstruct_release_partitioned

    if out is None:
        raise OptionError("out", f"out: engine {engine!r} writes a directory of parts; name one")
    for name in ("batch_size", "progress"):
        if keywords.pop(name, None) is not None:
            raise OptionError(name, f"{name} is for engine 'local' (not {engine})")
    return reconstruct_release_partitioned(
        release, out, scheduler=scheduler, overwrite=overwrite,
        engine="local" if engine == "partitioned" else "dask", **keywords,
    )  # fmt: skip
