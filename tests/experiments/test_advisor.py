import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm.cli import app
from ppdm.exceptions import DataError, ParameterError, SpecError
from ppdm.experiments.advisor import (
    advisor_grid,
    recommend,
    rule_best_n_per_gamma,
    rule_min_accuracy,
    split_owner_data,
)
from ppdm.release import read_spec

# hand-made Fig. 6-style table: gamma in {5, 7, 9}, N in {5, 10, 20}
TABLE = pd.DataFrame(
    [
        (5, 5, 0.70),
        (5, 10, 0.74),
        (5, 20, 0.74),
        (7, 5, 0.72),
        (7, 10, 0.78),
        (7, 20, 0.80),
        (9, 5, 0.73),
        (9, 10, 0.81),
        (9, 20, 0.83),
    ],
    columns=["gamma", "N", "accuracy"],
)


def test_rule_7_1_best_n_per_gamma_smallest_n_among_ties():
    best = rule_best_n_per_gamma(TABLE)
    assert best[["gamma", "N"]].values.tolist() == [[5, 10], [7, 20], [9, 20]]
    rec = recommend(TABLE, n_records=1000)
    assert (rec.rule, rec.gamma, rec.N) == ("7.1", 5, 10)
    # a tolerance widens the ties: gamma 7 -> N 10 (0.78 within 0.02 of 0.80)
    assert rule_best_n_per_gamma(TABLE, tolerance=0.02)["N"].tolist() == [10, 10, 10]


def test_rule_7_2_smallest_n_then_smallest_gamma():
    row, met = rule_min_accuracy(TABLE, 0.78)
    assert (row["gamma"], row["N"], met) == (7, 10, True)
    row, met = rule_min_accuracy(TABLE, 0.80, max_gamma=7)
    assert (row["gamma"], row["N"], met) == (7, 20, True)
    # nothing reaches 0.9: settle for the most accurate cell
    row, met = rule_min_accuracy(TABLE, 0.9)
    assert (row["gamma"], row["N"], met) == (9, 20, False)
    rec = recommend(TABLE, n_records=1000, min_accuracy=0.78)
    assert rec.rule == "7.2" and rec.privacy["gamma"] == 7 and rec.privacy["N"] == 10


def test_rules_reject_bad_tables():
    with pytest.raises(DataError, match="needs columns"):
        rule_best_n_per_gamma(TABLE.drop(columns=["accuracy"]))
    with pytest.raises(ParameterError, match="min_accuracy"):
        rule_min_accuracy(TABLE, 1.5)
    skipped = TABLE.assign(status="skipped")
    with pytest.raises(DataError, match="no evaluated"):
        rule_best_n_per_gamma(skipped)


def _owner_table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    x1 = rng.uniform(0, 100, n)
    x2 = rng.integers(0, 4, n)
    y = np.where(x1 + 10 * x2 > 60, "yes", "no")
    return pd.DataFrame({"x1": x1, "x2": x2, "y": y})


def test_grid_skips_with_kang_ordering_and_is_seeded():
    train, test = split_owner_data(_owner_table(), "y", seed=1)
    kw = dict(gammas=[3, 9], ns=[5, 50], reps=1, learner="cart-entropy", seed=2)
    full = advisor_grid(train, test, "y", **kw)
    assert (full["status"] == "evaluated").all() and len(full) == 4
    again = advisor_grid(train, test, "y", **kw)
    pd.testing.assert_frame_equal(full, again)
    # a target no cell can reach: after the gamma=9 wave every N fails, gamma=3 is skipped
    pruned = advisor_grid(train, test, "y", min_accuracy=0.999, **kw)
    assert pruned.loc[pruned["gamma"] == 3, "status"].eq("skipped").all()
    assert pruned.loc[pruned["gamma"] == 9, "status"].eq("evaluated").all()
    assert (
        "Kang" in pruned.loc[pruned["gamma"] == 3, "reason"].iloc[0]
        or "smaller Kang" in (pruned.loc[pruned["gamma"] == 3, "reason"].iloc[0])
    )


def test_advise_cli_writes_table_plot_and_spec(tmp_path):
    data = tmp_path / "owner.csv"
    _owner_table().to_csv(data, index=False)
    spec = tmp_path / "spec.yaml"
    res = CliRunner().invoke(
        app,
        ["advise", str(data), "--class", "y", "--gamma", "5..6", "--ns", "5,10", "--reps", "1"]
        + ["--learner", "cart-entropy", "--out", str(tmp_path / "adv"), "--spec-out", str(spec)]
        + ["--no-progress", "--min-accuracy", "60"],
    )
    assert res.exit_code == 0, res.output
    assert "recommended (rule 7.2)" in res.output and "epsilon" in res.output
    import matplotlib.pyplot as plt

    image = plt.imread(tmp_path / "adv" / "advice.png")  # a PNG a viewer can open
    assert image.ndim == 3 and min(image.shape[:2]) > 100
    assert len(np.unique(image.reshape(-1, image.shape[2]), axis=0)) > 10  # not blank
    table = pd.read_csv(tmp_path / "adv" / "advice_table.csv")
    assert len(table) == 4
    s = read_spec(spec)
    assert s.class_attribute == "y" and not s.attribute("y").perturbed
    m = s.attribute("x1").matrix
    assert m["kind"] == "gamma-diagonal" and m["gamma"] in (5.0, 6.0)
    # the advice itself is not a spec: passing it as one says which file to use
    with pytest.raises(SpecError, match=r"is the advice of ppdm advise.*--spec-out"):
        read_spec(tmp_path / "adv" / "advice.json")


