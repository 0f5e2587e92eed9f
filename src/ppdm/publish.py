"""Publishing outputs: whole or not at all, never over an input, never by two runs at once.

Every output is built beside its destination under a hidden name (carrying the writer's
process id, so the next run removes a killed run's leftovers) and published with one
``rename``. :func:`check_output` refuses an output that is, contains or lies inside an
input (:func:`register_input`) and claims it for this process until it is published.
The rules and their reasons: docs/security.md, "What ppdm refuses to do".
"""

from __future__ import annotations

import atexit
import errno
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # no flock: outputs are checked, but not claimed
    fcntl = None  # type: ignore[assignment]

from .exceptions import OutputError, OutputTakenError, PpdmError, SpecError

__all__ = [
    "register_input",
    "inputs_of_one_operation",
    "operation",
    "registered_inputs",
    "check_output",
    "mark_output",
    "publish_file",
    "publish_dir",
    "publish_copy",
    "clean_leftovers",
    "release_claims",
    "install_signal_handlers",
    "raise_if_terminated",
    "termination_status",
    "release_member",
    "target_of",
    "unhide",
]

_MARK = ".ppdm-"
_INPUTS: set[Path] = set()
#: Hidden work in progress of this process: removed at exit whatever happens.
_PENDING: set[Path] = set()


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(os.fspath(path)))


#: Operations open (:func:`operation`): inputs are recorded only inside one.
_DEPTH = 0


@contextmanager
def operation() -> Iterator[None]:
    """One command, or one library call that writes: inside, every input
    :func:`register_input` records is protected from every output; after the outermost one
    ends, they are forgotten (a release loaded earlier does not refuse a later call's output).
    """
    global _DEPTH
    if _DEPTH == 0:
        _INPUTS.clear()
    _DEPTH += 1
    try:
        yield
    finally:
        _DEPTH -= 1
        if _DEPTH == 0:
            _INPUTS.clear()


def register_input(path: str | os.PathLike) -> None:
    """Record ``path`` as an input of the operation at hand (:func:`operation`): no
    output of it may touch it. Outside an operation nothing is written, so nothing is
    recorded."""
    if _DEPTH == 0 or os.fspath(path) == "":
        return
    _INPUTS.add(_real(path))


@contextmanager
def inputs_of_one_operation() -> Iterator[None]:
    """Inside, only the inputs registered inside count; claims taken inside are released after."""
    global _DEPTH
    saved, depth = set(_INPUTS), _DEPTH
    _INPUTS.clear()
    _DEPTH = 1
    with _CLAIMS_LOCK:
        claimed = set(_CLAIMS)
    try:
        yield
    finally:
        _INPUTS.clear()
        _INPUTS.update(saved)
        _DEPTH = depth
        with _CLAIMS_LOCK:
            for key in set(_CLAIMS) - claimed:
                _release(key)


def registered_inputs() -> frozenset[Path]:
    """The inputs recorded so far (real paths)."""
    return frozenset(_INPUTS)


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


#: Every directory ppdm publishes whole holds this file: ``--overwrite`` replaces a
#: non-empty directory only if it holds it, so never one of the user's own.
OUTPUT_MARKER = ".ppdm-output"


def mark_output(directory: str | os.PathLike) -> None:
    """Write :data:`OUTPUT_MARKER` into ``directory``: ppdm wrote it."""
    (Path(directory) / OUTPUT_MARKER).write_text(
        "This directory was written by ppdm; --overwrite may replace it whole.\n"
    )


@dataclass
class _Claim:
    """This process's claim on an output: the locked file beside it and what it may do."""

    lock: Path
    fd: int | None  # None until the output's directory exists (taken when publishing)
    text: str  # the output as the user named it
    flag: str
    replace: bool  # may replace an output that appeared while this run worked
    pid: int


#: Outputs this process has claimed, by real path.
_CLAIMS: dict[Path, _Claim] = {}
_CLAIMS_LOCK = threading.RLock()


def _holder(lock: Path) -> str:
    """`` (pid N)``: the process that wrote its id into ``lock``, or nothing if unknown."""
    try:
        pid = lock.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (pid {pid})" if pid.isdigit() else ""


def _busy(claim: _Claim) -> OutputTakenError:
    return OutputTakenError(
        f"{claim.flag} {claim.text!r} is being written by another ppdm process"
        f"{_holder(claim.lock)}; wait for it to finish, or name another output"
    )


