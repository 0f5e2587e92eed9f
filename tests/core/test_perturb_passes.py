"""``make_release`` reads its input once when the plan needs nothing from the data, and
checks what it wrote without reading the values back; the releases are unchanged."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

import ppdm.pipeline.batches as pp_batches
import ppdm.pipeline.writing as pp_writing
from ppdm.exceptions import DomainError, SpecError
from ppdm.io import count_csv_records, iter_batches, parquet_kinds
from ppdm.pipeline import check_written_release, load_release, make_release, verify_release

pytestmark = pytest.mark.filterwarnings("ignore")

BOUNDS = {"age": (18, 91), "income": (0, 2e5), "score": (0, 1), "small": (0, 40)}


def _table(n: int = 3000) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 91, n),
            "income": rng.uniform(0, 2e5, n).round(2),
            "score": rng.uniform(0, 1, n).astype(np.float32),
            "small": rng.integers(0, 40, n).astype(np.uint8),
            "color": rng.choice(["r", "g", "b"], n),
            "flag": rng.random(n) < 0.3,
            "label": rng.integers(0, 2, n),
        }
    )


def _release(src, out, fmt="csv", **options):
    options = {
        "class_attribute": "label",
        "bounds": BOUNDS,
        "attributes": list(BOUNDS),
        **options,
    }
    return make_release(src, out, fmt=fmt, random_state=11, batch_size=700, **options)


class _Reads:
    """Counts the passes ``make_release`` makes over its input."""

    def __init__(self, monkeypatch):
        self.passes = 0
        real = pp_batches.iter_batches

        def counted(*args, **kwargs):
            self.passes += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(pp_batches, "iter_batches", counted)


def test_parquet_with_owner_bounds_is_read_once_same_bytes(tmp_path, monkeypatch):
    # digests of the code that planned from a first pass over the data (same table,
    # seed, batches): planning from the footer must not move a byte
    _table().to_parquet(tmp_path / "t.parquet", index=False, row_group_size=1000)
    reads = _Reads(monkeypatch)
    spec = _release(tmp_path / "t.parquet", tmp_path / "rel")
    assert reads.passes == 1
    assert spec.n_records == 3000
    digest = {
        "data.csv": "08a5bb626af57d91ee509aa115875e732f2a25a42e0b15c88450c622885ae9a5",
        "spec.json": "0a907e865e89ae81e603fa0be8cfe8c5c97fe22e7e459df9239bf1c363c7f13b",
    }
    for name, expected in digest.items():
        assert hashlib.sha256((tmp_path / "rel" / name).read_bytes()).hexdigest() == expected


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize(
    "case",
    [
        "bounds",  # every perturbed column has owner bounds: footer
        "data domain",  # a categorical column learnt from the data: two passes
        "missing",  # a missing value: two passes (the plan must see where)
        "bounds, every column",  # the class kept, all others perturbed
    ],
)
def test_footer_plan_equals_the_plan_from_the_data(tmp_path, monkeypatch, fmt, case):
    df = _table(2000)
    options: dict = {}
    if case == "data domain":
        options["attributes"] = [*BOUNDS, "color"]
    elif case == "missing":
        df["color"] = df["color"].where(df.index != 1500)
        options["missing"] = "category"
    elif case == "bounds, every column":
        df = df[[*BOUNDS, "label"]]
        options["attributes"] = None
    src = tmp_path / "t.parquet"
    df.to_parquet(src, index=False, row_group_size=600)
    footer = _release(src, tmp_path / "a", fmt, **options)
    with monkeypatch.context() as m:
        m.setattr(pp_writing, "_plan_from_footer", lambda *a: None)  # the plan from a first pass
        data = _release(src, tmp_path / "b", fmt, **options)
    assert footer == data
    for name in (f"data.{fmt}", "spec.json", "privacy.json", "privacy.txt"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    reads = _Reads(monkeypatch)
    _release(src, tmp_path / "c", fmt, **options)
    assert reads.passes == (1 if "bounds" in case else 2)


def test_footer_kinds_are_the_kinds_of_the_batches(tmp_path):
    df = _table(500)
    df.to_parquet(tmp_path / "t.parquet", index=False)
    rows, kinds = parquet_kinds(tmp_path / "t.parquet")
    assert rows == 500
    assert kinds == {
        "age": "int",
        "income": "float",
        "score": "float",
        "small": "int",
        "color": "str",
        "flag": "bool",
        "label": "int",
    }
    batch = next(iter_batches(tmp_path / "t.parquet"))
    for c, kind in kinds.items():
        dtype = batch[c].dtype
        assert kind == (
            "bool"
            if pd.api.types.is_bool_dtype(dtype)
            else "int"
            if pd.api.types.is_integer_dtype(dtype)
            else "float"
            if pd.api.types.is_float_dtype(dtype)
            else "str"
        )


@pytest.mark.parametrize(
    "frame, index",
    [
        (pd.DataFrame({"x": [1.0, None, 3.0]}), False),  # a missing value
        (pd.DataFrame({"x": pd.Categorical(["a", "b", "a"])}), False),  # dictionary
        (pd.DataFrame({"x": [1, 2, 3]}, index=[5, 6, 7]), True),  # a stored index
    ],
)
def test_footer_tells_nothing_when_the_data_must_be_read(tmp_path, frame, index):
    frame.to_parquet(tmp_path / "t.parquet", index=index)
    assert parquet_kinds(tmp_path / "t.parquet") is None


def test_footer_of_a_table_ppdm_cannot_release_is_refused_as_reading_it_is(tmp_path):
    from ppdm.exceptions import DataError

    pd.DataFrame({"x": pd.to_datetime(["2020-01-01"] * 3)}).to_parquet(tmp_path / "t.parquet")
    with pytest.raises(DataError, match="has type timestamp"):
        parquet_kinds(tmp_path / "t.parquet")
    with pytest.raises(DataError, match="has type timestamp"):
        next(iter_batches(tmp_path / "t.parquet"))


def test_footer_without_statistics_tells_nothing(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "t.parquet", write_statistics=False)
    assert parquet_kinds(tmp_path / "t.parquet") is None
    pq.write_table(pa.table({"x": [1, 2, 3]}), tmp_path / "t.parquet")
    assert parquet_kinds(tmp_path / "t.parquet") == (3, {"x": "int"})


@pytest.mark.parametrize(
    "text",
    [
        "a,b\n1,2\n3,4\n",
        "a,b\n1,2\n3,4",  # no line end after the last record
        'a,b\n"x\ny",2\n3,4\n',  # a quoted line break
        "a,b\r\n1,2\r\n3,4\r\n",
        "a,b\n1,2\n\n3,4\n",  # an empty line is no record
        "a,b\n",
    ],
)
def test_csv_records_are_counted_as_the_reader_reads_them(tmp_path, text):
    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    expected = (
        sum(len(b) for b in pp_batches.table_batches(path, 10, "text")) if text != "a,b\n" else 0
    )
    assert count_csv_records(path) == expected


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_check_of_the_written_release_finds_lost_rows_and_columns(tmp_path, fmt):
    _table(1000).to_csv(tmp_path / "t.csv", index=False)
    _release(tmp_path / "t.csv", tmp_path / "rel", fmt)
    data = tmp_path / "rel" / f"data.{fmt}"
    assert check_written_release(tmp_path / "rel") == verify_release(tmp_path / "rel") == 1000
    frame = load_release(tmp_path / "rel").frame()
    from ppdm.io import write_table

    write_table(frame.iloc[:-1], data, fmt=fmt)
    with pytest.raises(SpecError, match="holds 999 rows but its spec says n_records 1000"):
        check_written_release(tmp_path / "rel")
    write_table(frame.drop(columns=["flag"]), data, fmt=fmt)
    with pytest.raises(SpecError):
        check_written_release(tmp_path / "rel")


def test_check_of_the_written_release_reads_every_value_back_as_the_data_is_read(tmp_path):
    # a category spelled "NA" is written as NA and read back as missing: refused, as
    # reading the whole release back refuses it
    from ppdm.options import PlanOptions
    from ppdm.release import AttributeSpec, ReleaseSpec

    df = pd.DataFrame({"c": ["NA", "b"] * 50, "label": [0, 1] * 50})
    spec = ReleaseSpec(
        attributes=[
            AttributeSpec(
                name="c",
                perturbed=True,
                domain={"kind": "categorical", "values": ["NA", "b"]},
                matrix={"kind": "gamma-diagonal", "gamma": 9.0},
            ),
            AttributeSpec(name="label", perturbed=False),
        ],
        class_attribute="label",
    )
    with pytest.raises(DomainError, match="its value 'NA' is read back from a csv release as nan"):
        make_release(df, tmp_path / "rel", random_state=1, options=PlanOptions(spec=spec))
    assert not (tmp_path / "rel").exists()
    make_release(
        df, tmp_path / "rel", fmt="parquet", random_state=1, options=PlanOptions(spec=spec)
    )
    assert load_release(tmp_path / "rel").frame()["c"].isin(["NA", "b"]).all()


def test_every_constant_column_is_named_at_once_and_nothing_else_is_said(tmp_path):
    """Several columns of one value are refused in one message naming them all, without
    the privacy warnings of the plan that was not made; one such column keeps its own
    words."""
    import warnings

    import pandas as pd

    from ppdm.domain.sketch import ConstantColumnError
    from ppdm.perturbation import plan_release

    frame = pd.DataFrame({"a": [1.0] * 50, "b": range(50), "c": ["x"] * 50, "y": [0, 1] * 25})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(ConstantColumnError) as err:
            plan_release(frame, class_attribute="y")
    assert str(err.value).startswith("columns 'a', 'c' (2) each hold a single value")
    assert caught == []  # 'b''s bounds-from-data warning belongs to a plan never made
    with pytest.raises(ConstantColumnError, match=r"^column 'c' has a single value 'x'"):
        plan_release(frame[["b", "c", "y"]], class_attribute="y")
    with pytest.warns(Warning, match="'b'"):  # a plan that holds still says it
        plan_release(frame[["b", "y"]], class_attribute="y")
