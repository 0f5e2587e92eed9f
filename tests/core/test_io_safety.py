"""Reading refuses unsafe or malformed files with one line naming the file."""

import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from ppdm.domain import BinnedDomain
from ppdm.exceptions import DataError, DomainError
from ppdm.io import check_regular_file, iter_batches, read_table

pytestmark = pytest.mark.filterwarnings("ignore")


def _one_line_error(run_cli, tmp_path, src, *extra):
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", out, "--seed", "1", *extra)
    assert code in (1, 2), (code, err)  # a bad input (1) or a bad flag value (2)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert not out.exists()
    return lines[0]


def test_duplicate_header_names_file_and_column(run_cli, tmp_path):
    src = tmp_path / "dup.csv"
    src.write_text("a,b,a\n1,2,3\n4,5,6\n")
    line = _one_line_error(run_cli, tmp_path, src)
    assert f"input file '{src}' has the column 'a' more than once in its header" in line
    with pytest.raises(DataError, match="more than once"):
        read_table(src)


def test_parser_error_names_file_and_line(run_cli, tmp_path):
    src = tmp_path / "bad.csv"
    src.write_text("a,b,c\n" + "1,2,3\n" * 5 + "1,2,3,4,5\n7,8,9\n")
    line = _one_line_error(run_cli, tmp_path, src)
    assert f"input file '{src}' line 7 has 5 fields; the header has 3" in line


def test_parser_error_line_counts_quoted_newlines(tmp_path):
    src = tmp_path / "bad.csv"
    src.write_text('a,b\n"x\ny",1\n1,2,3\n')
    with pytest.raises(DataError, match=r"line 4 has 3 fields"):
        list(iter_batches(src, 10))


def test_empty_and_header_only_files(run_cli, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert f"input file '{empty}' is empty" in _one_line_error(run_cli, tmp_path, empty)
    header = tmp_path / "header.csv"
    header.write_text("a,b\n")
    line = _one_line_error(run_cli, tmp_path, header)
    assert f"input file '{header}' has a header but no rows" in line


def test_huge_line_is_one_line(tmp_path):
    src = tmp_path / "huge.csv"
    with open(src, "w") as fh:
        fh.write("a,b\n1,")
        fh.write("x" * (9 << 20))
        fh.write("\n2,3\n")
    with pytest.raises(DataError, match=r"has a row longer than 1 MiB"):
        list(iter_batches(src, 10))


def test_device_behind_a_symlink_is_refused(run_cli, tmp_path):
    src = tmp_path / "zero.csv"
    os.symlink("/dev/zero", src)
    line = _one_line_error(run_cli, tmp_path, src)
    assert f"input file '{src}' is not a regular file (it is a character device)" in line
    for read in (read_table, lambda p: list(iter_batches(p))):
        with pytest.raises(DataError, match="is not a regular file"):
            read(src)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_hanging(tmp_path):
    src = tmp_path / "pipe.csv"
    os.mkfifo(src)
    # in a child process, so that a read which blocks on the FIFO fails the test
    code = (
        "import sys\n"
        "from ppdm.io import check_regular_file\n"
        "from ppdm.pipeline import make_release\n"
        "try:\n"
        f"    make_release({str(src)!r}, {str(tmp_path / 'rel')!r}, random_state=1)\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert f"input file '{src}' is not a regular file (it is a FIFO)" in done.stdout, done.stderr
    with pytest.raises(DataError, match=r"\(it is a FIFO\)"):
        check_regular_file(src)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cli_refuses_a_parquet_fifo_without_hanging(tmp_path):
    src = tmp_path / "pipe.parquet"
    os.mkfifo(src)
    code = (
        "import sys\n"
        "from ppdm.cli import main\n"
        f"sys.argv = ['ppdm', 'perturb', {str(src)!r}, '--out', {str(tmp_path / 'rel')!r}]\n"
        "main()\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode != 0
    assert f"input file '{src}' is not a regular file (it is a FIFO)" in done.stderr
    assert "Traceback" not in done.stderr


def test_overflowing_bounds_are_refused(run_cli, tmp_path):
    src = tmp_path / "in.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"y": rng.uniform(0, 1, 50), "c": [1, 2] * 25}).to_csv(src, index=False)
    line = _one_line_error(run_cli, tmp_path, src, "--class", "c", "--bounds", "y=-1e308:1e308")
    assert "--bounds 'y=-1e308:1e308'" in line and "finite" in line


def test_overflowing_data_range_is_refused(run_cli, tmp_path):
    src = tmp_path / "in.csv"
    x = np.concatenate([[-1e308, 1e308], np.linspace(-1e307, 1e307, 48)])
    pd.DataFrame({"y": x, "c": [1, 2] * 25}).to_csv(src, index=False)
    line = _one_line_error(run_cli, tmp_path, src, "--class", "c")
    assert "column 'y'" in line and "too far apart" in line


def test_binned_domain_width_is_finite():
    with pytest.raises(DomainError, match="too far apart"):
        BinnedDomain(-1e308, 1e308, 4)
    d = BinnedDomain(-1e307, 1e307, 4)
    # bin centres low + (i + 1/2) (high - low) / N, with high - low = 2e307 still finite
    centres = d.decode(np.arange(4))
    np.testing.assert_allclose(centres, [-7.5e306, -2.5e306, 2.5e306, 7.5e306], rtol=1e-12)
    np.testing.assert_array_equal(d.encode(centres), np.arange(4))
