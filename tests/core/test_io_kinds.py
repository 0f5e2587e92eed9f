"""Column kinds: fixed over the whole file, exact integers, string codes, refused types."""

import decimal
import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from ppdm.domain import CategoricalDomain, DomainSketch
from ppdm.exceptions import DataError, DomainError
from ppdm.io import iter_batches, read_table
from ppdm.perturbation import plan_release
from ppdm.pipeline import estimate_release, load_release, make_release, reconstruct_release

pytestmark = pytest.mark.filterwarnings("ignore")


def _spec(path):
    return json.loads((path / "spec.json").read_text())


def _domain(path, name):
    return next(a for a in _spec(path)["attributes"] if a["name"] == name)["domain"]


def test_kind_decided_over_the_whole_file(tmp_path):
    # '1'/'2' in every batch but the last, which also holds one 'x'
    n = 2000
    df = pd.DataFrame({"a": ["1", "2"] * (n // 2), "c": ["u", "v"] * (n // 2)})
    df.loc[n - 1, "a"] = "x"
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "rel"
    make_release(src, out, random_state=3, batch_size=300, class_attribute="c")
    assert _domain(out, "a")["values"] == ["1", "2", "x"]
    released = pd.read_csv(out / "data.csv", dtype=str)["a"]
    assert set(released) <= {"1", "2", "x"}
    # gamma-diagonal N = 3, gamma = 9: P(keep) = 9/11, P(to each other value) = 1/11
    p_x = np.where(df["a"] == "x", 9 / 11, 1 / 11)
    mean, sd = p_x.sum(), math.sqrt((p_x * (1 - p_x)).sum())
    assert abs((released == "x").sum() - mean) < 5 * sd


def test_numbers_in_a_later_batch_of_a_string_column_stay_strings(tmp_path):
    df = pd.DataFrame({"a": ["p", "q"] * 100 + ["7", "8"] * 100})
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    kinds: dict = {}
    spec = plan_release(iter_batches(src, 50, kinds="text"), kinds=kinds)
    assert kinds == {"a": "str"}
    assert list(spec.attribute("a").get_domain().values) == ["7", "8", "p", "q"]


def test_batch_kinds_do_not_depend_on_the_batch(tmp_path):
    src = tmp_path / "in.csv"
    pd.DataFrame({"a": ["1"] * 10 + ["x"]}).to_csv(src, index=False)
    batches = list(iter_batches(src, 4, kinds={"a": "str"}))
    assert [b["a"].tolist() for b in batches] == [["1"] * 4, ["1"] * 4, ["1", "1", "x"]]


def test_many_numbers_then_a_word_is_one_line(tmp_path):
    n = 30_000
    df = pd.DataFrame({"a": np.arange(n).astype(str)})
    df.loc[n - 1, "a"] = "oops"
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    with pytest.raises(DomainError, match=r"column 'a' data row 30000 has value 'oops'"):
        plan_release(iter_batches(src, 5000, kinds="text"))


@pytest.mark.parametrize("source", ["csv", "parquet"])
def test_string_codes_round_trip(tmp_path, source):
    n = 900
    df = pd.DataFrame({"zip": ["00501", "00502", "10001"] * (n // 3), "c": ["u", "v", "w"] * 300})
    src = tmp_path / f"in.{source}"
    df.to_csv(src, index=False) if source == "csv" else df.to_parquet(src)
    out = tmp_path / "rel"
    make_release(src, out, fmt="csv", random_state=1, class_attribute="c")
    assert _domain(out, "zip")["values"] == ["00501", "00502", "10001"]
    rel = load_release(out)
    assert set(rel.frame()["zip"]) == {"00501", "00502", "10001"}
    est = estimate_release(out)
    assert est[0].labels == ["00501", "00502", "10001"]
    # 300 of each value: within 4 standard deviations of the raw inverse, M = a I + b J,
    # Var = x (1 - 2b - a) / a + n b (1 - b) / a^2 (set-scale only shrinks it)
    a, b = rel.spec.attribute("zip").get_matrix().affine_form
    sd = np.sqrt(300 * (1 - 2 * b - a) / a + n * b * (1 - b) / a**2)
    assert (np.abs(est[0].overall.counts - 300) < 4 * sd).all()
    rec = reconstruct_release(out, random_state=2)
    assert set(rec["zip"]) == {"00501", "00502", "10001"}
    dest = tmp_path / "rec.csv"
    reconstruct_release(out, dest, random_state=2)
    assert set(pd.read_csv(dest, dtype=str)["zip"]) == {"00501", "00502", "10001"}


@pytest.mark.parametrize("source", ["csv", "parquet"])
def test_integers_above_2_53_stay_exact(tmp_path, source):
    big = [2**60 + 1, 2**60 + 3, 2**60 + 5]
    df = pd.DataFrame({"k": big * 50, "c": [1, 2, 3] * 50})
    src = tmp_path / f"in.{source}"
    df.to_csv(src, index=False) if source == "csv" else df.to_parquet(src)
    out = tmp_path / "rel"
    make_release(src, out, random_state=1, class_attribute="c")
    assert _domain(out, "k")["values"] == big
    rec = reconstruct_release(out, random_state=0)
    assert rec["k"].dtype == np.int64
    assert set(rec["k"].tolist()) == set(big)


def test_sketch_keeps_integers_exact():
    sketch = DomainSketch("k").update(pd.Series([2**60 + 1, 2**60 + 2]))
    assert sketch.to_domain(warn=False).values == (2**60 + 1, 2**60 + 2)


def test_bool_column_round_trips(tmp_path):
    df = pd.DataFrame({"flag": [True, False, True, True] * 25, "c": [1, 2] * 50})
    src = tmp_path / "in.parquet"
    df.to_parquet(src)
    for fmt in ("csv", "parquet"):
        out = tmp_path / f"rel-{fmt}"
        make_release(src, out, fmt=fmt, random_state=1, class_attribute="c")
        assert _domain(out, "flag")["values"] == [False, True]
        assert set(load_release(out).frame()["flag"]) <= {False, True}
        est = estimate_release(out)
        assert est[0].labels == ["False", "True"]
        rec = reconstruct_release(out, random_state=0)
        assert rec["flag"].dtype == bool


def test_bool_domain_decodes_to_bools():
    d = CategoricalDomain((False, True))
    out = d.decode(np.array([1, 0]))
    assert out.dtype == bool
    assert out.tolist() == [True, False]


def _write_parquet(path, column):
    pq.write_table(pa.table({"y": [1, 2] * 5, "v": column}), path)


@pytest.mark.parametrize(
    ("column", "typename"),
    [
        (pa.array(pd.date_range("2020-01-01", periods=10)), "timestamp"),
        (pa.array([decimal.Decimal("1.10")] * 10, pa.decimal128(5, 2)), "decimal128(5, 2)"),
        (pa.array([[1, 2], [3]] * 5), "list<"),
        (pa.array([{"a": 1}, {"a": 2}] * 5), "struct<a: int64>"),
        (pa.array([b"x", b"y"] * 5), "binary"),
    ],
)
def test_unsupported_parquet_types_are_refused_by_name(run_cli, tmp_path, column, typename):
    src = tmp_path / "x.parquet"
    _write_parquet(src, column)
    code, _, err = run_cli("perturb", src, "--out", tmp_path / "rel", "--seed", "1")
    assert code != 0
    line = err.strip().splitlines()[-1]
    assert f"column 'v' of '{src}' has type {typename}" in line
    assert "cannot release; convert it to" in line
    assert "Traceback" not in err
    assert not (tmp_path / "rel").exists()


def test_unsupported_in_memory_types_are_refused_by_name():
    df = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=4), "y": [1, 2, 1, 2]})
    with pytest.raises(DomainError, match=r"column 'when' has type datetime64.*cannot release"):
        plan_release(df)
    df = pd.DataFrame({"amt": [decimal.Decimal("1.5"), decimal.Decimal("2")] * 2})
    with pytest.raises(DomainError, match=r"column 'amt' has type .*cannot release"):
        plan_release(df)


def test_release_data_read_with_the_spec_kinds(tmp_path):
    # a categorical domain of strings reads its column as strings, whatever they look like
    df = pd.DataFrame({"s": ["1", "2", "3"] * 30, "c": ["u", "v", "w"] * 30})
    src = tmp_path / "in.parquet"
    df.to_parquet(src)
    out = tmp_path / "rel"
    make_release(src, out, fmt="csv", random_state=1, class_attribute="c")
    batches = list(load_release(out).batches(7))
    assert all(b["s"].map(type).eq(str).all() for b in batches)
    assert read_table(out / "data.csv", kinds={"s": "str"})["s"].map(type).eq(str).all()


def test_saved_index_column_is_named_as_pandas_names_it(tmp_path):
    src = tmp_path / "in.csv"
    pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}).to_csv(src)  # with its index
    frame = read_table(src)
    assert frame.columns.tolist() == pd.read_csv(src).columns.tolist() == ["Unnamed: 0", "a", "b"]
    assert frame["a"].tolist() == [1, 2]


def test_owner_spec_of_string_values_reads_the_column_as_strings(tmp_path):
    from ppdm.release import AttributeSpec, ReleaseSpec

    src = tmp_path / "in.csv"
    pd.DataFrame({"g": [1, 2, 3] * 40, "c": ["u", "v"] * 60}).to_csv(src, index=False)
    domain = {"kind": "categorical", "values": ["1", "2", "3"]}
    user = ReleaseSpec(attributes=[AttributeSpec(name="g", domain=domain)])
    out = tmp_path / "rel"
    make_release(src, out, random_state=1, class_attribute="c", spec=user)
    assert _domain(out, "g")["values"] == ["1", "2", "3"]
    assert set(load_release(out).frame()["g"]) <= {"1", "2", "3"}


def test_domain_errors_show_plain_values():
    d = CategoricalDomain(("1", "2"))
    with pytest.raises(DomainError) as err:
        d.encode(pd.Series(np.array([1, 2], dtype=np.int64)), column="g")
    assert (
        str(err.value) == "column 'g' data row 1 has value 1, which is not in its domain ['1', '2']"
    )


def test_partitions_share_kinds_and_empty_ones_are_skipped(tmp_path):
    parts = tmp_path / "parts"
    parts.mkdir()
    (parts / "p0.csv").write_text("a,c\n")
    (parts / "p1.csv").write_text("a,c\n1,u\n2,v\n")
    (parts / "p2.csv").write_text("a,c\nx,u\n")
    frame = read_table(parts)
    assert frame["a"].tolist() == ["1", "2", "x"]
    assert sum(len(b) for b in iter_batches(parts, 2)) == 3
    out = tmp_path / "rel"
    make_release(parts, out, fmt="csv", random_state=1, class_attribute="c")
    assert _domain(out, "a")["values"] == ["1", "2", "x"]
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "p0.csv").write_text("a,c\n")
    with pytest.raises(DataError, match="every partition of .* is empty"):
        read_table(empty)
    with pytest.raises(DataError, match="every partition of .* is empty"):
        list(iter_batches(empty))


