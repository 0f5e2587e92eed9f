"""``import ppdm``: a release made in memory, saved, opened and mined in a few calls."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import ppdm
from ppdm.exceptions import OutputError, ParameterError
from ppdm.pipeline import estimate_release, load_release, make_release

pytestmark = pytest.mark.filterwarnings("ignore::ppdm.exceptions.PrivacyWarning")


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    n = 600
    x = rng.integers(0, 6, n)
    return pd.DataFrame(
        {
            "x": x,
            "z": np.round(rng.uniform(0, 10, n), 2),
            "colour": rng.choice(["red", "green", "blue"], n),
            "y": np.where(x > 2, "hi", "lo"),
        }
    )


OPTIONS = dict(class_attribute="y", gamma=7, bounds={"z": (0, 10)})


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_release_made_in_memory_is_the_bytes_make_release_writes(table, tmp_path, fmt):
    rel = ppdm.perturb(table, random_state=11, **OPTIONS)
    saved = rel.save(tmp_path / "mem", fmt=fmt)
    make_release(table, tmp_path / "file", fmt=fmt, random_state=11, **OPTIONS)
    for name in (f"data.{fmt}", "spec.json", "privacy.json", "privacy.txt"):
        assert (tmp_path / "mem" / name).read_bytes() == (tmp_path / "file" / name).read_bytes()
    assert (
        saved.spec
        == load_release(tmp_path / "file").spec
        == rel.spec.model_copy(update={"data_file": f"data.{fmt}"})
    )


def test_the_release_in_memory_answers_as_the_one_on_disk(table, tmp_path):
    rel = ppdm.perturb(table, random_state=3, **OPTIONS)
    assert rel.data_path is None and rel.data.shape == table.shape
    assert rel.privacy["per_record"]["attributes"] == 3  # x, z and colour
    assert rel.privacy["per_record"]["epsilon"] == pytest.approx(3 * np.log(7))
    disk = rel.save(tmp_path / "r")
    for mem, on_disk in zip(rel.estimate(), estimate_release(disk), strict=True):
        assert mem.name == on_disk.name
        np.testing.assert_array_equal(mem.overall.perturbed, on_disk.overall.perturbed)
    pd.testing.assert_frame_equal(
        rel.reconstruct(random_state=5), disk.reconstruct(random_state=5), check_dtype=False
    )
    table_before = table.copy()
    ppdm.perturb(table, **OPTIONS)
    pd.testing.assert_frame_equal(table, table_before)  # the input is never modified


def test_what_one_call_read_does_not_bind_the_next(table, tmp_path):
    """A release loaded earlier in the process is not an input of a later, unrelated
    call: writing a new release over it (asked for) is allowed."""
    make_release(table, tmp_path / "r0", **OPTIONS)
    ppdm.load(tmp_path / "r0")
    make_release(table, tmp_path / "r0", overwrite=True, **OPTIONS)
    assert load_release(tmp_path / "r0").spec.n_records == len(table)


def test_a_call_still_protects_its_own_inputs_in_its_own_words(table, tmp_path):
    make_release(table, tmp_path / "r0", **OPTIONS)
    with pytest.raises(OutputError, match=r"^out_dir .*r0.* input"):
        make_release(tmp_path / "r0" / "data.csv", tmp_path / "r0", overwrite=True, **OPTIONS)
    opened = ppdm.load(tmp_path / "r0")
    with pytest.raises(OutputError, match=r"^directory .*r0.*inside"):
        opened.save(tmp_path / "r0" / "copy")
    with pytest.raises(OutputError, match=r"^directory .*r0.*overwrite"):
        ppdm.perturb(table, **OPTIONS).save(tmp_path / "r0")
    with pytest.raises(ParameterError, match="fmt must be 'csv' or 'parquet'"):
        opened.save(tmp_path / "r1", fmt="xlsx")
    with pytest.raises(ParameterError, match="^frame must be a pandas DataFrame"):
        ppdm.perturb(tmp_path / "r0" / "data.csv")


def test_the_command_line_names_its_flag_not_the_parameter(table, tmp_path, run_cli):
    make_release(table, tmp_path / "r0", **OPTIONS)
    code, _, err = run_cli(
        "perturb",
        tmp_path / "r0" / "data.csv",
        "--out",
        tmp_path / "r0",
        "--overwrite",
        "--class",
        "y",
    )
    assert code == 2 and err.startswith("error: --out ") and "input" in err, err


def test_import_ppdm_stays_light():
    """The command line imports the package first: its names load on first use."""
    code = (
        "import sys, ppdm; assert 'pandas' not in sys.modules, 'pandas'; "
        "assert callable(ppdm.perturb) and 'pandas' in sys.modules; "
        "assert sorted(ppdm.__all__) == sorted(dir(ppdm))"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        ppdm.nothing  # noqa: B018


def test_a_release_learner_fits_a_release_object_as_fit_release_does(table, tmp_path):
    rel = ppdm.perturb(table, random_state=3, **OPTIONS)
    by_fit = ppdm.ReleaseTreeClassifier().fit(rel)
    by_release = ppdm.ReleaseTreeClassifier().fit_release(rel)
    from_disk = ppdm.ReleaseTreeClassifier().fit(
        ppdm.load(rel.save(tmp_path / "r").data_path.parent)
    )
    X = table.drop(columns="y")
    np.testing.assert_array_equal(by_fit.predict(X), by_release.predict(X))
    np.testing.assert_array_equal(from_disk.predict(X), by_release.predict(X))