def _written_meanwhile(claim: _Claim) -> OutputTakenError:
    return OutputTakenError(
        f"{claim.flag} {claim.text!r} was written by another process while this one ran; "
        "pass --overwrite to replace it, or name another output"
    )


@contextmanager
def _signals_wait(then_raise: bool) -> Iterator[None]:
    """Hold ``SIGTERM``/``SIGHUP``'s exception back while a claim is taken or given up, so its
    file and this process's record of it never part.
    """
    _waiting[0] += 1
    try:
        yield
    finally:
        _waiting[0] -= 1
    if then_raise and not _waiting[0]:  # the outermost wait raises
        raise_if_terminated()


def _lock(claim: _Claim) -> None:
    """Take ``claim``'s lock without waiting, or raise :func:`_busy`; an unwritable directory
    is not claimed (writing the output fails there anyway).
    """
    if fcntl is None:
        return
    with _signals_wait(then_raise=True):
        while True:
            try:
                flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
                fd = os.open(claim.lock, flags, 0o666)
            except OSError:
                return
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise _busy(claim) from None
                return
            # its last holder removes the file before unlocking: a lock on a removed file
            # is no claim (another process may hold the new file's)
            try:
                now = os.stat(claim.lock, follow_symlinks=False)
                mine = os.fstat(fd)
                same = (now.st_dev, now.st_ino) == (mine.st_dev, mine.st_ino)
            except OSError:
                same = False
            if same:
                os.ftruncate(fd, 0)
                os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
                claim.fd = fd
                return
            os.close(fd)


def _claim(real: Path, text: str, flag: str) -> bool:
    """Claim the output ``real`` for this process; True if the claim is new."""
    with _CLAIMS_LOCK:
        held = _CLAIMS.get(real)
        if held is not None and held.pid == os.getpid():
            return False
        claim = _Claim(real.parent / f".{real.name}{_MARK}claim", None, text, flag, True,
                       os.getpid())  # fmt: skip
        with _signals_wait(then_raise=True):  # the claim's file is recorded with it
            if real.parent.is_dir():
                _lock(claim)
            _CLAIMS[real] = claim
        return True


def _release(real: Path) -> None:
    """Give up this process's claim on ``real`` (if any): remove its file, then unlock."""
    with _signals_wait(then_raise=False), _CLAIMS_LOCK:
        claim = _CLAIMS.pop(real, None)
        if claim is None or claim.fd is None or claim.pid != os.getpid():
            return
        try:
            claim.lock.unlink(missing_ok=True)
        finally:
            os.close(claim.fd)


@atexit.register
def release_claims() -> None:
    """Give up every claim of this process."""
    with _CLAIMS_LOCK:
        for real in list(_CLAIMS):
            _release(real)


def check_output(
    path: str | os.PathLike,
    *,
    inputs: tuple[str | os.PathLike, ...] = (),
    flag: str = "--out",
    directory: bool = False,
    overwrite: bool = False,
    keep_files: bool = False,
    whole: bool = True,
) -> Path:
    """Refuse an output path that would lose or leak data; return it as a Path.

    Parameters
    ----------
    path : path-like
        The output (file or directory).
    inputs : tuple of path-like
        Inputs of the command besides those already read (see :func:`register_input`).
    flag : str, default="--out"
        How the user named the output, for the message.
    directory : bool, default=False
        The output is a directory: an existing non-empty one is refused unless
        ``overwrite``; an existing file in its place is refused.
    overwrite : bool, default=False
        Allow replacing a non-empty output directory (and an existing file, with
        ``keep_files``).
    keep_files : bool, default=False
        An existing output file is refused unless ``overwrite`` (a command whose output
        is a table that could be the user's own data); else it is replaced whole.
    whole : bool, default=True
        The output directory is replaced whole (:func:`publish_dir`): with ``overwrite``,
        a non-empty one must hold :data:`OUTPUT_MARKER` (ppdm wrote it). ``False`` for
        a command that only writes its own files into the directory.

    Returns
    -------
    Path

    Raises
    ------
    OutputError
        The path is empty or the root, is, contains or lies inside an input, is a
        directory where a file is expected (or the reverse), is a non-empty
        directory (an existing file, with ``keep_files``) without ``overwrite``, or
        another ppdm process is writing it.

    Notes
    -----
    The output stays claimed for this process until it is published (docs/security.md).

    Examples
    --------
    >>> check_output("")
    Traceback (most recent call last):
    ...
    ppdm.exceptions.OutputError: --out is empty; name a file or directory to write
    """
    text = os.fspath(path)
    if text.strip() == "":
        raise OutputError(f"{flag} is empty; name a file or directory to write")
    real = _real(text)
    if real == Path(real.anchor):
        raise OutputError(f"{flag} {text!r} is the file-system root; name a new directory")
    for item in (*(_real(i) for i in inputs if os.fspath(i) != ""), *_INPUTS):
        if _inside(real, item) or _inside(item, real):
            how = "is" if real == item else ("lies inside" if _inside(real, item) else "contains")
            raise OutputError(
                f"{flag} {text!r} {how} the input {str(item)!r}; write somewhere else "
                "(ppdm never writes over or into its inputs)"
            )
    new = _claim(real, text, flag)  # before looking: what is there stays so until published
    try:
        p = _check_place(text, flag, directory, overwrite, keep_files, whole)
    except BaseException:
        if new:
            _release(real)
        raise
    if new:  # the first check is the command's own: later ones (publishing) keep its rule
        _CLAIMS[real].replace = overwrite or not (directory or keep_files)
    return p


