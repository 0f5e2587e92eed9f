"""An output is claimed from its check to its publication: nothing that appears meanwhile
is replaced without ``overwrite``, and a claim never outlives its command or process."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ppdm import publish
from ppdm.exceptions import OutputError, OutputTakenError
from ppdm.publish import (
    check_output,
    inputs_of_one_operation,
    publish_copy,
    publish_dir,
    publish_file,
)


def _claim_file(out: Path) -> Path:
    return out.parent / f".{out.name}.ppdm-claim"


def _claimed(out: Path) -> bool:
    return Path(os.path.realpath(out)) in publish._CLAIMS


def _hidden(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if ".ppdm-" in p.name)


def test_a_file_written_meanwhile_is_kept(tmp_path):
    out = tmp_path / "model.json"
    check_output(out, keep_files=True)
    with pytest.raises(OutputTakenError, match=r"model\.json' was written by another process"):
        with publish_file(out) as tmp:
            tmp.write_text("mine")
            out.write_text("theirs")  # another program, between the check and the rename
    assert out.read_text() == "theirs"
    assert _hidden(tmp_path) == [] and not _claimed(out)
    # with overwrite (or for a file the command replaces anyway) this run's file wins
    for how in ({"keep_files": True, "overwrite": True}, {}):
        check_output(out, **how)
        with publish_file(out) as tmp:
            tmp.write_text("mine")
            out.write_text("theirs")
        assert out.read_text() == "mine"


def test_a_directory_written_meanwhile_is_kept(tmp_path):
    out = tmp_path / "rel"
    check_output(out, directory=True)
    with pytest.raises(OutputTakenError, match="rel' was written by another process"):
        with publish_dir(out) as tmp:
            (tmp / "data.csv").write_text("mine")
            out.mkdir()
            (out / "data.csv").write_text("theirs")
    assert [p.name for p in out.iterdir()] == ["data.csv"]
    assert (out / "data.csv").read_text() == "theirs"
    assert _hidden(tmp_path) == [] and not _claimed(out)
    (out / "data.csv").unlink()  # an empty directory made meanwhile loses nothing: filled
    check_output(out, directory=True)
    with publish_dir(out) as tmp:
        (tmp / "data.csv").write_text("mine")
    assert (out / "data.csv").read_text() == "mine"


def test_a_directory_claimed_before_it_had_a_parent(tmp_path):
    """The parent did not exist at the check: the claim is taken when publishing, and a
    holder found then refuses the run, naming its pid."""
    out = tmp_path / "new" / "rel"
    check_output(out, directory=True)
    out.parent.mkdir()
    fd = os.open(_claim_file(out), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # another open file: another owner
        os.write(fd, b"4242\n")
        with pytest.raises(OutputTakenError, match=r"being written .*\(pid 4242\)"):
            with publish_dir(out) as tmp:
                (tmp / "x").write_text("x")
    finally:
        os.close(fd)
    assert not out.exists() and not _claimed(out)


def test_the_claim_of_a_killed_process_is_free(tmp_path):
    """A process killed while it held a claim (SIGKILL: no clean-up) leaves the file, not
    the lock: the next run publishes and removes it."""
    out = tmp_path / "rel"
    code = (
        "import os, signal\n"
        "from ppdm.publish import check_output\n"
        f"check_output({str(out)!r}, directory=True)\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code])
    assert proc.returncode == -9 and _claim_file(out).exists()
    check_output(out, directory=True)
    with publish_dir(out) as tmp:
        (tmp / "x").write_text("x")
    assert (out / "x").read_text() == "x"
    assert _hidden(tmp_path) == []


def test_a_failed_command_gives_up_its_claim(run_cli, tmp_path):
    table = tmp_path / "t.csv"
    table.write_text("x,y\n1,a\n2,b\n")
    out = tmp_path / "rel"
    code, _, err = run_cli("perturb", table, "--out", out, "--class", "nope")
    assert code == 1 and "nope" in err
    assert _hidden(tmp_path) == [] and not _claimed(out)


def test_one_operation_gives_up_the_claims_taken_inside(tmp_path):
    kept = check_output(tmp_path / "kept", directory=True)
    with inputs_of_one_operation():
        check_output(tmp_path / "dropped", directory=True)
        assert _claimed(tmp_path / "dropped")
    assert _claimed(kept) and not _claimed(tmp_path / "dropped")
    publish.release_claims()
    assert _hidden(tmp_path) == []


def test_a_copy_is_published_whole_and_never_merged(tmp_path):
    """The web app's 'save the release in a folder': a new folder gets the whole copy; a
    folder another process claims, or one that holds files, gets nothing of it."""
    source = tmp_path / "release"
    source.mkdir()
    (source / "spec.json").write_text("{}")
    out = tmp_path / "saved"
    fd = os.open(_claim_file(out), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(OutputTakenError, match="folder '.*saved' is being written"):
            publish_copy(source, out, flag="folder")
    finally:
        _claim_file(out).unlink()
        os.close(fd)
    assert not out.exists()
    publish_copy(source, out, flag="folder")
    assert (out / "spec.json").read_text() == "{}" and (source / "spec.json").exists()
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match="not empty"):
        publish_copy(source, tmp_path / "theirs", flag="folder")
    assert [p.name for p in (tmp_path / "theirs").iterdir()] == ["notes.txt"]
    assert _hidden(tmp_path) == []
