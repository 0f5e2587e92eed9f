"""Caps on the size of the work a single input can ask for, checked where sizes come from
outside, so a request far beyond the machine fails at once with one line naming the flag
or column, the value and the cap. The measurements behind them: docs/cli.md, "Caps".
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
"""Largest N of a matrix ``a I + b J`` (closed forms, O(N)): N = 65,536 estimates in < 1 s."""

MAX_DENSE_VALUES: int = 2_048
"""Largest N wherever N x N work is dense (explicit matrices, additive bins, network states);
N = 2,048 took 100 s to build and 12 s per estimate, the work growing 8x per doubling."""

MAX_RECORDS: int = 1_000_000_000
"""Largest number of records a sampler may be asked for in one call (10^9: about 9 GB)."""

MAX_COPIES: int = 1_000
"""Largest number of perturbed copies of every record; gamma compounds to gamma^m (Kang, Sec. 3)."""

MAX_TIE_GROUP_CELLS: int = 1 << 27
"""Largest tie-group table of Algorithm 2 by counting, ``C x N x N`` 8-byte counts (1 GiB)."""

MAX_SPEC_BYTES: int = 16 * 1024 * 1024
"""Largest spec file (JSON or YAML) read, 16 MiB; a larger one is refused before parsing."""

MAX_NESTING: int = 100
"""Deepest nesting of mappings and lists in a spec file (a release spec has five levels)."""


def format_bytes(n: int) -> str:
    """Human-readable size, e.g. ``'16.0 MiB'`` or ``'512 B'``."""
    size = float(n)
    for unit in ("B", "KiB", "MiB"):
        if size < 1024:
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


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
    """Check a number of codes against :data:`MAX_VALUES` (or, ``dense``, :data:`MAX_DENSE_VALUES`);
    ``what`` names it in the message (``"--bins"``, ``"column 'age': n_bins"``)."""
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
    """Check a number of perturbed copies: a whole number in ``1..MAX_COPIES``."""
    return _check_positive(n, what, error, MAX_COPIES, "copies", "MAX_COPIES")


def check_n_records(n, what: str = "n", *, error: type[Exception] = ParameterError) -> int:
    """Check a requested number of records: a whole number in ``1..MAX_RECORDS``."""
    return _check_positive(n, what, error, MAX_RECORDS, "records", "MAX_RECORDS")


def _yaml_loader():
    """A safe YAML loader refusing aliases (a "billion laughs" bomb) and deep nesting."""
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


def check_numbers(data: Any, where: str, error: type[Exception] = ParameterError) -> None:
    """Refuse nesting deeper than :data:`MAX_NESTING` in parsed ``data``, then non-finite
    floats and integers beyond 64 bits; a number's message names the path of its field, e.g.
    ``attributes.0.matrix.gamma``."""
    bad = None  # the first bad number: reported once the nesting is known to be fine
    stack: list[tuple[Any, tuple]] = [(data, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, (dict, list)):
            if len(path) >= MAX_NESTING:
                raise error(f"{where} is nested too deeply (more than {MAX_NESTING} levels)")
            children = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((v, (*path, k)) for k, v in children)
        elif bad is not None or isinstance(item, bool):
            continue
        elif isinstance(item, float) and not math.isfinite(item):
            bad = path, f"{item!r} is not a finite number"
        elif isinstance(item, int) and not -(2**63) <= item < 2**63:
            bad = path, f"{_show(item)} is too large (beyond 64 bits)"
    if bad is not None:
        raise error(f"{where} field {'.'.join(map(str, bad[0])) or '(top level)'}: {bad[1]}")


def load_structured(
    path: str | os.PathLike,
    what: str = "spec",
    *,
    error: type[Exception] = ParameterError,
    fmt: str | None = None,
) -> Any:
    """Parse a JSON or YAML file (``fmt``, else as its extension says: ``.yaml``/``.yml``, or
    JSON) within the caps: one line naming ``what`` (``"spec"``, ``"network"``) and the file
    refuses a file above :data:`MAX_SPEC_BYTES`, not UTF-8, YAML aliases, deep nesting,
    numbers of :func:`check_numbers` and malformed JSON or YAML."""
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

    def unique_keys(pairs: list) -> dict:  # else the last of a repeated key wins, silently
        out = {}
        for key, value in pairs:
            if key in out:
                raise error(f"{label} gives the key {key!r} twice in one object")
            out[key] = value
        return out

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
                data = json.loads(text, object_pairs_hook=unique_keys)
            except json.JSONDecodeError as exc:
                raise error(f"{label} is not valid JSON: {exc}") from None
    except RecursionError:
        raise error(f"{label} is nested too deeply (more than {MAX_NESTING} levels)") from None
    except error:
        raise
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise error(f"{label} holds a number that cannot be read: {_clip(str(exc), 80)}") from None
    check_numbers(data, label, error)
    return data


def _clip(text: str, width: int = 200) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."
