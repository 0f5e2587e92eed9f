"""The readings of the Figs. 4-6 setup (``ppdm reproduce fig4-readings``)."""

import numpy as np
import pandas as pd
import pytest

from ppdm.exceptions import ParameterError
from ppdm_papers import readings
from ppdm_papers.accuracy import accuracy_cell
from ppdm_papers.readings import (
    READINGS,
    reading_cell,
    readings_summary,
    weka_j48,
)
from ppdm_papers.weka import weka_available

LEARNER = "cart-entropy"  # fast stand-in; the committed results use ppdm's C4.5
CELL = ("spambase", 9, 10, 0)


@pytest.fixture(scope="module")
def rows():
    return pd.DataFrame(reading_cell(CELL, seed=0, quick=True, learner=LEARNER, weka_reps=0))


def test_every_reading_once_with_an_accuracy(rows):
    assert list(rows["reading"]) == list(READINGS)
    acc = rows.set_index("reading")["accuracy"]
    assert acc.drop("weka-j48").between(0, 1).all()
    assert np.isnan(acc["weka-j48"])  # weka_reps=0: not run


def test_paper_and_by_class_repeat_fig4_exactly(rows):
    """The same cell stream as ``ppdm reproduce fig4``: the baseline is Fig. 4's number."""
    fig4 = {
        r["mode"]: r["accuracy"] for r in accuracy_cell(CELL, seed=0, quick=True, learner=LEARNER)
    }
    acc = rows.set_index("reading")["accuracy"]
    assert acc["paper"] == fig4["global"]
    assert acc["by-class"] == fig4["by-class"]


def test_readings_that_change_the_training_set_change_the_accuracy(rows):
    """Each reading is a real change: the left ends and the perturbed class give other trees."""
    acc = rows.set_index("reading")["accuracy"]
    assert acc["class-perturbed"] != acc["paper"] or acc["left"] != acc["paper"]


def test_reconstructed_class_keeps_its_size_and_codes():
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], [700, 200, 100])
    rec = readings._reconstruct_class(y, 3, 9.0, rng)
    assert rec.shape == y.shape and set(np.unique(rec)) <= {0, 1, 2}
    # Algorithm 2 hands out the estimated counts; at gamma 9 with n = 1000 the set-scale
    # estimate of the 700 is within 5 standard errors (sd of the raw estimate < 25)
    assert abs(int((rec == 0).sum()) - 700) < 125


def test_summary_uses_only_runs_finished_for_every_data_set():
    frame = pd.DataFrame(
        {
            "dataset": ["synth1", "pendigits", "synth1", "pendigits", "synth1"],
            "gamma": [5, 5, 5, 5, 5],
            "N": [10, 10, 10, 10, 10],
            "rep": [0, 0, 1, 1, 2],  # rep 2 lacks pendigits
            "reading": ["paper"] * 5,
            "accuracy": [0.8, 0.6, 0.9, 0.4, 0.0],
        }
    )
    out = readings_summary(frame).set_index("reading")
    assert out.loc["paper", "synthetic"] == pytest.approx(85.0)
    assert out.loc["paper", "uci"] == pytest.approx(50.0)
    assert out.loc["paper", "runs"] == 4


def test_unknown_reading_is_refused():
    with pytest.raises(ParameterError, match="unknown reading 'x'"):
        reading_cell(CELL, seed=0, quick=True, learner=LEARNER, readings=("x",))


@pytest.mark.skipif(not weka_available(), reason="needs java and Weka")
def test_weka_j48_separates_a_separable_set():
    rng = np.random.default_rng(0)
    x = rng.random((300, 2))
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "y": np.where(x[:, 0] > 0.5, "p", "q")})
    assert weka_j48(frame.iloc[:200], frame.iloc[200:], "y") > 0.95


def test_claims_best_cell_is_a_five_run_mean_not_a_single_run():
    from ppdm_papers.claims import fig4_claims

    rows = []
    for rep, (a, b) in enumerate([(0.9, 0.7), (0.5, 0.7), (0.5, 0.7)]):
        rows.append(("synth2", "global", 21, 15, rep, a, 1.0))
        rows.append(("synth2", "global", 20, 15, rep, b, 1.2))
    fig4 = pd.DataFrame(
        rows, columns=["dataset", "mode", "gamma", "N", "rep", "accuracy", "entropy"]
    )
    table1 = pd.DataFrame({"dataset": ["synth2"], "accuracy": [65.0]})
    c = fig4_claims(fig4, table1).set_index("claim")
    assert c.loc["synth2 best 5-run mean", "value"] == pytest.approx(70.0)
    assert "gamma 20" in c.loc["synth2 best 5-run mean", "note"]
    assert c.loc["synth2 best single run", "value"] == pytest.approx(90.0)
    assert c.loc["synth2 best 5-run mean minus Table 1", "value"] == pytest.approx(5.0)


def test_claims_table2_names_the_largest_gap():
    from ppdm_papers.claims import table2_claims

    t = pd.DataFrame(
        {
            "parameter": ["a", "b"],
            "true": [0.35, 0.5],
            "paper_mean": [0.39, 0.5],
            "model2_mean": [0.346, 0.52],
        }
    )
    c = table2_claims(t)
    assert c.iloc[0]["claim"].endswith(" a") and c.iloc[0]["value"] == pytest.approx(0.044)
    assert c.set_index("claim").loc["params within 0.03 of paper", "value"] == 1
