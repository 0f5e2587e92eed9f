"""Outputs never touch inputs, are published whole, and releases are self-consistent."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from childsignals import signal_mid_run
from ppdm.cli._common import EXIT_USAGE
from ppdm.exceptions import OutputError, SpecError
from ppdm.pipeline import estimate_release, load_release, make_release
from ppdm.publish import check_output, clean_leftovers, publish_dir, publish_file


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tree(path: Path) -> dict[str, str]:
    return {str(p.relative_to(path)): _digest(p) for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(3)
    df = pd.DataFrame(
        {
            "x": rng.uniform(0, 10, 300).round(3),
            "k": rng.choice(["a", "b", "c"], 300),
            "c": rng.choice(["yes", "no"], 300),
        }
    )
    d = tmp_path / "data"
    d.mkdir()
    path = d / "data.csv"
    df.to_csv(path, index=False)
    return path


@pytest.fixture
def release(tmp_path, table):
    out = tmp_path / "rel"
    make_release(table, out, class_attribute="c", bounds={"x": (0, 10)}, random_state=1)
    return out


# -- outputs never touch inputs ---------------------------------------------------------


def test_out_dot_next_to_the_input_is_refused(run_cli, table, monkeypatch):
    monkeypatch.chdir(table.parent)
    before = _tree(table.parent)
    code, _, err = run_cli("perturb", "data.csv", "--out", ".", "--class", "c", "--seed", "1")
    assert code != 0
    assert "contains the input" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert _tree(table.parent) == before


@pytest.mark.parametrize("out", ["", "/"])
def test_empty_and_root_outputs_are_refused(run_cli, table, out):
    code, _, err = run_cli("perturb", table, "--out", out, "--class", "c", "--seed", "1")
    assert code != 0
    assert ("is empty" in err) or ("file-system root" in err)


def test_output_inside_the_input_directory_of_a_release(run_cli, release, tmp_path):
    before = _tree(release)
    code, _, err = run_cli("reconstruct", release, "--out", release / "data.csv", "--seed", "1")
    assert code != 0 and "lies inside the input" in err
    assert _tree(release) == before


def test_output_is_the_input(table):
    with pytest.raises(OutputError, match="is the input"):
        check_output(table, inputs=(table,))


def test_symlinked_output_to_the_input_is_refused(tmp_path, table):
    link = tmp_path / "link.csv"
    link.symlink_to(table)
    with pytest.raises(OutputError, match="is the input"):
        check_output(link, inputs=(table,))


def test_non_empty_output_directory_needs_overwrite(run_cli, table, tmp_path):
    out = tmp_path / "rel"
    args = ["perturb", table, "--out", out, "--class", "c", "--bounds", "x=0:10", "--seed", "1"]
    assert run_cli(*args)[0] == 0
    first = _tree(out)
    code, _, err = run_cli(*args)
    assert code != 0 and "--overwrite" in err
    assert _tree(out) == first


def test_overwrite_replaces_the_whole_release(run_cli, table, tmp_path):
    out = tmp_path / "rel"
    base = ["perturb", table, "--out", out, "--class", "c", "--bounds", "x=0:10", "--seed", "1"]
    assert run_cli(*base, "--format", "parquet")[0] == 0
    assert (out / "data.parquet").exists()
    assert run_cli(*base, "--format", "csv", "--overwrite")[0] == 0
    # a stale data.parquet beside the new CSV would be a second, independent draw
    assert sorted(p.name for p in out.iterdir()) == [
        ".ppdm-output",
        "data.csv",
        "privacy.json",
        "privacy.txt",
        "spec.json",
    ]
    assert not [p for p in tmp_path.iterdir() if ".ppdm-" in p.name]


def test_published_files_get_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        with publish_file(tmp_path / "f.txt") as tmp:
            tmp.write_text("x")
        with publish_dir(tmp_path / "d") as tmp:
            (tmp / "a").write_text("y")
    finally:
        os.umask(old)
    assert (tmp_path / "f.txt").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o755


def test_a_failure_leaves_the_old_directory_whole(tmp_path):
    target = tmp_path / "out"
    with publish_dir(target) as tmp:
        (tmp / "a.txt").write_text("old")
    with pytest.raises(RuntimeError), publish_dir(target) as tmp:
        (tmp / "a.txt").write_text("new")
        (tmp / "b.txt").write_text("new")
        raise RuntimeError("boom")
    assert sorted(p.name for p in target.iterdir()) == [".ppdm-output", "a.txt"]
    assert (target / "a.txt").read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_leftovers_of_killed_runs_are_cleaned(tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(dead.stdout)
    stale = tmp_path / f".out.ppdm-new-{pid}-0a0b0c0d"
    stale.mkdir()
    (stale / "data.csv").write_text("half")
    mine = tmp_path / f".out.ppdm-new-{os.getpid()}-01020304"
    mine.mkdir()
    assert clean_leftovers(tmp_path, "out") == 1
    assert not stale.exists() and mine.exists()


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    """A 2,000,000-row input, written once for both signals (the runs only read it).

    Arrow writes it (0.25 s where pandas takes 1.8 s); the same values, with small ones in
    positional rather than exponent notation.
    """
    import pyarrow as pa
    import pyarrow.csv as pa_csv

    rng = np.random.default_rng(0)
    src = tmp_path_factory.mktemp("big") / "big.csv"
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 2_000_000), "c": rng.integers(0, 2, 2_000_000)})
    with src.open("wb") as fh:
        fh.write(b"x,c\n")
        pa_csv.write_csv(
            pa.Table.from_pandas(frame, preserve_index=False),
            fh,
            pa_csv.WriteOptions(include_header=False),
        )
    return src


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_terminated_release_leaves_nothing(tmp_path, sig, big_csv):
    src = big_csv
    out = tmp_path / "rel"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ppdm",
            "perturb",
            str(src),
            "--out",
            str(out),
            "--class",
            "c",
            "--bounds",
            "x=0:1",
            "--batch-size",
            "2000",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )

    def staging() -> bool:
        return any(".ppdm-new" in p.name for p in tmp_path.iterdir())

    deadline = time.time() + 60
    while time.time() < deadline and not staging():
        time.sleep(0.05)
    running = signal_mid_run(proc, sig, working=staging)
    _, err = proc.communicate(timeout=120)
    if not running:  # the machine was so slow to poll that the run had finished
        assert proc.returncode == 0 and (out / "spec.json").is_file(), err[-500:]
        pytest.skip("the release was complete before the signal could be sent")
    assert proc.returncode in (128 + sig, -sig), (proc.returncode, err[-500:])
    assert "Traceback" not in err
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if ".ppdm-" in p.name]


@pytest.mark.parametrize("publish", [publish_dir, publish_file])
def test_a_swallowed_termination_still_publishes_nothing(tmp_path, monkeypatch, publish):
    """A C extension's attribute test (pyarrow's, inside a CSV write) discards any
    exception, the handler's too: the signal is remembered and nothing is published."""
    import ppdm.publish as pub

    monkeypatch.setattr(pub, "_terminated_by", [])
    previous = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    pub.install_signal_handlers()
    target = tmp_path / "out"
    try:
        with pytest.raises(SystemExit) as ended, publish(target) as work:
            if publish is publish_file:
                work.write_text("half")
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)  # the handler runs here and raises
                pytest.fail("the handler did not run")
            except SystemExit:
                pass  # swallowed, as PyObject_HasAttr does
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert ended.value.code == 128 + signal.SIGTERM
    assert pub.termination_status() == 128 + signal.SIGTERM
    assert not target.exists() and not list(tmp_path.iterdir())


