"""Mining a release: reconstruct it (or not), learn a classifier, test it on original data.

Learners come from name tables (:data:`LEARNERS`, :data:`RELEASE_LEARNERS`): ``c45`` on
the reconstructed table, ``release-tree`` and ``release-forest`` learnt from the release
itself, and scikit-learn classifiers by short name (``cart``, ``random-forest``, ...;
categorical columns as their domain codes). Any other ``module:Class`` is loaded only with
``allow_import=True``: importing runs code.

References
----------
Dowd, Xu & Zhang, Sec. 6 (C4.5 on reconstructed data, global and by-class).
"""

from __future__ import annotations

import importlib
import os
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .exceptions import DataError, DomainError, ParameterError, SpecError
from .fields import fields_dict
from .io import label_text
from .pipeline import Release, load_release, reconstruct_frame, reconstruct_release
from .release import ReleaseSpec
from .validation import check_choice

__all__ = [
    "CANDIDATES",
    "Candidate",
    "LEARNERS",
    "RELEASE_LEARNERS",
    "MiningResult",
    "fit_candidate",
    "make_learner",
    "mine_release",
    "resolve_learner",
]


@dataclass
class MiningResult:
    """Accuracy of one learner on a release (and on the original data, if given)."""

    learner: str
    reconstruction: str | None
    method: str | None
    accuracy: float
    original_accuracy: float | None = None
    model_text: str = ""
    majority_class: object = None
    majority_rate: float | None = None
    n_test: int = 0

    @property
    def beats_majority(self) -> bool | None:
        """Whether the accuracy is above the majority rate by two binomial standard errors."""
        if self.majority_rate is None or self.n_test == 0:
            return None
        a = self.accuracy
        se = max((a * (1 - a) / self.n_test) ** 0.5, 1e-12)
        return a - self.majority_rate > 2 * se

    def to_dict(self) -> dict:
        return {
            **fields_dict(
                self,
                "learner reconstruction method accuracy original_accuracy",
                {"accuracy": "test_accuracy"},
            ),
            "majority_class": _plain(self.majority_class),
            **fields_dict(
                self,
                "majority_rate beats_majority n_test model_text",
                {"model_text": "model"},
            ),
        }


#: Learners fitted on the release itself (no reconstruction); they take the release's spec.
RELEASE_LEARNERS = {
    "release-tree": "ppdm.tree:ReleaseTreeClassifier",
    "release-forest": "ppdm.tree:ReleaseForestClassifier",
}
#: Learners fitted on the reconstructed table, by short name.
LEARNERS = {
    "c45": "ppdm.tree:C45Classifier",
    "cart": "sklearn.tree:DecisionTreeClassifier",
    "random-forest": "sklearn.ensemble:RandomForestClassifier",
    "extra-trees": "sklearn.ensemble:ExtraTreesClassifier",
    "gradient-boosting": "sklearn.ensemble:HistGradientBoostingClassifier",
    "logistic-regression": "sklearn.linear_model:LogisticRegression",
    "naive-bayes": "sklearn.naive_bayes:GaussianNB",
    "knn": "sklearn.neighbors:KNeighborsClassifier",
}
_REGISTERED = {**LEARNERS, **RELEASE_LEARNERS}


@dataclass(frozen=True)
class Candidate:
    """One learner with its settings that mining can choose from a release alone.

    ``params`` are set on the fresh learner (C4.5's ``max_depth`` cuts the fitted tree,
    read over the release's codes); ``reconstruction`` None fits on the release itself,
    else Algorithm 2 (``"by-class"`` or ``"global"``) reconstructs first.
    """

    label: str
    learner: str
    params: tuple[tuple[str, object], ...] = ()
    reconstruction: str | None = None


def _tree(depth: int, leaf: float) -> Candidate:
    return Candidate(
        f"release-tree depth {depth}, leaf {leaf:g}",
        "release-tree",
        (("max_depth", depth), ("min_leaf", leaf)),
    )


def _c45(detail: str = "", *params: tuple[str, object]) -> Candidate:
    return Candidate(f"c45 on the by-class reconstruction{detail}", "c45", params, "by-class")


