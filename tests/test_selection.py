"""Mining a release with no original data: the chosen learner and its estimated accuracy."""

import warnings

import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.datasets import agrawal
from ppdm.exceptions import DataError, SpecError
from ppdm.mining import Candidate
from ppdm.pipeline import load_release, make_release
from ppdm.selection import CandidateScore, mine, one_se_choice


def _release(tmp_path, n, name="r", **kw):
    df = agrawal(n, function=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / name, gamma=9, random_state=1, **kw)
    return df


def test_one_se_rule_takes_the_simplest_within_one_se_of_the_best():
    deep = Candidate("deep", "release-tree", (("max_depth", 12), ("min_leaf", 0.005)))
    shallow = Candidate("shallow", "release-tree", (("max_depth", 4), ("min_leaf", 0.02)))
    forest = Candidate("forest", "release-forest")
    pool = [forest, deep, shallow]
    scores = [CandidateScore("forest", 0.90, 0.02), CandidateScore("deep", 0.89, 0.01),
              CandidateScore("shallow", 0.885, 0.01)]  # fmt: skip
    assert pool[one_se_choice(pool, scores)] is shallow  # 0.885 >= 0.90 - 0.02
    scores[2] = CandidateScore("shallow", 0.85, 0.01)
    assert pool[one_se_choice(pool, scores)] is deep
    scores[2] = CandidateScore("shallow", reason="not scorable")
    scores[1] = CandidateScore("deep", 0.70, 0.01)
    assert pool[one_se_choice(pool, scores)] is forest


def test_estimate_covers_the_accuracy_measured_on_original_records(tmp_path):
    # the held-out estimate is a mean of independent unbiased summands: measured accuracy
    # on 20,000 original records (binomial s.e. <= 0.0035) lies within 4 s.e. of it but
    # with probability < 1e-4 under normality
    df = _release(tmp_path, 6000, class_attribute="group")
    test = agrawal(20_000, function=1, random_state=7)
    r = mine(load_release(tmp_path / "r"), test=test, random_state=0)
    se = (r.stderr**2 + r.measured * (1 - r.measured) / len(test)) ** 0.5
    assert abs(r.estimate - r.measured) < 4 * se
    assert r.majority_rate == pytest.approx((df["group"] == r.majority_class).mean())
    assert next(c for c in r.candidates if c.label.startswith("c45")).scorable


def test_errors(tmp_path):
    _release(tmp_path, 200, "n")
    with pytest.raises(SpecError, match="no class"):
        mine(tmp_path / "n")
    _release(tmp_path, 4, "s", class_attribute="group")
    with pytest.raises(DataError, match="too few"):
        mine(tmp_path / "s")


def test_cli_prints_learner_estimate_and_majority(tmp_path):
    _release(tmp_path, 3000, class_attribute="group")
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    assert "learner: release-tree depth 4" in out.output
    assert "estimated accuracy on the original data: " in out.output and " ± " in out.output
    assert "majority-class rate" in out.output
    forced = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", "release-forest"])
    assert "learner: release-forest" in forced.output and "candidates" not in forced.output
    _release(tmp_path, 200, "n")
    bad = CliRunner().invoke(app, ["mine", str(tmp_path / "n")])
    assert bad.exit_code == 1 and "no class attribute" in bad.output