# -- no unprotected release without saying so -----------------------------------------


@pytest.mark.parametrize("attrs", ["c", "k"])
def test_class_or_nothing_in_attributes(run_cli, table, tmp_path, attrs):
    out = tmp_path / "rel"
    args = ["perturb", table, "--out", out, "--class", attrs if attrs == "c" else "k"]
    code, _, err = run_cli(*args, "--attributes", attrs, "--seed", "1")
    assert code != 0 and not out.exists()
    assert "released as is" in err and "--perturb-class" in err


def test_zero_perturbed_attributes_need_opt_in(run_cli, tmp_path):
    src = tmp_path / "one.csv"
    pd.DataFrame({"c": ["a", "b"] * 10}).to_csv(src, index=False)
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", src, "--out", out, "--class", "c", "--seed", "1")
    assert code != 0 and "no attribute would be perturbed" in err and not out.exists()
    code, _, err = run_cli(
        "perturb", src, "--out", out, "--class", "c", "--seed", "1", "--allow-unprotected"
    )
    assert code == 0 and "released without protection: c" in err


@pytest.mark.filterwarnings("ignore::ppdm.exceptions.SeededReleaseWarning")
def test_a_weak_gamma_is_called_weak_on_stderr(run_cli, tmp_path):
    # rho2 at rho1 = 5 % is gamma * 0.05 / (gamma * 0.05 + 0.95): 99 % from gamma ~ 1,881
    src = tmp_path / "t.csv"
    pd.DataFrame({"x": list(range(10)) * 5, "c": ["a", "b"] * 25}).to_csv(src, index=False)
    flags = ("--class", "c", "--bounds", "x=0:9", "--bins", "10", "--seed", "1")
    code, _, err = run_cli("perturb", src, "--out", tmp_path / "weak", "--gamma", "5000", *flags)
    assert code == 0 and "note: weakly protected: x (epsilon 8.52" in err
    assert "posterior 99.6%" in err
    code, _, err = run_cli("perturb", src, "--out", tmp_path / "fair", "--gamma", "1500", *flags)
    assert code == 0 and "weakly protected" not in err
    # attributes with the same figures are named together, the figures once
    pd.DataFrame({"x": list(range(10)) * 5, "y": list(range(10))[::-1] * 5, "c": ["a", "b"] * 25}
                 ).to_csv(src, index=False)  # fmt: skip
    code, _, err = run_cli(
        "perturb", src, "--out", tmp_path / "two", "--gamma", "5000", *flags, "--bounds", "y=0:9"
    )
    line = " ".join(err.split())
    assert code == 0 and "note: weakly protected: x, y (epsilon 8.52" in line
    assert line.count("epsilon 8.52") == 1


