import functools
import hashlib

import numpy as np
import pandas as pd
import pytest

from ppdm.cells import cell_rng, cell_seed_sequence, run_cells
from ppdm.exceptions import ParameterError
from ppdm_papers.cellrun import CsvCheckpoint
from ppdm_papers.registry import RunContext, get, names, register


def _cell(cell, *, seed, log=None):
    rng = cell_rng(seed, cell)
    return [{"a": cell[0], "b": cell[1], "x": float(rng.random())}]


CELLS = [(a, b) for a in ("p", "q") for b in range(4)]


def test_seed_depends_on_key_not_order():
    a = cell_seed_sequence(3, ("p", 1)).generate_state(2)
    b = cell_seed_sequence(3, ("p", 1)).generate_state(2)
    c = cell_seed_sequence(3, ("p", 2)).generate_state(2)
    d = cell_seed_sequence(4, ("p", 1)).generate_state(2)
    assert (a == b).all() and not (a == c).all() and not (a == d).all()
    # a string key and an int key with the same text differ
    assert not (
        cell_seed_sequence(0, ("1",)).generate_state(1)
        == cell_seed_sequence(0, (1,)).generate_state(1)
    ).all()


def test_results_independent_of_jobs_and_order():
    fn = functools.partial(_cell, seed=5)
    one = run_cells(fn, CELLS, jobs=1, progress=False)
    two = run_cells(fn, CELLS, jobs=2, progress=False)
    rev = run_cells(fn, CELLS[::-1], jobs=1, progress=False)
    pd.testing.assert_frame_equal(one, two)
    pd.testing.assert_frame_equal(one, rev)


def test_resume_skips_finished_cells(tmp_path):
    ck = CsvCheckpoint(tmp_path / "c.csv", ["a", "b"])
    fn = functools.partial(_cell, seed=5)
    first = run_cells(fn, CELLS[:3], checkpoint=ck, progress=False)
    assert len(first) == 3
    calls = []

    def mapper(f, cells):
        calls.extend(cells)
        return (f(c) for c in cells)

    full = run_cells(fn, CELLS, checkpoint=ck, mapper=mapper, progress=False)
    assert sorted(calls) == sorted(CELLS[3:])  # finished cells were not run again
    pd.testing.assert_frame_equal(full, run_cells(fn, CELLS, progress=False))


def test_checkpoint_drops_a_partial_last_line(tmp_path):
    ck = CsvCheckpoint(tmp_path / "c.csv", ["a", "b"])
    ck.append([{"a": "p", "b": 0, "x": 0.5}])
    ck.append([{"a": "p", "b": 1, "x": 0.25}])
    with open(ck.path, "a") as fh:
        fh.write("q,3,0.1")  # interrupted before the newline
    assert ck.done() == {("p", 0), ("p", 1)}


def test_deadline_stops_early_and_keeps_finished(tmp_path):
    ck = CsvCheckpoint(tmp_path / "c.csv", ["a", "b"])
    fn = functools.partial(_cell, seed=5)
    part = run_cells(fn, CELLS, checkpoint=ck, progress=False, deadline=0.0)
    assert len(part) == 1 and len(ck.done()) == 1


def test_registry_lists_and_extends():
    for n in ("fig2", "fig3", "table1", "fig4", "kang"):
        assert n in names()
    register("dummy-test", lambda ctx: [], "a test entry")
    assert get("dummy-test")(RunContext(out=None)) == []
    with pytest.raises(KeyError, match="unknown experiment"):
        get("nope")


def test_bad_seed_is_rejected():
    for bad in (-1, True, 1.5, "3"):
        with pytest.raises(ParameterError, match=r"seed must be an integer >= 0"):
            cell_seed_sequence(bad, ("a",))
    # the stream is SeedSequence([seed, first 16 bytes of sha256("<type>:<key>"...)])
    digest = hashlib.sha256(b"str:a").digest()
    words = [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    expected = np.random.default_rng(np.random.SeedSequence([0, *words])).random(3)
    np.testing.assert_array_equal(cell_rng(0, ("a",)).random(3), expected)
    assert cell_rng(np.int64(0), ("a",)).random() == expected[0]
    assert cell_rng(1, ("a",)).random() != expected[0]


def _two_rows(cell):
    return [{"a": cell[0], "b": cell[1], "i": i} for i in range(2)]


def test_cells_order_follows_the_cells_whatever_the_completion_order():
    cells = [("q", 3), ("p", 1), ("q", 0), ("p", 2)]

    def backwards(f, todo):  # finishes the cells last to first
        return [f(c) for c in todo][::-1]

    got = run_cells(_two_rows, cells, mapper=backwards, progress=False, order="cells")
    assert list(zip(got["a"], got["b"], got["i"])) == [
        (a, b, i) for a, b in cells for i in range(2)
    ]
    # the same rows in the default order: sorted by key
    keyed = run_cells(_two_rows, cells, mapper=backwards, progress=False)
    assert list(zip(keyed["a"], keyed["b"])) == sorted((a, b) for a, b in cells for _ in "12")
    two = run_cells(_two_rows, cells, jobs=2, progress=False, order="cells")
    pd.testing.assert_frame_equal(got, two)


def test_cells_order_is_checked(tmp_path):
    with pytest.raises(ParameterError, match="order must be one of 'keys', 'cells'"):
        run_cells(_two_rows, CELLS, progress=False, order="random")
    with pytest.raises(ParameterError, match="without a checkpoint"):
        run_cells(
            _two_rows,
            CELLS,
            progress=False,
            order="cells",
            checkpoint=CsvCheckpoint(tmp_path / "c.csv", ["a", "b"]),
        )
