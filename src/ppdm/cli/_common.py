"""Shared helpers of the command line: the error boundary (whatever goes wrong is one
``error:`` line and an exit code, docs/cli.md "Errors"), exit codes and output checks.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import NoReturn, TypeVar

import typer
from typer.core import TyperGroup
from typer.exceptions import TyperException

from ..exceptions import OptionError, OutputError, OutputTakenError, PpdmError, PrivacyWarning
from ..publish import (
    check_output,
    install_signal_handlers,
    operation,
    publish_file,
    release_claims,
    target_of,
    unhide,
)

T = TypeVar("T")

#: A command could not do its work: bad input file, bad spec, I/O error, ...
EXIT_FAILURE = 1
#: The command line itself is wrong: unknown flag, bad option value (as click does).
EXIT_USAGE = 2
#: ``ppdm audit`` ran fine but a figure exceeds the policy's bound.
EXIT_BOUND_VIOLATED = 3
#: Interrupted (Ctrl-C): 128 + SIGINT, as shells do.
EXIT_INTERRUPTED = 130

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 failure (bad input file or spec, I/O error); "
    "2 usage error (unknown flag, bad option value, an output that would lose or leak data); "
    "3 ppdm audit: a privacy bound is violated; 130 interrupted. "
    "Set PPDM_DEBUG=1 to see the traceback behind an error."
)

#: Longest message printed; longer ones are cut (a 2 MB value must not flood the terminal).
MAX_MESSAGE = 300
#: Longest value quoted by :func:`short`.
MAX_VALUE = 200

_DEBUG_ENV = "PPDM_DEBUG"


def fail(message: str, *, usage: bool = False) -> NoReturn:
    """Print ``error: message`` on stderr and exit 1, or 2 for a bad flag value (``usage``)."""
    typer.echo(f"error: {_one_line(message)}", err=True)
    raise typer.Exit(EXIT_USAGE if usage else EXIT_FAILURE)


#: The library's parameters and the flag that gives each on the command line.
_PARAMETERS = {
    "out_dir": "--out",
    "out": "--out",
    "directory": "--out",
    "engine": "--engine",
    "scheduler": "--scheduler",
    "fmt": "--format",
    "batch_size": "--batch-size",
    "owner_report": "--owner-report",
}


@contextmanager
def flag_errors(flags: Mapping[str, str]) -> Iterator[None]:
    """Report a library option's error raised inside as a usage error naming its flag
    (``flags`` maps option names to flags: ``n_bins`` -> ``--bins``)."""
    try:
        yield
    except OutputError as exc:  # the library names its parameter (``out_dir``)
        text = str(exc)
        for name, flag in {**_PARAMETERS, **flags}.items():
            if text.startswith(f"{name} "):
                raise type(exc)(flag + text[len(name) :]) from None
        raise
    except OptionError as exc:
        text, flag = str(exc), flags.get(exc.field, _PARAMETERS.get(exc.field, exc.field))
        named = text.startswith(exc.field)  # the message starts with the option's name
        fail(flag + text[len(exc.field) :] if named else f"{flag}: {text}", usage=True)


def check_flag(check: Callable[..., T], *args, **kwargs) -> T:
    """``check(*args, **kwargs)`` (a :mod:`ppdm.validation` check); its error exits 2."""
    try:
        return check(*args, **kwargs)
    except ValueError as exc:
        fail(str(exc), usage=True)


def column_names(text: str, flag: str) -> list[str]:
    """The column names of a comma-separated flag value, quoted as in CSV: ``'"a,b", c'``
    names ``a,b`` and ``c``; unquoted names lose the spaces around them."""
    names: list[str] = []
    i = 0
    while True:
        quoted, closed, plain = (m := _NAME.match(text, i)).groups()
        i = m.end()
        if quoted is None:
            name = plain.strip()
        elif not closed:
            fail(f"{flag}: a quote in {text!r} is never closed", usage=True)
        else:
            name = quoted.replace('""', '"')  # a doubled quote stands for one
            if text[i : i + 1] not in ("", ","):
                fail(f"{flag}: {text!r} has text after the quoted name {name!r}", usage=True)
        if name == "":
            fail(f"{flag}: name {len(names) + 1} of {text!r} is empty", usage=True)
        names.append(name)
        if i >= len(text):
            return names
        i += 1  # past the comma


#: One name of :func:`column_names`: quoted (its text, and the closing quote if any) or plain.
_NAME = re.compile(r' *(?:"((?:[^"]|"")*)("?) *|([^,]*))')


def short(value, limit: int = MAX_VALUE) -> str:
    """``repr`` of ``value`` as plain Python (no ``np.int64(3)``), cut at ``limit`` characters."""
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "shape", None) == ():
        value = item()
    text = _NUMPY_SCALAR.sub(r"\1", repr(value))
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text)} characters)"
    return text


#: A numpy scalar's repr (``np.int64(67)``), its value the group (``67``).
_NUMPY_SCALAR = re.compile(
    r"\bnp\.(?:u?int\d*|float\d*|complex\d*|bool_?|str_|bytes_|longdouble|clongdouble)"
    r"\(((?:[^()]|\([^()]*\))*)\)"
)


def _one_line(message: str, limit: int = MAX_MESSAGE) -> str:
    """One line, numpy scalars as plain numbers, at most ``limit`` characters (plus a note)."""
    total = len(message)
    if total > 4 * limit:  # never run regular expressions over megabytes
        message = message[: 4 * limit]
    text = " ".join(_NUMPY_SCALAR.sub(r"\1", message).split())
    text = text.replace("Value error, ", "")
    if len(text) > limit or total > 4 * limit:
        text = f"{text[:limit]}... (message cut; {total} characters in all)"
    return text


_PATH_LOCALS = ("filepath_or_buffer", "path", "source", "filename", "fname")


def _file_from_traceback(exc: BaseException) -> str | None:
    """The file being read when ``exc`` was raised (innermost ppdm or pandas reader frame)."""
    found = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        module = frame.f_globals.get("__name__", "")
        if module.startswith(("ppdm.", "pandas.", "json", "yaml")):
            for name in _PATH_LOCALS:
                value = frame.f_locals.get(name)
                if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes):
                    text = os.fspath(value)
                    if 0 < len(text) < 4096 and "\n" not in text and os.path.exists(text):
                        found = text
                    break
        tb = tb.tb_next
    return found


def _with_file(exc: BaseException, reason: str) -> str:
    path = _file_from_traceback(exc)
    if path is not None and repr(path) not in reason and path not in reason:
        return f"{path!r}: {reason}"
    return reason


def _file_in_the_way(name: str) -> str | None:
    """The existing non-directory on the way to ``name`` (``name`` itself included), if any."""
    p = Path(name)
    for part in [*reversed(p.parents), p]:
        if str(part) not in ("", ".") and part.exists() and not part.is_dir():
            return str(part)
    return None


def _os_error(exc: OSError) -> str:
    reason = exc.strerror or (str(exc.args[0]) if exc.args else type(exc).__name__)
    if exc.filename is None:
        if len(exc.args) == 1 and exc.strerror is None:
            return str(exc.args[0])  # ppdm's own "file ... does not exist" messages
        return f"I/O error: {reason}"
    name = os.fsdecode(exc.filename)
    temporary = target_of(name) is not None  # a hidden work file: the user's path is named
    name = str(target_of(name) or name)
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        blocker = _file_in_the_way(name)
        if blocker == name:
            return f"cannot write into {name!r}: it is a file, not a directory"
        if blocker is not None:
            return f"cannot write {name!r}: {blocker!r} is a file, not a directory"
    verb = "cannot write " if temporary else ""
    text = f"{verb}{name!r}: {reason}"
    if exc.filename2 is not None:
        name2 = os.fsdecode(exc.filename2)
        name2 = str(target_of(name2) or name2)
        text = f"cannot write {name2!r}: {reason}" if temporary else f"{text} ({name2!r})"
    return text


#: What a command may raise on bad input; anything else is an internal error.
_EXPECTED = (
    PpdmError,
    OSError,
    ValueError,
    TypeError,
    KeyError,
    MemoryError,
    RecursionError,
    OverflowError,
)


def error_line(exc: BaseException) -> tuple[str, int]:
    """The one line printed after ``error:`` for ``exc``, and the exit code."""
    from pydantic import ValidationError

    if isinstance(exc, KeyboardInterrupt):
        return "interrupted", EXIT_INTERRUPTED
    code = EXIT_FAILURE
    kind = type(exc)
    if isinstance(exc, OSError):
        text = _os_error(exc)
    elif isinstance(exc, MemoryError) or (
        isinstance(exc, ValueError) and "array is too big" in str(exc)[:200]
    ):
        text = (
            "not enough memory for this input and these options (lower --bins, --batch-size, "
            f"--copies or the input's size): {str(exc)[:MAX_MESSAGE] or 'out of memory'}"
        )
    elif isinstance(exc, RecursionError):
        text = _with_file(exc, f"nested too deeply to read ({exc})")
    elif isinstance(exc, OverflowError):
        text = f"number too large: {exc}"
    elif isinstance(exc, ValidationError):
        from ..release import validation_message

        text = validation_message(exc)
    elif isinstance(exc, UnicodeDecodeError):
        text = _with_file(
            exc,
            f"not UTF-8 text ({exc.encoding} cannot decode byte(s) "
            f"{exc.object[exc.start : exc.end][:8]!r} at byte {exc.start}); save the file as UTF-8",
        )
    elif isinstance(exc, json.JSONDecodeError):
        text = _with_file(exc, f"not valid JSON: {exc}")
    elif isinstance(exc, OutputError):
        # an output path that would lose or leak data is a bad flag value; one another
        # run took meanwhile is a failure of this run
        text, code = str(exc), EXIT_FAILURE if isinstance(exc, OutputTakenError) else EXIT_USAGE
    elif isinstance(exc, KeyError):
        msg = exc.args[0] if exc.args else "missing key"
        text = msg if isinstance(msg, str) and " " in msg else f"unknown name {short(msg)}"
    elif isinstance(exc, _EXPECTED) or kind.__module__.startswith("yaml"):
        text = str(exc) or kind.__name__
        if kind.__module__.startswith(("pandas.", "pyarrow")) or kind.__name__ in (
            "ParserError",
            "EmptyDataError",
            "ArrowInvalid",
        ):
            text = _with_file(exc, f"cannot read the table: {text}")
    else:
        text = (
            f"internal error ({kind.__name__}: {exc}); please report it with the command line "
            f"that caused it (set {_DEBUG_ENV}=1 to see the traceback)"
        )
    return _one_line(unhide(text)), code  # a work file is named as the output it makes


def _report(exc: BaseException) -> NoReturn:
    """Print ``exc`` as one ``error:`` line (after its traceback under PPDM_DEBUG) and exit."""
    message, code = error_line(exc)
    if os.environ.get(_DEBUG_ENV, "").strip() not in ("", "0", "false", "no"):
        traceback.print_exception(exc, file=sys.stderr)
    try:
        print(f"error: {message}", file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError):  # stderr closed: nothing more can be said
        pass
    raise typer.Exit(code) from None


# the command-line parser's own exception classes (typer ships its own copy of click)
_USAGE_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
_CLICK_EXCEPTION = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class BoundaryGroup(TyperGroup):
    """The top-level ``ppdm`` group: every command runs inside one error boundary."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        """Run the command as one :func:`ppdm.publish.operation`; a usage error is one
        ``error:`` line and exit 2, no usage panel."""
        with operation():
            if not standalone_mode:
                return super().main(args, prog_name, complete_var, standalone_mode, **extra)
            try:
                rv = super().main(args, prog_name, complete_var, False, **extra)
            except _USAGE_ERROR as exc:
                message = _one_line(exc.format_message())
                if message:  # none: a group named without a command, its help the answer
                    where = f" (see: {exc.ctx.command_path} -h)" if exc.ctx is not None else ""
                    print(f"error: {message}{where}", file=sys.stderr)
                sys.exit(EXIT_USAGE)
            except _CLICK_EXCEPTION as exc:
                print(f"error: {_one_line(exc.format_message())}", file=sys.stderr)
                sys.exit(exc.exit_code or EXIT_FAILURE)
            except typer.Abort:
                print("error: interrupted", file=sys.stderr)
                sys.exit(EXIT_INTERRUPTED)
            sys.exit(rv if isinstance(rv, int) else 0)

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except (TyperException, typer.Exit, typer.Abort):
            raise  # usage errors and deliberate exits: click prints and exits as usual
        except BrokenPipeError:
            raise  # the reader went away (``ppdm ... | head``): click exits quietly
        except (Exception, KeyboardInterrupt) as exc:
            _report(exc)
        finally:
            release_claims()  # the outputs it checked but did not publish


def _show_warning(message, category, filename, lineno, file=None, line=None):
    label = "privacy warning" if issubclass(category, PrivacyWarning) else "warning"
    print(f"{label}: {_one_line(str(message), limit=4 * MAX_MESSAGE)}", file=sys.stderr)


def run_app(app: typer.Typer) -> None:
    """Run ``app`` with ppdm's warnings format; what escapes :class:`BoundaryGroup` (an
    interrupt while starting, an error in a parameter callback) is reported the same way."""
    warnings.showwarning = _show_warning
    install_signal_handlers()
    try:
        app(standalone_mode=True)
    except (Exception, KeyboardInterrupt) as exc:
        try:
            _report(exc)
        except typer.Exit as done:
            sys.exit(done.exit_code)


def reflow_help(text: str) -> str:
    """``text`` (a docstring) with the lines of each paragraph joined, but for lists and
    indented paragraphs: typer keeps line breaks, which break again on a narrow terminal."""
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(
        para
        if any(line.startswith((" ", "- ", "* ", "|", "\b")) for line in para.splitlines())
        else " ".join(para.split("\n"))
        for para in paragraphs
    )


def reflow_commands(app: typer.Typer) -> None:
    """Reflow (:func:`reflow_help`) each command's help or docstring in ``app`` and sub-apps."""
    for info in app.registered_commands:
        text = info.help if info.help is not None else inspect.getdoc(info.callback)
        if text:
            info.help = reflow_help(text)
    for group in app.registered_groups:
        reflow_commands(group.typer_instance)


