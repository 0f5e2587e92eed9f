"""Release bytes depend only on seed, data and spec: not on partitioning or engine;
and the seed is written nowhere."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppdm.engine import make_release_partitioned
from ppdm.engine.frames import perturb_partitions
from ppdm.io import read_table
from ppdm.perturbation import perturb_frame, plan_release
from ppdm.pipeline import load_release, make_release

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

#: A seed no output may contain (decimal or hex).
SEED = 918_273_645_546_372_819


def _table(n: int = 1500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 12, n).clip(0, 90).round(3),
            "kids": rng.integers(0, 4, n),
            "city": rng.choice(["ams", "ber", "cph", "dub"], n),
            "label": rng.choice(["no", "yes"], n),
        }
    )


def _split(frame: pd.DataFrame, cuts: list[int]) -> list[pd.DataFrame]:
    edges = [0, *sorted(cuts), len(frame)]
    return [frame.iloc[a:b] for a, b in zip(edges[:-1], edges[1:])]


def _release_data(directory) -> pd.DataFrame:
    rel = load_release(directory)
    path = rel.data_path
    if path.is_dir():
        return pd.concat(
            [read_table(p) for p in sorted(path.glob("part-*.parquet"))], ignore_index=True
        )
    return read_table(path)


@settings(max_examples=15, deadline=None)
@given(cuts=st.lists(st.integers(0, 300), max_size=6))
def test_any_partitioning_gives_the_single_stream_bytes(cuts):
    df = _table(300)
    spec = plan_release(df, class_attribute="label", representative="random")
    whole = perturb_frame(df, spec, random_state=SEED)
    parts = perturb_partitions(_split(df, cuts), spec, random_state=SEED)
    pd.testing.assert_frame_equal(pd.concat(parts), whole, check_dtype=False)  # empty parts


@pytest.mark.parametrize("fmt, n_parts", [("parquet", 1), ("parquet", 4), ("csv", 3)])
def test_partitioned_files_equal_the_single_file_release(tmp_path, fmt, n_parts):
    df = _table()
    src = tmp_path / "in"
    src.mkdir()
    rng = np.random.default_rng(n_parts)
    cuts = sorted(rng.choice(np.arange(1, len(df)), n_parts - 1, replace=False).tolist())
    for i, part in enumerate(_split(df, cuts)):
        if fmt == "csv":
            part.to_csv(src / f"p{i}.csv", index=False)
        else:
            part.to_parquet(src / f"p{i}.parquet", index=False)
    df.to_csv(tmp_path / "whole.csv", index=False)
    opts = dict(class_attribute="label", random_state=SEED, representative="random")
    single = make_release(tmp_path / "whole.csv", tmp_path / "single", batch_size=333, **opts)
    parted = make_release_partitioned(src, tmp_path / "parted", engine="local", **opts)
    assert parted.attributes == single.attributes and parted.n_records == single.n_records
    a, b = _release_data(tmp_path / "single"), _release_data(tmp_path / "parted")
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    assert (a["kids"] != df["kids"]).any()


def test_dask_gives_the_single_stream_bytes():
    dd = pytest.importorskip("dask.dataframe")
    from ppdm.engine.frames import perturb_dask

    df = _table(700)
    spec = plan_release(df, class_attribute="label", copies=1)
    whole = perturb_frame(df, spec, random_state=SEED)
    for k in (1, 3, 7):
        got = perturb_dask(dd.from_pandas(df, npartitions=k), spec, random_state=SEED)
        # dask turns string columns into its own string dtype: compare the values
        pd.testing.assert_frame_equal(got.compute(scheduler="sync"), whole, check_dtype=False)


def _assert_no_seed(directory) -> None:
    needles = [str(SEED).encode(), f"{SEED:x}".encode(), SEED.to_bytes(8, "little")]
    files = [p for p in directory.rglob("*") if p.is_file()]
    assert files
    for p in files:
        data = p.read_bytes()
        for needle in needles:
            assert needle not in data, (p, needle)


def test_the_seed_is_in_no_output(tmp_path):
    from typer.testing import CliRunner

    from ppdm.bayesnet.parties import write_release
    from ppdm.bayesnet.pram import PramScheme, binary_randomization
    from ppdm.cli import app
    from ppdm_papers.bn_parties import Party

    df = _table(200)
    df.to_csv(tmp_path / "in.csv", index=False)
    make_release(df, tmp_path / "single", random_state=SEED, class_attribute="label")
    make_release_partitioned(df, tmp_path / "parted", random_state=SEED, class_attribute="label")
    args = ["perturb", str(tmp_path / "in.csv"), "--out", str(tmp_path / "cli")]
    args += ["--class", "label", "--seed", str(SEED)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    codes = pd.DataFrame({"A": df["kids"] % 2})
    scheme = PramScheme({"A": 2}, [(["A"], binary_randomization(0.2, 0.2))])
    write_release(Party("s1", codes, scheme).release(random_state=SEED), tmp_path / "bn")
    for name in ("single", "parted", "cli", "bn"):
        _assert_no_seed(tmp_path / name)


def test_partitioned_copies_equal_the_single_file_copies(tmp_path):
    df = _table(900)
    opts = dict(class_attribute="label", random_state=SEED, copies=3)
    single = make_release(df, tmp_path / "single", batch_size=250, **opts)  # not the parts
    parted = make_release_partitioned(_split(df, [300, 600]), tmp_path / "parted", **opts)
    assert parted.n_records == single.n_records == len(df)
    a, b = _release_data(tmp_path / "single"), _release_data(tmp_path / "parted")
    assert len(a) == 3 * len(df)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
