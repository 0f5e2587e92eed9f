import json
import shutil

import pandas as pd

from ppdm_papers.beyond import KEY, METHODS, run
from ppdm_papers.registry import RunContext


def test_beyond_quick_writes_tidy_tables(tmp_path, reproduce_quick):
    # the shared ``ppdm reproduce all --quick --jobs 2`` run wrote the quick grid
    for name in ("beyond.csv", "beyond_summary.csv", "beyond_curve.csv", "beyond.png"):
        assert (reproduce_quick / name).stat().st_size > 0, name
    tidy = pd.read_csv(reproduce_quick / "beyond.csv")
    assert set(tidy["method"]) == set(METHODS)
    assert tidy["accuracy"].between(0, 1).all()
    summary = pd.read_csv(reproduce_quick / "beyond_summary.csv")
    assert (summary["ratio_to_original"] <= 1.2).all()
    curve = pd.read_csv(reproduce_quick / "beyond_curve.csv")
    assert set(curve["method"]) == {"original", "alg2-by-class", "release-tree"}
    # on the original data the learner is at least as good as on any release, on average
    orig = curve[curve["method"] == "original"]["accuracy"].mean()
    assert orig >= curve[curve["method"] != "original"]["accuracy"].mean()
    # resuming: a run in this process from that run's checkpoints gives the same table
    (tmp_path / "checkpoints").mkdir()
    for name in ("beyond.csv", "beyond-curve.csv"):
        shutil.copy(reproduce_quick / "checkpoints" / name, tmp_path / "checkpoints" / name)
    paths = run(RunContext(out=tmp_path, quick=True, progress=False))
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        "beyond.csv",
        "beyond_summary.csv",
        "beyond_curve.csv",
        "beyond.png",
        "timings/beyond-quick.json",
    ]
    assert json.loads(paths[-1].read_text())["cells"] == len(tidy[KEY].drop_duplicates())
    pd.testing.assert_frame_equal(tidy, pd.read_csv(tmp_path / "beyond.csv"))
    pd.testing.assert_frame_equal(curve, pd.read_csv(tmp_path / "beyond_curve.csv"))