@pytest.mark.parametrize(
    "matrix",
    [
        {"kind": "identity"},
        {"kind": "explicit", "matrix": [[0, 1, 0], [0, 0, 1], [1, 0, 0]]},
    ],
)
def test_infinite_amplification_needs_opt_in(run_cli, table, tmp_path, matrix):
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "attributes": [
                    {
                        "name": "k",
                        "domain": {"kind": "categorical", "values": ["a", "b", "c"]},
                        "matrix": matrix,
                    }
                ]
            }
        )
    )
    out = tmp_path / "rel"
    base = ["perturb", table, "--out", out, "--class", "c", "--spec", spec, "--bounds", "x=0:10"]
    code, _, err = run_cli(*base, "--seed", "1")
    assert code != 0 and "infinite amplification" in err and not out.exists()
    code, _, err = run_cli(*base, "--seed", "1", "--allow-unprotected")
    assert code == 0 and "k" in err.split("without protection:")[1]
    text = (out / "privacy.txt").read_text()
    assert "UNPROTECTED" in text and "k" in text.split("UNPROTECTED")[1]
    assert "k" in json.loads((out / "privacy.json").read_text())["unprotected"]


@pytest.mark.parametrize(("gamma", "refused"), [("1.8e10", False), ("2e10", True), ("1e300", True)])
def test_a_matrix_that_changes_no_value_needs_opt_in(run_cli, table, tmp_path, gamma, refused):
    # gamma 1e300 is finite, but no value of any table ppdm reads would change: the
    # release would be the original; the line is one change in MAX_RECORDS = 1e9 values
    # ((N - 1)/(gamma + N - 1) with N = 20 crosses 1e-9 at gamma = 1.9e10 - 19)
    out = tmp_path / "rel"
    base = ["perturb", table, "--out", out, "--class", "c", "--bounds", "x=0:10"]
    base += ["--attributes", "x", "--gamma", gamma, "--seed", "1"]
    code, _, err = run_cli(*base)
    if not refused:
        assert code == 0, err
        assert "x" not in json.loads((out / "privacy.json").read_text())["unprotected"]
        return
    line = " ".join(err.split())
    assert code == 1 and "attribute 'x': its matrix releases a value as another" in line
    assert "--allow-unprotected" in line and not out.exists()
    code, _, err = run_cli(*base, "--allow-unprotected")
    assert code == 0 and "x" in err.split("without protection:")[1]
    report = json.loads((out / "privacy.json").read_text())
    assert "x" in report["unprotected"] and report["unchanged"] == ["x"]
    text = (out / "privacy.txt").read_text()
    assert "UNPROTECTED (a matrix that almost never changes a value" in text
    # the audit of such a release fails it (its repeated-perturbation attack divided by
    # zero past gamma 1e16), with every figure finite
    code, out_text, err = run_cli("audit", out, "--original", table, "--json")
    assert code == 3, err
    assert "NaN" not in out_text and json.loads(out_text)["passed"] is False


