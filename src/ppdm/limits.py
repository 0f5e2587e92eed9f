"""Caps on the size of the work a single input can ask for.

Every cap is a named constant with the measurement that sets it, so a request far above
what the machine can do fails at once with one line naming the column or flag, the
value and the cap, instead of allocating for minutes and dying with a ``MemoryError``.

The caps are checked where sizes come from the outside: domains and matrices built
from options or specs (:func:`check_n_values`), record counts asked of samplers
(:func:`check_n_records`) and spec files read from disk (:func:`load_structured`:
size, YAML aliases, nesting depth, absurd numbers).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import stat
from pathlib import Path
from typing import Any

from .exceptions import ParameterError
from .validation import check_at_least
from .validation import show as _show

__all__ = [
    "MAX_VALUES",
    "MAX_DENSE_VALUES",
    "MAX_RECORDS",
    "MAX_COPIES",
    "MAX_TIE_GROUP_CELLS",
    "MAX_SPEC_BYTES",
    "MAX_NESTING",
    "check_n_values",
    "check_n_records",
    "check_copies",
    "format_bytes",
    "load_structured",
    "check_numbers",
]

MAX_VALUES: int = 65_536
"""Largest N (codes of one attribute) for a matrix with structure ``a I + b J``.

Gamma-diagonal matrices (and symmetric channels) are sampled, inverted, iterated (IBU)
and given standard errors in closed form, O(N) per step, with no N x N array.
Measured: a 10,000-value column estimates in about a second (it took minutes with
the dense covariance), and N = 65,536 estimates in well under a second with 40 MB
peak. What stays O(N^2) is matrix-based reconstruction, capped separately
(:data:`MAX_TIE_GROUP_CELLS`). 65,536 (2^16) is far beyond any useful resolution:
each code needs many records for a meaningful estimate (Kang's bound grows like
N^1.5 / sqrt(n)).
"""

MAX_DENSE_VALUES: int = 2_048
"""Largest N for an explicit (dense) perturbation matrix, and wherever N x N work is dense.

An explicit matrix is validated (condition number), inverted and used for the
covariance ``M^-1 Cov(y) M^-T`` as dense N x N arrays: O(N^3) work, O(N^2) memory.
Measured on a shared 2-core machine under heavy load: N = 2,048 took 100 s to build
and validate and 12 s per estimate (0.24 GB peak); N = 4,096 took 217 s and 43 s
(0.85 GB); at N = 10,000 a single estimate took minutes. An idle core is several
times faster, but the growth (8x work per doubling) is what the cap guards against.
A hand-written spec cannot hold a much larger explicit matrix anyway
(:data:`MAX_SPEC_BYTES`). Also used for additive releases (dense transition
matrices over the bins) and for the states of a Bayesian-network node.
"""

MAX_RECORDS: int = 1_000_000_000
"""Largest number of records a sampler may be asked for in one call (10^9).

Sampling holds one uniform (8 bytes) and one code per record and node at a time, so
10^9 records of even a single node need about 9 GB; beyond that a request is a typo
(``--n 1e13``) rather than a plan.
"""

MAX_COPIES: int = 1_000
"""Largest number of independently perturbed copies of every record in one release.

A release with m copies holds m times the records and amplifies gamma to gamma^m
(Kang, Sec. 3): at gamma = 9 already 10 copies give gamma^m ~ 3.5e9, no privacy left,
and gamma^m overflows a float beyond about 320 copies. 1,000 leaves room for
experiments on repeated perturbation; more is a typo.
"""

MAX_TIE_GROUP_CELLS: int = 1 << 27
"""Largest tie-group table of matrix-based reconstruction, ``C x N x N`` cells.

Algorithm 2 by counting keeps, for every (class, perturbed code) tie group, how many
of its records get each reconstructed code: C N^2 8-byte counts, held twice at the
peak. 2^27 cells is 1 GiB per copy: N up to 11,585 globally, 8,192 with two classes.
Measured at N = 10,000 (one class, 200,000 records): 18 s and 1.7 GB peak RSS.
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