def output_path(value: str | os.PathLike) -> Path:
    """Parser of output flags: an empty path is refused before it can mean ``.``."""
    value = os.fspath(value)
    if value.strip() == "":
        raise typer.BadParameter("is empty; name a file or directory to write")
    return Path(value)


@contextmanager
def progress_bar(label: str, total: int | None = None):
    """A transient progress bar on stderr (on a terminal only), yielding ``advance(k)``;
    ``advance.reset(label, total)`` starts a new pass (``total=None``: the bar pulses)."""
    if not _stderr_is_terminal():  # rich would draw nothing: do not load it

        def skip(k: int = 1) -> None:
            pass

        skip.reset = lambda new_label, new_total: None  # type: ignore[attr-defined]
        yield skip
        return
    from rich.console import Console

    from ..cells import stderr_progress

    console = Console(stderr=True)
    bar = stderr_progress(console=console, transient=True, disable=not console.is_terminal)
    with bar:
        task = bar.add_task(label, total=total)

        def advance(k: int = 1) -> None:
            bar.advance(task, k)

        def reset(new_label: str, new_total: int | None) -> None:
            bar.reset(task, total=new_total, description=new_label)

        advance.reset = reset  # type: ignore[attr-defined]
        yield advance


def _stderr_is_terminal() -> bool:
    """Whether rich may draw on stderr: a terminal, or told so by ``TTY_COMPATIBLE`` or
    ``FORCE_COLOR`` (rich's own rules; unknown cases count as a terminal)."""
    if "TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ:
        return True
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):
        return True


