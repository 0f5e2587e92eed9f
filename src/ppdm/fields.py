"""Result objects as plain dicts: the attributes a ``to_dict`` reports, in order.

The result classes of the attacks, the audit, mining and the tree comparisons report
most of their attributes under their own names; :func:`fields_dict` reads them in the
order given, so each ``to_dict`` names only what it reports and what it renames or
converts. It imports nothing from ppdm, so every layer may use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["fields_dict"]


def fields_dict(
    obj: object, names: str | Iterable[str], rename: Mapping[str, str] | None = None
) -> dict:
    """The attributes ``names`` of ``obj`` as a dict, in the order of ``names``.

    Parameters
    ----------
    obj : object
        Any object; attributes and properties are read with ``getattr``.
    names : str or iterable of str
        Attribute names, in the order of the result; a string holds them separated by
        white space (as :func:`collections.namedtuple` takes its field names).
    rename : mapping of str to str, optional
        Key under which an attribute is reported when it differs from its name.

    Returns
    -------
    dict

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> fields_dict(SimpleNamespace(a=1, lower=0.2), "a lower", {"lower": "low"})
    {'a': 1, 'low': 0.2}
    """
    if isinstance(names, str):
        names = names.split()
    rename = rename or {}
    return {rename.get(name, name): getattr(obj, name) for name in names}