def _whole_floats(n: int = 600) -> pd.DataFrame:
    """A float column of whole numbers, as pandas writes it to CSV: '5.0'."""
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"score": rng.integers(1, 6, n).astype(float), "w": rng.uniform(0, 1, n)})
    df["y"] = rng.choice(["n", "y"], n)
    return df


def test_a_csv_float_column_of_whole_numbers_releases_as_its_parquet_does(tmp_path):
    df = _whole_floats()
    df.to_csv(tmp_path / "t.csv", index=False)
    df.to_parquet(tmp_path / "t.parquet", index=False)
    assert "5.0" in (tmp_path / "t.csv").read_text()
    opts = dict(class_attribute="y", bounds={"w": (0, 1)}, random_state=4, batch_size=250)
    make_release(tmp_path / "t.csv", tmp_path / "rc", **opts)
    make_release(tmp_path / "t.parquet", tmp_path / "rp", **opts)
    assert _domain(tmp_path / "rc", "score")["values"] == [1, 2, 3, 4, 5]
    from_csv = read_table(tmp_path / "rc" / "data.csv")
    from_parquet = read_table(tmp_path / "rp" / "data.parquet")
    assert from_csv["score"].tolist() == from_parquet["score"].tolist()


@pytest.mark.parametrize(
    "value,row,shown",
    [
        ("2.5", 301, "'2.5'"),
        ("abc", 301, "'abc'"),
        ("5_000", 301, "'5_000'"),
    ],
)
def test_a_value_of_an_integer_column_that_is_no_integer_is_named(tmp_path, value, row, shown):
    df = _whole_floats()
    df.to_csv(tmp_path / "t.csv", index=False)
    make_release(tmp_path / "t.csv", tmp_path / "r", class_attribute="y", bounds={"w": (0, 1)})
    bad = df.astype({"score": object})
    bad.loc[row - 1, "score"] = value
    bad.to_csv(tmp_path / "bad.csv", index=False)
    spec = load_release(tmp_path / "r").spec
    with pytest.raises(DataError) as err:
        make_release(tmp_path / "bad.csv", tmp_path / "r2", spec=spec, batch_size=100)
    assert str(err.value) == (
        f"input file {str(tmp_path / 'bad.csv')!r} column 'score' data row {row} has value "
        f"{shown}, which is not an integer"
    )