def out_format(out: Path, flag: str = "--out") -> str:
    """The table format (csv, parquet, arff) ``out`` names by its suffix, or a usage error."""
    from ..io import table_format

    try:
        return table_format(out, writing=True)
    except ValueError as exc:
        fail(f"{flag}: {exc}", usage=True)


def file_out(out: Path, overwrite: bool, inputs: tuple = (), flag: str = "--out") -> Path:
    """Refuse ``out`` before any work if it is an input, or exists and ``overwrite`` is off."""
    return check_output(out, inputs=inputs, flag=flag, overwrite=overwrite, keep_files=True)


def check_tree_flags(clf: T) -> T:
    """``clf``, a C4.5 tree whose hyper-parameters are checked before reading data: a bad
    value is a usage error naming its flag (--confidence, --min-leaf)."""
    flags = {"confidence": "--confidence", "min_leaf": "--min-leaf"}
    for name, flag in flags.items():
        try:
            type(clf)(**{name: getattr(clf, name)})._validate_params()
        except ValueError as exc:
            fail(f"{flag}: {exc}", usage=True)
    return clf


def distinct_outputs(*outputs: tuple[str, Path | None]) -> None:
    """Refuse two output flags (``(flag, path)`` pairs; ``None`` paths skipped) that name
    the same file: the second write would replace the first."""
    seen: dict[str, str] = {}
    for flag, path in outputs:
        if path is None:
            continue
        key = os.path.normcase(os.path.realpath(path))
        if key in seen:
            fail(f"{flag} {str(path)!r} names the same file as {seen[key]}; name another file",
                 usage=True)  # fmt: skip
        seen[key] = flag


def table_out(out: Path, overwrite: bool, inputs: tuple = (), flag: str = "--out") -> str:
    """:func:`out_format` of ``out``, the file refused before any work as :func:`file_out` does."""
    fmt = out_format(out, flag)
    file_out(out, overwrite, inputs=inputs, flag=flag)
    return fmt


def read_labelled(path: Path, class_column: str):
    """Read a table that must hold ``class_column``; an error names the file and its columns."""
    from ..io import read_table

    frame = read_table(path)
    if class_column not in frame.columns:
        fail(
            f"class column {class_column!r} is not in {str(path)!r}; "
            f"columns: {short(list(frame.columns))}"
        )
    return frame


def write_out_table(frame, out: Path, **options) -> None:
    """Write ``frame`` to ``out`` whole or not at all, in the format its suffix names."""
    from ..io import write_table

    fmt = out_format(out)
    with publish_file(out) as tmp:
        write_table(frame, tmp, fmt=fmt, **options)
