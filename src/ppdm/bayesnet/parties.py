"""What a party releases in Ma & Sivakumar's models: the release directory.

A release is a data file of state codes plus ``release.json``, every column's
cardinality and the matrices used; never a seed or clean data of a randomized column.
Records are aligned by position. docs/bayesnet.md describes the two models.

References
----------
Ma & Sivakumar, Sec. 2 (Models I and II) and Sec. 4 (the steps of each party).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..exceptions import ParameterError, SpecError
from ..io import read_table, table_format, write_table
from ..limits import load_structured
from ..publish import register_input, release_member
from ..validation import check_choice
from .pram import PramScheme

__all__ = [
    "RELEASE_FORMAT",
    "Release",
    "write_release",
    "read_release",
    "combine_releases",
]

RELEASE_FORMAT = "ppdm-bn-release/1"
_SPEC_NAME = "release.json"


@dataclass(frozen=True)
class Release:
    """Released columns (state codes) of one party, how they were randomized, and the
    party (Model I) or miner (Model II) they are for.
    """

    party: str
    data: pd.DataFrame
    scheme: PramScheme
    recipient: str | None = None

    def spec(self, data_file: str | None = None) -> dict:
        """The public ``release.json`` dictionary (with per-variable privacy figures)."""
        privacy = self.scheme.privacy().replace(float("inf"), float("nan")).astype(object)
        return {
            "format": RELEASE_FORMAT,
            "party": self.party,
            "recipient": self.recipient,
            "data_file": data_file,
            "n_records": len(self.data),
            **self.scheme.to_spec(),
            "privacy": privacy.where(privacy.notna(), None).to_dict(orient="records"),
        }


def write_release(release: Release, directory: str | os.PathLike, fmt: str = "parquet") -> Path:
    """Write ``release`` into ``directory`` (created if missing; callers wanting atomicity
    pass a temporary one): ``data.<fmt>`` and ``release.json``; return the directory."""
    check_choice(fmt, "fmt", ("parquet", "csv"), error=ParameterError)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    name = f"data.{fmt}"
    write_table(release.data, directory / name, fmt=fmt)
    (directory / _SPEC_NAME).write_text(json.dumps(release.spec(name), indent=2) + "\n")
    return directory


def read_release(directory: str | os.PathLike) -> Release:
    """Read a release directory written by :func:`write_release` (or ``ppdm bn randomize``)."""
    directory = Path(directory)
    register_input(directory)
    spec_path = directory / _SPEC_NAME
    if not spec_path.exists():
        raise FileNotFoundError(
            f"{str(directory)!r} is not a release directory: it has no {_SPEC_NAME}"
        )
    if spec_path.is_symlink():
        raise SpecError(f"{str(spec_path)!r} is a symbolic link; ppdm reads no links in a release")
    spec = load_structured(spec_path, "release", error=SpecError, fmt="json")
    if not isinstance(spec, dict):
        raise SpecError(
            f"release {str(spec_path)!r} must be a JSON object "
            f"(got {'null' if spec is None else type(spec).__name__})"
        )
    if spec.get("format") != RELEASE_FORMAT:
        raise SpecError(
            f"{str(spec_path)!r}: format must be {RELEASE_FORMAT!r} (got {spec.get('format')!r})"
        )
    scheme = PramScheme.from_spec(spec)
    data_path = release_member(directory, spec.get("data_file"), spec_name=_SPEC_NAME)
    table_format(data_path)
    data = read_table(data_path)
    scheme.check_frame(data)
    n = spec.get("n_records")
    if n is not None and n != len(data):
        raise SpecError(f"release {str(directory)!r} says {n} records but its data has {len(data)}")
    return Release(
        str(spec.get("party", directory.name)),
        data[list(scheme.variables)],
        scheme,
        spec.get("recipient"),
    )


def combine_releases(releases: Sequence[Release]) -> tuple[pd.DataFrame, PramScheme]:
    """Join releases column-wise (records aligned by position) into one frame and scheme."""
    if not releases:
        raise ParameterError("at least one release is needed")
    n = {len(r.data) for r in releases}
    if len(n) != 1:
        sizes = {r.party: len(r.data) for r in releases}
        raise SpecError(f"releases must hold the same records; their sizes differ: {sizes}")
    scheme = PramScheme.merge([r.scheme for r in releases])
    frame = pd.concat([r.data.reset_index(drop=True) for r in releases], axis=1)
    return frame, scheme
