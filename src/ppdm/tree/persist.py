"""Model files for :class:`~ppdm.tree.C45Classifier` that load without running code.

:func:`save_model` writes the tree's flat arrays, class labels, column encoding and
parameters as one JSON document; :func:`load_model` reads it with :func:`json.loads`
only and checks every array, so a tampered file is refused with one error (docs/cli.md).
Old pickled models load only with ``trust_pickle=True``.

References
----------
Quinlan, J. R. (1993). C4.5: Programs for Machine Learning, sec. 3.2 (the tree and
its class distributions, which is all a model file holds).
"""

from __future__ import annotations

import json
import math
import os
import pickle
from pathlib import Path

import numpy as np

from ..exceptions import DataError
from .model_json import (
    SCALARS,
    Invalid,
    bool_array,
    get,
    int_array,
    labels_from_json,
    labels_to_json,
    number_array,
    plain,
)

__all__ = [
    "MODEL_FORMAT",
    "MODEL_VERSION",
    "MAX_MODEL_BYTES",
    "model_to_dict",
    "save_model",
    "load_model",
]

#: ``format`` field of every model file.
MODEL_FORMAT = "ppdm-c45-model"
#: Version of the JSON layout (1 was the pickle of ``ppdm tree train``).
MODEL_VERSION = 2
#: Largest model file read (a tree of a million nodes takes well under 256 MB of JSON).
MAX_MODEL_BYTES = 256 * 2**20

_PICKLE_VERSION = 1


def model_to_dict(clf, target: str | None = None) -> dict:
    """The fitted state of a :class:`~ppdm.tree.C45Classifier` as plain JSON data, with the
    name of the class column it was trained on (kept for ``predict``)."""
    from .classifier import C45Classifier

    if not isinstance(clf, C45Classifier) or not hasattr(clf, "tree_"):
        raise DataError("only a fitted C45Classifier can be saved as a model file")
    t = clf.tree_
    enc = clf._encoding
    params = clf.get_params(deep=False)
    weights = params.pop("class_weight")
    features = params.pop("categorical_features")
    return {
        "format": MODEL_FORMAT,
        "version": MODEL_VERSION,
        "target": target,
        "params": {k: plain(v, f"parameter {k}") for k, v in params.items()},
        "class_weight": (
            weights
            if weights is None or isinstance(weights, str)
            else [[plain(k, "class_weight"), float(v)] for k, v in weights.items()]
        ),
        "categorical_features": (
            features
            if features is None or isinstance(features, str)
            else [plain(v, "categorical_features") for v in features]
        ),
        "classes": labels_to_json(clf.classes_, "a class label"),
        "encoding": {
            "names": [str(n) for n in enc.names],
            "categorical": [bool(c) for c in enc.categorical],
            "categories": [
                None if c is None else labels_to_json(c, f"column {name!r}")
                for name, c in zip(enc.names, enc.categories)
            ],
            "from_frame": bool(enc.from_frame),
        },
        "value_ranges": {k: [float(lo), float(hi)] for k, (lo, hi) in clf.value_ranges_.items()},
        "tree": {
            "feature": t.feature.tolist(),
            "categorical": t.categorical.tolist(),
            "threshold": [None if math.isnan(x) else x for x in t.threshold.tolist()],
            "children_start": t.children_start.tolist(),
            "n_children": t.n_children.tolist(),
            "children": t.children.tolist(),
            "value": t.value.tolist(),
            "empty": t.empty.tolist(),
        },
    }


