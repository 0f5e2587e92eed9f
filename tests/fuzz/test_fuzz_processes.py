"""``python -m ppdm`` in real processes: concurrent reruns, signals, imports from the
working directory, expanding YAML, and a few refusals checked end to end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from fuzzkit import (
    CORPUS,
    FAILURE,
    REFUSED,
    USAGE,
    Snapshot,
    assert_refused,
    digest,
    fuzz_class,
    leftovers,
)

import ppdm
from childsignals import signal_mid_run

SRC = str(Path(ppdm.__file__).resolve().parents[1])


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("PYTHONSAFEPATH", None)
    return env


def _popen(*args, cwd=None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "ppdm", *map(str, args)],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _run(*args, cwd=None, timeout: float = 120) -> tuple[int, str, str]:
    proc = _popen(*args, cwd=cwd)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        return -9, out, err + f"\n(killed after {timeout} s)"
    return proc.returncode, out, err


@pytest.fixture(scope="module")
def big_table(tmp_path_factory) -> Path:
    """A table large enough that a perturbation takes a while in small batches."""
    rng = np.random.default_rng(5)
    n = 60_000
    frame = pd.DataFrame(
        {
            "x": rng.uniform(0, 10, n).round(2),
            "k": rng.choice(list("abcdefgh"), n),
            "y": rng.choice(["no", "yes"], n),
        }
    )
    path = tmp_path_factory.mktemp("big") / "big.csv"
    frame.to_csv(path, index=False)
    return path


def _wait_for_hidden(out: Path, proc: subprocess.Popen, timeout: float = 120) -> bool:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if leftovers(out):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


# -- signals ----------------------------------------------------------------------------


@fuzz_class("signals")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_mid_perturb_leaves_nothing(tmp_path, big_table, sig):
    out = tmp_path / "rel"
    snap = Snapshot(inputs=[big_table], outputs=[out])
    proc = _popen(
        "perturb",
        big_table,
        "--out",
        out,
        "--class",
        "y",
        "--bounds",
        "x=0:10",
        "--batch-size",
        "1000",
    )
    started = _wait_for_hidden(out, proc) and signal_mid_run(
        proc, sig, working=lambda: bool(leftovers(out))
    )
    _, err = proc.communicate(timeout=120)
    if not started:
        pytest.fail(f"the run ended before its work appeared: {proc.returncode} {err[-300:]}")
    assert proc.returncode in (128 + sig, -sig), (proc.returncode, err[-500:])
    assert "Traceback" not in err, err[-500:]
    snap.assert_inputs_unchanged()
    snap.assert_outputs_unchanged()


@fuzz_class("signals")
def test_sigterm_mid_overwrite_keeps_the_old_release(tmp_path, big_table):
    out = tmp_path / "rel"
    code, _, err = _run(
        "perturb",
        big_table,
        "--out",
        out,
        "--class",
        "y",
        "--attributes",
        "k",
    )
    assert code == 0, err
    snap = Snapshot(inputs=[big_table], outputs=[out])
    proc = _popen(
        "perturb",
        big_table,
        "--out",
        out,
        "--class",
        "y",
        "--bounds",
        "x=0:10",
        "--overwrite",
        "--batch-size",
        "1000",
    )
    started = _wait_for_hidden(out, proc) and signal_mid_run(
        proc, signal.SIGTERM, working=lambda: bool(leftovers(out))
    )
    _, err = proc.communicate(timeout=120)
    assert started, err[-300:]
    assert proc.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), err[-500:]
    snap.assert_inputs_unchanged()
    snap.assert_outputs_unchanged()


@fuzz_class("signals")
def test_sigterm_mid_reconstruct_leaves_nothing(tmp_path, big_table):
    rel = tmp_path / "rel"
    code, _, err = _run("perturb", big_table, "--out", rel, "--class", "y", "--bounds", "x=0:10")
    assert code == 0, err
    out = tmp_path / "rec.csv"
    snap = Snapshot(inputs=[rel], outputs=[out])
    proc = _popen("reconstruct", rel, "--out", out, "--batch-size", "1000")
    started = _wait_for_hidden(out, proc) and signal_mid_run(
        proc, signal.SIGTERM, working=lambda: bool(leftovers(out))
    )
    _, err = proc.communicate(timeout=120)
    assert started, err[-300:]
    assert proc.returncode in (128 + signal.SIGTERM, -signal.SIGTERM), err[-500:]
    snap.assert_inputs_unchanged()
    snap.assert_outputs_unchanged()


# -- concurrent reruns ------------------------------------------------------------------


@fuzz_class("concurrent reruns")
def test_two_perturb_runs_into_one_out(tmp_path, big_table):
    """Two runs at once into the same --out: one whole release, never a mixture."""
    from ppdm.pipeline import load_release, verify_release

    runs = {"g5": ("--gamma", "5", "--seed", "11"), "g19": ("--gamma", "19", "--seed", "12")}
    common = ("--class", "y", "--bounds", "x=0:10", "--batch-size", "20000")
    refs = {}
    for name, extra in runs.items():
        ref = tmp_path / f"ref-{name}"
        code, _, err = _run("perturb", big_table, "--out", ref, *common, *extra)
        assert code == 0, err
        refs[name] = digest(ref)
    out = tmp_path / "rel"
    procs = [
        _popen("perturb", big_table, "--out", out, *common, "--overwrite", *extra)
        for extra in runs.values()
    ]
    results = [(p, *p.communicate(timeout=300)) for p in procs]
    for p, _, err in results:
        assert "Traceback" not in err, err[-500:]
        if p.returncode != 0:
            assert_refused((p.returncode, "", err), Snapshot(), FAILURE)
    assert any(p.returncode == 0 for p, _, _ in results)
    assert digest(out) in list(refs.values()), "the release mixes files of the two runs"
    assert leftovers(out) == []
    rel = load_release(out)
    assert verify_release(out) == rel.spec.n_records


# -- imports and code execution ---------------------------------------------------------


@fuzz_class("arbitrary imports")
def test_learner_from_the_working_directory_is_not_imported(tmp_path, release, table):
    marker = tmp_path / "imported"
    (tmp_path / "ppdm_fuzz_planted.py").write_text(
        f"open({str(marker)!r}, 'w').close()\nclass Model:\n    pass\n"
    )
    code, out, err = _run(
        "mine", release, "--test", table, "--learner", "ppdm_fuzz_planted:Model", cwd=tmp_path
    )
    assert not marker.exists(), "a module from the working directory was imported and run"
    assert_refused((code, out, err), Snapshot(inputs=[release, table]), USAGE)


# -- expanding YAML ---------------------------------------------------------------------

#: Peak memory of a refusal of a small file; ppdm itself needs about 150 MB.
REFUSAL_MAX_RSS_MB = 400


_MEASURED = """
import atexit, os, sys

