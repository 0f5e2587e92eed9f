import pandas as pd

from ppdm.experiments.beyond import METHODS, run
from ppdm.experiments.registry import RunContext


def test_beyond_quick_writes_tidy_tables(tmp_path):
    paths = run(RunContext(out=tmp_path, quick=True, progress=False))
    assert all(p.exists() for p in paths)
    tidy = pd.read_csv(tmp_path / "beyond.csv")
    assert set(tidy["method"]) == set(METHODS)
    assert tidy["accuracy"].between(0, 1).all()
    summary = pd.read_csv(tmp_path / "beyond_summary.csv")
    assert (summary["ratio_to_original"] <= 1.2).all()
    curve = pd.read_csv(tmp_path / "beyond_curve.csv")
    assert set(curve["method"]) == {"original", "alg2-by-class", "release-tree"}
    # on the original data the learner is at least as good as on any release, on average
    orig = curve[curve["method"] == "original"]["accuracy"].mean()
    assert orig >= curve[curve["method"] != "original"]["accuracy"].mean()
    # resuming: a second run reads the checkpoint and gives the same table
    run(RunContext(out=tmp_path, quick=True, progress=False))
    pd.testing.assert_frame_equal(tidy, pd.read_csv(tmp_path / "beyond.csv"))
