"""PlanOptions: one validated object of release-plan options, and the shared validators."""

from __future__ import annotations

import dataclasses
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from ppdm.engine import plan_release_partitions
from ppdm.exceptions import MatrixError, OptionError, ParameterError, SpecError
from ppdm.options import PlanOptions, plan_options
from ppdm.perturbation import plan_release
from ppdm.pipeline import make_release
from ppdm.validation import (
    check_amplification,
    check_at_least,
    check_choice,
    check_gamma,
    check_int,
    check_positive,
    check_probability,
)


@pytest.fixture
def table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "age": rng.integers(20, 80, 200),
            "city": rng.choice(["a", "b", "c"], 200),
            "y": rng.choice(["yes", "no"], 200),
        }
    )


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


BAD = [
    ({"gamma": 0.5}, "gamma", "gamma must be > 1 (got 0.5)"),
    ({"gamma": np.float64(1.0)}, "gamma", "gamma must be > 1 (got 1.0)"),
    ({"gamma": float("nan")}, "gamma", "gamma must be > 1 (got nan)"),
    ({"gamma": "abc"}, "gamma", "gamma must be a number > 1 (got 'abc')"),
    ({"n_bins": 1}, "n_bins", "n_bins (N) must be >= 2 (got 1)"),
    ({"n_bins": 2.5}, "n_bins", "n_bins must be a whole number (got 2.5)"),
    ({"n_bins": 10**7}, "n_bins", "n_bins is 10000000, above the cap"),
    ({"n_bins": 4096, "method": "additive"}, "n_bins", "with dense N x N matrices"),
    ({"max_bins": 1}, "max_bins", "max_bins must be an integer >= 2 (got 1)"),
    ({"copies": 0}, "copies", "copies must be >= 1 (got 0)"),
    ({"copies": np.int64(5000)}, "copies", "copies is 5000, above the cap of 1000"),
    ({"copies": 2, "method": "additive"}, "copies", "copies is for substitution releases"),
    ({"noise_scale": 0}, "noise_scale", "noise_scale must be > 0 (got 0)"),
    ({"noise_scale": float("inf")}, "noise_scale", "must be a finite number > 0 (got inf)"),
    ({"method": "magic"}, "method", "method must be one of 'substitution', 'additive'"),
    ({"missing": "drop"}, "missing", "missing must be one of 'error', 'category'"),
    ({"out_of_bounds": "wrap"}, "out_of_bounds", "out_of_bounds must be one of"),
    ({"representative": "mid"}, "representative", "representative must be one of"),
    ({"noise": "laplace"}, "noise", "noise must be one of 'uniform', 'gaussian'"),
    ({"bounds": {"age": (80, 20)}}, "bounds", "bounds for 'age' must have low < high"),
    ({"bounds": {"age": (0, float("inf"))}}, "bounds", "bounds for 'age' must be finite"),
    ({"bounds": {"age": (-1e308, 1e308)}}, "bounds", "high - low a finite number"),
    ({"bounds": {"age": ("a", "b")}}, "bounds", "bounds for 'age' must be two numbers"),
    ({"bounds": {"age": (1, 2, 3)}}, "bounds", "bounds for 'age' must be two numbers"),
    ({"bounds": [("age", (0, 1)), ("age", (0, 2))]}, "bounds", "name a column twice"),
    ({"attributes": "age"}, "attributes", "attributes must be a list of column names"),
    ({"attributes": ["age", "age"]}, "attributes", "attributes names a column twice"),
    ({"attributes": ["age", 3]}, "attributes", "a column name must be text (got 3)"),
    ({"class_attribute": 3}, "class_attribute", "class_attribute must be a column name"),
    ({"spec": {"attributes": []}}, "spec", "spec must be a ReleaseSpec (got dict)"),
    (
        {"class_attribute": "y", "attributes": ["age", "y"]},
        "attributes",
        "attributes names the class column 'y', which is released as is",
    ),
]


@pytest.mark.parametrize(("options", "field", "message"), BAD, ids=[b[1] for b in BAD])
def test_a_bad_option_is_one_line_naming_the_field_and_value(options, field, message):
    with pytest.raises(OptionError) as info:
        PlanOptions(**options)
    assert info.value.field == field
    text = str(info.value)
    assert text.startswith(field) and message in text, text
    assert "\n" not in text and "np." not in text
    assert isinstance(info.value, SpecError)  # callers catching SpecError still do


def test_bad_options_fail_before_the_data_is_read():
    def batches():
        raise AssertionError("the data was read")
        yield  # pragma: no cover

    with pytest.raises(OptionError, match="gamma"):
        plan_release(batches(), gamma=1)
    with pytest.raises(OptionError, match="copies"):
        plan_release(batches(), PlanOptions(), copies=0)