#: The learners (and settings) mining chooses among without a test table, and the advisor
#: scores (docs/cli.md); fewer or shallower leaves score far less noisily (pendigits,
#: gamma 9: s.e. 0.19 against 14 for C4.5's own leaves of 2 records).
CANDIDATES: tuple[Candidate, ...] = (
    Candidate("release-forest", "release-forest"),
    *(_tree(d, leaf) for d in (4, 8, 12) for leaf in (0.005, 0.02)),
    _c45(),
    *(_c45(f", leaf {leaf:g}", ("min_leaf", leaf)) for leaf in (0.02, 0.05)),
    _c45(", depth 4", ("max_depth", 4)),
)


def fit_candidate(
    candidate: Candidate, release: Release, *, frame=None, random_state=0, fitted=None
):
    """Fit ``candidate`` on ``release`` (or on ``frame``, some of its records).

    Parameters
    ----------
    candidate : Candidate
    release : Release
        Gives the spec (and the records, when ``frame`` is None).
    frame : DataFrame, optional
        Released records to learn from (a fold of the release), in its columns.
    random_state : int or None
        Seeds the learner and the reconstruction's tie breaking.
    fitted : dict, optional
        Keeps the models learnt on these records, for the next candidate: C4.5 cut at a
        depth is the tree of C4.5 with the same parameters but the depth, learnt once.

    Returns
    -------
    A fitted classifier that predicts original records (the release's columns less
    the class). C4.5 with a ``max_depth`` is returned as its tree over the release's
    codes cut at that depth (:func:`ppdm.tree.release_c45.c45_on_codes`).

    References
    ----------
    Dowd, Xu & Zhang, Sec. 6 (C4.5 on reconstructed data).
    """
    spec = release.spec
    data = release.frame(check_values=True) if frame is None else frame
    params = dict(candidate.params)
    depth = params.pop("max_depth", None) if candidate.learner == "c45" else None
    fitted = {} if fitted is None else fitted
    key = (candidate.learner, candidate.reconstruction, tuple(params.items()))
    if key not in fitted:
        fitted[key] = _fit(candidate, spec, data, params, random_state)
    if depth is None:
        return fitted[key]
    from .tree.release_c45 import c45_on_codes

    return c45_on_codes(fitted[key], spec, max_depth=depth)


def _fit(candidate: Candidate, spec, data, params: dict, random_state):
    """A fresh ``candidate.learner`` with ``params`` fitted on ``data`` (reconstructed
    first when the candidate names a reconstruction)."""
    target = spec.class_attribute
    model = _seeded(make_learner(candidate.learner, spec), random_state)
    if candidate.learner == "c45" and isinstance(params.get("min_leaf"), float):
        params = {**params, "min_leaf": max(2, int(round(params["min_leaf"] * len(data))))}
    if params:
        model.set_params(**params)
    if candidate.reconstruction is None:
        return model.fit(data)
    by_class = candidate.reconstruction == "by-class"
    table = reconstruct_frame(data, spec, by_class=by_class, random_state=random_state)
    return model.fit(_features(table, spec, target, candidate.learner), table[target])


_IMPORT_PATH = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")


def _import_class(path: str, name: str):
    module, _, cls = path.partition(":")
    try:
        return getattr(importlib.import_module(module), cls)
    except (ImportError, AttributeError) as exc:
        raise ParameterError(f"cannot import learner {name!r}: {exc}") from None


def resolve_learner(name: str, *, allow_import: bool = False) -> tuple[str, type]:
    """The registered name and class of a learner, without instantiating it.

    ``name`` is a key of :data:`LEARNERS` or :data:`RELEASE_LEARNERS` or its
    ``module:Class`` path; ``allow_import`` also accepts any other scikit-learn
    classifier as ``module:Class`` (importing runs its code: only classes you trust).
    """
    if not isinstance(name, str):
        raise ParameterError(
            f"learner must be a string naming one of {', '.join(_REGISTERED)} (got {name!r})"
        )
    by_path = {path: key for key, path in _REGISTERED.items()}
    key = name if name in _REGISTERED else by_path.get(name)
    if key is not None:
        return key, _import_class(_REGISTERED[key], name)
    shown = name if len(name) <= 80 else f"{name[:80]}..."
    if not allow_import:
        import difflib

        near = difflib.get_close_matches(name.lower().replace(".", ""), _REGISTERED, n=1)
        hint = f"did you mean {near[0]!r}? " if near else ""
        raise ParameterError(
            f"unknown learner {shown!r}; {hint}one of {', '.join(_REGISTERED)}, or a "
            "scikit-learn classifier as module:Class with --allow-import"
        )
    if not _IMPORT_PATH.match(name):
        raise ParameterError(
            f"learner must be 'module:Class', e.g. sklearn.svm:SVC (got {shown!r})"
        )
    cls = _import_class(name, shown)
    if not isinstance(cls, type) or not _is_classifier_class(cls):
        raise ParameterError(
            f"learner {shown!r} is not a scikit-learn classifier (a class with fit and predict)"
        )
    return name, cls


