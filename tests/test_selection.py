"""Mining a release with no original data: the chosen learner and its estimated accuracy."""

import re
import warnings

import numpy as np
import pandas as pd
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


def test_one_se_rule_takes_the_fewest_leaves_whatever_the_learner():
    # CART's rule takes the smallest tree in the band: C4.5 with 3 leaves before a release
    # tree with 4 (synth5, gamma 9: 0.74 measured against 0.66); the kind only breaks ties
    tree = Candidate("tree", "release-tree", (("max_depth", 4), ("min_leaf", 0.02)))
    cut = Candidate("cut", "c45", (("max_depth", 4),), "by-class")
    forest = Candidate("forest", "release-forest")
    pool = [tree, cut, forest]
    scores = [CandidateScore("tree", 0.76, 0.04, leaves=4.0),
              CandidateScore("cut", 0.755, 0.04, leaves=3.0),
              CandidateScore("forest", 0.78, 0.03, leaves=60.0)]  # fmt: skip
    assert pool[one_se_choice(pool, scores)] is cut  # both >= 0.78 - 0.03
    scores[1] = CandidateScore("cut", 0.755, 0.04, leaves=4.0)
    assert pool[one_se_choice(pool, scores)] is tree  # a tie: the release tree first
    scores[0] = CandidateScore("tree", 0.76, 0.04)  # no count of leaves: the most complex
    assert pool[one_se_choice(pool, scores)] is cut
    scores[1] = CandidateScore("cut", 0.70, 0.04, leaves=3.0)  # out of the band
    assert pool[one_se_choice(pool, scores)] is forest  # the tree, uncounted, after it


def test_c45_cut_at_depth_4_is_a_candidate_scored_as_its_coded_tree(tmp_path):
    from ppdm.mining import CANDIDATES, fit_candidate
    from ppdm.selection import fit_scorable

    _release(tmp_path, 3000, class_attribute="group")
    rel = load_release(tmp_path / "r")
    cut = next(c for c in CANDIDATES if c.label == "c45 on the by-class reconstruction, depth 4")
    from ppdm.tree import ReleaseTreeClassifier

    model = fit_candidate(cut, rel)  # what the advisor fits: the coded tree, cut
    assert isinstance(model, ReleaseTreeClassifier) and model.tree_.max_depth <= 4
    X = agrawal(300, function=1, random_state=5).drop(columns="group")
    np.testing.assert_array_equal(fit_scorable(cut, rel, rel.frame()).predict(X), model.predict(X))
    # the folds learn C4.5 once for its own leaves and for the cut: the same two trees
    own = next(c for c in CANDIDATES if c.label == "c45 on the by-class reconstruction")
    fitted = {}
    shared = [fit_scorable(c, rel, rel.frame(), 0, fitted) for c in (own, cut)]
    assert len(fitted) == 1
    for c, m in zip((own, cut), shared):
        alone = fit_scorable(c, rel, rel.frame(), 0)
        assert m.export_text() == alone.export_text()
        np.testing.assert_array_equal(m.predict(X), alone.predict(X))
    r = mine(rel, random_state=0)
    scored = {c.label: c for c in r.candidates}
    assert scored[cut.label].scorable and 1 <= scored[cut.label].leaves <= 2**4
    # a forest counts every tree's leaves: at least one in each of its 25 trees
    assert scored["release-forest"].leaves >= 25
    assert r.to_dict()["candidates"][0]["leaves"] == scored["release-forest"].leaves


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


def test_cli_names_an_unknown_learner_apart_from_one_that_cannot_be_scored(tmp_path):
    _release(tmp_path, 300, class_attribute="group")
    said = {}
    for name in ("release-tre", "bogus", "cart"):
        out = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", name])
        assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output
        said[name] = out.output
    assert "unknown learner 'release-tre'; did you mean 'release-tree'?" in said["release-tre"]
    assert "unknown learner 'bogus'; use release-tree" in said["bogus"]
    assert "'cart' cannot be scored from the release alone" in said["cart"]


def test_cli_prints_learner_estimate_and_majority(tmp_path):
    _release(tmp_path, 3000, class_attribute="group")
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    assert "learner: release-tree depth 4" in out.output
    assert "estimated accuracy on the original data: " in out.output and " ± " in out.output
    assert "majority-class rate" in out.output
    assert "the fewest leaves within one s.e. of the best" in out.output
    assert re.search(r"release-tree depth 4, leaf 0.02: [\d.]+ ± [\d.]+, [\d.]+ leaves", out.output)
    forced = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", "release-forest"])
    assert "learner: release-forest" in forced.output and "candidates" not in forced.output
    _release(tmp_path, 200, "n")
    bad = CliRunner().invoke(app, ["mine", str(tmp_path / "n")])
    assert bad.exit_code == 1 and "no class attribute" in bad.output