def test_an_infinite_value_is_named_where_it_is(tmp_path):
    # in a column of few values it was "number too large: cannot convert float infinity
    # to integer", naming nothing
    df = _whole_floats()
    df.to_csv(tmp_path / "t.csv", index=False)
    bad = df.astype({"score": object})
    bad.loc[300, "score"] = "-inf"
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(DomainError) as err:
        make_release(tmp_path / "bad.csv", tmp_path / "r2", class_attribute="y", batch_size=100)
    assert str(err.value) == (
        f"input file {str(tmp_path / 'bad.csv')!r}: column 'score' data row 301 has value "
        "-inf: an infinite number has no place in a domain; remove it, or leave the cell "
        "empty (missing)"
    )


def test_whole_numbers_past_64_bits_are_binned_not_refused(tmp_path):
    # 1e19 in a column of few values was "not an integer"
    path = tmp_path / "t.csv"
    path.write_text("a,y\n10000000000000000000,x\n20000000000000000000,y\n6,x\n")
    with pytest.warns(UserWarning):
        make_release(path, tmp_path / "r", class_attribute="y", random_state=1)
    assert _domain(tmp_path / "r", "a")["kind"] == "binned"


def test_integers_stay_exact_past_two_to_the_53(tmp_path):
    big = 2**53 + 1  # a float64 would read it as 2**53
    df = pd.DataFrame({"id": [big, big + 2] * 50, "y": ["n", "y"] * 50})
    df.to_csv(tmp_path / "t.csv", index=False)
    make_release(tmp_path / "t.csv", tmp_path / "r", class_attribute="y", random_state=1)
    assert _domain(tmp_path / "r", "id")["values"] == [big, big + 2]
    assert set(read_table(tmp_path / "r" / "data.csv")["id"]) <= {big, big + 2}