def test_copies_past_any_finite_guarantee_need_opt_in(run_cli, table, tmp_path):
    # Kang's copies compound gamma to gamma^M: 9^400 overflows, which the report calls
    # no guarantee; it was released with a note only
    out = tmp_path / "rel"
    args = ["perturb", table, "--class", "c", "--bounds", "x=0:10", "--seed", "1"]
    base = [*args, "--out", out]
    code, _, err = run_cli(*base, "--copies", "400")
    line = " ".join(err.split())
    assert code == 1 and "400 copies compound its gamma 9 to gamma^400" in line
    assert not out.exists()
    code, _, err = run_cli(*base, "--copies", "400", "--allow-unprotected")
    assert code == 0, err
    report = json.loads((out / "privacy.json").read_text())
    assert {"x", "k"} <= set(report["unprotected"])
    code, _, err = run_cli(*args, "--out", tmp_path / "rel40", "--copies", "40")
    assert code == 0 and "weakly protected" in err  # 9^40 is finite: a guarantee, a weak one


@pytest.mark.parametrize(("copies", "refused"), [(153, False), (154, True), (300, True)])
def test_copies_that_together_reveal_the_value_need_opt_in(
    run_cli, table, tmp_path, copies, refused
):
    # 9^300 is finite, yet 300 copies at gamma 9 and N = 20 give every value away: the
    # most likely value given a record's copies is its own but with probability below
    # 1e-9 (the Bhattacharyya bound (N - 1) BC^M crosses 1e-9 between M = 153 and 154)
    out = tmp_path / "rel"
    base = ["perturb", table, "--out", out, "--class", "c", "--bounds", "x=0:10"]
    base += ["--attributes", "x", "--copies", str(copies), "--seed", "1"]
    code, _, err = run_cli(*base)
    if not refused:
        assert code == 0, err
        report = json.loads((out / "privacy.json").read_text())
        assert report["revealed_by_copies"] == [] and "x" not in report["unprotected"]
        return
    line = " ".join(err.split())
    assert code == 1 and f"attribute 'x': its {copies} copies of a record, taken together" in line
    assert "--allow-unprotected" in line and not out.exists()
    code, _, err = run_cli(*base, "--allow-unprotected")
    assert code == 0 and "x" in err.split("without protection:")[1]
    report = json.loads((out / "privacy.json").read_text())
    assert "x" in report["unprotected"] and report["revealed_by_copies"] == ["x"]
    text = (out / "privacy.txt").read_text()
    assert f"UNPROTECTED (the {copies} copies of a record, taken together, reveal" in text
    code, _, _ = run_cli("report", out, "--html", tmp_path / "r.html")
    html = (tmp_path / "r.html").read_text()
    assert code == 0 and f"the {copies} copies of a record, taken together, reveal" in html