def test_model_out_round_trip_through_tree_predict(tmp_path):
    # the written model predicts on original records as the fitted model does on them
    from ppdm.tree.persist import load_model

    df = _release(tmp_path, 3000, class_attribute="group")
    test = agrawal(500, function=1, random_state=5)
    test.to_csv(tmp_path / "test.csv", index=False)
    for learner in ("c45", "release-forest", None):
        model = tmp_path / f"{learner}.json"
        args = ["mine", str(tmp_path / "r"), "--model-out", str(model)]
        out = CliRunner().invoke(app, args + (["--learner", learner] if learner else []))
        assert out.exit_code == 0, out.output
        assert f"model written to {model}" in out.output
        again, target = load_model(model)
        r = mine(load_release(tmp_path / "r"), learner=learner, random_state=0)
        X = test.drop(columns="group")
        np.testing.assert_array_equal(again.predict(X), r.model.predict(X))
        pred = tmp_path / f"{learner}.csv"
        done = CliRunner().invoke(app, ["tree", "predict", str(model), str(tmp_path / "test.csv"),
                                        "--out", str(pred)])  # fmt: skip
        assert done.exit_code == 0, done.output
        got = pd.read_csv(pred)["predicted"].to_numpy()
        np.testing.assert_array_equal(got, r.model.predict(X))
    assert target == "group" and len(df) == 3000
    refused = CliRunner().invoke(app, ["tree", "compare", str(model), str(model)])
    assert refused.exit_code == 1 and "is a model learnt from a release" in refused.output


def test_forced_learner_is_estimated_on_the_held_out_part(tmp_path):
    _release(tmp_path, 3000, class_attribute="group")
    r = mine(load_release(tmp_path / "r"), learner="c45", random_state=0)
    assert r.candidate.label == "c45 on the by-class reconstruction" and r.folds == 0
    assert r.n_holdout == 900 and r.stderr > 0
    bad = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", "cart"])
    assert bad.exit_code == 2 and "--learner: learner 'cart' cannot be scored" in bad.output


def test_a_noisy_estimate_outside_zero_one_does_not_win_by_its_noise():
    tree = Candidate("tree", "release-tree", (("max_depth", 4), ("min_leaf", 0.02)))
    c45 = Candidate("c45", "c45", (), "by-class")
    pool = [tree, c45]
    scores = [CandidateScore("tree", 0.77, 0.03), CandidateScore("c45", 32.5, 30.0)]
    assert pool[one_se_choice(pool, scores)] is tree  # clipped: 1.0 - 30 <= 0.77
    scores[1] = CandidateScore("c45", 0.95, 0.02)
    assert pool[one_se_choice(pool, scores)] is c45
    # a noisy best (clipped to 1.0, s.e. 6) does not widen the bar to every candidate:
    # the bar is the highest lower bound, 0.585 - 0.13, which the tree does not reach
    pruned = Candidate("c45 leaf", "c45", (("min_leaf", 0.05),), "by-class")
    pool = [tree, c45, pruned]
    scores = [CandidateScore("tree", 0.28, 0.02), CandidateScore("c45", 2.3, 6.0),
              CandidateScore("c45 leaf", 0.585, 0.13)]  # fmt: skip
    assert pool[one_se_choice(pool, scores)] is pruned


def test_cli_test_table_adds_the_measured_accuracy_beside_the_estimate(tmp_path):
    _release(tmp_path, 3000, class_attribute="group")
    test = agrawal(800, function=1, random_state=9)
    test.to_csv(tmp_path / "test.csv", index=False)
    out = CliRunner().invoke(
        app, ["mine", str(tmp_path / "r"), "--test", str(tmp_path / "test.csv")]
    )
    assert out.exit_code == 0, out.output
    r = mine(load_release(tmp_path / "r"), test=test, random_state=0)
    lines = out.output.splitlines()
    assert lines[1].startswith(f"estimated accuracy on the original data: {r.estimate:.4f} ± ")
    assert lines[2] == (f"measured accuracy on --test {str(tmp_path / 'test.csv')!r}: "
                        f"{r.measured:.4f} (800 original records)")  # fmt: skip
    assert r.measured == np.mean(r.model.predict(test.drop(columns="group")) == test["group"])


