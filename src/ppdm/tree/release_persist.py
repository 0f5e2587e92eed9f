"""Model files for the learners fitted on a release, that load without running code.

A release tree or forest with majority leaves is written as its spec, class labels and
tree arrays; reading checks every one of them, so a tampered file is refused with one
error. :func:`ppdm.tree.persist.load_model` reads these and C4.5 model files.

References
----------
Dowd, Xu & Zhang, Sec. 3 (the release and its matrices); Breiman et al. (1984), ch. 2
(binary trees over value subsets).
"""

from __future__ import annotations

import json

import numpy as np

from ..exceptions import DataError
from .model_json import Invalid, get, int_array, labels_from_json, labels_to_json, number_array

__all__ = ["RELEASE_MODEL_FORMAT", "release_model_from_dict", "release_model_to_dict"]

#: ``format`` field of a model file of a release learner.
RELEASE_MODEL_FORMAT = "ppdm-release-model"
_VERSION = 1
_KINDS = ("release-tree", "release-forest")


def release_model_to_dict(model, target: str | None = None) -> dict:
    """The fitted state of a release tree or forest (majority leaves) as JSON data."""

    trees = getattr(model, "trees_", None) or [getattr(model, "tree_", None)]
    if trees[0] is None or getattr(model, "spec_", None) is None:
        raise DataError("only a release tree or forest fitted on a release can be saved")
    if any(t.nb_logp is not None for t in trees):
        raise DataError("a model with naive Bayes leaves cannot be saved; use majority leaves")
    return {
        "format": RELEASE_MODEL_FORMAT,
        "version": _VERSION,
        "kind": "release-forest" if hasattr(model, "trees_") else "release-tree",
        "target": target,
        "spec": json.loads(model.spec_.model_dump_json(exclude_none=True)),
        "names": list(model._names),
        "classes": labels_to_json(model.classes_, "a class label"),
        "trees": [
            {
                "feature": t.feature.tolist(),
                "left": t.left.tolist(),
                "right": t.right.tolist(),
                "left_codes": [np.flatnonzero(m).tolist() for m in t.mask],
                "value": t.value.tolist(),
                "count": t.count.tolist(),
                "n_eff": t.n_eff.tolist(),
            }
            for t in trees
        ],
    }


def _tree(doc, k: int, n_values: list[int], n_classes: int):
    from .release_storage import CodeTree

    where = f"trees[{k}]."
    feature = int_array(get(doc, "feature", list, where), f"{where}feature")
    n = feature.size
    if n == 0:
        raise Invalid(f"{where}feature has no nodes")
    left = int_array(get(doc, "left", list, where), f"{where}left", n)
    right = int_array(get(doc, "right", list, where), f"{where}right", n)
    codes = get(doc, "left_codes", list, where)
    width = max(n_values)
    if len(codes) != n or not all(isinstance(c, list) for c in codes):
        raise Invalid(f"{where}left_codes must be {n} lists of codes")
    mask = np.zeros((n, width), dtype=bool)
    leaf = feature < 0
    if (feature < -1).any() or (feature >= len(n_values)).any():
        raise Invalid(f"{where}feature must lie in [-1, {len(n_values) - 1}]")
    seen = np.zeros(n, dtype=np.int64)
    for i in range(n):
        if leaf[i]:
            if left[i] != -1 or right[i] != -1 or codes[i]:
                raise Invalid(f"{where[:-1]}: node {i + 1} is a leaf with children or codes")
            continue
        nv = n_values[feature[i]]
        c = int_array(codes[i], f"{where}left_codes[{i}]")
        if c.size == 0 or c.size >= nv or (c < 0).any() or (c >= nv).any():
            raise Invalid(
                f"{where[:-1]}: node {i + 1} sends codes outside 0..{nv - 1} or none left"
            )
        mask[i, c] = True
        for kid in (left[i], right[i]):  # preorder: routing always ends at a leaf
            if not i < kid < n:
                raise Invalid(
                    f"{where[:-1]}: node {i + 1} has children outside the preorder numbering"
                )
            seen[kid] += 1
    if seen[0] != 0 or (seen[1:] != 1).any():
        raise Invalid(f"{where[:-1]}: the nodes do not form one tree (a node has no parent or two)")
    value = number_array(get(doc, "value", list, where), f"{where}value", n, n_classes)
    count = number_array(get(doc, "count", list, where), f"{where}count", n)
    n_eff = number_array(get(doc, "n_eff", list, where), f"{where}n_eff", n)
    return CodeTree(feature, left, right, mask, value, count, n_eff)


def _spec(doc):
    from pydantic import ValidationError

    from ..release import ReleaseSpec, _check_sizes, validation_message

    try:
        spec = ReleaseSpec.model_validate(doc, strict=True)
        _check_sizes(spec, "the model's spec")
    except ValidationError as exc:
        raise Invalid(f"its spec is {validation_message(exc)}") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise Invalid(f"its spec is invalid: {str(exc)[:200]}") from None
    return spec


def release_model_from_dict(doc):
    """Rebuild a fitted release tree or forest (and its target column) from
    :func:`release_model_to_dict` data; :class:`Invalid` names a broken rule."""
    from . import ReleaseForestClassifier, ReleaseTreeClassifier
    from .release_coding import DomainCoder

    if not isinstance(doc, dict) or doc.get("format") != RELEASE_MODEL_FORMAT:
        raise Invalid(f'not a ppdm release model (no "format": {RELEASE_MODEL_FORMAT!r})')
    if doc.get("version") != _VERSION:
        raise Invalid(f"model version {str(doc.get('version'))[:20]}; this ppdm reads {_VERSION}")
    kind = doc.get("kind")
    if kind not in _KINDS:
        raise Invalid(f"field 'kind' must be one of {_KINDS}")
    target = doc.get("target")
    if target is not None and not isinstance(target, str):
        raise Invalid("field 'target' must be a string")
    spec = _spec(get(doc, "spec", dict))
    names = get(doc, "names", list)
    perturbed = {a.name for a in spec.perturbed_attributes()} - {spec.class_attribute}
    if not names or len(set(map(str, names))) != len(names) or not set(names) <= perturbed:
        raise Invalid("field 'names' must be distinct perturbed attributes of its spec")
    classes = labels_from_json(get(doc, "classes", dict), "classes")
    if classes.size < 2 or len(set(classes.tolist())) != classes.size:
        raise Invalid("classes must be at least two distinct labels")
    domains = [spec.attribute(n).get_domain() for n in names]
    n_values = [d.n_values for d in domains]
    trees_doc = get(doc, "trees", list)
    if not trees_doc or (kind == "release-tree" and len(trees_doc) != 1):
        raise Invalid("field 'trees' must hold one tree (a forest: one or more)")
    trees = [_tree(t, k, n_values, classes.size) for k, t in enumerate(trees_doc)]
    cls = ReleaseForestClassifier if kind == "release-forest" else ReleaseTreeClassifier
    model = cls(spec=spec, leaf_model="majority")
    model._set_inputs(names, [DomainCoder(d) for d in domains], domains, spec, frame=True)
    model.classes_, model.n_classes_ = classes, int(classes.size)
    model.leaf_model_ = "majority"
    model.matrices_ = [spec.attribute(n).get_matrix() for n in names]
    if kind == "release-forest":
        model.trees_ = trees
    else:
        model.tree_ = trees[0]
    return model, target