def test_few_values_are_given_away_by_fewer_copies(run_cli, table, tmp_path):
    # k has 3 values: at gamma 9, 48 copies already point to the true value but with
    # probability below 1e-9 (2 (7/11)^48 < 1e-9 < 2 (7/11)^47)
    base = ["perturb", table, "--class", "c", "--attributes", "k", "--seed", "1"]
    code, _, err = run_cli(*base, "--out", tmp_path / "a", "--copies", "47")
    assert code == 0, err
    code, _, err = run_cli(*base, "--out", tmp_path / "b", "--copies", "48")
    assert code == 1 and "attribute 'k': its 48 copies" in " ".join(err.split())


def test_reordered_user_values_are_canonicalised(tmp_path, table):
    from ppdm.release import ReleaseSpec

    m = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.2, 0.2, 0.6]]
    user = ReleaseSpec.model_validate(
        {
            "attributes": [
                {
                    "name": "k",
                    "domain": {"kind": "categorical", "values": ["c", "a", "b"]},
                    "matrix": {"kind": "explicit", "matrix": m},
                }
            ]
        }
    )
    spec = make_release(
        table,
        tmp_path / "r",
        class_attribute="c",
        spec=user,
        bounds={"x": (0, 10)},
        random_state=2,
    )
    k = spec.attribute("k")
    assert k.domain["values"] == ["a", "b", "c"]
    # P(out = a | in = a) was m[1][1] when 'a' had code 1
    assert k.matrix["matrix"][0][0] == m[1][1]
    assert k.matrix["matrix"][2][0] == m[0][1]  # P(out = c | in = a)


# -- a release is self-consistent or refused --------------------------------------------


def _edit_spec(release: Path, edit) -> None:
    path = release / "spec.json"
    spec = json.loads(path.read_text())
    edit(spec)
    path.write_text(json.dumps(spec))


@pytest.mark.parametrize(
    "bad",
    ["../data/data.csv", "/etc/passwd", "sub/data.csv", "..", ".hidden", ""],
)
def test_data_file_must_be_a_bare_name(release, table, bad):
    _edit_spec(release, lambda s: s.update(data_file=bad))
    with pytest.raises((SpecError, FileNotFoundError)) as exc:
        load_release(release)
    assert "bare name" in str(exc.value) or "names no data_file" in str(exc.value)


def test_outside_file_is_never_echoed(run_cli, release, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("x,k,c\nSECRET_VALUE,a,yes\n")
    _edit_spec(release, lambda s: s.update(data_file="../secret.csv"))
    for cmd in (["estimate", release], ["reconstruct", release, "--out", tmp_path / "o.csv"]):
        code, out, err = run_cli(*cmd)
        assert code != 0 and "SECRET" not in out + err
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.parametrize("kind", ["symlink", "fifo", "devzero"])
def test_data_file_must_be_a_regular_file(release, tmp_path, kind):
    data = release / "data.csv"
    data.unlink()
    if kind == "symlink":
        target = tmp_path / "outside.csv"
        target.write_text("x,k,c\n1,a,yes\n")
        data.symlink_to(target)
    elif kind == "devzero":
        data.symlink_to("/dev/zero")
    else:
        os.mkfifo(data)
    with pytest.raises(SpecError, match="symbolic link|not a regular file"):
        load_release(release)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "devzero"])
def test_spec_file_must_be_a_regular_file(run_cli, release, tmp_path, kind):
    # a spec.json linked to /dev/zero grew the reader until the system killed it; a
    # FIFO hung it: the size check trusted st_size, 0 for both
    spec = release / "spec.json"
    text = spec.read_text()
    spec.unlink()
    if kind == "symlink":
        target = tmp_path / "elsewhere.json"
        target.write_text(text)
        spec.symlink_to(target)
    elif kind == "devzero":
        spec.symlink_to("/dev/zero")
    else:
        os.mkfifo(spec)
    with pytest.raises(SpecError, match="symbolic link|not a regular file"):
        load_release(release)
    for cmd in (["estimate", release], ["report", release]):
        code, _, err = run_cli(*cmd)
        assert code == 1 and "spec.json" in err and len(err.strip().splitlines()) == 1, err
    if kind != "symlink":  # the owner's --spec too
        code, _, err = run_cli("perturb", tmp_path / "data" / "data.csv", "--spec", spec,
                               "--out", tmp_path / "out")  # fmt: skip
        assert code != 0 and "is not a regular file" in err and not (tmp_path / "out").exists()