def check_n_values(
    n, what: str = "N", *, dense: bool = False, error: type[Exception] = ParameterError
) -> int:
    """Check a number of codes against :data:`MAX_VALUES` (or :data:`MAX_DENSE_VALUES`).

    Parameters
    ----------
    what : str
        How the message names it, e.g. ``"--bins"`` or ``"column 'age': n_bins"``.
    dense : bool, default=False
        Use the cap of dense (explicit) matrices.

    Examples
    --------
    >>> check_n_values(20, "--bins")
    20
    >>> check_n_values(10**7, "--bins")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.ParameterError: --bins is 10000000, above the cap of 65536 values per attribute (ppdm.limits.MAX_VALUES)
    """
    value = _as_count(n, what, error)
    cap, name = (MAX_DENSE_VALUES, "MAX_DENSE_VALUES") if dense else (MAX_VALUES, "MAX_VALUES")
    if value > cap:
        kind = " with dense N x N matrices" if dense else ""
        raise error(
            f"{what} is {value}, above the cap of {cap} values per attribute{kind} "
            f"(ppdm.limits.{name})"
        )
    return value


def _check_positive(
    n, what: str, error: type[Exception], cap: int, unit: str, cap_name: str
) -> int:
    """A whole number in ``1..cap``; the message names the cap ``ppdm.limits.<cap_name>``."""
    value = check_at_least(_as_count(n, what, error), what, 1, error=error)
    if value > cap:
        raise error(f"{what} is {value}, above the cap of {cap} {unit} (ppdm.limits.{cap_name})")
    return value


def check_copies(n, what: str = "copies", *, error: type[Exception] = ParameterError) -> int:
    """Check a number of perturbed copies: a whole number in ``1..MAX_COPIES``.

    Examples
    --------
    >>> check_copies(10**30, "--copies")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.ParameterError: --copies is 1000000000000000000000000000000, above the cap of 1000 copies (ppdm.limits.MAX_COPIES)
    """
    return _check_positive(n, what, error, MAX_COPIES, "copies", "MAX_COPIES")


def check_n_records(n, what: str = "n", *, error: type[Exception] = ParameterError) -> int:
    """Check a requested number of records: a whole number in ``1..MAX_RECORDS``.

    Examples
    --------
    >>> check_n_records(1000, "--n")
    1000
    >>> check_n_records(1e13, "--n")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.ParameterError: --n is 10000000000000, above the cap of 1000000000 records (ppdm.limits.MAX_RECORDS)
    """
    return _check_positive(n, what, error, MAX_RECORDS, "records", "MAX_RECORDS")


