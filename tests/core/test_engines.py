"""One ``engine=`` argument for making, estimating and reconstructing a release."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import ppdm
from ppdm.exceptions import OptionError

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.PrivacyWarning")

OPTIONS = dict(class_attribute="y", bounds={"x": (0, 10), "z": (0, 1)}, random_state=4)


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> tuple:
    rng = np.random.default_rng(3)
    n = 3000
    frame = pd.DataFrame(
        {"x": rng.uniform(0, 10, n), "z": rng.uniform(0, 1, n), "y": rng.choice(["a", "b"], n)}
    )
    root = tmp_path_factory.mktemp("engines")
    frame.to_parquet(root / "t.parquet", index=False, row_group_size=1000)
    (root / "parts").mkdir()
    for i in range(3):
        frame.iloc[1000 * i : 1000 * (i + 1)].to_parquet(root / "parts" / f"p{i}.parquet")
    return root, frame


def _data(directory) -> pd.DataFrame:
    return ppdm.load(directory).data.reset_index(drop=True)


def test_every_engine_releases_the_same_values(source, tmp_path):
    root, _ = source
    ppdm.make_release(root / "t.parquet", tmp_path / "local", **OPTIONS)
    ppdm.make_release(root / "t.parquet", tmp_path / "part", engine="partitioned", **OPTIONS)
    ppdm.make_release(root / "parts", tmp_path / "parts", **OPTIONS)  # parts: partitioned
    assert (tmp_path / "part" / "data").is_dir() and (tmp_path / "parts" / "data").is_dir()
    local = _data(tmp_path / "local")
    pd.testing.assert_frame_equal(local, _data(tmp_path / "part"), check_dtype=False)
    pd.testing.assert_frame_equal(local, _data(tmp_path / "parts"), check_dtype=False)


def test_estimates_and_reconstructions_agree_across_engines(source, tmp_path):
    root, _ = source
    ppdm.make_release(root / "t.parquet", tmp_path / "rel", **OPTIONS)
    local = ppdm.estimate_release(tmp_path / "rel", by_class=True)
    part = ppdm.estimate_release(tmp_path / "rel", by_class=True, engine="partitioned")
    for a, b in zip(local, part, strict=True):
        np.testing.assert_allclose(a.overall.counts, b.overall.counts)
    table = ppdm.reconstruct_release(tmp_path / "rel", random_state=2)
    ppdm.reconstruct_release(tmp_path / "rel", tmp_path / "rec.parquet", random_state=2)
    ppdm.reconstruct_release(tmp_path / "rel", tmp_path / "rec", random_state=2)  # parts
    assert (tmp_path / "rec").is_dir()
    parts = pd.read_parquet(tmp_path / "rec").reset_index(drop=True)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "rec.parquet"), table)
    pd.testing.assert_frame_equal(parts, table, check_dtype=False)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda r, o: ppdm.make_release(r / "t.parquet", o, engine="gpu", **OPTIONS), "engine"),
        (
            lambda r, o: ppdm.make_release(
                r / "t.parquet", o, engine="local", scheduler="tcp://x:1", **OPTIONS
            ),
            "scheduler",
        ),
        (lambda r, o: ppdm.make_release(r / "parts", o, fmt="csv", **OPTIONS), "fmt"),
        (lambda r, o: ppdm.make_release(r / "parts", o, batch_size=10, **OPTIONS), "batch_size"),
        (lambda r, o: ppdm.estimate_release(r / "none", engine="gpu"), "engine"),
    ],
)
def test_a_setting_the_engine_cannot_take_is_refused_naming_it(source, tmp_path, call, field):
    root, _ = source
    with pytest.raises(OptionError) as caught:
        call(root, tmp_path / "out")
    assert caught.value.field == field and str(caught.value).startswith(field)
    assert not (tmp_path / "out").exists()


def test_the_command_line_takes_the_same_engines(source, tmp_path, run_cli):
    root, _ = source
    args = ["--class", "y", "--bounds", "x=0:10", "--bounds", "z=0:1", "--seed", "4"]
    code, out, err = run_cli(
        "perturb", root / "t.parquet", "--out", tmp_path / "r", "--engine", "partitioned", *args
    )
    assert code == 0 and "partitioned Parquet" in out, err
    code, _, err = run_cli(
        "perturb", root / "parts", "--out", tmp_path / "s", "--format", "csv", *args
    )
    assert code == 2 and err.startswith("error: --format csv: a partitioned release"), err
    code, _, err = run_cli(
        "reconstruct", tmp_path / "r", "--out", tmp_path / "rec.csv", "--batch-size", "5",
        "--engine", "partitioned",
    )  # fmt: skip
    assert code == 2 and err.startswith("error: --batch-size is for engine 'local'"), err