def test_n_records_must_match_the_data(run_cli, release):
    _edit_spec(release, lambda s: s.update(n_records=s["n_records"] - 1))
    # the privacy block is recomputed from n_records: fix it up as a careful forger would
    spec = json.loads((release / "spec.json").read_text())
    from ppdm.privacy import attribute_privacy
    from ppdm.release import ReleaseSpec

    rs = ReleaseSpec.model_validate(spec)
    for a in spec["attributes"]:
        if a.get("perturbed", True) and "matrix" in a:
            a["privacy"] = attribute_privacy(rs.attribute(a["name"]).get_matrix(), rs.n_records)
    (release / "spec.json").write_text(json.dumps(spec))
    with pytest.raises(SpecError, match="holds 300 rows but its spec says n_records 299"):
        estimate_release(release)
    code, _, err = run_cli("estimate", release)
    assert code != 0 and "n_records 299" in err


def test_copies_must_match(release):
    _edit_spec(release, lambda s: s.update(copies=3))
    with pytest.raises(SpecError, match="copies"):
        estimate_release(release)


def test_gamma_must_agree_with_the_privacy_block(release):
    def edit(s):
        for a in s["attributes"]:
            if a.get("matrix", {}).get("kind") == "gamma-diagonal":
                a["matrix"]["gamma"] = 3.0

    _edit_spec(release, edit)
    with pytest.raises(SpecError, match="states gamma"):
        load_release(release)


def test_reordered_domain_values_are_refused(release):
    def edit(s):
        for a in s["attributes"]:
            if a.get("domain", {}).get("kind") == "categorical":
                a["domain"]["values"] = list(reversed(a["domain"]["values"]))

    _edit_spec(release, edit)
    with pytest.raises(SpecError, match="out of order"):
        load_release(release)


def test_the_writer_checks_what_it_wrote(tmp_path, table, monkeypatch):
    import ppdm.pipeline.writing as pp

    real = pp.perturb_batches

    def corrupt(*args, **kwargs):
        for batch in real(*args, **kwargs):
            batch = batch.copy()
            batch.loc[batch.index[-1], "k"] = "zz"
            yield batch

    monkeypatch.setattr(pp, "perturb_batches", corrupt)
    out = tmp_path / "rel"
    with pytest.raises(ValueError, match="zz"):
        make_release(table, out, class_attribute="c", bounds={"x": (0, 10)}, random_state=1)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if ".ppdm-" in p.name]


def test_version_and_short_help(run_cli):
    code, out, _ = run_cli("--version")
    assert code == 0 and out.startswith("ppdm ")
    code, out, _ = run_cli("perturb", "-h")
    assert code == 0 and "--overwrite" in out
    # a flag takes no value: its help row shows no "<bool>" metavar
    row = next(line for line in out.splitlines() if "--overwrite" in line)
    assert "<bool>" not in row


def test_estimate_plot_has_a_panel_per_class(run_cli, release, tmp_path):
    import matplotlib.image as mpimg

    heights = {}
    for flag in ([], ["--by-class"]):
        out = tmp_path / f"plot{len(flag)}"
        code, _, err = run_cli("estimate", release, *flag, "--plot", out)
        assert code == 0, err
        assert sorted(p.name for p in out.iterdir()) == [".ppdm-output", "k.png", "x.png"]
        heights[len(flag)] = mpimg.imread(out / "x.png").shape[0]
    # overall + two classes: three panels instead of one
    assert heights[1] > 2 * heights[0]


