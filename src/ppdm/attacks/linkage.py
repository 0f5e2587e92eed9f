"""Disclosure risk of key attributes: k-anonymity of a release and a linkage attack.

Keys (quasi-identifiers) are attributes an intruder may find elsewhere. A record is
re-identified when its original key combination matches exactly one released record and
that record is its own; perturbed keys are compared by their public domain codes, as an
intruder reading the spec would (the figures are described on docs/app.md).

References
----------
Sweeney, L. (2002). k-anonymity: a model for protecting privacy. IJUFKS 10(5).
Templ, Kowarik & Meindl (2015). Statistical disclosure control for micro-data using
the R package sdcMicro, Sec. 3 (frequency counts, sample uniques, record linkage).
Dowd, Xu & Zhang, Sec. 3 (random substitution).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ..exceptions import DataError
from ..mechanism import mechanism_of

__all__ = [
    "check_keys",
    "format_linkage",
    "key_combinations",
    "k_anonymity",
    "linkage_attack",
    "linkage_report",
]

#: Class sizes below which the share of records is reported.
K_LEVELS = (2, 3, 5)


def check_keys(keys: Sequence[str], *frames: pd.DataFrame) -> list[str]:
    """The key column names, checked against every frame (one line naming a bad key)."""
    out = [str(k).strip() for k in keys]
    if not out or any(not k for k in out):
        raise DataError(f"keys must name at least one column (got {list(keys)!r})")
    if len(set(out)) != len(out):
        raise DataError(f"keys name a column twice: {out}")
    for frame in frames:
        for k in out:
            if k not in frame.columns:
                raise DataError(
                    f"key column {k!r} is not in the data; it has {[str(c) for c in frame.columns]}"
                )
    return out


def _key_values(frame: pd.DataFrame, key: str, spec) -> np.ndarray:
    if spec is not None and key in spec.names:
        a = spec.attribute(key)
        if a.perturbed and mechanism_of(spec).has("codes"):
            return np.asarray(a.get_domain().encode(frame[key], column=key))
    return frame[key].to_numpy()


def key_combinations(
    frames: Sequence[pd.DataFrame], keys: Sequence[str], spec=None
) -> list[np.ndarray]:
    """One integer per record naming its key combination, comparable across ``frames``
    (missing values equal each other; with ``spec``, perturbed keys compare by code).
    """
    sizes = [len(f) for f in frames]
    parts = []
    for k in keys:
        values = np.concatenate([_key_values(f, k, spec).astype(object) for f in frames])
        codes, _ = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=False)
        parts.append(codes)
    combo = pd.DataFrame(np.column_stack(parts)).groupby(list(range(len(keys)))).ngroup()
    combo = combo.to_numpy(dtype=np.int64)
    return np.split(combo, np.cumsum(sizes)[:-1])


def k_anonymity(released: pd.DataFrame, keys: Sequence[str], spec=None) -> dict:
    """k-anonymity of the released key combinations.

    Parameters
    ----------
    released : DataFrame
        The released table.
    keys : sequence of str
        Key attributes (quasi-identifiers).
    spec : ReleaseSpec, optional
        Compare perturbed keys by their domain codes.

    Returns
    -------
    dict
        ``k`` (smallest class size), ``n_classes``, ``n_records``, ``sample_uniques``
        (records alone in their class) and ``share_below`` (share of records in classes
        smaller than 2, 3 and 5).

    Examples
    --------
    >>> df = pd.DataFrame({"a": [1, 1, 2, 2, 3], "b": ["x", "x", "y", "y", "z"]})
    >>> r = k_anonymity(df, ["a", "b"])
    >>> (r["k"], r["n_classes"], r["sample_uniques"])
    (1, 3, 1)
    """
    keys = check_keys(keys, released)
    n = len(released)
    if n == 0:
        raise DataError("the released table is empty: no key combination to count")
    (combo,) = key_combinations([released], keys, spec)
    sizes = np.bincount(combo)  # the combinations are numbered 0..classes-1
    per_record = sizes[combo]
    return {
        "keys": keys,
        "n_records": n,
        "n_classes": int(sizes.size),
        "k": int(sizes.min()),
        "sample_uniques": int((sizes == 1).sum()),
        "share_below": {str(t): float((per_record < t).mean()) for t in K_LEVELS},
    }


def linkage_attack(
    original: pd.DataFrame, released: pd.DataFrame, keys: Sequence[str], spec=None
) -> dict:
    """Share of records re-identified by exact matching of their original keys.

    Parameters
    ----------
    original : DataFrame
        The table the release was made from, in the same record order: the intruder's
        external file holds these key values.
    released : DataFrame
        The release.
    keys : sequence of str
    spec : ReleaseSpec, optional
        Compare perturbed keys by their domain codes.

    Returns
    -------
    dict
        ``reidentified`` (count) and ``reidentified_share``; ``unique_matches`` (records
        whose original combination matches exactly one released record) and
        ``false_matches`` (such a match that is another record); ``no_match`` (no
        released record has the combination).

    Examples
    --------
    >>> orig = pd.DataFrame({"a": [1, 2, 3, 3]})
    >>> rel = pd.DataFrame({"a": [1, 3, 2, 3]})
    >>> r = linkage_attack(orig, rel, ["a"])
    >>> (r["reidentified"], r["false_matches"], r["unique_matches"])
    (1, 1, 2)
    """
    keys = check_keys(keys, original, released)
    n = len(original)
    if n != len(released):
        raise DataError(
            f"the original has {n} records but the release has {len(released)}; "
            "linkage needs the table the release was made from, in the same order"
        )
    if n == 0:
        raise DataError("the original table is empty: no record to link")
    x, y = key_combinations([original, released], keys, spec)
    size = int(max(x.max(), y.max())) + 1
    count = np.bincount(y, minlength=size)
    # the released row holding each combination, valid where the count is one
    owner = np.full(size, -1, dtype=np.int64)
    owner[y] = np.arange(n)
    unique = count[x] == 1
    own = unique & (owner[x] == np.arange(n))
    return {
        "keys": keys,
        "n_records": n,
        "reidentified": int(own.sum()),
        "reidentified_share": float(own.mean()),
        "unique_matches": int(unique.sum()),
        "false_matches": int((unique & ~own).sum()),
        "no_match": int((count[x] == 0).sum()),
    }


def linkage_report(
    original: pd.DataFrame, released: pd.DataFrame, keys: Sequence[str], spec=None
) -> dict:
    """Both risk figures of the keys: released k-anonymity and the linkage attack.

    Also the k-anonymity of the *original* key combinations, so the owner sees what
    perturbation changed.

    Returns
    -------
    dict
        ``{"keys", "released": k_anonymity(...), "original": k_anonymity(...),
        "linkage": linkage_attack(...)}``
    """
    keys = check_keys(keys, original, released)
    return {
        "keys": keys,
        "released": k_anonymity(released, keys, spec),
        "original": k_anonymity(original, keys, spec),
        "linkage": linkage_attack(original, released, keys, spec),
    }


def format_linkage(report: dict) -> list[str]:
    """Plain-text lines of :func:`linkage_report`."""
    rel, orig, link = report["released"], report["original"], report["linkage"]
    return [
        f"keys: {', '.join(report['keys'])}",
        f"  k-anonymity of the release: k = {rel['k']} ({rel['n_classes']} key combinations, "
        f"{rel['sample_uniques']} unique records; original: k = {orig['k']}, "
        f"{orig['sample_uniques']} unique)",
        f"  linkage attack: {link['reidentified']} of {link['n_records']} records re-identified "
        f"({link['reidentified_share']:.2%}) by exact matching of their original keys; "
        f"{link['false_matches']} unique matches are wrong, {link['no_match']} find no match",
    ]