@pytest.mark.parametrize("shift", [0.0, 0.6, -1.2, 1.0, -1.5])
def test_cli_says_when_the_estimate_leaves_zero_one(tmp_path, monkeypatch, shift):
    """An unbiased estimate may leave [0, 1] on a small, noisy release: the command says
    so and gives the interval it does support, clipped to [0, 1]; more than 2 s.e. outside
    there is none (it printed 'within 2 s.e. it is 1.05 to 1.00')."""
    import dataclasses

    import ppdm.selection

    _release(tmp_path, 3000, class_attribute="group")
    real = ppdm.selection.mine

    def shifted(*args, **kwargs):
        r = real(*args, **kwargs)
        return dataclasses.replace(r, estimate=r.estimate + shift, stderr=0.25)

    monkeypatch.setattr(ppdm.selection, "mine", shifted)
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    estimate = real(tmp_path / "r").estimate + shift
    noted = "note: the estimate lies outside [0, 1]" in out.output
    assert noted == (not 0.0 <= estimate <= 1.0), out.output
    if noted:
        low, high = max(estimate - 0.5, 0.0), min(estimate + 0.5, 1.0)
        if low <= high:
            assert f"within 2 s.e. it is {low:.2f} to {high:.2f}" in out.output
        else:
            assert "more than 2 s.e. outside, which an accuracy cannot" in out.output
            assert "within 2 s.e. it is" not in out.output


@pytest.mark.parametrize("shift", [0.0, 0.7, -1.5])
def test_cli_flags_a_candidate_whose_score_leaves_zero_one(tmp_path, monkeypatch, shift):
    """A candidate's unbiased fold score outside [0, 1] is flagged on its line."""
    import dataclasses

    import ppdm.selection

    _release(tmp_path, 3000, class_attribute="group")
    real = ppdm.selection.mine

    def shifted(*args, **kwargs):
        r = real(*args, **kwargs)
        first = dataclasses.replace(r.candidates[0], estimate=r.candidates[0].estimate + shift)
        return dataclasses.replace(r, candidates=[first, *r.candidates[1:]])

    monkeypatch.setattr(ppdm.selection, "mine", shifted)
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r")])
    assert out.exit_code == 0, out.output
    note = re.compile(r"leaves; in \[0, 1\]: ([\d.]+) ± ([\d.]+)$")
    flagged = {}
    for t in out.output.splitlines():
        if m := note.search(t):
            flagged[t.split(": ")[0].strip()] = m.groups()
    scores = real(tmp_path / "r").candidates
    for i, c in enumerate(scores):
        if not c.scorable:
            continue
        est = c.estimate + (shift if i == 0 else 0.0)
        if est < -0.01 or est > 1.01:  # outside: always flagged, and read inside [0, 1]
            mean, sd = flagged[c.label]
            assert 0 <= float(mean) <= 1 and float(sd) <= 0.29
        elif 3 * c.stderr <= est <= 1 - 3 * c.stderr:  # well inside: read as it is
            assert c.label not in flagged, out.output
    if shift:
        assert scores[0].label in flagged, out.output  # the shifted one


def test_posterior_reads_a_score_as_an_accuracy_in_zero_one():
    """The normal of the score cut to [0, 1]: its value where the score is precise and
    inside, the truncated normal's moments elsewhere, the flat [0, 1] where it says
    nothing, and the exponential tail's at an edge far from the score."""
    from scipy import stats

    from ppdm.selection import posterior

    assert posterior(0.8, 0.01) == pytest.approx((0.8, 0.01), abs=1e-5)
    for m, s in [(0.95, 0.2), (1.2, 0.3), (-0.1, 0.05), (0.5, 0.6), (2.0, 0.8)]:
        d = stats.truncnorm((0 - m) / s, (1 - m) / s, loc=m, scale=s)
        assert posterior(m, s) == pytest.approx((d.mean(), d.std()), abs=1e-4)
    assert posterior(32.5, 3e4) == pytest.approx((0.5, 12**-0.5), abs=1e-3)
    assert posterior(-612.0, 516.0) == pytest.approx((0.5, 12**-0.5), abs=2e-3)
    # far above 1, the density on [0, 1] is e^{x d / s^2}: mean 1 - s^2 / d for d >> s
    assert posterior(1.5, 0.01)[0] == pytest.approx(1 - 0.01**2 / 0.5, abs=1e-5)
    # a tilt of rate 1 (1e6 ± 1e3): density e^x on [0, 1], mean 1 / (1 - 1/e) - 1
    assert posterior(1e6, 1e3)[0] == pytest.approx(1 / (1 - np.exp(-1)) - 1, abs=1e-3)
    for m, s in [(0.9, 0.3), (1.7, 0.5), (-3.0, 2.0)]:  # symmetric about 1/2
        a, b = posterior(m, s), posterior(1 - m, s)
        assert a[0] == pytest.approx(1 - b[0], abs=1e-9) and a[1] == pytest.approx(b[1])
    assert posterior(1.3, 0.0) == (1.0, 0.0)
    # an overflowed score (inf, or inf - inf) or s.e. says nothing: the flat [0, 1]
    for m, s in [(np.nan, 0.1), (np.inf, 1.0), (0.5, np.nan), (-np.inf, np.inf)]:
        assert posterior(m, s) == pytest.approx((0.5, 12**-0.5))
    assert posterior(0.7, np.inf) == pytest.approx((0.5, 12**-0.5), abs=1e-4)


