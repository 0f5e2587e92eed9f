"""The scikit-learn estimator contract and input handling of C45Classifier."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from ppdm.datasets import load_wisconsin
from ppdm.exceptions import DataError, NotFittedError, ParameterError
from ppdm.tree import C45Classifier, export_text

from .conftest import synthetic


@pytest.fixture(scope="module")
def wisc():
    d = load_wisconsin()
    return d.X, d.y


@pytest.fixture(scope="module")
def mixed():
    df = synthetic(400, 0, 0.1)
    return df.drop(columns="cls"), df["cls"]


def test_get_params_round_trip_and_defaults():
    clf = C45Classifier(confidence=0.1, min_leaf=5, unpruned=True)
    params = clf.get_params()
    assert params["confidence"] == 0.1 and params["min_leaf"] == 5 and params["unpruned"] is True
    assert C45Classifier(**params).get_params() == params
    assert C45Classifier().get_params()["confidence"] == 0.25
    clf.set_params(min_leaf=3)
    assert clf.min_leaf == 3


def test_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        C45Classifier(0.25)  # type: ignore[misc]


def test_clone_and_pickle_keep_the_tree(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    twin = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(twin.predict(X), clf.predict(X))
    assert str(twin) == str(clf)
    fresh = clone(clf)
    assert not hasattr(fresh, "tree_")
    assert fresh.get_params() == clf.get_params()


def test_fit_twice_gives_the_same_tree(mixed):
    X, y = mixed
    clf = C45Classifier()
    first = export_text(clf.fit(X, y))
    assert export_text(clf.fit(X, y)) == first
    assert export_text(C45Classifier().fit(X, y)) == first


def test_inputs_not_mutated(mixed):
    X, y = mixed
    X0, y0 = X.copy(), y.copy()
    w = np.ones(len(y))
    C45Classifier(class_weight="balanced").fit(X, y, sample_weight=w).predict(X)
    pd.testing.assert_frame_equal(X, X0)
    pd.testing.assert_series_equal(y, y0)
    assert (w == 1).all()


def test_fit_does_not_rewrite_params(mixed):
    X, y = mixed
    clf = C45Classifier(categorical_features=None, class_weight=None)
    clf.fit(X, y)
    assert clf.categorical_features is None and clf.class_weight is None


def test_unfitted_error_is_clear(wisc):
    with pytest.raises(NotFittedError, match="not fitted"):
        C45Classifier().predict(wisc[0])
    assert issubclass(NotFittedError, ValueError) and issubclass(NotFittedError, AttributeError)


def test_fitted_attributes(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    assert clf.classes_.tolist() == ["maybe", "no", "yes"]
    assert clf.n_features_in_ == 5
    assert clf.feature_names_in_.tolist() == list(X.columns)
    assert clf.categories_[0].tolist() == ["blue", "green", "red"]
    proba = clf.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert 0.0 <= clf.score(X, y) <= 1.0


def test_numpy_and_dataframe_give_the_same_tree(wisc):
    X, y = wisc
    a = C45Classifier().fit(X, y)
    b = C45Classifier().fit(X.to_numpy(), y.to_numpy())
    np.testing.assert_array_equal(a.predict(X), b.predict(X.to_numpy()))
    assert a.tree_.n_nodes == b.tree_.n_nodes
    assert not hasattr(b, "feature_names_in_")


def test_works_in_pipeline_and_cross_validation(wisc):
    X, y = wisc
    pipe = make_pipeline(FunctionTransformer(), C45Classifier())
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.9


def test_categorical_features_explicit(wisc):
    X, y = wisc
    clf = C45Classifier(categorical_features=list(X.columns)).fit(X, y)
    assert clf.categorical_.all()
    assert clf.categories_[1].tolist() == list(range(1, 11))
    root = export_text(clf, header=False).splitlines()[0]
    assert " = 1" in root
    mask = [False] * X.shape[1]
    mask[1] = True
    by_mask = C45Classifier(categorical_features=mask).fit(X, y)
    assert by_mask.categorical_.tolist() == mask
    assert C45Classifier(categorical_features=[1]).fit(X, y).categorical_.tolist() == mask


def test_sample_weight_integer_close_to_duplication(mixed):
    # J48 counts rows, not weight, in one rule (enough known values to split a
    # numeric attribute), so weight 2 and a duplicated row agree only nearly.
    X, y = mixed
    w = np.where(np.arange(len(y)) % 3 == 0, 2.0, 1.0)
    weighted = C45Classifier().fit(X, y, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    duplicated = C45Classifier().fit(X.iloc[rep], y.iloc[rep])
    assert export_text(weighted).splitlines()[3] == export_text(duplicated).splitlines()[3]
    agree = np.mean(weighted.predict(X) == duplicated.predict(X))
    assert agree > 0.97
    np.testing.assert_allclose(weighted.tree_.value[0], duplicated.tree_.value[0])


def test_class_weight_shifts_predictions(mixed):
    X, y = mixed
    plain = C45Classifier().fit(X, y)
    heavy = C45Classifier(class_weight={"maybe": 10.0}).fit(X, y)
    assert (heavy.predict(X) == "maybe").sum() > (plain.predict(X) == "maybe").sum()
    balanced = C45Classifier(class_weight="balanced").fit(X, y)
    assert export_text(balanced) != export_text(plain)


def test_missing_values_at_predict_time_mix_branches(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    row = X.iloc[[0]].copy()
    row.loc[:, :] = np.nan
    proba = clf.predict_proba(row)
    prior = clf.tree_.value[0] / clf.tree_.value[0].sum()
    # a row missing everything spreads over all leaves by training weight -> class prior
    np.testing.assert_allclose(proba[0], prior, atol=1e-9)


def test_rows_with_missing_labels_are_dropped(wisc):
    X, y = wisc
    y2 = y.astype(float).copy()
    y2.iloc[:10] = np.nan
    clf = C45Classifier().fit(X, y2)
    ref = C45Classifier().fit(X.iloc[10:], y.iloc[10:].astype(float))
    assert export_text(clf) == export_text(ref)


# ---- bad input -----------------------------------------------------------------


def test_single_class_is_an_error(wisc):
    X, _ = wisc
    with pytest.raises(DataError, match=r"y has one class, 1\.0; a classifier needs") as err:
        C45Classifier().fit(X, np.ones(len(X)))
    assert "np." not in str(err.value)


def test_constant_features_only_is_an_error():
    X = np.ones((20, 3))
    y = np.arange(20) % 2
    with pytest.raises(DataError, match="every feature is constant"):
        C45Classifier().fit(X, y)


def test_one_constant_feature_among_others_is_fine(wisc):
    X, y = wisc
    X = X.assign(const=1)
    clf = C45Classifier().fit(X, y)
    assert "const" not in export_text(clf)


def test_column_mismatch_is_an_error(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    with pytest.raises(DataError, match=r"missing \['c'\]"):
        clf.predict(X.drop(columns="c"))
    with pytest.raises(DataError, match="unexpected"):
        clf.predict(X.assign(extra=1))
    with pytest.raises(DataError, match="expecting 5 features"):
        C45Classifier().fit(X.to_numpy(), y).predict(np.zeros((2, 4)))


def test_columns_in_another_order_are_matched_by_name(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    np.testing.assert_array_equal(clf.predict(X[X.columns[::-1]]), clf.predict(X))


def test_unknown_category_warns_and_is_treated_as_missing(mixed):
    X, y = mixed
    clf = C45Classifier().fit(X, y)
    row = X.iloc[[0]].copy()
    row["color"] = "purple"
    with pytest.warns(UserWarning, match="'color'.*not seen at fit"):
        p_unknown = clf.predict_proba(row)
    row["color"] = np.nan
    np.testing.assert_allclose(p_unknown, clf.predict_proba(row))


def test_numeric_column_with_text_is_an_error(wisc):
    X, y = wisc
    clf = C45Classifier().fit(X, y)
    bad = X.astype(object)
    bad.iloc[0, 0] = "ten"
    with pytest.raises(DataError, match="'clump_thickness'.*'ten'"):
        clf.predict(bad)


@pytest.mark.parametrize(
    ("param", "value", "match"),
    [
        ("confidence", 0.0, r"confidence must be a number in \(0, 0.5\] \(got 0.0\)"),
        ("confidence", 0.7, "confidence must be"),
        ("min_leaf", 0, r"min_leaf must be an integer >= 1 \(got 0\)"),
        ("min_leaf", 2.5, "min_leaf must be"),
        ("unpruned", "yes", "unpruned must be True or False"),
        ("class_weight", "auto", "class_weight must be"),
    ],
)
def test_bad_parameters_name_the_parameter(wisc, param, value, match):
    X, y = wisc
    with pytest.raises(ParameterError, match=match):
        C45Classifier(**{param: value}).fit(X, y)


def test_bad_shapes_and_weights(wisc):
    X, y = wisc
    with pytest.raises(DataError, match="rows but y has"):
        C45Classifier().fit(X, y[:-1])
    with pytest.raises(DataError, match="2-D"):
        C45Classifier().fit(np.arange(5), [0, 1, 0, 1, 0])
    with pytest.raises(DataError, match="sample_weight"):
        C45Classifier().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(DataError, match="class_weight names classes not in y"):
        C45Classifier(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(DataError, match="infinite"):
        C45Classifier().fit(X.assign(clump_thickness=np.inf), y)