def _check_place(
    text: str, flag: str, directory: bool, overwrite: bool, keep_files: bool, whole: bool
) -> Path:
    """What :func:`check_output` checks of what is at ``text`` (and above it)."""
    p = Path(text)
    above = next((a for a in p.absolute().parents if a.exists()), None)
    if above is not None and not above.is_dir():  # a file where a folder must be
        raise OutputError(
            f"{flag} {text!r} cannot be written: {str(above)!r} is a file, not a directory"
        )
    if directory:
        if p.exists() and not p.is_dir():
            raise OutputError(f"{flag} {text!r} exists and is not a directory")
        if p.is_dir() and any(p.iterdir()):
            if not overwrite:
                raise OutputError(
                    f"{flag} {text!r} is a directory that is not empty; pass --overwrite to "
                    "replace it whole, or name a new directory"
                )
            if whole and not (p / OUTPUT_MARKER).is_file():
                raise OutputError(
                    f"{flag} {text!r} holds files ppdm did not write (it has no "
                    f"{OUTPUT_MARKER}); --overwrite replaces only a directory ppdm wrote: "
                    "name a new directory, or empty this one"
                )
    elif p.is_dir():
        raise OutputError(f"{flag} {text!r} is a directory; name a file")
    elif keep_files and not overwrite and (p.exists() or p.is_symlink()):
        raise OutputError(
            f"{flag} {text!r} exists; pass --overwrite to replace it, or name a new file"
        )
    return p


def _mode(base: int) -> int:
    mask = os.umask(0)
    os.umask(mask)
    return base & ~mask


def _alive(pid: int) -> bool:
    if pid == os.getpid() or sys.platform == "win32":  # there, signal 0 is a Ctrl+C
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_leftovers(parent: str | os.PathLike, name: str) -> int:
    """Remove the work files of dead processes beside ``parent/name``; return how many."""
    parent = Path(parent)
    prefix = f".{name}{_MARK}"
    removed = 0
    try:
        entries = list(parent.iterdir())
    except OSError:
        return 0
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        parts = entry.name[len(prefix) :].split("-")
        if len(parts) != 3 or not parts[1].isdigit() or _alive(int(parts[1])):
            continue
        _remove(entry)
        removed += 1
    return removed


def _hidden(target: Path, kind: str) -> Path:
    return target.with_name(f".{target.name}{_MARK}{kind}-{os.getpid()}-{secrets.token_hex(4)}")


_TAIL = rf"{re.escape(_MARK)}[a-z]+-\d+-[0-9a-f]{{8}}(?:\.\w+)?"  # what _hidden appends
_HIDDEN = re.compile(rf"^\.(?P<name>.+){_TAIL}$")
_EDGE = r"/\\\s'\"():,;"  # what may stand around a path in a message
_HIDDEN_IN_TEXT = re.compile(rf"(?<![^{_EDGE}])\.(?P<name>[^{_EDGE}]+?){_TAIL}(?![^{_EDGE}])")


def target_of(path: str | os.PathLike) -> Path | None:
    """The output a hidden work file of this module stands for, or None.

    Examples
    --------
    >>> str(target_of(_hidden(Path("/data/out.csv"), "new")))
    '/data/out.csv'
    >>> target_of("/data/.settings") is None
    True
    """
    p = Path(path)
    m = _HIDDEN.match(p.name)
    return p.parent / m.group("name") if m else None