def _is_classifier_class(cls: type) -> bool:
    if not (callable(getattr(cls, "fit", None)) and callable(getattr(cls, "predict", None))):
        return False
    from sklearn.base import is_classifier

    try:
        return bool(is_classifier(cls()))
    except Exception:  # a class that cannot be built without arguments is no learner here
        return False


def make_learner(name: str, spec=None, *, allow_import: bool = False):
    """A fresh learner from its name (see :func:`resolve_learner`); a release learner is
    given the release's ``spec``."""
    key, cls = resolve_learner(name, allow_import=allow_import)
    return cls(spec=spec) if key in RELEASE_LEARNERS else cls()


def _features(frame: pd.DataFrame, spec, target: str, learner: str) -> pd.DataFrame:
    X = frame.drop(columns=[target])
    if learner == "c45" or learner in RELEASE_LEARNERS:
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


def _seeded(model, random_state):
    """``model`` with ``random_state`` set, if it has one (the same seed, the same model)."""
    get_params = getattr(model, "get_params", None)
    if random_state is not None and get_params is not None and "random_state" in get_params():
        model.set_params(random_state=random_state)
    return model


def _model_text(model) -> str:
    if hasattr(model, "export_text"):
        return model.export_text()
    from .tree import C45Classifier, export_text

    if isinstance(model, C45Classifier):
        return export_text(model)
    return repr(model)


def check_release_columns(spec: ReleaseSpec, frame: pd.DataFrame, name: str) -> None:
    """Raise :class:`DataError` naming ``name`` unless ``frame`` has the release's columns."""
    missing = [c for c in spec.names if c not in frame.columns]
    if missing:
        raise DataError(f"{name} lacks the release's columns {missing}")


def mine_release(
    release: Release | str | os.PathLike,
    test: pd.DataFrame,
    *,
    learner: str = "c45",
    reconstruction: str = "by-class",
    method: str = "set-scale",
    original: pd.DataFrame | None = None,
    random_state=0,
    allow_import: bool = False,
    test_name: str = "the test table",
) -> MiningResult:
    """Learn from a release and report test accuracy on original-domain test data.

    Parameters
    ----------
    release : Release or path
    test : DataFrame
        Original (unperturbed) test records, with the class column.
    learner : str, default="c45"
        A registered name (:data:`LEARNERS`, :data:`RELEASE_LEARNERS`) or its
        ``module:Class`` path; see :func:`resolve_learner`.
    reconstruction : {"global", "by-class"}, default="by-class"
        Algorithm 2 variant (ignored by ``release-tree``).
    method : str, default="set-scale"
        Estimation method behind the reconstruction.
    original : DataFrame, optional
        The original training table: the same learner is also fitted on it.
    random_state : int or None
        Tie breaking in the reconstruction.
    allow_import : bool, default=False
        Accept any scikit-learn classifier named ``module:Class`` (importing runs the
        module's code: only for modules you trust).
    test_name : str, default="the test table"
        How an error names ``test`` (the command line gives its flag and file).

    Returns
    -------
    MiningResult
    """
    key, _ = resolve_learner(learner, allow_import=allow_import)
    rel = load_release(release)
    spec = rel.spec
    target = spec.class_attribute
    if target is None:
        raise SpecError("the release names no class attribute: nothing to learn")
    check_choice(reconstruction, "reconstruction", ("global", "by-class"), error=ParameterError)
    for name, frame in (("test", test), ("original", original)):
        if frame is not None:
            check_release_columns(spec, frame, f"the {name} table")
    # the release's columns, in its order: another column (an id) is no feature
    test = _with_class(test[list(spec.names)], target, "test")
    if original is not None:
        original = _with_class(original[list(spec.names)], target, "original")
    y_test = test[target]
    if key in RELEASE_LEARNERS:
        model = _seeded(make_learner(key, spec), random_state).fit(rel.frame(check_values=True))
        recon_kind, used_method = None, None
    else:
        table = reconstruct_release(
            rel,
            None,
            method=method,
            by_class=reconstruction == "by-class",
            random_state=random_state,
        )
        model = _seeded(make_learner(learner, spec, allow_import=allow_import), random_state)
        model.fit(_features(table, spec, target, key), table[target])
        recon_kind, used_method = reconstruction, method
    _check_test_classes(model, y_test, test_name)
    with _predicting(test_name, learner, key in RELEASE_LEARNERS):
        predicted = model.predict(_features(test, spec, target, key))
    acc = float(np.mean(predicted == y_test.to_numpy()))
    orig_acc = None
    if original is not None:
        base_key = "c45" if key in RELEASE_LEARNERS else key  # C4.5 beside a release learner
        base = make_learner(base_key, spec, allow_import=allow_import)
        base.fit(_features(original, spec, target, base_key), original[target])
        orig_pred = base.predict(_features(test, spec, target, base_key))
        orig_acc = float(np.mean(orig_pred == y_test.to_numpy()))
    majority, _ = _majority_of_release(rel)
    rate = float(np.mean(y_test.to_numpy() == majority)) if len(y_test) else 0.0
    return MiningResult(
        learner,
        recon_kind,
        used_method,
        acc,
        orig_acc,
        _model_text(model),
        majority_class=majority,
        majority_rate=rate,
        n_test=len(y_test),
    )


