"""ARFF: one writer, Weka's quoting, nominal integer codes; J48 reads what it writes."""

import re
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

from ppdm.io import arff_quote, write_arff, write_table
from ppdm.pipeline import make_release, reconstruct_release
from ppdm_papers.weka import WEKA_JAR, weka_available
from ppdm_papers.weka import write_arff as weka_write_arff

HOSTILE = [
    "a,b",
    "it's",
    'say "hi"',
    "line\nbreak\n@attribute evil numeric",
    "cr\rhere",
    "tab\there",
    "50%",
    "%comment",
    "{x}",
    "a}b{",
    "back\\slash",
    " lead",
    "trail ",
    "?",
    "",
    "é ü 漢字",
    "plain",
]


def _hostile_table(n=150, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "num": rng.normal(0, 1, n),
            "elevel": rng.integers(0, 5, n),
            "h": rng.choice(HOSTILE, n),
            "we,ird 'name'\n@attribute x numeric": rng.choice(["p", "q"], n),
            "cls": rng.choice([1, 2], n),
        }
    )
    df.loc[3, "num"] = np.nan
    df.loc[4, "h"] = None
    return df


def _sections(path):
    text = path.read_text(encoding="utf-8")
    head, data = text.split("\n@data\n")
    return head.splitlines(), [ln for ln in data.split("\n") if ln]


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("plain", "plain"),
        ("a b", "'a b'"),
        ("a,b", "'a,b'"),
        ("it's", "'it\\'s'"),
        ('say "hi"', "'say \\\"hi\\\"'"),
        ("x\ny", "'x\\ny'"),
        ("x\ry", "'x\\ry'"),
        ("x\ty", "'x\\ty'"),
        ("50%", "'50\\%'"),
        ("{x}", "'{x}'"),
        ("back\\slash", "'back\\\\slash'"),
        (" lead", "' lead'"),
        ("?", "'?'"),
        ("", "''"),
        ("é", "é"),
    ],
)
def test_quote_follows_weka(text, quoted):
    assert arff_quote(text) == quoted


def test_newline_cannot_inject_an_attribute(tmp_path):
    df = _hostile_table()
    path = tmp_path / "h.arff"
    write_arff(df, path)
    head, data = _sections(path)
    assert sum(ln.startswith("@attribute") for ln in head) == df.shape[1]
    assert len(data) == len(df)
    assert not any(ln.startswith("@") for ln in data)


def test_integer_codes_are_nominal_when_asked(tmp_path):
    df = _hostile_table()
    path = tmp_path / "h.arff"
    write_table(df, path, fmt="arff", nominal=["elevel", "cls"])
    head, data = _sections(path)
    assert "@attribute elevel {0,1,2,3,4}" in head
    assert "@attribute cls {1,2}" in head
    assert "@attribute num numeric" in head
    # an integer code read back as float (with missing values) is still declared as an integer
    df2 = pd.DataFrame({"c": [1.0, 2.0, np.nan, 1.0]})
    write_arff(df2, path, nominal=["c"])
    head, data = _sections(path)
    assert "@attribute c {1,2}" in head
    assert data == ["1", "2", "?", "1"]


def test_one_writer_for_both_callers(tmp_path):
    df = _hostile_table()
    a, b = tmp_path / "a.arff", tmp_path / "b.arff"
    write_arff(df, a, nominal=["cls"], categories={"cls": [2, 1]})
    weka_write_arff(df, "cls", b, classes=[2, 1])
    assert a.read_bytes() == b.read_bytes()
    assert "@attribute cls {2,1}" in a.read_text(encoding="utf-8")