def test_advise_cli_bad_inputs(tmp_path):
    data = tmp_path / "owner.csv"
    _owner_table().to_csv(data, index=False)
    r = CliRunner()
    res = r.invoke(app, ["advise", str(data), "--class", "nope", "--no-progress"])
    assert res.exit_code != 0
    res = r.invoke(app, ["advise", str(data), "--class", "y", "--gamma", "x..y"])
    assert res.exit_code != 0 and "--gamma" in res.output
    res = r.invoke(app, ["advise", str(data), "--class", "y", "--min-accuracy", "150"])
    assert res.exit_code != 0 and "--min-accuracy" in res.output
    res = r.invoke(app, ["advise", str(tmp_path / "missing.csv"), "--class", "y"])
    assert res.exit_code != 0 and "does not exist" in res.output
    with pytest.raises(DataError, match="class column 'nope'"):
        split_owner_data(_owner_table(), "nope")


def test_only_cells_clearly_above_the_majority_rate_are_recommended():
    # 300 test records: the binomial standard error of 0.80 is 0.023, so 2 SE is 0.046
    table = TABLE.assign(majority=0.76, original_accuracy=0.88, n_test=300)
    rec = recommend(table, n_records=1000)
    assert rec.recommended and rec.majority == 0.76 and rec.original_accuracy == 0.88
    # 7.1 would choose (5, 10) at 0.74 without the baseline; only gamma 9's 0.81 (N 10) and
    # 0.83 (N 20) are clear, and 7.1 takes the best N of that gamma
    assert (rec.gamma, rec.N) == (9, 20)
    none = recommend(TABLE.assign(majority=0.83, n_test=300), n_records=1000, min_accuracy=0.7)
    assert not none.recommended and none.gamma is None
    assert "majority-class rate 0.8300" in none.reason


def test_advise_says_so_when_no_cell_beats_the_majority(tmp_path):
    rng = np.random.default_rng(0)
    n = 900
    data = tmp_path / "noise.csv"
    pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "b": rng.integers(0, 4, n),
            "y": np.where(rng.random(n) < 0.7, "no", "yes"),  # independent of a and b
        }
    ).to_csv(data, index=False)
    out, spec = tmp_path / "adv", tmp_path / "spec.json"
    res = CliRunner().invoke(
        app,
        [
            "advise",
            str(data),
            "--class",
            "y",
            "--gamma",
            "5,9",
            "--ns",
            "5,10",
            "--reps",
            "2",
            "--out",
            str(out),
            "--spec-out",
            str(spec),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "majority class" in res.output and "no recommendation" in res.output
    assert not spec.exists()
    import json

    summary = json.loads((out / "advice.json").read_text())
    assert summary["recommended"] is False and 0.6 < summary["majority_rate"] < 0.8
    table = pd.read_csv(out / "advice_table.csv")
    assert {"majority", "original_accuracy"} <= set(table.columns)


def test_original_baseline_and_test_codes_do_not_depend_on_the_grids_n():
    """An integer attribute becomes categorical when it has at most N values in the
    training part; test values it never saw must keep their order, not become -1."""
    from ppdm.experiments import advisor

    rng = np.random.default_rng(3)
    n = 600
    x = rng.integers(0, 400, n)  # ~300 distinct values in training: categorical at N=400
    frame = pd.DataFrame({"x": x, "y": np.where(x >= 200, "hi", "lo")})
    train, test = frame.iloc[:400], frame.iloc[400:]
    token = advisor._token(train)
    unseen = ~test["x"].isin(train["x"])
    assert unseen.any()
    baselines = {nb: advisor._baselines(train, test, "y", token, nb, "c45")[1] for nb in (10, 400)}
    assert baselines[10] == baselines[400] >= 0.99
    table = advisor._encoded(token, train, "y", 400)
    codes = advisor._test_frame(table, test[["x"]])["x"].to_numpy()
    assert (codes >= 0).all()
    # order kept: a larger value never gets a smaller code
    order = np.argsort(test["x"].to_numpy(), kind="stable")
    assert (np.diff(codes[order]) >= 0).all()


def test_each_cell_carries_the_standard_error_of_its_mean():
    train, test = split_owner_data(_owner_table(), "y", seed=1)
    grid = advisor_grid(train, test, "y", gammas=[9], ns=[5], reps=3, learner="cart-entropy")
    row = grid.iloc[0]
    assert row["se"] == pytest.approx(row["sd"] / np.sqrt(3))
    one = advisor_grid(train, test, "y", gammas=[9], ns=[5], reps=1, learner="cart-entropy")
    assert np.isnan(one["se"].iloc[0])  # one repetition: no spread to show


def test_advice_plot_draws_the_standard_errors(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    from ppdm.experiments import plotting

    table = TABLE.assign(
        entropy=TABLE["N"] / 10, status="evaluated", se=0.02, majority=0.5, original_accuracy=0.9
    )
    drawn = {}
    real_save = plotting._save

    def keep(fig, path):
        drawn["fig"] = fig
        return real_save(fig, path)

    plotting._save = keep
    try:
        plotting.plot_advice(table, tmp_path / "a.png")
    finally:
        plotting._save = real_save
    ax = drawn["fig"].axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "± 1 s.e. over the repetitions" in labels
    segments = [s for c in ax.collections if hasattr(c, "get_segments") for s in c.get_segments()]
    # one vertical whisker per cell, 2 points of accuracy (100 * se) on each side
    lengths = sorted(round(abs(s[1][1] - s[0][1]), 6) for s in segments if len(s) == 2)
    assert lengths.count(4.0) >= len(table)