def test_the_apps_candidates_table_flags_a_score_outside_zero_one():
    pytest.importorskip("shiny")
    from ppdm.app._miner import _candidates

    res = {
        "learner": "b",
        "folds": 3,
        "candidates": [
            {"learner": "a", "estimate": 1.2, "stderr": 0.3, "leaves": 4.0, "scorable": True},
            {"learner": "b", "estimate": 0.8, "stderr": 0.1, "leaves": 2.0, "scorable": True},
        ],
    }
    table = _candidates(res)
    shown = table["3-fold estimate ± s.e."].tolist()
    assert re.search(r"; in \[0, 1\]: \d+\.\d% ± \d+\.\d$", shown[0])  # as the app shows
    assert "outside" not in shown[1] and table["learner"].tolist() == ["a", "b (chosen)"]


@pytest.mark.parametrize("estimate", [0.8, 1.3, 1.6])
def test_the_apps_estimate_carries_the_command_lines_note(estimate):
    pytest.importorskip("shiny")
    from ppdm.app._miner import _mined
    from ppdm.selection import estimate_note

    res = {"estimate": estimate, "stderr": 0.25, "n_holdout": 90, "learner": "b",
           "majority_rate": 0.6, "majority_class": 1, "folds": 0, "model": ""}  # fmt: skip
    html = str(_mined(res))
    note = estimate_note(estimate, 0.25)
    assert (note != "") == (estimate > 1.0) and note in html
    if estimate == 1.6:  # 1.6 - 2 x 0.25 > 1: no interval to give
        assert "more than 2 s.e. outside" in note and "within 2 s.e." not in note


def test_the_folds_take_the_whole_selection_part_of_a_large_release(tmp_path, monkeypatch):
    # a release tree grows with its records: fold models must learn from nearly as many
    # records as the chosen model, so 35,000 selection records are all folded (a cap of
    # 30,000 made them learn from 20,000 and undervalue the deeper settings)
    import ppdm.selection

    _release(tmp_path, 50_000, class_attribute="group")
    folded = []

    def sized(candidate, rel, frame, folds, random_state, fitted):
        folded.append(len(frame))
        return CandidateScore(candidate.label, 0.8, 0.01, leaves=4.0)

    monkeypatch.setattr(ppdm.selection, "_score", sized)
    r = mine(load_release(tmp_path / "r"), random_state=0)
    assert r.n_selection == 35_000 and set(folded) == {35_000}
    del folded[:]
    mine(load_release(tmp_path / "r"), max_selection=20_000, random_state=0)
    assert len(folded) == len(r.candidates) and set(folded) == {20_000}


def test_a_release_of_one_class_is_refused_naming_the_class_and_its_value(tmp_path):
    df = agrawal(300, function=1, random_state=0)[["age", "salary", "group"]]
    df["group"] = "only"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "r", gamma=9, class_attribute="group", random_state=1)
    for extra in ([], ["--learner", "release-tree"], ["--learner", "c45"]):
        out = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), *extra])
        assert out.exit_code == 1, out.output
        assert out.output.strip() == (
            "error: the release's class 'group' has one value, 'only': a classifier needs at "
            "least two classes to learn from"
        )


def test_no_scorable_candidate_says_why():
    tree = Candidate("tree", "release-tree", (("max_depth", 4), ("min_leaf", 0.02)))
    forest = Candidate("forest", "release-forest")
    scores = [CandidateScore("tree", reason="too few records"),
              CandidateScore("forest", reason="too few records")]  # fmt: skip
    with pytest.raises(DataError, match=r"could be scored on the release: too few records$"):
        one_se_choice([tree, forest], scores)


