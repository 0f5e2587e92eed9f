"""Network files: ``ppdm-bn/1`` JSON or YAML, and BIF/XMLBIF through pgmpy.

References
----------
Ma & Sivakumar, Sec. 2 (the networks); pgmpy's BIF and XMLBIF readers and writers.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..exceptions import SpecError
from .interop import read_pgmpy_file, write_pgmpy_file
from .network import BayesNet, read_mapping

__all__ = ["read_network", "write_network"]

_PGMPY_FORMATS = (".bif", ".xmlbif", ".xml")
_SUFFIXES = ".json, .yaml, .yml, .bif, .xmlbif or .xml"


def read_network(path: str | os.PathLike) -> BayesNet:
    """Read a network: ``ppdm-bn/1`` JSON or YAML, or BIF/XMLBIF (by extension).

    ``.bif``, ``.xmlbif`` and ``.xml`` are read through pgmpy's readers (the ``bn``
    extra); without pgmpy they raise a one-line ``ImportError``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from ppdm.bayesnet.network import Node
    >>> net = BayesNet([Node("A", ("0", "1"))], {"A": [0.5, 0.5]})
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.yaml"
    >>> write_network(net, p); read_network(p) == net
    True
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"network file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    if suffix in _PGMPY_FORMATS:
        return read_pgmpy_file(path, suffix)
    if suffix not in (".json", ".yaml", ".yml"):
        raise SpecError(f"cannot tell the format of {str(path)!r}: use {_SUFFIXES}")
    return BayesNet.from_dict(read_mapping(path))


def write_network(net: BayesNet, path: str | os.PathLike, fmt: str | None = None) -> None:
    """Write ``net`` as JSON, YAML, BIF or XMLBIF (``fmt``, else by the file extension).

    BIF (``.bif``) and XMLBIF (``.xmlbif``, ``.xml``) go through pgmpy's writers (the
    ``bn`` extra) and need every CPD.
    """
    path = Path(path)
    suffix = "." + fmt.lower().lstrip(".") if fmt else path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        import yaml

        path.write_text(yaml.safe_dump(net.to_dict(), sort_keys=False))
    elif suffix == ".json":
        path.write_text(json.dumps(net.to_dict(), indent=2) + "\n")
    elif suffix in _PGMPY_FORMATS:
        write_pgmpy_file(net, path, suffix)
    else:
        raise SpecError(f"cannot tell the format of {str(path)!r}: use {_SUFFIXES}")