def _check_test_classes(model, y_test: pd.Series, test_name: str) -> None:
    """A test table none of whose classes the release holds scores 0 % for a reason no
    learner can help (labels spelt otherwise: 'SETOSA' and 'setosa', 1 and 'yes'):
    refused. Some test records of a class the release never shows are counted, warned."""
    known = getattr(model, "classes_", None)
    if known is None or len(y_test) == 0:
        return
    as_text = {label_text(c) for c in known}  # 1, 1.0 and np.int64(1) are one label
    unseen = ~np.array([label_text(v) in as_text for v in y_test.tolist()], dtype=bool)
    if unseen.all():
        raise DataError(
            f"{test_name}: none of its classes {sorted(map(str, y_test.unique()))[:5]} is one "
            f"of the release's {sorted(as_text)[:5]}: the class labels differ (spelling, "
            "case or coding), so every prediction would be scored wrong"
        )
    if unseen.any():
        warnings.warn(
            f"{int(unseen.sum())} of the {len(y_test)} records of {test_name} have a class "
            "the release never shows; they are scored as wrong predictions",
            stacklevel=3,
        )


@contextmanager
def _predicting(test_name: str, learner: str, on_release: bool, c45: bool = True) -> Iterator[None]:
    """A test value a release learner cannot place (missing, outside its domain) is
    named with the test table, without advice meant for the data owner's flags."""
    try:
        yield
    except DomainError as exc:
        if not on_release:
            raise
        head = str(exc).split("; ", 1)[0]
        tail = ", or use --learner c45, which takes missing and unseen values as J48 does"
        raise DataError(
            f"{test_name}: {head}; {learner} predicts only values of the release's domains: "
            f"drop or fill such records{tail if c45 else ''}"
        ) from None


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _with_class(frame: pd.DataFrame, target: str, name: str) -> pd.DataFrame:
    """The records of ``frame`` that have a class; those without one are left out with a
    warning (a missing class is no answer to score a prediction against, nor to learn)."""
    missing = frame[target].isna()
    if not missing.any():
        return frame
    first = int(np.flatnonzero(missing.to_numpy())[0]) + 1
    warnings.warn(
        f"{int(missing.sum())} of the {name} table's {len(frame)} records have no class "
        f"(the first at data row {first}); they are left out",
        stacklevel=3,
    )
    return frame[~missing]


def _majority_of_release(rel: Release) -> tuple[object, float]:
    """The release's commonest class and its share of the records (estimated, set-scale,
    when the class was perturbed)."""
    from .estimate import estimate_counts

    spec = rel.spec
    name = spec.class_attribute
    counts: dict = {}
    for batch in rel.batches():
        for value, k in batch[name].value_counts(dropna=True).items():
            counts[value] = counts.get(value, 0) + int(k)
    a = spec.attribute(name)
    if a.perturbed:
        dom = a.get_domain()
        y = np.array([counts.get(v, 0) for v in dom.values], dtype=float)
        est = estimate_counts(y, a.get_matrix(), "set-scale", replicates=0).counts
        best = int(np.argmax(est))
        return dom.values[best], float(est[best] / max(est.sum(), 1e-12))
    majority = max(counts, key=lambda v: (counts[v], str(v)))
    return majority, counts[majority] / max(sum(counts.values()), 1)
