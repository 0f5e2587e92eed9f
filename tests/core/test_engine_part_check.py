"""The partitioned engine checks every written part where it was written (no client-side
read of the whole release)."""

import numpy as np
import pandas as pd
import pytest

from ppdm.engine import make_release_partitioned, workflows
from ppdm.exceptions import DomainError, SpecError


def _parts(tmp_path):
    rng = np.random.default_rng(0)
    src = tmp_path / "in"
    src.mkdir()
    for i in range(3):
        pd.DataFrame({"x": rng.uniform(0, 10, 200), "y": rng.integers(0, 2, 200)}).to_parquet(
            src / f"p{i}.parquet", index=False
        )
    return src


def _release_with_parts_changed(tmp_path, monkeypatch, change):
    """Release the three parts to ``tmp_path / "rel"`` with ``change(batch, i)`` applied
    to every perturbed batch of partition ``i`` before it is checked and written."""
    src = _parts(tmp_path)
    real = workflows.perturb_partition_batches

    def changed(batches, spec, root, i, offset):
        for b in real(batches, spec, root, i, offset):
            yield change(b, i)

    monkeypatch.setattr(workflows, "perturb_partition_batches", changed)
    make_release_partitioned(
        src, tmp_path / "rel", class_attribute="y", bounds={"x": (0, 10)}, random_state=1
    )


def test_a_part_with_a_value_outside_its_domain_is_refused_and_nothing_is_published(
    tmp_path, monkeypatch
):
    def corrupt(b, i):
        if i == 1:
            b = b.copy()
            b.loc[b.index[5], "x"] = 999.0
        return b

    with pytest.raises(DomainError, match=r"release part part-00001\.parquet: .*'x'"):
        _release_with_parts_changed(tmp_path, monkeypatch, corrupt)
    assert not (tmp_path / "rel").exists()


def test_a_sound_release_reads_back_with_its_row_count(tmp_path):
    src = _parts(tmp_path)
    spec = make_release_partitioned(
        src, tmp_path / "rel", class_attribute="y", bounds={"x": (0, 10)}, random_state=1
    )
    assert spec.n_records == 600
    back = pd.read_parquet(tmp_path / "rel" / "data")
    assert len(back) == 600 and back["x"].between(0, 10).all()


def test_parquet_partitions_with_owner_bounds_are_planned_from_their_footers(tmp_path, monkeypatch):
    src = _parts(tmp_path)
    opts = dict(class_attribute="y", bounds={"x": (0, 10)}, random_state=1)
    with monkeypatch.context() as m:  # the plan from a pass over the partitions
        m.setattr(workflows, "plan_from_footers", lambda *a: None)
        make_release_partitioned(src, tmp_path / "read", **opts)

    def no_pass(*a):
        raise AssertionError("the partitions were read to plan the release")

    monkeypatch.setattr(workflows, "_sketch_rows_task", no_pass)
    make_release_partitioned(src, tmp_path / "footer", **opts)
    for name in ("spec.json", "privacy.json", "data/part-00000.parquet", "data/part-00002.parquet"):
        assert (tmp_path / "read" / name).read_bytes() == (tmp_path / "footer" / name).read_bytes()


def _count_read_backs(monkeypatch) -> list:
    calls = []
    real = workflows._verified_rows

    def spy(spec, path):
        calls.append(path.name)
        return real(spec, path)

    monkeypatch.setattr(workflows, "_verified_rows", spy)
    return calls


def test_parts_are_checked_as_written_not_read_back_when_their_values_survive_parquet(
    tmp_path, monkeypatch
):
    src = _parts(tmp_path)
    calls = _count_read_backs(monkeypatch)
    spec = make_release_partitioned(
        src, tmp_path / "rel", class_attribute="y", bounds={"x": (0, 10)}, random_state=1
    )
    assert calls == [] and spec.n_records == 600


def test_random_representatives_are_read_back_part_by_part(tmp_path, monkeypatch):
    src = _parts(tmp_path)
    calls = _count_read_backs(monkeypatch)
    opts = dict(class_attribute="y", bounds={"x": (0, 10)}, random_state=1)
    spec = make_release_partitioned(src, tmp_path / "rel", representative="random", **opts)
    assert sorted(calls) == [f"part-0000{i}.parquet" for i in range(3)]
    assert spec.n_records == 600