def test_a_one_leaf_model_is_said_to_predict_one_class(tmp_path):
    """Attributes that say nothing of the class: the release tree is one leaf, and mine
    says what it predicts and that its accuracy is the majority-class rate, which the
    held-out estimate (that class's share among the held-out records) only estimates."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=600), "y": rng.choice(["a", "b"], 600, p=[0.7, 0.3])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "r", gamma=5, class_attribute="y", random_state=1)
    r = mine(load_release(tmp_path / "r"), learner="release-tree")
    assert r.model.tree_.n_leaves == 1
    assert r.note == (
        "the chosen model has one leaf: it predicts 'a' for every record (no attribute helps "
        "from this release); its accuracy on the release's original records is that class's "
        f"share of them, {r.majority_rate:.4f}"
    )
    assert r.to_dict()["note"] == r.note
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", "release-tree"])
    assert f"note: {r.note}\n" in out.output
    _release(tmp_path, 3000, "g", class_attribute="group")
    grown = mine(load_release(tmp_path / "g"), learner="release-tree")
    assert grown.model.tree_.n_leaves > 1 and grown.note == ""


def test_copies_of_a_record_stay_on_one_side_of_every_split(tmp_path):
    """Three copies per record: the held-out part and every fold hold whole records, so
    no model is scored on a copy of a record it learnt from; the s.e. counts records."""
    from ppdm.selection import split_release

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = agrawal(900, function=1, random_state=0)[["age", "salary", "elevel", "group"]]
        make_release(df, tmp_path / "r", gamma=9, class_attribute="group", copies=3,
                     random_state=1)  # fmt: skip
    rel = load_release(tmp_path / "r")
    frame = rel.frame()
    assert len(frame) == 2700 and (frame["group"].to_numpy()[::3] == df["group"]).all()
    hold, sel = split_release(frame, 270, random_state=4, copies=3)
    record = {"hold": set(hold.index // 3), "sel": set(sel.index // 3)}
    assert len(record["hold"]) == 270 and len(record["sel"]) == 630
    assert not record["hold"] & record["sel"]
    # rows of a record in a row: the folds of the selection part (position // 3 % 3)
    # hold whole records too
    folds = np.arange(len(sel)) // 3 % 3
    for k in range(3):
        rows = sel.index[folds == k]
        assert len(rows) == 3 * len(set(rows // 3))
    r = mine(rel, learner="release-tree", random_state=4)
    assert (r.n_holdout, r.n_selection, r.copies) == (270, 630, 3)
    from ppdm.tree.release_scoring import release_correct

    s = release_correct(r.model, hold).reshape(-1, 3).mean(axis=1)
    assert r.estimate == pytest.approx(s.mean())
    assert r.stderr == pytest.approx(s.std(ddof=1) / np.sqrt(270))
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--learner", "release-tree"])
    assert "270 held-out released records, 3 copies each)" in out.output


def test_a_release_whose_copies_do_not_follow_each_other_is_refused(tmp_path):
    """Copies of a record written apart (each copy of the table in turn): grouping rows
    by record would mix records, so mine refuses, naming the rows, the column and values."""
    df = agrawal(300, function=1, random_state=0)[["age", "salary", "group"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(df, tmp_path / "r", gamma=9, class_attribute="group", copies=2,
                     random_state=1)  # fmt: skip
    data = pd.read_csv(tmp_path / "r" / "data.csv")
    apart = np.r_[np.arange(0, 600, 2), np.arange(1, 600, 2)]  # copy 0, then copy 1
    data.iloc[apart].to_csv(tmp_path / "r" / "data.csv", index=False)
    classes = df["group"].to_numpy()
    i = int(np.flatnonzero(classes[0::2] != classes[1::2])[0])  # first pair of two classes
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r")])
    assert out.exit_code == 1 and out.output.strip() == (
        f"error: release data {str(tmp_path / 'r' / 'data.csv')!r} data rows {2 * i + 1}-"
        f"{2 * i + 2}, copies of one record, differ in column 'group', which is released as "
        f"is: {classes[2 * i]} and {classes[2 * i + 1]} (a record's 2 copies must follow each "
        "other; a release written before they did, or an edited one)"
    )


def test_mine_json_has_the_keys_docs_cli_lists(tmp_path):
    import json
    from pathlib import Path

    _release(tmp_path, 3000, class_attribute="group")
    out = CliRunner().invoke(app, ["mine", str(tmp_path / "r"), "--json"])
    keys = list(json.loads(out.output))
    docs = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
    said = docs.read_text().split("`--json` prints one object: ", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"`([a-z_]+)`", said.split("`candidates`")[0]) + ["candidates"]
    assert listed == keys
