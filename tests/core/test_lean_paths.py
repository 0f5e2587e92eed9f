"""Fast paths of the release commands: same bytes as the plain paths, no needless imports."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest


def _loaded_after(statement: str, module: str) -> bool:
    code = f"import sys\n{statement}\nprint({module!r} in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip() == "True"


def test_pipeline_import_leaves_scipy_out():
    # scipy.stats costs about a second to import, scipy.special 0.17 s; estimate and
    # reconstruct of a substitution release use neither
    assert not _loaded_after("import ppdm.pipeline", "scipy.stats")
    assert not _loaded_after("import ppdm.pipeline", "scipy.special")


def test_additive_noise_still_uses_scipy_where_it_needs_it():
    from ppdm.additive import AdditiveNoise

    noise = AdditiveNoise("gaussian", 1.0)
    assert abs(noise.interval_width(0.95) - 2 * 1.959963984540054) < 1e-12
    assert abs(float(noise.cdf(1.959963984540054)) - 0.975) < 1e-12
    # G(0) = sigma * phi(0) for the Gaussian
    assert abs(float(noise.cdf_integral(0.0)) - 1 / np.sqrt(2 * np.pi)) < 1e-12


def test_csv_numbers_of_few_distinct_values_are_formatted_once_each_same_bytes():
    from ppdm.io.writers import _few_values, write_csv_batch

    rng = np.random.default_rng(0)
    odd = [0.0, -0.0, np.nan, 1e10, 1e-5, 3.0, 2.5, -7.125, 1e16, 123456789.123, 5e-324]
    odd += [np.inf, -np.inf, 30.675, 0.1 + 0.2]
    frame = pd.DataFrame(
        {
            "few": rng.choice(np.array(odd), 50_000),
            "bins": rng.choice(np.linspace(18, 91, 20), 50_000),
            "many": rng.random(50_000) * 1e6,
        }
    )
    found = _few_values(frame["few"].to_numpy())
    assert found is not None and len(found[0]) == len(odd)  # NaN once, -0.0 apart from 0.0
    assert _few_values(frame["many"].to_numpy()) is None
    buf = io.BytesIO()
    write_csv_batch(frame, buf, header=True)
    assert buf.getvalue() == frame.to_csv(index=False, lineterminator="\n").encode()


def _release(tmp_path, n=3000):
    import warnings

    from ppdm.pipeline import load_release, make_release

    rng = np.random.default_rng(1)
    df = pd.DataFrame(
        {
            "age": rng.uniform(18, 90, n).round(1),
            "k": rng.integers(1, 6, n),
            "cls": rng.choice(["zeta", "alpha", "mid"], n),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(
            df, tmp_path / "rel", random_state=3, class_attribute="cls", bounds={"age": (18, 90)}
        )
    return df, load_release(tmp_path / "rel")


class _CountingReads:
    def __init__(self, rel):
        self.rel, self.reads = rel, 0

    def __call__(self):
        self.reads += 1
        return self.rel.batches(1000)


def test_by_class_counts_read_the_release_once_with_sorted_classes(tmp_path):
    from ppdm.pipeline import class_codes
    from ppdm.pipeline.estimating import count_pass

    df, rel = _release(tmp_path)
    reads = _CountingReads(rel)
    counts, classes = count_pass(rel.spec, reads, by_class=True)
    assert reads.reads == 1  # no pass over the data only to find the class values
    assert classes == ["alpha", "mid", "zeta"]
    frame = rel.frame()
    for a in rel.spec.perturbed_attributes():
        d = a.get_domain()
        codes = d.encode(frame[a.name])
        ccodes = class_codes(frame, rel.spec, classes, 0)
        expect = np.bincount(ccodes * d.n_values + codes, minlength=3 * d.n_values)
        np.testing.assert_array_equal(counts[a.name], expect.reshape(3, d.n_values))


def test_missing_class_value_is_named_by_its_data_row(tmp_path):
    from ppdm.exceptions import DataError
    from ppdm.pipeline.estimating import count_pass

    _, rel = _release(tmp_path)
    frame = rel.frame()
    frame.loc[1234, "cls"] = None

    def batches():
        for i in range(0, len(frame), 1000):
            yield frame.iloc[i : i + 1000]

    try:
        count_pass(rel.spec, batches, by_class=True)
    except DataError as exc:
        assert str(exc) == (
            "class column 'cls' data row 1235 has value nan, which is missing or unknown"
        )
    else:
        raise AssertionError("a missing class value was counted")


def test_tuned_allocator_reuses_freed_batch_arrays():
    # without the tuning every 2 MB temporary is a fresh mapping: about 500 page faults
    # each (47,000 for this loop); with it, freed blocks are reused
    code = """
