"""File-level workflows: make a release, estimate from it, reconstruct it.

Everything streams in batches, so memory is bounded by the batch size whatever the
file size. Outputs are written to temporary files and renamed into place on success:
a failure leaves nothing behind.

References
----------
Dowd, Xu & Zhang, Algorithms 1 and 2 and Sec. 4.2-4.3.
"""

from __future__ import annotations

import json
import os
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np
import pandas as pd

from .domain import BinnedDomain, Domain, DomainRule, DomainSketch
from .estimate import Estimate, count_codes, estimate_counts
from .exceptions import DataError, DomainError, ParameterError, PpdmError, SpecError
from .io import (
    BatchWriter,
    atomic_path,
    check_parts_alike,
    check_regular_file,
    iter_batches,
    parquet_kinds,
    partition_files,
    read_table,
    table_columns,
    table_format,
    write_table,
)
from .options import PlanOptions, plan_options
from .perturbation import perturb_batches, plan_from_sketches, plan_release
from .publish import check_output, operation, publish_dir, register_input, release_member
from .random import (
    RandomState,
    WordStream,
    resolve_seed,
    stream_generator,
)
from .reconstruct import (
    RankTable,
    check_tie_group_table,
    coarsen_buckets,
    largest_remainder,
    rank_bits,
    rank_cells,
    tie_group_multisets,
)
from .release import ReleaseSpec, read_spec, write_spec
from .report import format_privacy_report, privacy_report

T = TypeVar("T")

__all__ = [
    "DEFAULT_BATCH",
    "BATCH_VALUES",
    "batch_rows",
    "Release",
    "AttributeEstimate",
    "make_release",
    "plan_from_footers",
    "load_release",
    "check_release_spec",
    "verify_release",
    "check_written_release",
    "checked_batches",
    "values_round_trip",
    "written_shape",
    "check_release_rows",
    "release_values",
    "estimate_release",
    "estimates_from_counts",
    "reconstruction_multisets",
    "reconstruct_batches",
    "assign_batches",
    "rank_keys",
    "rank_tables",
    "reconstruct_release",
    "reconstruct_frame",
    "class_values",
]

DEFAULT_BATCH = 250_000
#: values per batch when the batch size is left to ppdm: 250,000 rows of six columns
BATCH_VALUES = 1_500_000
Progress = Callable[[int], None] | None


def _input_width(data) -> int:
    """The columns of an input table, from its header or footer (a directory of parts:
    its first file's); a file that cannot be read so is left to the readers' own error
    (six columns are assumed). Nothing but a regular file or directory is opened."""
    if isinstance(data, pd.DataFrame):
        return data.shape[1]
    path = check_regular_file(data)
    try:
        files = partition_files(path) if path.is_dir() else [path]
        return len(table_columns(files[0])) if files else 6
    except (PpdmError, OSError, ValueError):
        return 6