@pytest.mark.parametrize("bad", ["../secret.csv", "/etc/passwd", None])
def test_bn_release_data_file_must_be_a_bare_name(tmp_path, bad):
    from ppdm.bayesnet.parties import read_release

    rel = tmp_path / "rel"
    rel.mkdir()
    (tmp_path / "secret.csv").write_text("A\n0\n1\n")
    spec = {
        "format": "ppdm-bn-release/1",
        "party": "p",
        "variables": {"A": 2},
        "randomize": [],
        "data_file": bad,
        "n_records": 2,
    }
    (rel / "release.json").write_text(json.dumps(spec))
    with pytest.raises(SpecError, match="bare name|names no data_file"):
        read_release(rel)
    (rel / "release.json").write_text("null")
    with pytest.raises(SpecError, match="JSON object"):
        read_release(rel)


def test_overwrite_never_replaces_a_directory_ppdm_did_not_write(run_cli, release, table, tmp_path):
    """``--overwrite`` replaces ppdm's own output whole, never a directory of the user's."""
    mine = tmp_path / "documents"
    mine.mkdir()
    (mine / "thesis.txt").write_text("years of work")
    for args in (
        ("estimate", release, "--plot", mine, "--overwrite"),
        ("perturb", table, "--out", mine, "--class", "c", "--overwrite", "--seed", "1"),
    ):
        code, _, err = run_cli(*args)
        assert code == EXIT_USAGE and "holds files ppdm did not write" in err, err
        assert sorted(p.name for p in mine.iterdir()) == ["thesis.txt"]
    plots = tmp_path / "plots"  # ppdm's own output: replaced whole on request
    assert run_cli("estimate", release, "--plot", plots)[0] == 0
    (plots / "stale.png").write_bytes(b"")
    code, _, err = run_cli("estimate", release, "--plot", plots, "--overwrite")
    assert code == 0, err
    assert not (plots / "stale.png").exists() and (plots / ".ppdm-output").is_file()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli("estimate", release, "--plot", empty)[0] == 0


def test_an_output_below_a_file_is_refused_before_any_work(run_cli, release, tmp_path):
    # report --html data.csv/r.html printed the whole report, then failed on the path
    blocker = tmp_path / "notes.txt"
    blocker.write_text("mine\n")
    code, out, err = run_cli("report", release, "--html", blocker / "r.html")
    assert code == 2 and out == "" and "is a file, not a directory" in err
    assert blocker.read_text() == "mine\n"