@pytest.mark.parametrize(
    ("text", "closed"),
    [
        ('a,b,y\n1,2,p\n3,4,q\n5,6,"unterminated\n7,8,q\n', False),  # rows 7,8,q swallowed
        ('a,b,y\r\n1,2,p\r\n3,4,"q\r\n', False),
        ('a,b,y\n1,2,"p"\n3,4,q\n', True),
        ('a,b,y\n1,2,p\n3,4,""\n', True),
        ('a,b,y\n1,2,"x""y"\n3,4,"12"" pizza"\n', True),
        ('a,b,y\n1,2,12" pizza\n3,4,q\n', True),  # a literal quote inside a field
        ('a,b,y\n1,2,p\n3,4,"a\nb"\n', True),
        ("a,b,y\n1,2,p\n", True),
    ],
)
def test_a_quote_never_closed_is_refused(tmp_path, text, closed):
    from ppdm.exceptions import DataError
    from ppdm.io import read_table

    path = tmp_path / "t.csv"
    path.write_bytes(text.encode())
    if closed:
        assert len(read_table(path)) >= 1
        return
    with pytest.raises(DataError, match=r"'.*t\.csv' has a quote that is never closed \(line"):
        read_table(path)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_csv_is_named_as_such(tmp_path, encoding):
    # it was "line 52 has 1 fields"
    from ppdm.io import read_table

    path = tmp_path / "t.csv"
    text = "a,b\n1,2\n3,4\n"
    path.write_bytes(("\ufeff" + text).encode(encoding) if encoding.endswith("be") else
                     text.encode(encoding))  # fmt: skip
    with pytest.raises(DataError, match=r"is UTF-16 text; save it as UTF-8 CSV"):
        read_table(path)