def _tree_from_json(doc, n_features: int, n_categories: np.ndarray, n_classes: int):
    from .storage import Tree

    feature = int_array(get(doc, "feature", list, "tree."), "feature")
    n = feature.size
    if n == 0:
        raise Invalid("the tree has no nodes")
    categorical = bool_array(get(doc, "categorical", list, "tree."), "tree.categorical", n)
    raw = get(doc, "threshold", list, "tree.")
    if len(raw) != n or not all(
        v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)) for v in raw
    ):
        raise Invalid(f"tree.threshold must hold {n} numbers or nulls")
    threshold = np.array([np.nan if v is None else float(v) for v in raw], dtype=float)
    start = int_array(get(doc, "children_start", list, "tree."), "children_start", n)
    count = int_array(get(doc, "n_children", list, "tree."), "n_children", n)
    children = int_array(get(doc, "children", list, "tree."), "children")
    value = number_array(get(doc, "value", list, "tree."), "tree.value", n, n_classes, "counts")
    empty = bool_array(get(doc, "empty", list, "tree."), "tree.empty", n)

    leaf = feature < 0
    if (feature < -1).any() or (feature >= n_features).any():
        raise Invalid(f"tree.feature must lie in [-1, {n_features - 1}]")
    if (count[leaf] != 0).any() or categorical[leaf].any():
        raise Invalid("a leaf has children or a categorical test")
    if (count < 0).any() or (start < 0).any() or (start + count > children.size).any():
        raise Invalid("tree.children_start/n_children point outside tree.children")
    seen = np.zeros(n, dtype=np.int64)
    for i in np.flatnonzero(~leaf):
        kids = children[start[i] : start[i] + count[i]]
        # preorder: children come after their parent, so routing always ends at a leaf
        if kids.size == 0 or (kids <= i).any() or (kids >= n).any():
            raise Invalid(f"node {i + 1} has children outside the preorder numbering")
        seen[kids] += 1
        f = feature[i]
        if categorical[i]:
            if n_categories[f] == 0 or count[i] != n_categories[f]:
                raise Invalid(
                    f"node {i + 1} tests column {f + 1} with {count[i]} branches; "
                    f"the column has {n_categories[f]} categories"
                )
        else:
            if n_categories[f] != 0 or count[i] != 2 or not np.isfinite(threshold[i]):
                raise Invalid(f"node {i + 1}: a numeric test needs 2 branches and a threshold")
    if seen[0] != 0 or (seen[1:] != 1).any():
        raise Invalid("the nodes do not form one tree (a node has no parent or two)")
    return Tree(feature, categorical, threshold, start, count, children, value, empty)


def _model_from_dict(doc):
    from ._encoding import FeatureEncoding
    from .classifier import C45Classifier

    if not isinstance(doc, dict) or doc.get("format") != MODEL_FORMAT:
        raise Invalid(f'not a ppdm tree model (no "format": {MODEL_FORMAT!r})')
    version = doc.get("version")
    if version != MODEL_VERSION:
        raise Invalid(f"model version {str(version)[:20]}; this ppdm reads {MODEL_VERSION}")
    target = doc.get("target")
    if target is not None and not isinstance(target, str):
        raise Invalid("field 'target' must be a string")
    params = get(doc, "params", dict)
    known = set(C45Classifier().get_params()) - {"class_weight", "categorical_features"}
    if set(params) - known or not all(isinstance(v, SCALARS) for v in params.values()):
        raise Invalid("field 'params' names unknown parameters or non-scalar values")
    weights = doc.get("class_weight")
    if isinstance(weights, list):
        if not all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[1], (int, float)) for p in weights
        ):
            raise Invalid("field 'class_weight' must be a list of [label, weight] pairs")
        weights = {k: float(v) for k, v in weights}
    elif weights is not None and not isinstance(weights, str):
        raise Invalid("field 'class_weight' has the wrong type")
    features = doc.get("categorical_features")
    if features is not None and not isinstance(features, (str, list)):
        raise Invalid("field 'categorical_features' has the wrong type")
    clf = C45Classifier(**params, class_weight=weights, categorical_features=features)
    try:
        clf._validate_params()
    except ValueError as exc:
        raise Invalid(f"field 'params': {exc}") from None

    classes = labels_from_json(get(doc, "classes", dict), "classes")
    if classes.size < 2:
        raise Invalid("a model needs at least two classes")
    if len(set(classes.tolist())) != classes.size:  # a prediction could not name its class
        raise Invalid("classes must be distinct")
    enc_doc = get(doc, "encoding", dict)
    names = get(enc_doc, "names", list, "encoding.")
    if not names or not all(isinstance(x, str) for x in names) or len(set(names)) != len(names):
        raise Invalid("encoding.names must be distinct column names")
    d = len(names)
    cat_mask = bool_array(get(enc_doc, "categorical", list, "encoding."), "encoding.categorical", d)
    cats_doc = get(enc_doc, "categories", list, "encoding.")
    if len(cats_doc) != d:
        raise Invalid(f"encoding.categories must have {d} entries")
    categories = []
    for j, c in enumerate(cats_doc):
        if cat_mask[j] != (c is not None):
            raise Invalid(f"encoding.categories of column {names[j]!r} contradicts its kind")
        categories.append(
            None if c is None else labels_from_json(c, f"categories of {names[j]!r}").astype(object)
        )
    from_frame = get(enc_doc, "from_frame", bool, "encoding.")
    ranges_doc = get(doc, "value_ranges", dict)
    ranges = {}
    for k, v in ranges_doc.items():
        if k not in names or not (
            isinstance(v, list) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v)
        ):
            raise Invalid(f"value_ranges entry {k[:40]!r} is not a [low, high] pair of a column")
        ranges[k] = (float(v[0]), float(v[1]))
    encoding = FeatureEncoding(list(names), cat_mask, categories, from_frame)
    tree = _tree_from_json(get(doc, "tree", dict), d, encoding.n_categories, classes.size)
    return clf._set_fitted(tree, classes, encoding, ranges), target