def test_reconstructed_arff_declares_class_and_codes_nominal(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame(
        {"elevel": rng.integers(0, 5, n), "x": rng.uniform(0, 1, n), "y": rng.integers(1, 3, n)}
    )
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(src, tmp_path / "rel", random_state=1, class_attribute="y")
    out = tmp_path / "rec.arff"
    reconstruct_release(tmp_path / "rel", out, random_state=2)
    head, data = _sections(out)
    assert "@attribute elevel {0,1,2,3,4}" in head
    assert "@attribute y {1,2}" in head
    assert "@attribute x numeric" in head
    assert len(data) == n


def _j48(path):
    done = subprocess.run(
        [
            "java",
            "-Dfile.encoding=UTF-8",
            "-cp",
            str(WEKA_JAR),
            "weka.classifiers.trees.J48",
            "-t",
            str(path),
            "-no-cv",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[:2000]
    return done.stdout


def _weka_instances(output):
    m = re.search(r"Total Number of Instances\s+(\d+)", output)
    return int(m[1]) if m else None


@pytest.mark.weka
@pytest.mark.skipif(not weka_available(), reason="Weka's J48 is not installed")
def test_j48_reads_integer_string_and_hostile_tables(tmp_path):
    rng = np.random.default_rng(2)
    n = 200
    integer = pd.DataFrame(
        {
            "elevel": rng.integers(0, 5, n),
            "age": rng.integers(20, 80, n),
            "cls": rng.integers(1, 3, n),
        }
    )
    strings = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "zip": rng.choice(["00501", "00502", "10001"], n),
            "cls": rng.choice(["yes", "no"], n),
        }
    )
    hostile = _hostile_table(n)
    tables = [(integer, ["elevel", "cls"]), (strings, None), (hostile, ["elevel", "cls"])]
    for i, (frame, nominal) in enumerate(tables):
        path = tmp_path / f"t{i}.arff"
        write_table(frame, path, fmt="arff", nominal=nominal)
        out = _j48(path)
        assert _weka_instances(out) == n, out[-2000:]
        assert "J48 pruned tree" in out


def test_what_ppdm_writes_reads_back_the_same(tmp_path):
    # a quote, %, a line break, a backslash or any non-ASCII letter in a name or value
    # came back escaped ("it\\'s"), or stopped the reader ("'ascii' codec can't encode")
    from ppdm.io import read_arff, write_arff

    odd = ["it's", 'c"d', "x%y", "a\nb", "t\tb", "back\\slash", "Zürich", "日本", "🙂",
           "{brace}", "a,b", "\\xfc", "plain"]  # fmt: skip
    frame = pd.DataFrame(
        {name: [value, odd[0], None] for name, value in zip(odd, odd[::-1])}
        | {"x%1": [1.5, -2.0, np.nan]}
    )
    path = tmp_path / "odd.arff"
    write_arff(frame, path)
    back = read_arff(path)
    assert list(back.columns) == list(frame.columns)
    for name in odd:
        assert back[name].tolist() == frame[name].tolist(), name
    np.testing.assert_array_equal(back["x%1"].to_numpy(), frame["x%1"].to_numpy())


def test_arff_types_ppdm_cannot_read_are_named(tmp_path):
    from ppdm.exceptions import DataError
    from ppdm.io import read_arff

    path = tmp_path / "s.arff"
    path.write_text("@relation r\n@attribute s string\n@attribute y {p,q}\n@data\nx,p\nz,q\n")
    with pytest.raises(DataError, match="String attributes not supported.*numeric and nominal"):
        read_arff(path)
    path.write_bytes(b"@relation r\n@attribute y {\xff,q}\n@data\nq\n")
    with pytest.raises(DataError, match=r"is not UTF-8 text \(byte 27\)"):
        read_arff(path)


@pytest.mark.skipif(not weka_available(), reason="Weka is not installed")
def test_j48_learns_from_every_bundled_data_set_ppdm_exports(tmp_path):
    # wisconsin, boston and spambase have integer classes: "Cannot handle numeric class!"
    from typer.testing import CliRunner

    from ppdm.cli import app

    for name in ("wisconsin", "spambase"):
        path = tmp_path / f"{name}.arff"
        r = CliRunner().invoke(app, ["datasets", "export", name, "--out", str(path)])
        assert r.exit_code == 0, r.output
        out = _j48(path)
        assert "J48 pruned tree" in out, out[-2000:]


def test_reconstructed_arff_declares_the_whole_domain_with_the_class_last(tmp_path):
    """Every ARFF copy of one release has the spec's header, whatever values its records
    hold (Weka refuses a test file whose header differs: "Train and test file not
    compatible"), and the class is the last attribute, where Weka looks for it."""
    rng = np.random.default_rng(5)
    n = 400
    elevel = rng.integers(0, 4, n)
    elevel[0] = 4  # one record of value 4: its estimate is near zero
    df = pd.DataFrame({"y": rng.integers(1, 3, n), "elevel": elevel, "x": rng.uniform(0, 1, n)})
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(src, tmp_path / "rel", random_state=1, class_attribute="y")
    heads, values = [], []
    for seed, by_class in [(2, False), (3, True), (4, False)]:
        out = tmp_path / f"rec{seed}.arff"
        reconstruct_release(tmp_path / "rel", out, random_state=seed, by_class=by_class)
        head, data = _sections(out)
        heads.append(head)
        values.append({row.split(",")[0] for row in data})
        assert head[-1] == "@attribute y {1,2}", head
        assert "@attribute elevel {0,1,2,3,4}" in head
    assert heads[0] == heads[1] == heads[2]
    assert any("4" not in v for v in values)  # a copy without the rare value, same header
    if weka_available():
        done = subprocess.run(
            ["java", "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48"]
            + ["-t", str(tmp_path / "rec2.arff"), "-T", str(tmp_path / "rec3.arff")],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0 and "Error on test data" in done.stdout, done.stderr[:500]


def test_declared_values_come_first_and_nothing_that_occurs_is_left_out(tmp_path):
    frame = pd.DataFrame({"c": ["b", "z", "a"], "y": [1, 2, 1]})
    write_arff(frame, tmp_path / "t.arff", categories={"c": ["c", "b", "a"]}, nominal=["y"])
    head, _ = _sections(tmp_path / "t.arff")
    assert "@attribute c {c,b,a,z}" in head