def test_keywords_and_the_options_object_plan_the_same(table):
    keywords = dict(class_attribute="y", gamma=19, n_bins=8, bounds={"age": (20, 80)})
    by_keywords = _quiet(plan_release, table, **keywords)
    by_object = _quiet(plan_release, table, options=PlanOptions(**keywords))
    assert by_keywords == by_object
    assert by_object.attributes[0].matrix["gamma"] == 19
    assert by_object.attributes[0].domain["n_bins"] == 8


def test_keywords_replace_fields_of_the_options(table):
    base = PlanOptions(class_attribute="y", gamma=19)
    spec = _quiet(plan_release, table, base, gamma=3)
    assert {a.matrix["gamma"] for a in spec.perturbed_attributes()} == {3}
    assert base.gamma == 19  # the object given is unchanged
    with pytest.raises(OptionError, match="gamma must be > 1"):
        plan_options(base, gamma=0)
    with pytest.raises(ParameterError, match="options must be a PlanOptions"):
        plan_options({"gamma": 9})
    with pytest.raises(TypeError, match="unexpected keyword"):
        plan_release(table, gama=9)


def test_options_are_frozen_hashable_and_pickle():
    opts = PlanOptions(class_attribute="y", bounds={"age": (20, 80)}, attributes=["age"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.gamma = 2.0  # type: ignore[misc]
    assert hash(opts) == hash(
        PlanOptions(class_attribute="y", bounds=[("age", (20, 80))], attributes=("age",))
    )
    assert pickle.loads(pickle.dumps(opts)) == opts
    err = pickle.loads(pickle.dumps(OptionError("gamma", "gamma must be > 1 (got 0)")))
    assert err.field == "gamma" and str(err) == "gamma must be > 1 (got 0)"


def test_options_never_modify_what_they_are_given():
    bounds, attributes = {"age": [20, 80]}, ["age", "city"]
    opts = PlanOptions(bounds=bounds, attributes=attributes)
    assert bounds == {"age": [20, 80]} and attributes == ["age", "city"]
    assert opts.bounds == (("age", (20.0, 80.0)),) and opts.bounds_of("age") == (20.0, 80.0)
    assert opts.bounds_of("city") is None and opts.attributes == ("age", "city")


def test_class_column_comes_from_the_spec(table):
    from ppdm.release import AttributeSpec, ReleaseSpec

    spec = ReleaseSpec(class_attribute="y", attributes=[AttributeSpec(name="y", perturbed=False)])
    assert PlanOptions(spec=spec).class_column == "y"
    with pytest.raises(OptionError, match="names the class column 'y'"):
        PlanOptions(spec=spec, attributes=["y"])
    with pytest.raises(OptionError, match="the spec marks the class 'y' perturbed: false"):
        PlanOptions(spec=spec, attributes=["y"], perturb_class=True)
    bare = ReleaseSpec(class_attribute="y", attributes=[])
    assert PlanOptions(spec=bare, attributes=["y"], perturb_class=True).class_column == "y"


def test_every_planner_takes_the_options_object(table, tmp_path):
    opts = PlanOptions(class_attribute="y", gamma=19, n_bins=6)
    expected = _quiet(plan_release, table, opts)
    assert _quiet(plan_release_partitions, [table.iloc[:90], table.iloc[90:]], opts) == expected
    written = _quiet(make_release, table, tmp_path / "rel", random_state=1, options=opts)
    assert written.model_copy(update={"data_file": None, "n_records": None}) == expected
    with pytest.raises(OptionError, match="n_bins"):
        make_release(table, tmp_path / "bad", options=opts, n_bins=1)
    assert not (tmp_path / "bad").exists()


# -- the shared validators -------------------------------------------------------------


def test_check_gamma_is_the_one_implementation():
    import ppdm.matrix
    import ppdm.privacy

    assert ppdm.matrix.check_gamma is check_gamma
    with pytest.raises(MatrixError, match=r"gamma must be > 1 \(got 0.5\)"):
        check_gamma(np.float64(0.5))
    with pytest.raises(SpecError, match=r"--gamma must be a number > 1 \(got None\)"):
        check_gamma(None, "--gamma", error=SpecError)
    assert check_gamma(np.int64(3)) == 3.0 and type(check_gamma(np.int64(3))) is float
    with pytest.raises(ParameterError, match=r"rho1 must be in \(0, 1\) \(got 1.0\)"):
        ppdm.privacy.rho2_from_gamma(9, np.float64(1.0))
    with pytest.raises(ParameterError, match=r"gamma must be >= 1 \(got 0.5\)"):
        ppdm.privacy.rho2_from_gamma(0.5, 0.1)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: check_amplification(0.9), r"gamma must be >= 1 \(got 0.9\)"),
        (lambda: check_probability(0, "p"), r"p must be in \(0, 1\) \(got 0\)"),
        (lambda: check_probability(1.5, "p", closed=True), r"p must be in \[0, 1\]"),
        (lambda: check_probability("x", "p"), r"p must be a number in \(0, 1\)"),
        (lambda: check_positive(-1, "tol"), r"tol must be > 0 \(got -1\)"),
        (lambda: check_int(True, "m"), r"m must be an integer >= 1 \(got True\)"),
        (lambda: check_int(2.0, "m"), r"m must be an integer >= 1 \(got 2.0\)"),
        (lambda: check_at_least(np.int64(0), "--jobs", 1), r"--jobs must be >= 1 \(got 0\)"),
        (lambda: check_choice(None, "kind", ("a",)), r"kind must be one of 'a' \(got None\)"),
    ],
)
def test_validators_name_the_value_plainly(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_validators_accept_the_edges():
    assert check_amplification(float("inf")) == float("inf") and check_amplification(1) == 1.0
    assert check_probability(0, "p", closed=True) == 0.0
    assert check_probability(1, "p", closed=True) == 1.0
    assert check_int(np.int64(2), "N", low=2) == 2
    assert check_positive(1e-300, "x") == 1e-300


def test_matrix_parameters_use_the_shared_checks():
    from ppdm.matrix import GammaDiagonal, binary_randomization

    with pytest.raises(MatrixError, match=r"^p1 must be in \[0, 1\] \(got 1.5\)$"):
        binary_randomization(np.float64(1.5), 0.1)
    with pytest.raises(MatrixError, match=r"^N must be an integer >= 2 \(got 1\)$"):
        GammaDiagonal(np.int64(1), 9.0)


def test_options_never_silently_override_the_spec():
    # --class against the spec's class replaced it (and perturbed the spec's class);
    # --bounds of an attribute whose domain the spec gives were ignored
    from ppdm.exceptions import OptionError
    from ppdm.options import PlanOptions
    from ppdm.release import ReleaseSpec

    spec = ReleaseSpec.model_validate(
        {
            "class_attribute": "target",
            "attributes": [
                {"name": "age", "domain": {"kind": "binned", "low": 0, "high": 1, "n_bins": 4}},
                {"name": "sex", "perturbed": False},
            ],
        }
    )
    with pytest.raises(OptionError, match="differs from the spec's class attribute 'target'"):
        PlanOptions(class_attribute="sex", spec=spec)
    with pytest.raises(OptionError, match=r"bounds are given for \['age'\], whose domain"):
        PlanOptions(spec=spec, bounds={"age": (0, 2)})
    ok = PlanOptions(class_attribute="target", spec=spec, bounds={"bmi": (0, 2)})
    assert ok.class_column == "target" and ok.bounds_of("bmi") == (0.0, 2.0)


def test_repeated_bounds_flag_is_a_usage_error(run_cli, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("age,y\n1,a\n2,b\n3,a\n")
    code, _, err = run_cli("perturb", path, "--out", tmp_path / "r", "--class", "y",
                           "--bounds", "age=0:5", "--bounds", "age=0:9")  # fmt: skip
    assert code == 2 and "--bounds names 'age' twice" in err and not (tmp_path / "r").exists()


def test_the_spec_and_the_options_agree_on_class_copies_and_attributes(table, tmp_path):
    # a spec that gave the class a matrix perturbed it while the release said
    # class_perturbed: false; its copies and class_perturbed were dropped, and
    # --attributes of a column it kept was ignored
    from ppdm.release import ReleaseSpec

    entry = {"name": "y", "domain": {"kind": "categorical", "values": ["no", "yes"]}}
    spec = ReleaseSpec.model_validate({"class_attribute": "y", "attributes": [entry]})
    with pytest.raises(OptionError, match="gives the class 'y' a perturbed entry"):
        PlanOptions(spec=spec)
    opts = PlanOptions(spec=spec, perturb_class=True, bounds={"age": (0, 100)})
    written = _quiet(make_release, table, tmp_path / "rel", random_state=1, options=opts)
    assert written.class_perturbed is True
    three = ReleaseSpec.model_validate({"class_attribute": "y", "copies": 3, "attributes": []})
    with pytest.raises(OptionError, match="copies is 1 but the spec asks for 3"):
        PlanOptions(spec=three)
    marked = ReleaseSpec.model_validate({"attributes": [{"name": "age", "perturbed": False}]})
    with pytest.raises(OptionError, match=r"attributes names \['age'\], which the spec marks"):
        PlanOptions(spec=marked, attributes=["age"])