def save_model(clf, path: str | os.PathLike, *, target: str | None = None) -> None:
    """Write a fitted :class:`~ppdm.tree.C45Classifier` (or a release tree or forest with
    majority leaves, :mod:`ppdm.tree.release_persist`) as a JSON model file.

    Parameters
    ----------
    clf : C45Classifier, ReleaseTreeClassifier or ReleaseForestClassifier
    path : path-like
        Written as UTF-8 JSON (callers wanting an atomic write pass a temporary path).
    target : str, optional
        Name of the class column, kept for ``ppdm tree predict``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from ppdm.datasets import load_wisconsin
    >>> from ppdm.tree import C45Classifier
    >>> data = load_wisconsin().frame
    >>> X, y = data.drop(columns=["class"]), data["class"]
    >>> clf = C45Classifier().fit(X, y)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "model.json"
    >>> save_model(clf, path, target="class")
    >>> again, target = load_model(path)
    >>> bool((again.predict(X) == clf.predict(X)).all()), target
    (True, 'class')
    """
    from .classifier import C45Classifier
    from .release_persist import release_model_to_dict

    to_dict = model_to_dict if isinstance(clf, C45Classifier) else release_model_to_dict
    doc = to_dict(clf, target)
    Path(path).write_text(json.dumps(doc, separators=(",", ":")), encoding="utf-8")


def load_model(path: str | os.PathLike, *, trust_pickle: bool = False):
    """Read a model file written by :func:`save_model` (or ``ppdm tree train``).

    Parameters
    ----------
    path : path-like
    trust_pickle : bool, default=False
        Also accept the older pickled model files. Unpickling runs any code the
        file names: pass True only for files you wrote yourself.

    Returns
    -------
    clf : C45Classifier, ReleaseTreeClassifier or ReleaseForestClassifier
    target : str or None
        The class column the model was trained on.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    DataError
        The file is not a valid model file (or is a pickle and ``trust_pickle`` is False).
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"model file {str(path)!r} does not exist")
    if not path.is_file():  # a directory, a device, a pipe
        raise DataError(f"model file {str(path)!r} is not a regular file")
    size = path.stat().st_size
    if size > MAX_MODEL_BYTES:
        raise DataError(
            f"{str(path)!r} has {size} bytes, more than a model file may "
            f"({MAX_MODEL_BYTES} bytes); it is not a ppdm tree model"
        )
    raw = path.read_bytes()
    if raw[:1] == b"\x80":
        if not trust_pickle:
            raise DataError(
                f"{str(path)!r} is a pickle, which can run any code when loaded; load it only "
                "if you wrote it yourself (--trust-pickle), then save it again as a JSON model"
            )
        return _load_pickle(path, raw)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError(f"{str(path)!r} is not a ppdm tree model (not a JSON model file)") from None
    from .release_persist import RELEASE_MODEL_FORMAT, release_model_from_dict

    try:
        if isinstance(doc, dict) and doc.get("format") == RELEASE_MODEL_FORMAT:
            return release_model_from_dict(doc)
        return _model_from_dict(doc)
    except (Invalid, DataError) as exc:
        raise DataError(f"{str(path)!r} is not a valid ppdm tree model: {exc}") from None


def _load_pickle(path: Path, raw: bytes):
    from .classifier import C45Classifier

    try:
        payload = pickle.loads(raw)  # noqa: S301 - only with trust_pickle=True
    except Exception as exc:  # any unpickling failure means "not a model file"
        raise DataError(f"{str(path)!r} is not a ppdm tree model ({type(exc).__name__})") from None
    if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
        raise DataError(f"{str(path)!r} is not a ppdm tree model (written by `ppdm tree train`)")
    if payload.get("version") != _PICKLE_VERSION or not isinstance(
        payload.get("model"), C45Classifier
    ):
        raise DataError(f"{str(path)!r} is not a ppdm tree model of a known version")
    return payload["model"], payload.get("target")