import resource
import numpy as np
import pytest
from ppdm.allocator import keep_freed_memory
tuned = keep_freed_memory()
x = np.random.default_rng(0).uniform(0, 1, 250_000)
np.floor(x * 3)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    np.floor(x * 3)
print(tuned, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    tuned, faults = out.stdout.split()
    if tuned != "True":
        pytest.skip("not glibc: nothing to tune")
    assert int(faults) < 50 * 500 // 10


def test_command_line_tunes_the_allocator(monkeypatch):
    import ppdm.allocator
    import ppdm.cli
    from ppdm.cli import _common

    calls = []
    monkeypatch.setattr(ppdm.allocator, "keep_freed_memory", lambda: calls.append(1))
    monkeypatch.setattr(_common, "run_app", lambda app: None)
    ppdm.cli.main()
    assert calls == [1]


def test_read_ahead_keeps_order_and_raises_where_the_producer_failed():
    from ppdm.exceptions import DataError
    from ppdm.pipeline import read_ahead

    assert list(read_ahead(iter(range(100)), depth=3)) == list(range(100))

    def failing():
        yield 1
        yield 2
        raise DataError("bad row 3")

    got = []
    try:
        for item in read_ahead(failing()):
            got.append(item)
    except DataError as exc:
        assert str(exc) == "bad row 3"
    else:
        raise AssertionError("the producer's error was lost")
    assert got == [1, 2]


def test_read_ahead_closes_the_producer_when_the_consumer_stops(monkeypatch):
    import threading

    import ppdm.pipeline
    from ppdm.pipeline import read_ahead

    monkeypatch.setattr(
        ppdm.pipeline.batches, "spare_core", lambda: True
    )  # a thread, on any machine

    closed = threading.Event()

    def endless():
        try:
            i = 0
            while True:
                yield i
                i += 1
        finally:
            closed.set()

    def producers() -> set:
        return {t for t in threading.enumerate() if t.name == "ppdm-read-ahead"}

    before = producers()  # another test's stream, not yet collected, may still have one
    stream = read_ahead(endless(), depth=2)
    assert [next(stream) for _ in range(5)] == [0, 1, 2, 3, 4]
    ours = producers() - before
    assert len(ours) == 1
    stream.close()
    assert closed.wait(5)
    assert not any(t.is_alive() for t in ours)


def test_without_a_spare_core_read_ahead_runs_on_the_callers_thread(monkeypatch):
    import threading

    import ppdm.pipeline
    from ppdm.exceptions import DataError

    monkeypatch.setattr(ppdm.pipeline.batches, "spare_core", lambda: False)
    seen = []

    def produce():
        try:
            for i in range(10):
                seen.append(threading.current_thread().name)
                yield i
            raise DataError("bad row 11")
        finally:
            seen.append("closed")

    stream = ppdm.pipeline.read_ahead(produce())
    assert [next(stream) for _ in range(3)] == [0, 1, 2]
    assert set(seen) == {threading.current_thread().name}
    stream.close()
    assert seen[-1] == "closed"
    with pytest.raises(DataError, match="bad row 11"):
        list(ppdm.pipeline.read_ahead(produce()))


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a machine with two cores",
)
def test_a_process_held_to_one_core_has_no_spare_core():
    code = (
        "import os; from ppdm.pipeline import spare_core; a = spare_core(); "
        "os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); print(a, spare_core())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "False"]


def test_reconstruct_release_same_bytes_with_reading_ahead(tmp_path):
    from ppdm.pipeline import reconstruct_batches, reconstruct_release

    df, rel = _release(tmp_path)
    for by_class in (False, True):
        out = tmp_path / f"rec-{by_class}.csv"
        reconstruct_release(rel, out, by_class=by_class, random_state=7, batch_size=700)
        plain = pd.concat(
            reconstruct_batches(
                rel.spec, lambda: rel.batches(700), by_class=by_class, random_state=7
            ),
            ignore_index=True,
        )
        assert out.read_bytes() == plain.to_csv(index=False, lineterminator="\n").encode()


def test_reconstruction_bytes_for_a_seed_are_fixed_whatever_the_batch_size(tmp_path):
    # digests of the row-addressed reconstruction (same table, release seed 3, seed 7):
    # every record's rank key is word r of its attribute's stream, so batches of 97, 700
    # or 3000 rows (the whole table) and reading ahead must not move a byte
    import hashlib

    from ppdm.pipeline import reconstruct_release

    _, rel = _release(tmp_path)
    expected = {
        False: "eb082104741b8bc912c543cb10f944e723a21f62aa04eac37038f54c3f30567a",
        True: "49fa375e4f8fed460837d7bb83b05c8eb454b45be091c1bba1823e3bbb8cd58f",
    }
    for by_class, digest in expected.items():
        for batch_size in (97, 700, 3000):
            out = tmp_path / f"rec-{by_class}-{batch_size}.csv"
            reconstruct_release(rel, out, by_class=by_class, random_state=7, batch_size=batch_size)
            assert hashlib.sha256(out.read_bytes()).hexdigest() == digest, batch_size