def test_a_part_written_with_a_column_the_spec_lacks_is_refused(tmp_path, monkeypatch):
    def extra(b, i):
        return b.assign(leak=1) if i == 2 else b

    with pytest.raises(SpecError, match=r"does not describe \['leak'\]"):
        _release_with_parts_changed(tmp_path, monkeypatch, extra)
    assert not (tmp_path / "rel").exists()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_an_empty_part_is_accepted_in_either_format(tmp_path, fmt):
    """A CSV part with a header and no rows was refused while an empty Parquet part was
    accepted: both are a partition that happens to hold nothing."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 10, 60), "y": rng.integers(0, 2, 60)})
    src = tmp_path / "in"
    src.mkdir()
    for i, part in enumerate([frame.iloc[:30], frame.iloc[:0], frame.iloc[30:]]):
        if fmt == "csv":
            part.to_csv(src / f"p{i}.csv", index=False)
        else:
            part.to_parquet(src / f"p{i}.parquet", index=False)
    spec = make_release_partitioned(
        src, tmp_path / "rel", class_attribute="y", bounds={"x": (0, 10)}, random_state=1
    )
    assert spec.n_records == 60
    assert len(pd.read_parquet(tmp_path / "rel" / "data")) == 60


@pytest.mark.parametrize(
    "change, why",
    [
        (lambda t: t.assign(y=t["y"].astype(str)), "holds column 'y' as str but"),
        (lambda t: t.drop(columns=["x"]), "lacks ['x']"),
        (lambda t: t.assign(zz=1), "has columns its spec does not describe ['zz']"),
    ],
)
@pytest.mark.parametrize("engine", ["local", "dask"])
def test_a_part_unlike_the_others_is_named_by_every_command(tmp_path, change, why, engine):
    """A part whose class was text made by-class estimates drop the other parts' records
    (exit 0); a part without a column was 'unknown name', one with a column more passed."""
    from typer.testing import CliRunner

    from ppdm.cli import app

    if engine == "dask":
        pytest.importorskip("distributed")
    src = _parts(tmp_path)
    rel = tmp_path / "rel"
    make_release_partitioned(src, rel, class_attribute="y", bounds={"x": (0, 10)}, random_state=1)
    part = sorted((rel / "data").iterdir())[1]
    table = pd.read_parquet(part)
    part.unlink()
    change(table).to_parquet(part, index=False)
    runner = CliRunner()
    for args in (
        ["estimate", str(rel), "--by-class"],
        ["reconstruct", str(rel), "--out", str(tmp_path / "r")],
    ):
        r = runner.invoke(app, [*args, "--engine", engine])
        assert r.exit_code == 1 and f"partition file {str(part)!r}" in r.output, r.output
        assert why in r.output


def test_a_corrupt_page_names_its_part(tmp_path):
    """Arrow's 'Corrupt snappy compressed data.' named no file."""
    from typer.testing import CliRunner

    from ppdm.cli import app

    rng = np.random.default_rng(0)
    src = tmp_path / "in"
    src.mkdir()
    for i in range(2):  # parts large enough to hold a data page past byte 2100
        frame = pd.DataFrame({"x": rng.uniform(0, 10, 5000), "y": rng.integers(0, 2, 5000)})
        frame.to_parquet(src / f"p{i}.parquet", index=False)
    rel = tmp_path / "rel"
    make_release_partitioned(src, rel, class_attribute="y", bounds={"x": (0, 10)}, random_state=1)
    part = sorted((rel / "data").iterdir())[1]
    raw = part.read_bytes()
    noise = np.random.default_rng(0).integers(0, 256, 2000, dtype=np.uint8).tobytes()
    part.write_bytes(raw[:100] + noise + raw[2100:])  # a data page, the footer intact
    r = CliRunner().invoke(app, ["estimate", str(rel)])
    assert r.exit_code == 1 and f"input file {str(part)!r}" in r.output, r.output


def test_a_header_only_csv_part_adds_no_part_and_changes_no_value(tmp_path):
    """An empty partition holds no types to agree on: it is skipped, and the release's
    values are those of the whole table released in one piece."""
    from ppdm.pipeline import load_release, make_release

    rng = np.random.default_rng(0)
    table = pd.DataFrame({"x": rng.integers(0, 50, 900), "c": rng.choice(["a", "b"], 900)})
    src = tmp_path / "in"
    src.mkdir()
    table.iloc[:400].to_csv(src / "p0.csv", index=False)
    table.iloc[:0].to_csv(src / "p1.csv", index=False)
    table.iloc[400:].to_csv(src / "p2.csv", index=False)
    keys = dict(class_attribute="c", bounds={"x": (0, 49)}, n_bins=50, random_state=3)
    spec = make_release_partitioned(src, tmp_path / "parts", **keys)
    make_release(table, tmp_path / "whole", **keys)
    assert spec.n_records == 900
    assert sorted(p.name for p in (tmp_path / "parts" / "data").iterdir()) == [
        "part-00000.parquet",
        "part-00002.parquet",
    ]
    parts = load_release(tmp_path / "parts").frame()
    whole = load_release(tmp_path / "whole").frame()
    pd.testing.assert_frame_equal(parts, whole, check_dtype=False)
