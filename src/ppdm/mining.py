"""Mining a release: reconstruct it (or not), learn a classifier, test it on original data.

Learners: ``c45`` (ppdm's C4.5 on the reconstructed table), ``release-tree``
(:class:`ppdm.tree.ReleaseTreeClassifier`, learnt from the release itself with no
reconstruction), or any scikit-learn classifier named ``module:Class`` (fitted on the
reconstructed table, categorical columns as their domain codes).

References
----------
Dowd, Xu & Zhang, Sec. 6 (C4.5 on reconstructed data, global and by-class).
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .exceptions import DataError, SpecError
from .pipeline import Release, load_release, reconstruct_release

__all__ = ["MiningResult", "make_learner", "mine_release"]


@dataclass
class MiningResult:
    """Accuracy of one learner on a release (and on the original data, if given)."""

    learner: str
    reconstruction: str | None
    method: str | None
    accuracy: float
    original_accuracy: float | None = None
    model_text: str = ""
    extra: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "learner": self.learner,
            "reconstruction": self.reconstruction,
            "method": self.method,
            "test_accuracy": self.accuracy,
            "original_accuracy": self.original_accuracy,
            "model": self.model_text,
            **self.extra,
        }


def make_learner(name: str, spec=None):
    """A fresh learner from its name: ``c45``, ``release-tree`` or ``module:Class``."""
    if name == "c45":
        from .tree import C45Classifier

        return C45Classifier()
    if name == "release-tree":
        from .tree import ReleaseTreeClassifier

        return ReleaseTreeClassifier(spec=spec)
    module, sep, cls = name.partition(":")
    if not sep or not module or not cls:
        raise ValueError(
            f"learner must be 'c45', 'release-tree' or 'module:Class' (got {name!r}), "
            "e.g. sklearn.ensemble:RandomForestClassifier"
        )
    try:
        factory = getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import learner {name!r}: {exc}") from None
    model = factory()
    if not hasattr(model, "fit") or not hasattr(model, "predict"):
        raise ValueError(f"learner {name!r} has no fit/predict: not a classifier")
    return model


def _features(frame: pd.DataFrame, spec, target: str, learner: str) -> pd.DataFrame:
    X = frame.drop(columns=[target])
    if learner in ("c45", "release-tree"):
        return X
    out = {}
    for col in X.columns:
        a = spec.attribute(col)
        if a.perturbed and a.get_domain().kind == "categorical":
            out[col] = pd.Index(a.get_domain().values).get_indexer(X[col])
        elif pd.api.types.is_numeric_dtype(X[col]):
            out[col] = X[col]
        else:
            out[col] = pd.Categorical(X[col]).codes
    return pd.DataFrame(out, index=X.index)


def _model_text(model) -> str:
    if hasattr(model, "export_text"):
        return model.export_text()
    from .tree import C45Classifier, export_text

    if isinstance(model, C45Classifier):
        return export_text(model)
    return repr(model)


def mine_release(
    release: Release | str | os.PathLike,
    test: pd.DataFrame,
    *,
    learner: str = "c45",
    reconstruction: str = "by-class",
    method: str = "set-scale",
    original: pd.DataFrame | None = None,
    random_state=0,
) -> MiningResult:
    """Learn from a release and report test accuracy on original-domain test data.

    Parameters
    ----------
    release : Release or path
    test : DataFrame
        Original (unperturbed) test records, with the class column.
    learner : str, default="c45"
    reconstruction : {"global", "by-class"}, default="by-class"
        Algorithm 2 variant (ignored by ``release-tree``).
    method : str, default="set-scale"
        Estimation method behind the reconstruction.
    original : DataFrame, optional
        The original training table: the same learner is also fitted on it.
    random_state : int or None
        Tie breaking in the reconstruction.

    Returns
    -------
    MiningResult
    """
    rel = release if isinstance(release, Release) else load_release(release)
    spec = rel.spec
    target = spec.class_attribute
    if target is None:
        raise SpecError("the release names no class attribute: nothing to learn")
    if reconstruction not in ("global", "by-class"):
        raise ValueError(f"reconstruction must be 'global' or 'by-class' (got {reconstruction!r})")
    for name, frame in (("test", test), ("original", original)):
        if frame is not None:
            missing = [c for c in spec.names if c not in frame.columns]
            if missing:
                raise DataError(f"the {name} table lacks the release's columns {missing}")
    y_test = test[target]
    if learner == "release-tree":
        model = make_learner(learner, spec).fit(rel.frame())
        recon_kind, used_method = None, None
    else:
        table = reconstruct_release(
            rel,
            None,
            method=method,
            by_class=reconstruction == "by-class",
            random_state=random_state,
        )
        model = make_learner(learner, spec)
        model.fit(_features(table, spec, target, learner), table[target])
        recon_kind, used_method = reconstruction, method
    acc = float(np.mean(model.predict(_features(test, spec, target, learner)) == y_test.to_numpy()))
    orig_acc = None
    if original is not None:
        if learner == "release-tree":
            base = make_learner("c45")
            base.fit(original.drop(columns=[target]), original[target])
            orig_pred = base.predict(test.drop(columns=[target]))
        else:
            base = make_learner(learner, spec)
            base.fit(_features(original, spec, target, learner), original[target])
            orig_pred = base.predict(_features(test, spec, target, learner))
        orig_acc = float(np.mean(orig_pred == y_test.to_numpy()))
    return MiningResult(learner, recon_kind, used_method, acc, orig_acc, _model_text(model))