def _peak():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                with open(os.environ["PPDM_FUZZ_PEAK"], "w") as out:
                    out.write(line.split()[1])

atexit.register(_peak)
sys.argv = ["ppdm", *sys.argv[1:]]
from ppdm.cli import main
main()
"""


def _run_measured(tmp_path, *args, timeout: float = 120) -> tuple[int, str, str, float]:
    """Like :func:`_run`, also returning the run's peak resident memory in MB.

    The child reports its own high-water mark (``VmHWM`` of ``/proc/self/status``, which
    starts afresh at ``exec``), so the memory of the process that started it never counts.
    """
    if not Path("/proc/self/status").exists():
        pytest.skip("needs /proc/self/status")
    peak_file = tmp_path / "peak-kb"
    env = _env()
    env["PPDM_FUZZ_PEAK"] = str(peak_file)
    proc = subprocess.run(
        [sys.executable, "-c", _MEASURED, *map(str, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout, proc.stderr, int(peak_file.read_text()) / 1024


@fuzz_class("yaml alias bombs")
def test_network_alias_bomb(tmp_path):
    net = tmp_path / "net.yaml"
    net.write_bytes((CORPUS / "network--alias-bomb.yaml").read_bytes())
    out = tmp_path / "s.csv"
    snap = Snapshot(inputs=[net], outputs=[out])
    code, stdout, stderr, peak = _run_measured(
        tmp_path, "bn", "sample", net, "--n", "5", "--out", out
    )
    assert_refused((code, stdout, stderr), snap, FAILURE)
    assert peak < REFUSAL_MAX_RSS_MB, f"refusing a 600-byte file took {peak:.0f} MB"


@fuzz_class("yaml alias bombs")
@pytest.mark.parametrize("where", ["attributes", "values"])
def test_spec_alias_bomb(cli, tmp_path, table, where):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 9)
    ]
    if where == "attributes":
        lines.append("attributes: *a8")
    else:
        lines += [
            "attributes:",
            "  - {name: x, domain: {kind: categorical, values: *a8}}",
            "  - {name: k, perturbed: false}",
            "  - {name: y, perturbed: false}",
        ]
    spec = tmp_path / "bomb.yaml"
    spec.write_text("\n".join(lines) + "\n")
    out = tmp_path / "rel"
    snap = Snapshot(inputs=[table, spec], outputs=[out])
    assert_refused(cli("perturb", table, "--spec", spec, "--out", out), snap, FAILURE)
    assert_refused(cli("report", spec), snap, FAILURE)


# -- end-to-end refusals ----------------------------------------------------------------

E2E = [
    ("missing-input", "perturb {d}/nope.csv --out {d}/new", FAILURE),
    ("gamma-nan", "perturb {table} --out {d}/new --gamma nan", USAGE),
    ("tampered-release", "estimate {d}/bad", FAILURE),
    ("random-model", "tree show " + str(CORPUS / "model--random.bin"), FAILURE),
    (
        "empty-table",
        "tree train " + str(CORPUS / "table--empty.csv") + " --class y --out {d}/m.pkl",
        FAILURE,
    ),
]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        pytest.param(line, codes, id=i, marks=fuzz_class("end-to-end processes"))
        for i, line, codes in E2E
    ],
)
def test_refusal_in_a_real_process(tmp_path, table, release, line, codes):
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "spec.json").write_text("null")
    args = [part.format(d=tmp_path, table=table) for part in line.split()]
    snap = Snapshot(inputs=[table, release, bad], outputs=[tmp_path / "new", tmp_path / "m.pkl"])
    assert_refused(_run(*args), snap, codes)


@fuzz_class("concurrent reruns")
def test_two_reconstruct_runs_into_one_file(tmp_path, release):
    """Two reconstructions at once into the same --out (--overwrite: the later may replace
    the earlier's once it is published; while one writes, the other is refused): the file
    is one run's, whole."""
    rel = release
    refs = []
    for seed in ("1", "2"):
        ref = tmp_path / f"ref-{seed}.csv"
        code, _, err = _run("reconstruct", rel, "--out", ref, "--seed", seed)
        assert code == 0, err
        refs.append(digest(ref))
    assert refs[0] != refs[1]
    out = tmp_path / "rec.csv"
    procs = [
        _popen("reconstruct", rel, "--out", out, "--seed", seed, "--overwrite")
        for seed in ("1", "2")
    ]
    codes = []
    for p in procs:
        _, err = p.communicate(timeout=300)
        codes.append(p.returncode)
        if p.returncode != 0:
            line = assert_refused((p.returncode, "", err), Snapshot(), FAILURE)
            assert "another ppdm process" in line, line
    assert 0 in codes
    assert digest(out) in refs, "the output mixes the two runs"
    assert leftovers(out) == []


@fuzz_class("concurrent reruns")
def test_two_perturb_runs_without_overwrite(tmp_path, big_table):
    """Without --overwrite at most one run may publish; the other is refused or replaced
    nothing: the directory holds one whole release."""
    from ppdm.pipeline import load_release, verify_release

    out = tmp_path / "rel"
    common = ("--class", "y", "--bounds", "x=0:10")
    procs = [_popen("perturb", big_table, "--out", out, *common, "--gamma", g) for g in ("5", "19")]
    results = [(p, *p.communicate(timeout=300)) for p in procs]
    codes = sorted(p.returncode for p, _, _ in results)
    assert codes[0] == 0, [err[-300:] for _, _, err in results]
    for p, _, err in results:
        assert "Traceback" not in err, err[-500:]
        if p.returncode != 0:
            # the loser finds a non-empty --out: a usage error (or a failure mid-publish)
            assert_refused((p.returncode, "", err), Snapshot(), REFUSED)
    rel = load_release(out)
    assert verify_release(out) == rel.spec.n_records
    assert {a.privacy["gamma"] for a in rel.spec.perturbed_attributes()} in ({5.0}, {19.0})
    assert leftovers(out) == []
