"""The guarantee per record (total epsilon, amplification of k attributes) and the
per-record budget ``--epsilon-record`` / ``epsilon_record``."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ppdm.exceptions import OptionError, PpdmError
from ppdm.options import PlanOptions
from ppdm.perturbation import plan_release
from ppdm.privacy import record_privacy, split_budget
from ppdm.release import ReleaseSpec, spec_json_schema
from ppdm.report import format_privacy_report, privacy_report


def _table(m: int, n_values: int, rows: int = 40) -> pd.DataFrame:
    """m categorical columns holding every one of n_values values, and a class."""
    codes = np.arange(rows) % n_values
    cols = {f"a{j}": np.roll(codes, j) for j in range(m)}
    return pd.DataFrame({**cols, "y": np.arange(rows) % 2})


def _plan(table: pd.DataFrame, **options) -> ReleaseSpec:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the domains come from the data: warned
        return plan_release(table, class_attribute="y", **options)


def test_twenty_attributes_at_gamma_9_spend_43_9_per_record():
    rec = record_privacy({f"a{j}": 9.0 for j in range(20)})
    assert rec["epsilon"] == pytest.approx(20 * math.log(9))  # 43.94
    assert rec["amplification"] == {
        "1": 9.0,
        "2": 81.0,
        "3": 729.0,
        "all": pytest.approx(9.0**20),
    }
    assert rec["budget"] is None and rec["within_budget"] is None


def test_copies_count_in_the_epsilon_and_the_product_of_the_largest_gammas():
    rec = record_privacy({"a": 2.0, "b": 5.0, "c": 3.0, "d": 1.5}, copies=2)
    assert rec["epsilon"] == pytest.approx(2 * math.log(2 * 5 * 3 * 1.5))
    assert rec["amplification"]["1"] == 25.0  # the largest gamma, squared
    assert rec["amplification"]["2"] == 25.0 * 9.0
    assert rec["amplification"]["3"] == 25.0 * 9.0 * 4.0
    assert rec["amplification"]["all"] == pytest.approx(25.0 * 9.0 * 4.0 * 2.25)
    unbounded = record_privacy({"a": math.inf, "b": 2.0})
    assert unbounded["epsilon"] is None and unbounded["amplification"]["1"] is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    budget=st.floats(1e-3, 300.0),
    m=st.integers(1, 6),
    copies=st.integers(1, 3),
    n_values=st.integers(2, 8),
    weights=st.lists(st.floats(0.01, 100.0), min_size=6, max_size=6),
)
def test_a_planned_release_never_spends_more_than_its_budget(budget, m, copies, n_values, weights):
    """Tolerance: none. The report's per-record epsilon (sum of copies ln gamma over the
    spec's gammas, as released) is at most E exactly, and spends E to 1e-9 relative."""
    table = _table(m, n_values)
    split = {f"a{j}": weights[j] for j in range(m)}
    try:
        spec = _plan(table, epsilon_record=budget, epsilon_split=split, copies=copies)
    except PpdmError as exc:  # a share no valid matrix has, or one that protects nothing
        assert "\n" not in str(exc)
        total = sum(split.values()) * copies
        low, top = (budget * f(split.values()) / total for f in (min, max))
        if isinstance(exc, OptionError):
            assert exc.field == "epsilon_record" and (math.exp(low) <= 1 or top > 690)
        else:  # the same gamma given without a budget is refused too (which protection
            # speaks first may differ: a matrix that almost never changes a value, or
            # copies that together reveal it)
            assert "allow_unprotected" in str(exc)
            with pytest.raises(PpdmError, match="allow_unprotected"):
                _plan(table, gamma=math.exp(top), copies=copies)
        return
    spent = privacy_report(spec)["per_record"]
    assert spent["epsilon"] <= budget
    assert spent["epsilon"] >= budget * (1 - 1e-9)
    assert spent["within_budget"] is True
    gammas = {a.name: a.matrix["gamma"] for a in spec.perturbed_attributes()}
    assert math.fsum(copies * math.log(g) for g in gammas.values()) <= budget  # as stated
    ratio = math.log(gammas["a0"]) / split["a0"]  # the split follows the weights
    for name, g in gammas.items():
        assert math.log(g) / split[name] == pytest.approx(ratio, rel=1e-9)


def test_the_equal_split_and_the_budget_recorded_in_the_spec():
    spec = _plan(_table(4, 5), epsilon_record=8.0, copies=2)
    gammas = {a.matrix["gamma"] for a in spec.perturbed_attributes()}
    assert len(gammas) == 1 and gammas.pop() == pytest.approx(math.exp(8.0 / (4 * 2)))
    assert spec.epsilon_record == 8.0 and spec.epsilon_split is None
    text = format_privacy_report(privacy_report(spec))
    assert "within the per-record budget 8" in text


