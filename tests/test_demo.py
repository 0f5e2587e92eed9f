from ppdm.demo import format_demo, run_demo


def test_demo_runs_end_to_end_and_reports_every_figure():
    result = run_demo(4000, 2000, gamma=9.0, seed=1)
    errors = result.estimation_error
    assert list(errors.columns) == ["released", "inverse", "zero", "set-scale", "norm-sub", "ibu"]
    assert len(errors) == 9
    # the baseline: the released counts are pulled towards uniform (at gamma = 9 and
    # N = 20 a value is kept with probability 9/28), so a skewed attribute (commission:
    # zero for a third of the records) is far off, and the estimates undo it; near-uniform
    # ones (salary, age) come out close without any estimate
    assert errors.loc["commission", "released"] > 3 * errors.loc["commission", "set-scale"]
    assert errors["released"].mean() > errors["set-scale"].mean()
    # Proposition 1: the zero fix never increases the error of the raw inverse
    assert (errors["zero"] <= errors["inverse"] + 1e-12).all()
    assert set(result.accuracy) == {
        "original",
        "reconstructed (global)",
        "reconstructed (by-class)",
        "release tree (no reconstruction)",
    }
    assert result.accuracy["original"] >= result.accuracy["reconstructed (global)"]
    text = format_demo(result)
    assert "gamma" in text and "test accuracy" in text
    # the baseline beside the scores: the commonest training class, scored on the test set
    assert 0.5 <= result.majority_rate < result.accuracy["original"]
    assert f"always {result.majority_class} (commonest class)" in text
    assert f"{result.majority_rate:.4f}" in text
    assert result.privacy["leaks"] == []