def _yaml_loader():
    """A safe YAML loader that refuses aliases and nesting deeper than :data:`MAX_NESTING`.

    An alias re-uses an anchored node, so a few lines of aliases of aliases expand to
    billions of nodes (the "billion laughs" bomb); a spec never needs them.
    """
    import yaml

    class _Loader(yaml.SafeLoader):
        _depth = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.YAMLError(
                    f"aliases (*name) are not allowed (line {mark.line + 1}, column "
                    f"{mark.column + 1})"
                )
            self._depth += 1
            try:
                if self._depth > MAX_NESTING:
                    mark = self.peek_event().start_mark
                    raise yaml.YAMLError(
                        f"nested deeper than {MAX_NESTING} levels (line {mark.line + 1})"
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

    return _Loader


def _depth_of(data: Any, limit: int) -> int:
    """Nesting depth of lists and mappings, without recursion (stops past ``limit``)."""
    deepest = 0
    stack = [(data, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        stack.extend((c, depth + 1) for c in children)
    return deepest


def check_numbers(data: Any, where: str, error: type[Exception] = ParameterError) -> None:
    """Refuse non-finite floats and integers beyond 64 bits anywhere in parsed ``data``.

    Such numbers (``1e400``, ``.inf``, ``1`` followed by 400 zeros) make no sense in any
    spec field and would otherwise surface as ``OverflowError`` or ``TypeError`` deep
    inside validation; the message names the field's path, e.g.
    ``attributes.0.matrix.gamma``.

    Examples
    --------
    >>> check_numbers({"a": [1, {"g": float("inf")}]}, "spec 'x.json'")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.ParameterError: spec 'x.json' field a.1.g: inf is not a finite number
    """
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, (*path, k)) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(item))
        elif isinstance(item, bool):
            continue
        elif isinstance(item, float) and not math.isfinite(item):
            field = ".".join(map(str, path)) or "(top level)"
            raise error(f"{where} field {field}: {item!r} is not a finite number")
        elif isinstance(item, int) and not -(2**63) <= item < 2**63:
            field = ".".join(map(str, path)) or "(top level)"
            raise error(f"{where} field {field}: {_show(item)} is too large (beyond 64 bits)")


class _RepeatedKey(Exception):
    pass


def _unique_keys(pairs: list) -> dict:
    out = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def load_structured(
    path: str | os.PathLike,
    what: str = "spec",
    *,
    error: type[Exception] = ParameterError,
    fmt: str | None = None,
) -> Any:
    """Parse a JSON or YAML file (by extension, or ``fmt``) within the caps.

    Refuses, with one line naming ``what`` and the file: files above
    :data:`MAX_SPEC_BYTES`, text that is not UTF-8, YAML aliases, nesting deeper than
    :data:`MAX_NESTING` (instead of a ``RecursionError``), non-finite numbers and
    integers beyond 64 bits (:func:`check_numbers`), and malformed JSON or YAML.

    Parameters
    ----------
    what : str, default="spec"
        How messages name the file, e.g. ``"spec"`` or ``"network"``.
    fmt : {"json", "yaml"}, optional
        The format, when not given by the extension (``.yaml``/``.yml`` is YAML, anything
        else JSON).

    Returns
    -------
    The parsed object (any JSON type, or ``None`` for an empty YAML file).
    """
    path = Path(path)
    from .publish import register_input

    register_input(path)
    label = f"{what} {str(path)!r}"
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):  # a device or a pipe: no size, and no end
        raise error(f"{label} is not a regular file")
    with open(path, "rb") as f:  # never more than the cap, whatever the size said
        raw = f.read(MAX_SPEC_BYTES + 1)
    if len(raw) > MAX_SPEC_BYTES:
        size = max(info.st_size, len(raw))
        raise error(
            f"{label} is {format_bytes(size)}, above the cap of {format_bytes(MAX_SPEC_BYTES)} "
            "for a spec file (ppdm.limits.MAX_SPEC_BYTES)"
        )
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{label} is not UTF-8 text (byte {exc.start + 1})") from None
    is_yaml = (fmt or path.suffix.lower().lstrip(".")) in ("yaml", "yml")
    try:
        if is_yaml:
            import yaml

            try:
                data = yaml.load(text, Loader=_yaml_loader())  # noqa: S506 - a SafeLoader
            except yaml.YAMLError as exc:
                detail = " ".join(str(exc).split())
                raise error(f"{label} is not valid YAML: {_clip(detail)}") from None
        else:
            try:
                data = json.loads(text, object_pairs_hook=_unique_keys)
            except json.JSONDecodeError as exc:
                raise error(f"{label} is not valid JSON: {exc}") from None
            except _RepeatedKey as exc:  # the last would win, silently
                raise error(f"{label} gives the key {exc.args[0]!r} twice in one object") from None
    except RecursionError:
        raise error(f"{label} is nested too deeply (more than {MAX_NESTING} levels)") from None
    except error:
        raise
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise error(f"{label} holds a number that cannot be read: {_clip(str(exc), 80)}") from None
    if _depth_of(data, MAX_NESTING) > MAX_NESTING:
        raise error(f"{label} is nested too deeply (more than {MAX_NESTING} levels)")
    check_numbers(data, label, error)
    return data


def _clip(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
