"""Writing a release: plan, perturb, write and check, published whole or not at all.

References
----------
Dowd, Xu & Zhang, Algorithm 1.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from ..domain import Domain, DomainRule, DomainSketch
from ..domain.sketch import ConstantColumnError
from ..exceptions import DataError, DomainError, OutputError, ParameterError
from ..io import BatchWriter, parquet_kinds, table_format
from ..mechanism import mechanism_of
from ..options import PlanOptions, plan_options
from ..perturbation import (
    needs_counting,
    perturb_batches,
    plan_from_sketches,
    plan_release,
    realise_matrices,
)
from ..publish import check_output, operation, publish_dir
from ..random import RandomState
from ..release import ReleaseSpec, write_spec
from ..report import format_privacy_report, privacy_report
from ..validation import show
from .batches import (
    DEFAULT_BATCH,
    Progress,
    batch_rows,
    input_width,
    read_ahead,
    reporting,
    spec_kinds,
    table_batches,
)
from .opening import (
    Release,
    check_release_rows,
    checked_batches,
    load_release,
    value_domains,
    verify_release,
)


@operation()
def make_release(
    data: pd.DataFrame | str | os.PathLike,
    out_dir: str | os.PathLike,
    *,
    fmt: str | None = None,
    random_state: RandomState = None,
    batch_size: int | None = None,
    progress: Progress = None,
    overwrite: bool = False,
    on_pass: Callable[[str], None] | None = None,
    options: PlanOptions | None = None,
    owner_report: str | os.PathLike | None = None,
    **plan_keywords,
) -> ReleaseSpec:
    """Perturb a table and write a release: ``data.<ext>``, ``spec.json``, ``privacy.*``.

    The release is built in a hidden directory beside ``out_dir``, read back and
    checked against its spec (every record encodes, the record count matches), and
    published with one rename: ``out_dir`` never holds files of two runs.

    Parameters
    ----------
    data : DataFrame or path
        The original table (CSV or Parquet file, or in memory). Never modified.
    out_dir : path
        Release directory. It may not be, contain or lie inside the input.
    fmt : {"csv", "parquet"}, optional
        Output format; default the input's (CSV for a DataFrame).
    random_state : None or int
        ``None`` for a real release (AES-counter CSPRNG seeded from the OS).
    batch_size : int, optional
        Rows per batch in every pass; default :func:`batch_rows` of the input's columns.
    progress : callable, optional
        Called with the number of rows done after every batch, in every pass.
    overwrite : bool, default=False
        Replace an existing non-empty ``out_dir`` (whole). Without it that is an error.
    on_pass : callable, optional
        Called with ``"reading"``, ``"perturbing"`` and ``"checking"`` as each pass over
        the rows starts (for progress bars).
    options : PlanOptions, optional
        The release plan's options (:class:`ppdm.options.PlanOptions`).
    owner_report : path, optional
        A directory for the owner's eyes only, outside the release: its
        ``transitions.csv`` counts, per perturbed attribute, the records of each
        original value released as each value (sdcMicro's transition table). It may not
        be, contain or lie inside the release directory or the input.
    **plan_keywords
        Fields of :class:`~ppdm.options.PlanOptions` one by one, as in
        :func:`ppdm.perturbation.plan_release` (with ``options``, they replace its fields).

    Returns
    -------
    ReleaseSpec
    """
    opts = plan_options(options, **plan_keywords)  # bad options fail before any file work
    on_pass = on_pass or (lambda stage: None)
    inputs = () if isinstance(data, pd.DataFrame) else (data,)
    out_dir = check_output(
        out_dir, inputs=inputs, flag="out_dir", directory=True, overwrite=overwrite
    )
    if owner_report is not None:
        owner_report = _check_owner_report(owner_report, out_dir, inputs, overwrite)
    if fmt is None:
        fmt = "csv" if isinstance(data, pd.DataFrame) else table_format(data)
    if fmt not in ("csv", "parquet"):
        raise DataError(f"release data format must be csv or parquet (got {fmt!r})")
    if batch_size is None:
        batch_size = batch_rows(input_width(data))
    # the hidden directory is made first: an --out that cannot be written fails at once
    with _naming_input(data), publish_dir(out_dir) as tmp:  # a bad value names the file
        kinds: dict[str, str] = {}
        spec = None if isinstance(data, pd.DataFrame) else _plan_from_footer(data, opts, kinds)
        if spec is None:
            on_pass("reading")
            batches = reporting(read_ahead(table_batches(data, batch_size, "text")), progress)
            spec = plan_release(batches, opts, kinds=kinds)
        kinds.update(spec_kinds(spec))  # a domain from the owner's spec decides how to read
        if needs_counting(spec):
            on_pass("counting")
            counted = reporting(read_ahead(table_batches(data, batch_size, kinds)), progress)
            spec = realise_matrices(spec, counted, opts, random_state)
        transitions: dict[str, np.ndarray] | None = {} if owner_report is not None else None
        on_pass("perturbing")
        perturbed = perturb_batches(
            read_ahead(table_batches(data, batch_size, kinds)),
            spec,
            random_state,
            transitions=transitions,
        )
        n = _write_data(tmp / f"data.{fmt}", perturbed, spec, progress)
        if n == 0:
            raise DataError("the input table is empty: nothing to perturb")
        spec = spec.model_copy(update={"data_file": f"data.{fmt}", "n_records": n // spec.copies})
        write_spec_and_report(spec, tmp)
        on_pass("checking")
        check_written_release(tmp, batch_size, progress=progress)
        if owner_report is not None:
            with publish_dir(owner_report) as owner_tmp:
                write_transitions(spec, transitions or {}, owner_tmp / "transitions.csv")
        return spec


def _check_owner_report(
    owner_report: str | os.PathLike, out_dir: Path, inputs: tuple, overwrite: bool
) -> Path:
    """The owner's report directory, checked: never the release, inside it or holding it."""
    mine, rel = Path(owner_report).resolve(), out_dir.resolve()
    if mine == rel or rel in mine.parents or mine in rel.parents:
        where = "is" if mine == rel else "lies inside" if rel in mine.parents else "contains"
        raise OutputError(
            f"owner_report {str(owner_report)!r} {where} the release directory "
            f"{str(out_dir)!r}; the owner's report is never part of a release: write it "
            "elsewhere"
        )
    return check_output(
        owner_report,
        inputs=(*inputs, out_dir),
        flag="owner_report",
        directory=True,
        overwrite=overwrite,
    )


def write_transitions(spec: ReleaseSpec, counts: Mapping[str, np.ndarray], path: Path) -> None:
    """The owner's transition table: rows (attribute, original, released, count), count > 0."""
    rows = []
    for a in spec.perturbed_attributes():
        if a.name not in counts:
            continue
        labels = a.get_domain().labels()
        c = counts[a.name]
        for o, h in zip(*np.nonzero(c), strict=True):
            rows.append((a.name, labels[o], labels[h], int(c[o, h])))
    table = pd.DataFrame(rows, columns=["attribute", "original", "released", "count"])
    table.to_csv(path, index=False)


def _write_data(
    path: Path, batches: Iterator[pd.DataFrame], spec: ReleaseSpec, progress: Progress
) -> int:
    """Write a release's data file from its batches, every value checked first; the rows written."""
    n = 0
    with BatchWriter(path, path.suffix[1:]) as writer:
        checked = checked_batches(batches, value_domains(spec))
        for rows, encoded in read_ahead((len(b), writer.encode(b)) for b in checked):
            writer.write_encoded(encoded)
            n += rows
            if progress:
                progress(rows)
    return n


@operation()
def save_release(
    release: Release, directory: str | os.PathLike, *, fmt: str = "csv", overwrite: bool = False
) -> Release:
    """Write a release to ``directory``, whole and checked; return it as opened from there."""
    inputs = () if release.data_path is None else (release.data_path.parent,)
    out = check_output(
        directory, inputs=inputs, flag="directory", directory=True, overwrite=overwrite
    )
    if fmt not in ("csv", "parquet"):
        raise ParameterError(f"fmt must be 'csv' or 'parquet' (got {fmt!r})")
    with publish_dir(out) as tmp:
        _write_data(tmp / f"data.{fmt}", release.batches(), release.spec, None)
        write_spec_and_report(release.spec.model_copy(update={"data_file": f"data.{fmt}"}), tmp)
        check_written_release(tmp)
    return load_release(out)


@contextmanager
def _naming_input(data) -> Iterator[None]:
    """A :class:`DomainError` or :class:`DataError` of the input file names the file too."""
    try:
        yield
    except (DomainError, DataError) as exc:
        if (
            type(exc) not in (DomainError, DataError, ConstantColumnError)
            or isinstance(data, pd.DataFrame)
            or os.fspath(data) in str(exc)
        ):
            raise
        raise type(exc)(f"input file {os.fspath(data)!r}: {exc}") from None


class _NeedsData(Exception):
    """A domain of the plan is learnt from the values: the data must be read."""


class _FooterSketch(DomainSketch):
    """What a Parquet footer tells of a column: rows, kind, no missing value."""

    def to_domain(self, rule: DomainRule = DomainRule(), *, warn: bool = True) -> Domain:
        if not self.numeric or rule.bounds is None:  # learnt from the values
            raise _NeedsData(self.column)
        return super().to_domain(rule, warn=warn)


def _plan_from_footer(
    path: str | os.PathLike, opts: PlanOptions, kinds: dict[str, str]
) -> ReleaseSpec | None:
    """:func:`plan_from_footers` of one file (``kinds`` filled when a plan is returned)."""
    found = plan_from_footers([path], opts)
    if found is None:
        return None
    spec, _rows, column_kinds = found
    kinds.update(column_kinds)
    return spec


def plan_from_footers(
    paths: Sequence[str | os.PathLike], opts: PlanOptions
) -> tuple[ReleaseSpec, list[int], dict[str, str]] | None:
    """The plan :func:`plan_release` makes of Parquet files, from their footers alone.

    Possible when every perturbed attribute has its domain from the owner; else (or when
    the files' columns differ) None: the data must be read.

    Returns
    -------
    (spec, rows per file, kinds) or None
    """
    summaries = [parquet_kinds(p) for p in paths]
    if not summaries or any(s is None for s in summaries):
        return None
    column_kinds = summaries[0][1]
    if any(list(s[1].items()) != list(column_kinds.items()) for s in summaries):
        return None
    rows = [s[0] for s in summaries]
    sketches = {}
    for name, kind in column_kinds.items():
        sketch = _FooterSketch(name, cap=opts.bins_cap)
        sketch.rows, sketch.kind, sketch.numeric = sum(rows), kind, kind in ("int", "float")
        sketches[name] = sketch
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            spec = plan_from_sketches(sketches, opts)
        except _NeedsData:
            return None
    for w in caught:  # said once, by the plan that is kept
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    return spec, rows, dict(column_kinds)


def values_round_trip(spec: ReleaseSpec, path: Path, fmt: str) -> bool:
    """Write every value a perturbed attribute can take to ``path`` and read it back; each must
    encode in its domain (:class:`DomainError` if not). ``False`` (nothing checked) when the
    values are not a finite set known from the spec.
    """
    if not mechanism_of(spec).has("codes"):
        return False
    attrs = spec.perturbed_attributes()
    doms = {a.name: a.get_domain() for a in attrs}
    if any(getattr(d, "representative", None) == "random" for d in doms.values()):
        return False
    if not doms:
        return True
    n = max(d.n_values for d in doms.values())
    frame = pd.DataFrame(
        {name: d.decode(np.resize(np.arange(d.n_values), n)) for name, d in doms.items()}
    )
    try:
        with BatchWriter(path, fmt) as writer:  # as the release's data was written
            writer.write(frame)
        if fmt == "csv":
            from ..io.csv import read_csv

            back = read_csv(path, None, spec_kinds(spec))
        else:
            import pyarrow.parquet as pq

            back = pq.read_table(path).to_pandas()
        for name, d in doms.items():
            try:
                d.encode(back[name], column=name)
            except DomainError:
                bad = next(
                    i for i in range(len(back)) if not _encodes(d, back[name].iloc[i : i + 1])
                )
                raise DomainError(
                    f"column {name!r}: its value {show(frame[name].iloc[bad], 60)} is read "
                    f"back from a {fmt} release as {show(back[name].iloc[bad], 60)}, which "
                    "is not in its domain; it cannot be released in this format"
                ) from None
    finally:
        path.unlink(missing_ok=True)
    return True


def _encodes(domain: Domain, values: pd.Series) -> bool:
    try:
        domain.encode(values)
    except DomainError:
        return False
    return True


def check_written_release(
    directory: str | os.PathLike, batch_size: int = DEFAULT_BATCH, progress: Progress = None
) -> int:
    """Check a release :func:`make_release` has just written; return its row count.

    The same guarantee as :func:`verify_release`, without reading the values back when
    they are a finite set: the file's columns and rows from its header or footer, and
    every value the domains can take through the release's format (docs/security.md,
    "Self-consistency").

    Parameters
    ----------
    directory : path-like
        The release directory (its spec and data file written).
    batch_size : int
        Rows per batch when the release is read back whole.
    progress : callable, optional
        Called with the number of rows checked.

    Returns
    -------
    int
        The rows of the data file.

    Raises
    ------
    SpecError, DomainError
        The release is not self-consistent.
    """
    rel = load_release(directory)
    fmt = table_format(rel.data_path)
    if fmt not in ("csv", "parquet") or not values_round_trip(
        rel.spec, Path(directory) / f".values.{fmt}", fmt
    ):
        return verify_release(directory, batch_size, progress=progress)
    columns, rows = written_shape(rel.data_path)
    rel.spec.check_columns(columns)
    check_release_rows(rel.spec, rows, rel.source)
    if progress:
        progress(rows)
    return rows


def written_shape(path: str | os.PathLike) -> tuple[list[str], int]:
    """The columns and rows of a data file ppdm has written, from its header or footer."""
    if table_format(path) == "csv":
        from ..io.csv import count_csv_records, csv_names

        return csv_names(path), count_csv_records(path)
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    return [str(n) for n in meta.schema.to_arrow_schema().names], meta.num_rows


def write_spec_and_report(spec: ReleaseSpec, directory: Path) -> None:
    """Write ``spec.json`` (with every attribute's privacy figures) and ``privacy.*``."""
    spec = with_privacy(spec)
    write_spec(spec, directory / "spec.json")
    report = privacy_report(spec)
    (directory / "privacy.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (directory / "privacy.txt").write_text(format_privacy_report(report), encoding="utf-8")


def with_privacy(spec: ReleaseSpec) -> ReleaseSpec:
    """``spec`` with every perturbed attribute's privacy figures, as a release states them."""
    attrs = []
    mech = mechanism_of(spec)
    for a in spec.attributes:
        if a.perturbed:
            a = a.model_copy(update={"privacy": mech.privacy(a, spec.n_records, spec.copies)})
        attrs.append(a)
    return spec.model_copy(update={"attributes": attrs})
