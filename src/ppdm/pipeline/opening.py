"""Opening a release: its spec checked against itself, its data against its spec."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..domain import Domain
from ..exceptions import DataError, DomainError, SpecError
from ..io import check_parts_alike, iter_batches, read_table
from ..mechanism import mechanism_of
from ..publish import register_input, release_member
from ..release import ReleaseSpec, read_spec
from ..validation import show
from .batches import DEFAULT_BATCH, Progress, batch_rows, reporting, spec_kinds, table_batches


def checked_batches(
    batches: Iterable[pd.DataFrame], doms: Mapping[str, Domain], name: str = ""
) -> Iterator[pd.DataFrame]:
    """``batches``, each after :func:`check_domain_values`, a misfit's message led by ``name``."""
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
    rel = load_release(directory)
    with release_values(rel.source):
        checked = checked_batches(rel.batches(batch_size), value_domains(rel.spec))
        return sum(len(b) for b in reporting(checked, progress))


def value_domains(spec: ReleaseSpec) -> dict[str, Domain]:
    """The domains of the perturbed attributes of a substitution release (additive: none)."""
    if not mechanism_of(spec).has("codes"):
        return {}
    return {a.name: a.get_domain() for a in spec.perturbed_attributes()}


def check_domain_values(
    doms: Mapping[str, Domain], frame: pd.DataFrame, row_offset: int = 0
) -> None:
    """Encode every column of ``doms`` in its domain, rows numbered from ``row_offset`` + 1."""
    for name, dom in doms.items():
        dom.encode(frame[name], column=name, row_offset=row_offset)


@dataclass(frozen=True)
class Release:
    """A release: its spec (with every perturbed attribute's privacy figures) and its data,
    in a file or directory of parts (``data_path``) or in memory (``table``).
    """

    spec: ReleaseSpec
    data_path: Path | None = None
    table: pd.DataFrame | None = field(default=None, compare=False, repr=False)

    @property
    def source(self) -> str:
        """How messages name the release's data: its file, or ``"<in memory>"``."""
        return "<in memory>" if self.data_path is None else str(self.data_path)

    def holds(self, path: str | os.PathLike) -> bool:
        """Whether ``path`` is the release's data file, its directory of parts or one part:
        perturbed records, never an original table."""
        if self.data_path is None:
            return False
        data, there = self.data_path.resolve(), Path(path).resolve()
        return there == data or data in there.parents

    def batches(self, batch_size: int = DEFAULT_BATCH) -> Iterator[pd.DataFrame]:
        """The release data in batches; :class:`SpecError` if the columns differ from the spec's
        or, at the end, the rows are not ``n_records * copies``.
        """
        rows = 0
        if self.table is not None:
            source: Iterator[pd.DataFrame] = table_batches(self.table, batch_size)
        else:
            source = iter_batches(self.data_path, batch_size, kinds=spec_kinds(self.spec))
        for batch in source:
            if rows == 0:
                self._check_columns(batch.columns)
            rows += len(batch)
            yield batch
        check_release_rows(self.spec, rows, self.source)

    def frame(self, *, check_values: bool = False) -> pd.DataFrame:
        """The whole release data, checked as :meth:`batches` checks it (and every perturbed value
        against its domain, with ``check_values``).
        """
        if self.table is not None:
            frame = self.table.copy()
        else:
            frame = read_table(self.data_path, kinds=spec_kinds(self.spec))
        self._check_columns(frame.columns)
        check_release_rows(self.spec, len(frame), self.source)
        if check_values:
            with release_values(self.source):
                check_domain_values(value_domains(self.spec), frame)
        return frame

    def _check_columns(self, columns) -> None:
        try:
            self.spec.check_columns([str(c) for c in columns])
        except SpecError as exc:
            raise SpecError(f"release data {self.source!r}: {exc}") from None

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
    from ..perturbation import canonical_values

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
        expected = mechanism_of(spec).privacy(a, spec.n_records, spec.copies)
        for key in mechanism_of(spec).checked_keys:
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


def load_release(path: str | os.PathLike | Release) -> Release:
    """Open a release directory (its ``spec.json`` and data file), checking the spec; a
    :class:`Release` already open is returned as it is.

    The data file must be a bare name of a regular file (or a directory of Parquet
    parts) inside the release directory; the spec must agree with itself
    (:func:`check_release_spec`). The record count is checked when the data is read.
    """
    if isinstance(path, Release):
        return path
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise DataError(
            f"{str(path)!r} is not a release directory (one holding spec.json and a data file)"
        )
    if not path.is_dir():
        raise FileNotFoundError(f"release directory {str(path)!r} does not exist")
    register_input(path)
    spec = read_spec(path)  # its spec.json
    data_path = release_member(path, spec.data_file, spec_name="spec.json")
    check_release_spec(spec, str(path / "spec.json"))
    if data_path.is_dir():  # its parts' footers, before any command reads one
        check_parts_alike(data_path, spec.names)
    return Release(spec, data_path)


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
    return sorted_classes(values)


def sorted_classes(classes: Iterable) -> list:
    """Class values in order: sorted, or sorted as text when they do not compare."""
    try:
        return sorted(classes)
    except TypeError:
        return sorted(classes, key=str)


def class_codes(batch: pd.DataFrame, spec: ReleaseSpec, classes: list | None, offset: int):
    """Codes of the class values of ``batch`` in ``classes`` (zeros when ``classes`` is None)."""
    if classes is None:
        return np.zeros(len(batch), dtype=np.int64)
    name = spec.class_attribute
    codes = pd.Index(classes).get_indexer(batch[name])
    if (codes < 0).any():
        row = int(np.flatnonzero(codes < 0)[0])
        raise DataError(
            f"class column {name!r} data row {offset + row + 1} has value "
            f"{show(batch[name].iloc[row], 60)}, "
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


def opened(release: Release | str | os.PathLike, batch_size: int | None) -> tuple[Release, int]:
    """``release`` loaded and its rows per batch (``batch_size``, or :func:`batch_rows`)."""
    rel = load_release(release)
    return rel, batch_size or batch_rows(len(rel.spec.attributes))


@contextmanager
def release_values(data: str | os.PathLike) -> Iterator[None]:
    """Reading a release: a :class:`DomainError` raised inside is the release's fault, raised
    again naming its data, without the advice meant for the data owner.

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