def unhide(text: str) -> str:
    """``text`` with every hidden work file or directory of this module in it named as the
    output it stands for.

    Examples
    --------
    >>> unhide("part '/data/.rel.ppdm-new-41-0a1b2c3d/data/part-00001.parquet' holds")
    "part '/data/rel/data/part-00001.parquet' holds"
    """
    return _HIDDEN_IN_TEXT.sub(r"\g<name>", text)


@contextmanager
def _named_as_output() -> Iterator[None]:
    """A ppdm error raised while a work file is written names the output instead (as the
    command line's error line does), for library callers too."""
    try:
        yield
    except PpdmError as exc:
        if exc.args and isinstance(exc.args[0], str):
            exc.args = (unhide(exc.args[0]), *exc.args[1:])
        raise


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists() or path.is_symlink():
        path.unlink(missing_ok=True)
    _PENDING.discard(path)


@atexit.register
def _remove_pending() -> None:
    for path in list(_PENDING):
        _remove(path)


def _prepare(target: str | os.PathLike, directory: bool) -> tuple[Path, Path, _Claim]:
    """Check ``target``, make its directory, claim it (if :func:`check_output` has not)."""
    text = os.fspath(target)
    check_output(text, flag="output", directory=directory, overwrite=True)  # claims if new
    real = _real(text)
    target = Path(os.path.abspath(text))
    try:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise type(exc)(f"cannot write {str(target)!r}: {exc.strerror}") from None
        with _CLAIMS_LOCK:
            claim = _CLAIMS[real]
            if claim.fd is None:  # the directory did not exist when it was checked
                _lock(claim)
    except BaseException:
        _release(real)
        raise
    clean_leftovers(target.parent, target.name)
    return target, real, claim


@contextmanager
def publish_file(target: str | os.PathLike, suffix: str = "") -> Iterator[Path]:
    """Yield a hidden path beside ``target``; rename it onto ``target`` on success.

    A failure (an exception, ``SIGTERM``/``SIGHUP``) removes the hidden file and leaves
    ``target`` as it was. The file gets mode ``0o666`` less the umask.
    """
    target, real, claim = _prepare(target, directory=False)
    tmp = _hidden(target, "new")
    tmp = tmp.with_name(tmp.name + suffix)
    _PENDING.add(tmp)
    try:
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except OSError as exc:
            raise type(exc)(f"cannot write {str(target)!r}: {exc.strerror}") from None
        os.close(fd)
        with _named_as_output():
            yield tmp
        if tmp.exists():
            os.chmod(tmp, _mode(0o666))
        _check_place(os.fspath(target), "output", False, True, False, True)
        raise_if_terminated()
        if claim.replace:
            os.replace(tmp, target)
        else:
            _put_new(tmp, target, claim)
    finally:
        _remove(tmp)
        _release(real)


def _put_new(tmp: Path, target: Path, claim: _Claim) -> None:
    """Rename ``tmp`` onto ``target`` unless something is there: never replace it."""
    try:
        os.link(tmp, target, follow_symlinks=False)  # fails if target exists, atomically
    except FileExistsError:
        raise _written_meanwhile(claim) from None
    except OSError:  # no hard links here (or tmp became a directory): the claim guards
        if target.exists() or target.is_symlink():
            raise _written_meanwhile(claim) from None
        os.replace(tmp, target)


@contextmanager
def publish_dir(target: str | os.PathLike) -> Iterator[Path]:
    """Yield a hidden directory beside ``target``; publish it whole on success.

    An existing ``target`` is renamed aside and removed once the new one is in place;
    on failure the hidden directory is removed and ``target`` left as it was.
    """
    target, real, claim = _prepare(target, directory=True)
    tmp = _hidden(target, "new")
    _PENDING.add(tmp)
    try:
        tmp.mkdir(mode=0o777)
    except OSError as exc:
        _release(real)
        raise type(exc)(f"cannot write {str(target)!r}: {exc.strerror}") from None
    old = None
    try:
        with _named_as_output():
            yield tmp
        mark_output(tmp)
        os.chmod(tmp, _mode(0o777))
        _check_place(os.fspath(target), "output", True, True, False, claim.replace)
        raise_if_terminated()
        if not claim.replace:  # replaces an empty directory, fails on anything else
            try:
                os.rename(tmp, target)
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
                    raise _written_meanwhile(claim) from None
                raise
            return
        if target.exists() or target.is_symlink():
            old = _hidden(target, "old")
            _PENDING.add(old)
            os.replace(target, old)
        os.replace(tmp, target)
    finally:
        _remove(tmp)
        if old is not None:
            _remove(old)
        _release(real)