def test_a_given_gamma_within_the_budget_is_kept_and_one_over_it_refused():
    spec = _plan(_table(3, 4), epsilon_record=4.0, gamma=3.0)  # 3 ln 3 = 3.30
    assert {a.matrix["gamma"] for a in spec.perturbed_attributes()} == {3.0}
    with pytest.raises(OptionError, match=r"^gamma 9 gives a per-record epsilon of 6\.592 ") as e:
        _plan(_table(3, 4), epsilon_record=4.0, gamma=9.0)
    assert e.value.field == "gamma" and "over the per-record budget 4" in str(e.value)


def test_a_spec_whose_gammas_exceed_its_budget_is_refused():
    spec = ReleaseSpec.model_validate(
        {
            "epsilon_record": 3.0,
            "attributes": [
                {"name": "a0", "matrix": {"kind": "gamma-diagonal", "gamma": 9.0}},
                {"name": "a1", "matrix": {"kind": "gamma-diagonal", "gamma": 9.0}},
            ],
        }
    )
    with pytest.raises(
        OptionError, match="spec's matrices give a per-record epsilon of 4.394"
    ) as e:
        _plan(_table(2, 3), spec=spec)
    assert e.value.field == "spec"
    # the budget left by a0's own matrix is a1's
    spec = spec.model_copy(update={"epsilon_record": 5.0, "attributes": spec.attributes[:1]})
    planned = _plan(_table(2, 3), spec=spec)
    assert planned.attribute("a1").matrix["gamma"] == pytest.approx(math.exp(5.0 - math.log(9)))
    assert privacy_report(planned)["per_record"]["epsilon"] <= 5.0


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"epsilon_record": 0}, "epsilon_record"),
        ({"epsilon_record": -1.0}, "epsilon_record"),
        ({"epsilon_record": math.nan}, "epsilon_record"),
        ({"epsilon_record": math.inf}, "epsilon_record"),
        ({"epsilon_record": "much"}, "epsilon_record"),
        ({"epsilon_split": {"a": 1.0}}, "epsilon_split"),
        ({"epsilon_record": 3.0, "epsilon_split": {"a": 0.0}}, "epsilon_split"),
        ({"epsilon_record": 3.0, "method": "additive"}, "epsilon_record"),
    ],
)
def test_bad_budget_options_are_refused_by_name(options, field):
    with pytest.raises(OptionError) as e:
        PlanOptions(**options)
    assert e.value.field == field and "\n" not in str(e.value)


def test_split_budget_lowers_a_gamma_rounded_up():
    # exp(E/m) rounds up for some E: the split steps it down until the sum is within E
    for e in np.linspace(0.1, 50, 400):
        gammas = split_budget(float(e), dict.fromkeys("abcdefg", 1.0), copies=3)
        assert record_privacy(gammas, 3)["epsilon"] <= e


def test_the_spec_schema_covers_the_budget():
    props = spec_json_schema()["properties"]
    assert props["epsilon_record"]["anyOf"][0]["exclusiveMinimum"] == 0
    assert "epsilon_split" in props
    with pytest.raises(ValueError, match="epsilon_record"):
        ReleaseSpec.model_validate({"epsilon_record": -1, "attributes": []})


def test_spec_schema_command_prints_the_budget(run_cli):
    code, out, _ = run_cli("spec", "schema")
    assert code == 0
    assert {"epsilon_record", "epsilon_split"} <= set(json.loads(out)["properties"])


# --- the command line ------------------------------------------------------------------


@pytest.fixture
def wide(tmp_path):
    path = tmp_path / "wide.csv"
    _table(20, 5, rows=200).to_csv(path, index=False)
    return path


def test_privacy_txt_and_html_show_the_per_record_lines(run_cli, tmp_path, wide):
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", wide, "--out", rel, "--class", "y", "--seed", "3")
    assert code == 0, err
    text = (rel / "privacy.txt").read_text()
    assert "per record (20 perturbed attributes):" in text
    assert "epsilon per record: 43.9 " in text
    assert "a property of 2 attributes: amplification up to 81\n" in text
    assert "a property of 3 attributes: amplification up to 729\n" in text
    assert "a property of all 20 attributes: amplification up to 1.216e+19" in text
    assert "unprotected (released as is or revealed): y" in text
    saved = json.loads((rel / "privacy.json").read_text())["per_record"]
    assert saved["epsilon"] == pytest.approx(20 * math.log(9)) and saved["budget"] is None
    assert "epsilon_record" not in (rel / "spec.json").read_text()  # none asked, none written
    page = tmp_path / "r.html"
    code, out, err = run_cli("report", rel, "--html", page)
    assert code == 0, err
    assert "epsilon per record: 43.9 " in out
    html = page.read_text()
    assert "<b>Per record</b> (20 perturbed attributes)" in html
    assert "<td>43.9</td>" in html and "<td>729</td>" in html