def test_repeated_parquet_column_names_name_the_file(run_cli, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "dup.parquet"
    pq.write_table(pa.table([pa.array([1, 2]), pa.array([3, 4]), pa.array(["a", "b"])],
                            names=["x", "x", "c"]), path)  # fmt: skip
    code, _, err = run_cli("perturb", path, "--out", tmp_path / "r", "--class", "c")
    assert code == 1 and f"input file {str(path)!r}: the input has repeated column" in err


@pytest.mark.parametrize("how", ["substitution", "additive", "partitioned"])
def test_a_record_without_a_class_is_refused_naming_its_row(run_cli, tmp_path, how):
    """A release with a missing class could not be estimated, rebuilt or mined by class."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.uniform(0, 1, 50), "c": rng.choice(["a", "b"], 50)})
    frame.loc[36, "c"] = None  # data row 37
    if how == "partitioned":
        src = tmp_path / "parts"
        src.mkdir()
        frame.iloc[:25].to_parquet(src / "p0.parquet", index=False)
        frame.iloc[25:].to_parquet(src / "p1.parquet", index=False)
        where = "data row 12"  # of its part
    else:
        src = tmp_path / "t.csv"
        frame.to_csv(src, index=False)
        where = "data row 37"
    out = tmp_path / "rel"
    extra = ["--method", "additive"] if how == "additive" else []
    code, _, err = run_cli(
        "perturb", src, "--out", out, "--class", "c", "--bounds", "x=0:1", "--seed", "1", *extra
    )
    assert code == 1 and not out.exists(), err
    line = err.strip().splitlines()[-1]
    assert f"class column 'c' {where} has no value" in line and str(src.name) in line, line
    assert not [p for p in tmp_path.iterdir() if ".ppdm-" in p.name]


def test_inputs_of_one_operation_do_not_outlive_it(tmp_path):
    """The web app serves many tabs from one process: a folder one tab opened (the
    workspace's parent, say) made every later release of every tab 'lie inside an input'."""
    import ppdm.publish as pub

    outer = tmp_path / "opened-by-another-tab"
    outer.mkdir()
    with pub.operation():
        pub.register_input(outer)
        with pytest.raises(OutputError):
            check_output(outer / "rel", directory=True)
        with pub.inputs_of_one_operation():
            check_output(outer / "rel", directory=True)  # not this operation's input
            pub.register_input(outer / "mine.csv")
            with pytest.raises(OutputError):
                check_output(outer / "mine.csv")
        with pytest.raises(OutputError):  # the earlier registration is back
            check_output(outer / "rel", directory=True)
        assert pub._real(outer / "mine.csv") not in pub.registered_inputs()
    assert not pub.registered_inputs()  # the operation is over: nothing is kept


def test_a_signal_while_a_claim_is_taken_leaves_no_claim_file(tmp_path, monkeypatch):
    """SIGTERM landing between the claim file's creation and its record (where a run just
    started is stopped) is raised once the claim is recorded, so the end of the process
    removes the file."""

    from ppdm import publish

    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    write = os.pwrite

    def pwrite(fd, data, offset):  # the signal's handler runs right after the file is written
        n = write(fd, data, offset)
        publish._raise_exit(signal.SIGTERM, None)
        return n

    monkeypatch.setattr(publish, "_terminated_by", [])
    monkeypatch.setattr(os, "pwrite", pwrite)
    try:
        with pytest.raises(SystemExit) as done:
            publish.check_output(tmp_path / "out", directory=True)
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
    monkeypatch.undo()
    assert done.value.code == 128 + signal.SIGTERM
    assert [p.name for p in tmp_path.iterdir()] == [".out.ppdm-claim"]  # held until the end
    publish.release_claims()  # what the process's end does
    assert list(tmp_path.iterdir()) == []


def test_where_signal_zero_is_a_ctrl_c_no_process_is_probed(tmp_path, monkeypatch):
    """On Windows os.kill(pid, 0) sends CTRL_C_EVENT to the process group ``pid``: the
    leftovers of other processes are kept there, and no signal is sent."""
    import ppdm.publish as publish

    def kill(pid, sig):
        raise AssertionError(f"os.kill({pid}, {sig}) was called")

    (tmp_path / ".out.ppdm-new-999999-0a0b0c0d").mkdir()
    monkeypatch.setattr(publish.os, "kill", kill)
    monkeypatch.setattr(publish.sys, "platform", "win32")
    assert clean_leftovers(tmp_path, "out") == 0
    monkeypatch.undo()
    assert (tmp_path / ".out.ppdm-new-999999-0a0b0c0d").exists()


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_an_error_raised_while_writing_names_the_output_for_library_callers(tmp_path, kind):
    """The command line's error line mapped a hidden work name back to the output; a
    notebook calling the library saw '.rel.ppdm-new-PID-HEX/...' in the message."""
    from ppdm.exceptions import DataError
    from ppdm.publish import publish_dir, publish_file

    target = tmp_path / ("rel" if kind == "dir" else "out.csv")
    publish = publish_dir if kind == "dir" else publish_file
    with pytest.raises(DataError) as caught:
        with publish(target) as work:
            assert work.name.startswith(f".{target.name}.ppdm-new-")
            raise DataError(f"part {str(work / 'data' / 'part-00001.parquet')!r} holds text", 7)
    assert caught.value.args == (
        f"part {str(target / 'data' / 'part-00001.parquet')!r} holds text",
        7,
    )
    assert not target.exists() and list(tmp_path.iterdir()) == []