def batch_rows(n_columns: int) -> int:
    """Rows per batch of a table of ``n_columns`` columns when none is given: about
    :data:`BATCH_VALUES` values, between 10,000 and :data:`DEFAULT_BATCH` rows, so that a
    wide table is read in as little memory as a narrow one. Released bytes do not
    depend on it.

    Examples
    --------
    >>> batch_rows(6), batch_rows(21), batch_rows(1000)
    (250000, 71428, 10000)
    """
    return max(10_000, min(DEFAULT_BATCH, BATCH_VALUES // max(int(n_columns), 1)))


def _batches(
    data: pd.DataFrame | str | os.PathLike,
    batch_size: int,
    kinds: dict[str, str] | str | None = None,
) -> Iterator[pd.DataFrame]:
    if isinstance(data, pd.DataFrame):
        for i in range(0, len(data), batch_size):
            yield data.iloc[i : i + batch_size]
    else:
        yield from iter_batches(data, batch_size, kinds=kinds)


def spec_kinds(spec: ReleaseSpec) -> dict[str, str]:
    """How to read the perturbed columns of a release's CSV data, from their domains.

    A categorical domain of strings reads its column as strings (``'00501'`` stays
    ``'00501'``), of integers as exact integers, of booleans as booleans; binned and
    additive columns are floats. Unperturbed columns are not listed.
    """
    kinds = {}
    for a in spec.perturbed_attributes():
        d = a.get_domain()
        if spec.method == "additive" or d.kind == "binned":
            kinds[a.name] = "float"
            continue
        vals = list(d.values)  # type: ignore[union-attr]
        if all(isinstance(v, bool) for v in vals):
            kinds[a.name] = "bool"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
            kinds[a.name] = "int"
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
            kinds[a.name] = "float"
        else:
            kinds[a.name] = "str"
    return kinds


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
    **plan_keywords
        Fields of :class:`~ppdm.options.PlanOptions` one by one, as in
        :func:`ppdm.perturbation.plan_release` (with ``options``, they replace its fields).

    Returns
    -------
    ReleaseSpec
    """
    opts = plan_options(options, **plan_keywords)  # bad options fail before any file work
    inputs = () if isinstance(data, pd.DataFrame) else (data,)
    out_dir = check_output(
        out_dir, inputs=inputs, flag="out_dir", directory=True, overwrite=overwrite
    )
    if fmt is None:
        fmt = "csv" if isinstance(data, pd.DataFrame) else table_format(data)
    if fmt not in ("csv", "parquet"):
        raise DataError(f"release data format must be csv or parquet (got {fmt!r})")
    if batch_size is None:
        batch_size = batch_rows(_input_width(data))
    # the hidden directory is made first: an --out that cannot be written fails at once
    with _naming_input(data), publish_dir(out_dir) as tmp:  # a bad value names the file
        kinds: dict[str, str] = {}
        spec = None if isinstance(data, pd.DataFrame) else _plan_from_footer(data, opts, kinds)
        if spec is None:
            if on_pass:
                on_pass("reading")
            batches = _reporting(read_ahead(_batches(data, batch_size, "text")), progress)
            spec = plan_release(batches, opts, kinds=kinds)
        kinds.update(spec_kinds(spec))  # a domain from the owner's spec decides how to read
        if on_pass:
            on_pass("perturbing")
        perturbed = perturb_batches(
            read_ahead(_batches(data, batch_size, kinds)), spec, random_state
        )
        n = _write_data(tmp / f"data.{fmt}", perturbed, spec, progress)
        if n == 0:
            raise DataError("the input table is empty: nothing to perturb")
        spec = spec.model_copy(update={"data_file": f"data.{fmt}", "n_records": n // spec.copies})
        write_spec_and_report(spec, tmp)
        if on_pass:
            on_pass("checking")
        check_written_release(tmp, batch_size, progress=progress)
        return spec


def _write_data(
    path: Path, batches: Iterator[pd.DataFrame], spec: ReleaseSpec, progress: Progress
) -> int:
    """Write a release's data file from its batches; return the rows written. Every value
    is checked as :func:`verify_release` checks it, before it is written; the next
    batches are read and perturbed (on other threads) while one is written."""
    n = 0
    with BatchWriter(path, path.suffix[1:]) as writer:
        for batch in read_ahead(checked_batches(batches, value_domains(spec))):
            writer.write(batch)
            n += len(batch)
            if progress:
                progress(len(batch))
    return n


@contextmanager
def _naming_input(data) -> Iterator[None]:
    """A :class:`DomainError` of a value in the input file (a column's value, row and
    why), or a :class:`DataError` of its columns, names the file too, as the readers'
    own errors do."""
    try:
        yield
    except (DomainError, DataError) as exc:
        if (
            type(exc) not in (DomainError, DataError)
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
    """The plan :func:`plan_release` makes of Parquet files, without reading their data.

    A Parquet footer gives the row count and every column's kind
    (:func:`ppdm.io.parquet_kinds`); that is all the plan needs when every perturbed
    attribute has its domain from the owner (numeric with bounds, or a spec's
    domain). Otherwise (or when the files' columns differ) the data is read.

    Parameters
    ----------
    paths : sequence of path-like
        The input table, one file per partition.
    opts : PlanOptions

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
    """Write every value a perturbed attribute can take to ``path`` and read it back.

    Returns ``False`` (nothing checked) when the values are not a finite set known from
    the spec (additive noise, the ``"random"`` representative). Else every value must
    encode in its domain once written and read as the release's data is
    (:class:`DomainError` if not).
    """
    if spec.method != "substitution":
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
            from .io.csv import read_csv

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
                    f"column {name!r}: its value {_plain_value(frame[name].iloc[bad])} is read "
                    f"back from a {fmt} release as {_plain_value(back[name].iloc[bad])}, which "
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

    :func:`make_release` encodes every perturbed value in its domain as it writes it;
    this checks the file without reading its values back, when a substitution
    release's values are a finite set (the domain's representatives): the file's
    columns and rows are read from its header (CSV: its line ends are counted; Parquet:
    its footer), and every value a perturbed attribute can take is written in the
    release's format to a scratch file and read back as the data is read, where it
    must encode in its domain. Otherwise (additive noise, the ``"random"``
    representative) the release is read back whole by :func:`verify_release`.
    Together they give :func:`verify_release`'s guarantee: the data has the spec's
    columns and ``n_records * copies`` rows, and every perturbed value, as read from
    the file, encodes in its domain.

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
    rel._check_rows(rows)
    if progress:
        progress(rows)
    return rows


def written_shape(path: str | os.PathLike) -> tuple[list[str], int]:
    """The columns and rows of a data file ppdm has written, without reading its
    values: a CSV's header and line ends, a Parquet file's footer."""
    if table_format(path) == "csv":
        from .io.csv import count_csv_records, csv_names

        return csv_names(path), count_csv_records(path)
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(path).metadata
    return [str(n) for n in meta.schema.to_arrow_schema().names], meta.num_rows


def checked_batches(
    batches: Iterable[pd.DataFrame], doms: Mapping[str, Domain], name: str = ""
) -> Iterator[pd.DataFrame]:
    """``batches``, each after :func:`check_domain_values` (rows numbered across them);
    a misfit's message starts with ``name`` (the data being written) when given."""
    rows = 0
    for batch in batches:
        try:
            check_domain_values(doms, batch, rows)
        except DomainError as exc:
            if not name:
                raise
            raise DomainError(f"{name}: {exc}") from None
        rows += len(batch)
        yield batch


def _plain_value(value) -> str:
    """``repr`` of a cell as a plain Python value (never ``np.int64(3)``)."""
    item = getattr(value, "item", None)
    return repr(item() if callable(item) else value)[:60]


def _reporting(batches: Iterator[pd.DataFrame], progress: Progress) -> Iterator[pd.DataFrame]:
    """``batches``, calling ``progress`` with each batch's rows once it is used."""
    for batch in batches:
        yield batch
        if progress:
            progress(len(batch))


def verify_release(
    directory: Release | str | os.PathLike,
    batch_size: int = DEFAULT_BATCH,
    progress: Progress = None,
) -> int:
    """Read a release back whole and check it against its spec; return its row count.

    Every perturbed value must encode in its attribute's domain and the data must hold
    ``n_records * copies`` rows (see :meth:`Release.batches`).

    Raises
    ------
    SpecError, DomainError
        The release is not self-consistent.
    """
    rel = directory if isinstance(directory, Release) else load_release(directory)
    rows = 0
    doms = value_domains(rel.spec)
    with release_values(rel.source):
        for batch in rel.batches(batch_size):
            check_domain_values(doms, batch, rows)
            rows += len(batch)
            if progress:
                progress(len(batch))
    return rows


def value_domains(spec: ReleaseSpec) -> dict[str, Domain]:
    """The domain of every attribute whose released values can be checked: the
    perturbed attributes of a substitution release (additive noise takes any number)."""
    if spec.method != "substitution":
        return {}
    return {a.name: a.get_domain() for a in spec.perturbed_attributes()}


def check_domain_values(
    doms: Mapping[str, Domain], frame: pd.DataFrame, row_offset: int = 0
) -> None:
    """Encode every column of ``doms`` in its domain: a :class:`DomainError` names the
    column and the data row (``row_offset`` + 1-based position) of the first misfit."""
    for name, dom in doms.items():
        dom.encode(frame[name], column=name, row_offset=row_offset)


def write_spec_and_report(spec: ReleaseSpec, directory: Path) -> None:
    """Write ``spec.json`` (with every attribute's privacy figures) and ``privacy.*``."""
    spec = with_privacy(spec)
    write_spec(spec, directory / "spec.json")
    report = privacy_report(spec)
    (directory / "privacy.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (directory / "privacy.txt").write_text(format_privacy_report(report), encoding="utf-8")


def with_privacy(spec: ReleaseSpec) -> ReleaseSpec:
    """``spec`` with every perturbed attribute's privacy figures, from its matrix (or
    noise), its ``n_records`` and ``copies``, as a release states them."""
    attrs = []
    from .privacy import additive_privacy, attribute_privacy

    for a in spec.attributes:
        if a.perturbed and spec.method == "additive":
            a = a.model_copy(
                update={
                    "privacy": additive_privacy(
                        a.get_noise(), a.get_domain().low, a.get_domain().high
                    )
                }
            )
        elif a.perturbed:
            a = a.model_copy(
                update={"privacy": attribute_privacy(a.get_matrix(), spec.n_records, spec.copies)}
            )
        attrs.append(a)
    return spec.model_copy(update={"attributes": attrs})


@dataclass(frozen=True)
class Release:
    """A release: its spec and its data, in a file (:func:`load_release`) or in memory
    (:func:`ppdm.perturb`).

    Attributes
    ----------
    spec : ReleaseSpec
        The public spec, with every perturbed attribute's privacy figures.
    data_path : Path or None
        The data file (or directory of Parquet parts); ``None`` for a release in memory.
    table : DataFrame or None
        The perturbed table of a release in memory; ``None`` for one on disk.

    Examples
    --------
    >>> import ppdm, pandas as pd
    >>> df = pd.DataFrame({"age": [23, 41, 35, 62] * 50, "y": ["a", "b", "a", "b"] * 50})
    >>> rel = ppdm.perturb(df, class_attribute="y", gamma=9, bounds={"age": (20, 70)})
    >>> rel.data.shape, rel.privacy["attributes"][0]["gamma"]
    ((200, 2), 9.0)
    """

    spec: ReleaseSpec
    data_path: Path | None = None
    table: pd.DataFrame | None = field(default=None, compare=False, repr=False)

    @property
    def source(self) -> str:
        """How messages name the release's data: its file, or ``"<in memory>"``."""
        return "<in memory>" if self.data_path is None else str(self.data_path)

    @property
    def data(self) -> pd.DataFrame:
        """The perturbed table (read from its file for a release on disk)."""
        return self.frame()

    @property
    def privacy(self) -> dict:
        """The privacy report, as ``privacy.json`` states it
        (:func:`ppdm.report.privacy_report`)."""
        return privacy_report(self.spec)

    def batches(self, batch_size: int = DEFAULT_BATCH) -> Iterator[pd.DataFrame]:
        """The release data in batches, checked against the spec.

        Raises :class:`SpecError` if the columns differ from the spec's attributes or,
        once the data is read to the end, if it does not hold ``n_records * copies`` rows.
        """
        rows = 0
        if self.table is not None:
            source: Iterator[pd.DataFrame] = _batches(self.table, batch_size)
        else:
            source = iter_batches(self.data_path, batch_size, kinds=spec_kinds(self.spec))
        for batch in source:
            if rows == 0:
                self._check_columns(batch.columns)
            rows += len(batch)
            yield batch
        self._check_rows(rows)

    def frame(self, *, check_values: bool = False) -> pd.DataFrame:
        """The whole release data, checked against the spec's columns and row count.

        With ``check_values``, every perturbed value of a substitution release must also
        be one its attribute's domain can take (:func:`release_values` names the data
        and the first value that is not).
        """
        if self.table is not None:
            frame = self.table.copy()
        else:
            frame = read_table(self.data_path, kinds=spec_kinds(self.spec))
        self._check_columns(frame.columns)
        self._check_rows(len(frame))
        if check_values:
            with release_values(self.source):
                check_domain_values(value_domains(self.spec), frame)
        return frame

    def estimate(self, method: str = "set-scale", *, by_class: bool = False):
        """Every perturbed attribute's estimated original distribution, with standard
        errors (:func:`estimate_release`)."""
        return estimate_release(self, method, by_class=by_class)

    def reconstruct(
        self,
        method: str = "set-scale",
        *,
        by_class: bool = False,
        random_state: RandomState = None,
    ) -> pd.DataFrame:
        """A table rebuilt by Algorithm 2 (:func:`reconstruct_release`)."""
        return reconstruct_release(
            self, method=method, by_class=by_class, random_state=random_state
        )

    @operation()
    def save(
        self, directory: str | os.PathLike, *, fmt: str = "csv", overwrite: bool = False
    ) -> Release:
        """Write the release to ``directory`` (``data.<fmt>``, ``spec.json``,
        ``privacy.json``, ``privacy.txt``), whole or not at all, checked as
        :func:`make_release` checks its own; return it as opened from there.

        ``directory`` may not be, contain or lie inside the directory this release was
        opened from, nor be a non-empty directory unless ``overwrite``.
        """
        inputs = () if self.data_path is None else (self.data_path.parent,)
        out = check_output(
            directory, inputs=inputs, flag="directory", directory=True, overwrite=overwrite
        )
        if fmt not in ("csv", "parquet"):
            raise ParameterError(f"fmt must be 'csv' or 'parquet' (got {fmt!r})")
        with publish_dir(out) as tmp:
            _write_data(tmp / f"data.{fmt}", self.batches(), self.spec, None)
            write_spec_and_report(self.spec.model_copy(update={"data_file": f"data.{fmt}"}), tmp)
            check_written_release(tmp)
        return load_release(out)

    def _check_columns(self, columns) -> None:
        try:
            self.spec.check_columns([str(c) for c in columns])
        except SpecError as exc:
            raise SpecError(f"release data {self.source!r}: {exc}") from None

    def _check_rows(self, rows: int) -> None:
        check_release_rows(self.spec, rows, self.source)

    def class_values(self, batch_size: int = DEFAULT_BATCH) -> list:
        """Class values: the spec's domain if the class is perturbed, else those in the data."""
        return class_values(self.spec, lambda: self.batches(batch_size))


def check_release_spec(spec: ReleaseSpec, where: str = "spec") -> None:
    """Check that a release spec agrees with itself; raise :class:`SpecError` if not.

    A release spec (one with ``data_file``) must state ``n_records``; every perturbed
    attribute must carry the privacy figures its matrix gives (gamma, N, entropy,
    copies), and list categorical values in canonical order (sorted), as ppdm writes
    them. A spec edited after release (a different gamma in the privacy block than in
    the matrix, reordered values, ``copies`` changed) is refused.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 5 (the figures a release states); Kang, Sec. 3 (copies).
    """
    from .perturbation import canonical_values
    from .privacy import additive_privacy, attribute_privacy

    if spec.n_records is None:
        raise SpecError(f"{where}: a release must state n_records")
    for a in spec.perturbed_attributes():
        dom = a.get_domain()
        if dom.kind == "categorical":
            vals = list(dom.values)
            if vals != canonical_values(vals):
                raise SpecError(
                    f"{where}: attribute {a.name!r} lists its values out of order; a release "
                    "lists them sorted (the spec was edited)"
                )
        if a.privacy is None:
            raise SpecError(f"{where}: attribute {a.name!r} has no privacy figures")
        if spec.method == "additive":
            expected = additive_privacy(a.get_noise(), a.get_domain().low, a.get_domain().high)
            keys = ("noise", "scale")
        else:
            expected = attribute_privacy(a.get_matrix(), spec.n_records, spec.copies)
            keys = ("N", "gamma", "epsilon", "entropy_bits", "copies", "gamma_per_copy")
        for key in keys:
            want, got = expected.get(key), a.privacy.get(key)
            same = want == got or (
                isinstance(want, float)
                and isinstance(got, (int, float))
                and abs(want - got) <= 1e-9 * max(1.0, abs(want))
            )
            if not same:
                gives = "infinite amplification (no privacy)" if want is None else repr(want)
                raise SpecError(
                    f"{where}: attribute {a.name!r} states {key} = {got!r} but its matrix and "
                    f"copies give {gives}; the spec was edited after release"
                )


def load_release(path: str | os.PathLike) -> Release:
    """Open a release directory (its ``spec.json`` and data file), checking the spec.

    The data file must be a bare name of a regular file (or a directory of Parquet
    parts) inside the release directory; the spec must agree with itself
    (:func:`check_release_spec`). The record count is checked when the data is read.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataError(
            f"{str(path)!r} is not a release directory (one holding spec.json and a data file)"
        )
    if not path.is_dir():
        if path.exists():
            raise SpecError(f"{str(path)!r} is not a release directory (a release is a directory)")
        raise FileNotFoundError(f"release directory {str(path)!r} does not exist")
    register_input(path)
    spec = read_spec(path)  # its spec.json
    data_path = release_member(path, spec.data_file, spec_name="spec.json")
    check_release_spec(spec, str(path / "spec.json"))
    if data_path.is_dir():  # its parts' footers, before any command reads one
        check_parts_alike(data_path, spec.names)
    return Release(spec, data_path)


@dataclass(frozen=True)
class AttributeEstimate:
    """Estimated distribution of one attribute, overall and (optionally) per class.

    ``binned`` says whether ``labels`` name the bins of a binned domain or the values of
    a categorical one (a category may itself read ``"[a, b)"``).
    """

    name: str
    labels: list[str]
    overall: Estimate
    by_class: dict[str, Estimate] | None = None
    binned: bool = False

    @property
    def value_kind(self) -> str:
        """``"bin"`` or ``"value"``: what one label names."""
        return "bin" if self.binned else "value"


Batches = Callable[[], Iterator[pd.DataFrame]]


def class_values(spec: ReleaseSpec, batches: Batches) -> list:
    """Sorted class values (from the spec if the class was perturbed, else from the data)."""
    name = spec.class_attribute
    if name is None:
        raise SpecError("the release has no class attribute; by-class work needs one")
    a = spec.attribute(name)
    if a.perturbed:
        return list(a.get_domain().values)  # type: ignore[union-attr]
    values: set = set()
    for batch in batches():
        values.update(pd.unique(batch[name].dropna()).tolist())
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def class_codes(batch: pd.DataFrame, spec: ReleaseSpec, classes: list | None, offset: int):
    """Codes of the class values of ``batch`` in ``classes`` (zeros when ``classes`` is None).

    ``offset`` is the batch's first row in the whole table, for the error message.
    """
    if classes is None:
        return np.zeros(len(batch), dtype=np.int64)
    name = spec.class_attribute
    codes = pd.Index(classes).get_indexer(batch[name])
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0])
        raise DataError(
            f"class column {name!r} data row {offset + row + 1} has value "
            f"{_plain_value(batch[name].iloc[row])}, "
            "which is missing or unknown"
        )
    return codes.astype(np.int64)


def check_release_rows(spec: ReleaseSpec, rows: int, data: str | os.PathLike) -> None:
    """Raise :class:`SpecError` unless a release's data holds the rows its spec says
    (``n_records`` times ``copies``): a missing, added or cut part is refused.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (a release is the perturbed data and its public
    parameters); Kang, Sec. 2 (``copies`` perturbed copies per record).

    Examples
    --------
    >>> from ppdm.release import ReleaseSpec
    >>> spec = ReleaseSpec(attributes=[], n_records=3)
    >>> check_release_rows(spec, 2, "rel/data")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.SpecError: release data 'rel/data' holds 2 rows but its spec says n_records 3; the release is not consistent
    """
    if spec.n_records is None:
        return
    expected = spec.n_records * spec.copies
    if rows != expected:
        copies = f" x {spec.copies} copies = {expected}" if spec.copies > 1 else ""
        raise SpecError(
            f"release data {str(data)!r} holds {rows} rows but its spec says "
            f"n_records {spec.n_records}{copies}; the release is not consistent"
        )


def spare_core() -> bool:
    """Whether a second thread of this process would get a core of its own.

    Not in a process held to one core (``taskset``, a container's CPU set), and not in
    a task of a Dask worker: a cluster's parallelism is its workers' threads, one per
    core, and a thread more per task only makes the tasks of both cores take turns
    (the reason Dask's nannies hold BLAS to one thread too). At 100 M rows, 2 workers
    on 2 cores, reading ahead inside the tasks cost perturbation 1.5x its wall time
    (BENCHMARKS.md, "Dask scale-out").
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - platforms without CPU affinity
        cores = os.cpu_count() or 1
    if cores < 2:
        return False
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        try:
            distributed.get_worker()
        except ValueError:  # not in a worker's task
            return True
        return False
    return True


def read_ahead(items: Iterator[T], depth: int = 2) -> Iterator[T]:
    """Yield ``items`` in order, produced by a background thread up to ``depth`` ahead.

    Reading a batch (Parquet or CSV decoding in Arrow) and writing one release the GIL,
    so a pass over a file overlaps its reading, its computing and its writing on two
    cores. An exception of the producer is raised here, at the item it replaced; when
    the consumer stops early, the producer is stopped and closed. Without a
    :func:`spare_core` the items are yielded as they come, on this thread.
    """
    if not spare_core():
        yield from items
        return
    import queue
    import threading

    q: queue.Queue = queue.Queue(maxsize=max(int(depth), 1))
    stop = threading.Event()
    end = object()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((item, None)):
                    break
            else:
                put((end, None))
        except BaseException as exc:  # handed to the consumer, raised there
            put((end, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=produce, name="ppdm-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            item, exc = q.get()
            if item is end:
                if exc is not None:
                    raise exc
                return
            yield item
    finally:
        stop.set()
        worker.join()


def check_by_class(spec: ReleaseSpec) -> None:
    """Raise :class:`SpecError` unless ``spec`` has a class attribute it left unperturbed:
    by-class estimation and reconstruction count each class's records apart.

    References
    ----------
    Agrawal & Srikant (2000), Sec. 4 (by-class reconstruction).
    """
    if spec.class_attribute is None:
        raise SpecError("the release has no class attribute; by-class work needs one")
    if spec.class_perturbed:
        raise SpecError(
            "by-class estimation needs an unperturbed class; this release perturbed "
            f"{spec.class_attribute!r}: estimate or reconstruct it as a whole (without "
            "--by-class, by_class=False)"
        )


def _count_pass(
    spec: ReleaseSpec,
    batches: Batches,
    by_class: bool,
    keys: Mapping[str, WordStream] | None = None,
) -> tuple[dict[str, np.ndarray], list | None]:
    """Perturbed code counts of every attribute (per class value), in one pass.

    Class values are collected while counting, in the order they appear, and sorted at
    the end as :func:`class_values` sorts them: no pass over the data only to find them.
    With ``keys`` (one stream of rank keys per attribute, read one word per record), the
    tables count records per (class, code, key bucket): arrays (C, N, 2**bits) with
    ``bits = rank_bits(N, C)`` (see :class:`ppdm.reconstruct.RankTable`; as classes
    appear, the buckets counted so far are merged into coarser ones).
    """
    attrs = spec.perturbed_attributes()
    doms = {a.name: a.get_domain() for a in attrs}
    bits = {a.name: rank_bits(doms[a.name].n_values) if keys else 0 for a in attrs}
    name = None
    if by_class:
        check_by_class(spec)
        name = spec.class_attribute
    found: dict = {}  # class value -> its row in the tables, in order of appearance
    tables = {a.name: np.zeros((1, doms[a.name].n_values << bits[a.name])) for a in attrs}
    offset = 0
    for batch in batches():
        if name is None:
            ccodes = np.zeros(len(batch), dtype=np.int64)
        else:
            local, uniques = pd.factorize(batch[name], use_na_sentinel=True)
            if (local < 0).any():
                row = int(np.flatnonzero(local < 0)[0])
                raise DataError(
                    f"class column {name!r} data row {offset + row + 1} has value "
                    f"{_plain_value(batch[name].iloc[row])}, which is missing or unknown"
                )
            rows = np.array([found.setdefault(v, len(found)) for v in uniques.tolist()])
            ccodes = rows[local] if len(rows) else np.zeros(0, dtype=np.int64)
            if len(found) * max(d.n_values for d in doms.values()) < 2**31:
                ccodes = ccodes.astype(np.int32)  # 32-bit cells: half the memory traffic
        n_c = max(len(found), 1)
        for a in attrs:
            d = doms[a.name]
            if keys and rank_bits(d.n_values, n_c) < bits[a.name]:  # more classes: coarser
                fewer = rank_bits(d.n_values, n_c)
                tables[a.name] = coarsen_buckets(tables[a.name], bits[a.name], fewer)
                bits[a.name] = fewer
            width = tables[a.name].shape[1]
            if len(tables[a.name]) < n_c:
                grown = np.zeros((n_c, width))
                grown[: len(tables[a.name])] = tables[a.name]
                tables[a.name] = grown
            codes = d.encode(batch[a.name], column=a.name, row_offset=offset)
            cells = codes if name is None else ccodes * d.n_values + codes
            if keys:
                words = keys[a.name].uint32(len(cells))
                cells = rank_cells(cells, words, bits[a.name], n_c * d.n_values)
            tables[a.name] += count_codes(cells, n_c * width).reshape(n_c, width)
        offset += len(batch)
    if offset == 0:
        raise DataError("the release data is empty")
    if keys:
        tables = {k: t.reshape(len(t), doms[k].n_values, 1 << bits[k]) for k, t in tables.items()}
    if name is None:
        return tables, None
    try:
        classes = sorted(found)
    except TypeError:
        classes = sorted(found, key=str)
    order = [found[c] for c in classes]
    return {k: t[order] for k, t in tables.items()}, classes


def _pooled(est: Estimate, copies: int) -> Estimate:
    if copies == 1:
        return est
    return Estimate(
        perturbed=est.perturbed,
        counts=est.counts / copies,
        stderr=est.stderr / copies,
        method=est.method,
        stderr_kind=est.stderr_kind,
    )


def _opened(release: Release | str | os.PathLike, batch_size: int | None) -> tuple[Release, int]:
    """``release`` loaded (unless it is a :class:`Release`) and its rows per batch
    (``batch_size``, or :func:`batch_rows` of its columns)."""
    rel = release if isinstance(release, Release) else load_release(release)
    return rel, batch_size or batch_rows(len(rel.spec.attributes))


def estimate_release(
    release: Release | str | os.PathLike,
    method: str = "set-scale",
    *,
    by_class: bool = False,
    batch_size: int | None = None,
) -> list[AttributeEstimate]:
    """Estimate the original distribution of every perturbed attribute of a release.

    Parameters
    ----------
    release : Release or path
    method : {"inverse", "zero", "set-scale", "norm-sub", "ibu"}
        For substitution releases. An additive release is always estimated with
        Agrawal & Srikant's reconstruction (method ``"as2000"``) over its domain's bins.
    by_class : bool, default=False
        Also estimate per class (the class must be unperturbed).
    batch_size : int, optional
        Rows per batch; default :func:`batch_rows` of the release's columns.

    Returns
    -------
    list of AttributeEstimate
    """
    rel, batch_size = _opened(release, batch_size)
    with release_values(rel.source):
        if rel.spec.method == "additive":
            return _estimate_additive(rel, by_class, batch_size)
        counts, classes = _count_pass(
            rel.spec, lambda: read_ahead(rel.batches(batch_size)), by_class
        )
    return estimates_from_counts(rel.spec, counts, classes, method)


@contextmanager
def release_values(data: str | os.PathLike) -> Iterator[None]:
    """Reading a release: a value its spec's domain cannot take is the release's fault.

    A :class:`DomainError` raised inside (a value outside the bounds, a category the
    domain lacks, a missing value) is raised again naming the release data, without the
    advice meant for the data owner (widen the bounds, ``--out-of-bounds clip``): the
    data no longer matches the spec it was published with.

    References
    ----------
    Dowd, Xu & Zhang, Sec. 3 (every released value is one of the domain's values).
    """
    try:
        yield
    except DomainError as exc:
        head = str(exc).split("; ", 1)[0]
        if not head.startswith(("partition file ", "release ")):
            head = f"release data {str(data)!r}: {head}"
        raise DomainError(
            f"{head}; the release does not match its spec (its data was changed after it "
            "was published, or belongs to another spec)"
        ) from None


def estimates_from_counts(
    spec: ReleaseSpec,
    counts: dict[str, np.ndarray],
    classes: list | None,
    method: str = "set-scale",
) -> list[AttributeEstimate]:
    """Estimates of every perturbed attribute from its perturbed counts (the count pass).

    Parameters
    ----------
    spec : ReleaseSpec
    counts : dict of attribute -> array (C, N)
        Perturbed counts, one row per class (a single row when not by class).
    classes : list, optional
        Class values of the rows; ``None`` for overall counts only.
    method : str, default="set-scale"
        See :func:`ppdm.estimate.estimate_counts`.

    Returns
    -------
    list of AttributeEstimate

    References
    ----------
    Dowd, Xu & Zhang, Eq. (1) and Sec. 4.3.
    """
    out = []
    for a in spec.perturbed_attributes():
        m = a.get_matrix()
        # m copies: pooled counts estimate m X; divide by m (stderr shrinks like 1/sqrt(m))
        table = np.asarray(counts[a.name], dtype=np.float64)
        overall = _pooled(estimate_counts(table.sum(axis=0), m, method), spec.copies)
        per = None
        if classes is not None:
            per = {
                str(c): _pooled(estimate_counts(table[i], m, method), spec.copies)
                for i, c in enumerate(classes)
            }
        dom = a.get_domain()
        out.append(
            AttributeEstimate(a.name, dom.labels(), overall, per, isinstance(dom, BinnedDomain))
        )
    return out


def as2000_estimate(values: np.ndarray, noise, domain) -> Estimate:
    """Agrawal & Srikant's reconstruction of one additive attribute over its domain's bins.

    ``perturbed`` holds the released values counted in the bins (clipped at the ends);
    ``stderr`` is the bootstrap standard error of the estimate as computed (B = 200
    resamples of the released values, each reconstructed under the same stopping rule:
    :func:`ppdm.additive.reconstruction_stderr`).

    References
    ----------
    Agrawal & Srikant (2000), Sec. 3 (:func:`ppdm.additive.reconstruct_distribution`);
    Efron & Tibshirani (1993), Ch. 6.
    """
    from .additive import reconstruct_distribution, reconstruction_stderr
    from .estimate import BOOTSTRAP_REPLICATES

    w = np.asarray(values, dtype=np.float64)
    lo, hi, bins = float(domain.low), float(domain.high), int(domain.n_bins)
    est = reconstruct_distribution(w, noise.kind, noise.scale, bins=bins, bounds=(lo, hi))
    stderr = reconstruction_stderr(
        w, noise.kind, noise.scale, bins=bins, bounds=(lo, hi), replicates=BOOTSTRAP_REPLICATES
    )
    perturbed = np.bincount(domain.encode(np.clip(w, lo, hi)), minlength=bins).astype(float)
    return Estimate(
        perturbed=perturbed,
        counts=float(w.size) * est.probabilities,
        stderr=stderr,
        method="as2000",
        stderr_kind=f"bootstrap (B={BOOTSTRAP_REPLICATES})",
    )


def _estimate_additive(rel: Release, by_class: bool, batch_size: int) -> list[AttributeEstimate]:
    spec = rel.spec
    attrs = spec.perturbed_attributes()
    frame = pd.concat(list(rel.batches(batch_size)), ignore_index=True)
    if frame.empty:
        raise DataError("the release data is empty")
    classes = None
    if by_class:
        classes = class_values(spec, lambda: iter([frame]))
        ccodes = class_codes(frame, spec, classes, 0)
    out = []
    for a in attrs:
        dom, nz = a.get_domain(), a.get_noise()
        w = frame[a.name].to_numpy(dtype=np.float64)
        overall = as2000_estimate(w, nz, dom)
        per = None
        if classes is not None:
            per = {
                str(c): as2000_estimate(w[ccodes == i], nz, dom)
                for i, c in enumerate(classes)
                if np.any(ccodes == i)
            }
        out.append(AttributeEstimate(a.name, dom.labels(), overall, per, binned=True))
    return out


def reconstruction_multisets(
    spec: ReleaseSpec, counts: dict[str, np.ndarray], method: str = "set-scale"
) -> dict[str, np.ndarray]:
    """Every tie group's multiset of reconstructed codes, from the global count pass.

    Each class row of the perturbed counts is estimated with ``method``, rounded by
    largest remainder to integers summing to the row's records, and cut into the tie
    groups' multisets (:func:`ppdm.reconstruct.tie_group_multisets`).

    Parameters
    ----------
    spec : ReleaseSpec
    counts : dict of attribute -> array (C, N)
        Perturbed counts, one row per class.
    method : str, default="set-scale"

    Returns
    -------
    dict of attribute -> int array (C * N, N)
        Row ``c * N + v`` is the multiset of tie group ``v`` of class ``c``.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2.
    """
    out = {}
    for a in spec.perturbed_attributes():
        m = a.get_matrix()
        check_tie_group_table(len(counts[a.name]), m.n_values, f"attribute {a.name!r}")
        multisets = []
        for row in np.asarray(counts[a.name]):
            est = estimate_counts(row, m, method, replicates=0)  # counts only
            dist = largest_remainder(est.counts, int(round(float(row.sum()))))
            multisets.append(tie_group_multisets(np.asarray(row).astype(np.int64), dist))
        out[a.name] = np.concatenate(multisets)
    return out


def reconstruct_batches(
    spec: ReleaseSpec,
    batches: Batches,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
) -> Iterator[pd.DataFrame]:
    """Algorithm 2 on every perturbed attribute, in two passes over ``batches()``.

    Pass 1 counts the perturbed codes (per class for ``by_class``), estimates the
    original counts with ``method`` and rounds them by largest remainder. Pass 2 hands
    every record a code from its tie group's multiset and decodes it. Same seed and
    same batches give the same output.

    Parameters
    ----------
    spec : ReleaseSpec
    batches : callable returning an iterator of DataFrame
        Called twice (one pass each).
    method : str, default="set-scale"
    by_class : bool, default=False
    random_state : None, int or Generator
        Root of the tie-breaking keys and random representatives (AES streams
        addressed by row: the output does not depend on the batches).

    Yields
    ------
    DataFrame
        Reconstructed batches.

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2; Agrawal & Srikant (2000), global and by-class.
    """
    if spec.method != "substitution":
        raise SpecError(
            "Algorithm 2 reconstructs substitution releases; an additive release is already "
            "numeric (estimate its distribution with ppdm estimate)"
        )
    root = resolve_seed(random_state)
    attrs = spec.perturbed_attributes()
    hists, classes = _count_pass(spec, batches, by_class, rank_keys(root, attrs))
    tables = rank_tables(spec, hists, method, root)
    yield from assign_batches(spec, batches(), tables, classes, root)


def assign_batches(
    spec: ReleaseSpec,
    batches: Iterable[pd.DataFrame],
    tables: Mapping[str, RankTable],
    classes: list | None,
    root: np.random.SeedSequence,
    first_row: int = 0,
) -> Iterator[pd.DataFrame]:
    """Pass 2 of the reconstruction: every record's code from the rank tables, decoded.

    Parameters
    ----------
    spec : ReleaseSpec
    batches : iterable of DataFrame
        The records, in order, from row ``first_row`` of the table on.
    tables : dict of attribute -> RankTable
        From :func:`rank_tables` (started after the records before ``first_row``);
        drawn from copies, so a rerun draws the same.
    classes : list, optional
        Class order of the tables (by-class reconstruction).
    root : SeedSequence
        Root of the run: rank keys and random representatives are words
        ``first_row, first_row + 1, ...`` of the attribute's streams.
    first_row : int, default=0

    Yields
    ------
    DataFrame
        Reconstructed batches (same index and columns).

    References
    ----------
    Dowd, Xu & Zhang, Algorithm 2.
    """
    attrs = spec.perturbed_attributes()
    tables = {name: t.fresh() for name, t in tables.items()}
    keys = rank_keys(root, attrs, first_row)
    values = {
        a.name: WordStream(reconstruction_generator(root, "value", a.name), first_row).generator
        for a in attrs
    }
    doms = {a.name: a.get_domain() for a in attrs}
    offset = 0
    for batch in batches:
        rec = batch.copy(deep=False)  # whole columns are replaced, never written into
        ccodes = class_codes(batch, spec, classes, offset)
        if classes is not None and len(classes) * max(d.n_values for d in doms.values()) < 2**31:
            ccodes = ccodes.astype(np.int32)  # 32-bit tie groups: half the memory traffic
        for a in attrs:
            d = doms[a.name]
            codes = d.encode(batch[a.name], column=a.name, row_offset=offset)
            groups = codes if classes is None else ccodes * d.n_values + codes
            new = tables[a.name].draw(groups, keys[a.name].uint32(len(groups)))
            rec[a.name] = d.decode(new, random_state=values[a.name])
        offset += len(batch)
        yield rec
    for table in tables.values():
        table.finish()


def reconstruction_generator(root: np.random.SeedSequence, *name: str) -> np.random.Generator:
    """The stream ``("reconstruct", *name)`` of a reconstruction under ``root``."""
    return stream_generator(root, "reconstruct", *name)


def rank_keys(root: np.random.SeedSequence, attrs, row: int = 0) -> dict[str, WordStream]:
    """Every attribute's stream of 32-bit rank keys, one per record, from row ``row``."""
    return {a.name: WordStream(reconstruction_generator(root, "rank", a.name), row) for a in attrs}


def rank_tables(
    spec: ReleaseSpec, hists: dict[str, np.ndarray], method: str, root: np.random.SeedSequence
) -> dict[str, RankTable]:
    """Every perturbed attribute's :class:`~ppdm.reconstruct.RankTable` from the count pass.

    Parameters
    ----------
    spec : ReleaseSpec
    hists : dict of attribute -> array (C, N, 2**bits)
        Records per (class, perturbed code, key bucket).
    method : str
        Estimation method of the reconstructed distribution.
    root : SeedSequence
        Root of the run (arranges the straddling buckets).

    Returns
    -------
    dict of attribute -> RankTable
    """
    counts = {k: h.sum(axis=2) for k, h in hists.items()}
    multisets = reconstruction_multisets(spec, counts, method)
    return {
        name: RankTable(
            m,
            hists[name].reshape(len(m), -1),
            reconstruction_generator(root, "ties", name),
        )
        for name, m in multisets.items()
    }


@operation()
def reconstruct_release(
    release: Release | str | os.PathLike,
    out: str | os.PathLike | None = None,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
    batch_size: int | None = None,
    progress: Progress = None,
) -> pd.DataFrame | None:
    """Reconstruct a release on disk (see :func:`reconstruct_batches`).

    Parameters
    ----------
    release : Release or path
    out : path, optional
        Output file (.csv, .parquet or .arff), written atomically. If ``None`` the
        reconstructed table is returned instead.
    method, by_class, random_state
        See :func:`reconstruct_batches`.
    batch_size : int, optional
        Rows per batch; default :func:`batch_rows` of the release's columns.
    progress : callable, optional
        Called with the number of rows done after every batch.

    Returns
    -------
    DataFrame or None
    """
    rel, batch_size = _opened(release, batch_size)
    with release_values(rel.source):
        return _reconstruct_release(rel, out, method, by_class, random_state, batch_size, progress)


def _reconstruct_release(
    rel: Release,
    out: str | os.PathLike | None,
    method: str,
    by_class: bool,
    random_state: RandomState,
    batch_size: int,
    progress: Progress,
) -> pd.DataFrame | None:
    """:func:`reconstruct_release` of a loaded release (its errors named by the caller)."""
    stream = reconstruct_batches(
        rel.spec,
        lambda: read_ahead(rel.batches(batch_size)),
        method=method,
        by_class=by_class,
        random_state=random_state,
    )
    if out is None:
        parts = list(stream)
        return pd.concat(parts, ignore_index=True)
    fmt = table_format(out, writing=True)
    with atomic_path(out) as tmp:
        if fmt == "arff":
            frame = pd.concat(list(stream), ignore_index=True)
            klass = rel.spec.class_attribute
            if klass in frame.columns:  # last, where Weka looks for the class
                frame = frame[[c for c in frame.columns if c != klass] + [klass]]
            write_table(
                frame,
                tmp,
                fmt="arff",
                relation="ppdm-reconstructed",
                nominal=_nominal(rel.spec),
                categories=_categories(rel.spec),
            )
        else:
            with BatchWriter(tmp, fmt) as writer:
                for rec in read_ahead(stream):  # reconstruct the next batch while writing
                    writer.write(rec)
                    if progress:
                        progress(len(rec))
    return None


def _nominal(spec: ReleaseSpec) -> list[str]:
    """Columns an ARFF copy of a release declares nominal: the class and categorical ones."""
    out = [a.name for a in spec.perturbed_attributes() if a.get_domain().kind == "categorical"]
    if spec.class_attribute is not None and spec.class_attribute not in out:
        out.append(spec.class_attribute)
    return out


def _categories(spec: ReleaseSpec) -> dict[str, tuple]:
    """The values an ARFF copy of a release declares for its categorical attributes: the
    whole domain of the spec, so that every copy of one release (and of another with the
    same spec) has the same header in Weka, whichever values its records happen to hold."""
    out = {}
    for a in spec.attributes:
        domain = a.get_domain() if a.perturbed else None
        if domain is not None and domain.kind == "categorical":
            out[a.name] = domain.values
    return out


def reconstruct_frame(
    perturbed: pd.DataFrame,
    spec: ReleaseSpec,
    *,
    method: str = "set-scale",
    by_class: bool = False,
    random_state: RandomState = None,
    batch_size: int | None = None,
) -> pd.DataFrame:
    """In-memory :func:`reconstruct_batches` of a perturbed DataFrame and its spec."""
    spec.check_columns([str(c) for c in perturbed.columns])
    size = batch_size or max(len(perturbed), 1)
    parts = list(
        reconstruct_batches(
            spec,
            lambda: _batches(perturbed, size),
            method=method,
            by_class=by_class,
            random_state=random_state,
        )
    )
    return pd.concat(parts, ignore_index=True)
