"""Result objects as plain dicts: the attributes a ``to_dict`` reports, in order.

It imports nothing from ppdm, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["fields_dict"]


def fields_dict(
    obj: object, names: str | Iterable[str], rename: Mapping[str, str] | None = None
) -> dict:
    """The attributes ``names`` of ``obj`` as a dict, in the order of ``names``.

    ``names`` may be one string separated by white space (as :func:`collections.namedtuple`
    takes them); ``rename`` maps a name to the key it is reported under.
    """
    if isinstance(names, str):
        names = names.split()
    rename = rename or {}
    return {rename.get(name, name): getattr(obj, name) for name in names}