def publish_copy(source: str | os.PathLike, target: str | os.PathLike, *, flag: str) -> None:
    """Copy the directory ``source`` to ``target`` as a new output, whole.

    ``target`` must be new or empty and is claimed (:func:`check_output`) from the check
    to the rename: a copy never merges into another's files, nor replaces them.
    """
    check_output(target, flag=flag, directory=True)
    with publish_dir(target) as tmp:
        shutil.copytree(source, tmp, dirs_exist_ok=True)


class _Terminated(SystemExit):
    pass


#: The signal that asked this process to end, once one has: remembered, because the
#: exception its handler raises can be swallowed by the code it interrupts (a C
#: extension's attribute test discards any exception, ``SystemExit`` included).
_terminated_by: list[int] = []
#: Above 0 while a claim is taken or given up (:func:`_signals_wait`).
_waiting: list[int] = [0]
#: The signals that end a run cleanly (SIGHUP is not on every platform).
_ENDING = [getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]


def _raise_exit(signum, frame) -> None:
    # a second signal must not interrupt the clean-up the first one starts
    for sig in _ENDING:
        signal.signal(sig, signal.SIG_IGN)
    _terminated_by.append(signum)
    if _waiting[0]:  # raised when the claim is whole (or at the process's end)
        return
    raise _Terminated(128 + signum)


def raise_if_terminated() -> None:
    """Raise ``SystemExit(128 + signal)`` again if ``SIGTERM`` or ``SIGHUP`` has arrived.

    Called just before every rename, so nothing is published after the process was asked to
    end, even where the handler's exception was lost in the code it interrupted.
    """
    status = termination_status()
    if status is not None:
        raise _Terminated(status)


def termination_status() -> int | None:
    """``128 + signal`` once ``SIGTERM`` or ``SIGHUP`` has arrived, else None."""
    return 128 + _terminated_by[0] if _terminated_by else None


def install_signal_handlers() -> None:
    """Turn ``SIGTERM`` and ``SIGHUP`` into ``SystemExit(128 + signal)``, once, from a
    program's entry point: the publishers then remove their hidden work.
    """
    for sig in _ENDING:
        signal.signal(sig, _raise_exit)


def release_member(directory: str | os.PathLike, name: object, *, spec_name: str) -> Path:
    """The path of a file a release names inside itself, after checking it is safe to read.

    Only the bare name of a regular file (or a directory of regular files) inside the
    release's own directory is taken, so a tampered spec cannot make ppdm read a file
    outside the release, a device or a FIFO (docs/security.md).

    Parameters
    ----------
    directory : path-like
        The release directory.
    name : str
        The name from the release's own description (e.g. ``data_file``).
    spec_name : str
        The description file, for messages.

    Returns
    -------
    Path

    Raises
    ------
    SpecError
        The name is not a bare name of a regular file inside the directory.
    FileNotFoundError
        The file does not exist.
    """
    directory = Path(directory)
    where = str(directory / spec_name)
    if name is None or name == "":
        raise SpecError(f"{where!r} names no data_file")
    bare = (
        isinstance(name, str)
        and "/" not in name
        and "\\" not in name
        and "\x00" not in name
        and not name.startswith(".")
        and os.path.basename(name) == name
    )
    if not bare:
        raise SpecError(
            f"{where!r}: data_file must be the bare name of a file inside the release "
            f"directory (got {str(name)[:80]!r})"
        )
    path = directory / name
    if path.is_symlink():
        raise SpecError(f"{where!r}: data_file {name!r} is a symbolic link; ppdm reads no links")
    if not path.exists():
        raise FileNotFoundError(f"release data file {str(path)!r} does not exist")
    mode = path.lstat().st_mode
    if stat.S_ISDIR(mode):
        for part in path.iterdir():
            if part.name.startswith((".", "_")):
                continue
            if part.is_symlink() or not part.is_file():
                raise SpecError(
                    f"release data directory {str(path)!r} holds {part.name!r}, which is not a "
                    "regular file"
                )
    elif not stat.S_ISREG(mode):
        raise SpecError(f"release data file {str(path)!r} is not a regular file")
    return path