def test_the_budget_flag_plans_and_the_report_says_within(run_cli, tmp_path, wide):
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", wide, "--out", rel, "--class", "y", "--seed", "3",
        "--epsilon-record", "30", "--epsilon-split", "a0=3,a1=2",
    )  # fmt: skip
    assert code == 0, err
    spec = json.loads((rel / "spec.json").read_text())
    assert spec["epsilon_record"] == 30 and spec["epsilon_split"] == {"a0": 3, "a1": 2}
    gammas = {a["name"]: a["matrix"]["gamma"] for a in spec["attributes"] if a["perturbed"]}
    assert gammas["a0"] == pytest.approx(math.exp(30 * 3 / 23))
    assert "within the per-record budget 30" in (rel / "privacy.txt").read_text()
    assert json.loads((rel / "privacy.json").read_text())["per_record"]["within_budget"] is True
    code, _, err = run_cli("report", rel, "--html", tmp_path / "r.html")
    assert "within the per-record budget <b>30</b>" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize(
    ("args", "start"),
    [
        (["--epsilon-record", "10", "--gamma", "9"], "error: --gamma 9 gives a per-record "
         "epsilon of 43.94 (20 perturbed attributes x 1 copy), over the per-record budget 10"),
        (["--epsilon-record", "0"], "error: --epsilon-record must be > 0 (got 0.0)"),
        (["--epsilon-record", "nan"], "error: --epsilon-record must be a finite number > 0"),
        (["--epsilon-record", "inf"], "error: --epsilon-record must be a finite number > 0"),
        (["--epsilon-record", "lots"], "error: Invalid value for '--epsilon-record'"),
        (["--epsilon-record", "5", "--epsilon-split", "zz=1"], "error: --epsilon-split names ['zz']"),
        (["--epsilon-record", "5", "--epsilon-split", "a0"], "error: --epsilon-split: expected COL=WEIGHT"),
        (["--epsilon-record", "5", "--epsilon-split", "a0=-1"], "error: --epsilon-split weight of 'a0' must be > 0"),
    ],
)  # fmt: skip
def test_a_plan_over_the_budget_or_a_bad_budget_is_one_line_exit_2(
    run_cli, tmp_path, wide, args, start
):
    rel = tmp_path / "rel"
    code, _, err = run_cli("perturb", wide, "--out", rel, "--class", "y", *args)
    assert code == 2
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and errors[0].startswith(start), err
    assert "Traceback" not in err and not rel.exists()


def test_an_additive_release_says_it_has_no_per_record_epsilon(run_cli, tmp_path):
    path = tmp_path / "num.csv"
    pd.DataFrame({"x": np.linspace(0, 1, 50), "z": np.linspace(5, 9, 50)}).to_csv(path, index=False)
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", path, "--out", rel, "--method", "additive", "--bounds", "x=0:1",
        "--bounds", "z=5:9", "--seed", "1",
    )  # fmt: skip
    assert code == 0, err
    text = (rel / "privacy.txt").read_text()
    assert "per record (2 perturbed attributes):" in text
    assert "epsilon per record: none (additive noise has no amplification bound" in text
    assert json.loads((rel / "privacy.json").read_text())["per_record"]["epsilon"] is None


def test_report_of_a_spec_file_plans_its_budget_or_refuses_it(run_cli, tmp_path):
    cats = {"kind": "categorical", "values": [0, 1, 2, 3, 4]}
    spec = {
        "epsilon_record": 5,
        "attributes": [
            {"name": "a0", "domain": cats, "matrix": {"kind": "gamma-diagonal", "gamma": 3}},
            {"name": "a1", "domain": cats},
        ],
    }
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    code, out, err = run_cli("report", path)
    assert code == 0, err
    assert "epsilon per record: 5.0 " in out and "within the per-record budget 5" in out
    path.write_text(json.dumps({**spec, "epsilon_record": 1}))
    code, out, err = run_cli("report", path)
    assert code == 1 and out == ""
    assert err == (
        f"error: spec {str(path)!r}: the spec's matrices give a per-record epsilon of 1.099, "
        "over the per-record budget 1\n"
    )


def test_perturb_refuses_a_spec_over_the_budget_naming_the_flag(run_cli, tmp_path, wide):
    spec = tmp_path / "spec.json"
    gammas = [{"name": f"a{j}", "matrix": {"kind": "gamma-diagonal", "gamma": 9}} for j in (0, 1)]
    spec.write_text(json.dumps({"attributes": gammas}))
    rel = tmp_path / "rel"
    code, _, err = run_cli(
        "perturb", wide, "--out", rel, "--class", "y", "--spec", spec, "--epsilon-record", "4"
    )
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and not rel.exists()
    assert errors == [
        "error: --spec: the spec's matrices give a per-record epsilon of 4.394, over the "
        "per-record budget 4"
    ]
