"""Options and arguments several commands share, and the choices they take: declared once,
so the help pages say a flag the same way; a command's own flags use the same factories.
"""

from __future__ import annotations

import enum
import importlib
from pathlib import Path

import typer

from ..estimate import ESTIMATORS, METHODS
from ..mechanism import MECHANISMS
from ..validation import check_at_least
from ._common import check_flag, output_path

#: the parameter types of the click that typer parses with (recent typers ship their own)
_click_types = importlib.import_module(typer.BadParameter.__module__.rsplit(".", 1)[0] + ".types")


class _Choice(enum.StrEnum):
    """A choice of the command line: its value is what the user types; its docstring is the
    help of the flag that takes it (unless the flag says more)."""


def _choice(name: str, values, doc: str) -> type[_Choice]:
    """A choice whose members are ``values`` in order (``"by-class"`` is ``BY_CLASS``)."""
    choice = _Choice(name, {v.upper().replace("-", "_"): v for v in values}, module=__name__)
    choice.__doc__ = doc
    return choice


Missing = _choice(
    "Missing", ("error", "category"), "A missing value is an error, or one more category."
)
OutOfBounds = _choice(
    "OutOfBounds", ("error", "clip"), "A value outside the bounds is an error, or clipped to them."
)
Representative = _choice(
    "Representative", ("center", "left", "right", "random"), "The value a bin decodes to."
)
TableFormat = _choice("TableFormat", ("csv", "parquet"), "Format of the released data file.")
Engine = _choice(
    "Engine",
    ("local", "dask"),
    "``--engine``: in this process, or partitioned on dask (bit-identical).",
)
EstimationMethod = _choice(
    "EstimationMethod", METHODS, "``--method`` of the distribution estimate (Sec. 4)."
)
ReleaseMethod = _choice(
    "ReleaseMethod",
    tuple(MECHANISMS),
    "Random substitution, or additive noise (the Agrawal & Srikant baseline).",
)
NoiseKind = _choice("NoiseKind", ("uniform", "gaussian"), "Additive noise.")
AdviseLearner = _choice("AdviseLearner", ("c45", "cart-entropy"), "``advise --learner``.")
NoiseTechnique = _choice(
    "NoiseTechnique",
    ("random", "probabilistic", "all-leaves"),
    "Which leaves' classes change, and how.",
)
InnocentTarget = _choice(
    "InnocentTarget", ("lia", "tia", "both"), "Leaf or Total Innocent Attributes, or both."
)
NoiseScope = _choice(
    "NoiseScope", ("all", "heterogeneous"), "The records of which leaves get noise."
)
NoiseBoundary = _choice(
    "NoiseBoundary",
    ("reflect", "resample"),
    "How noisy values stay within each attribute's min and max.",
)
#: ``bn learn --fix``: the estimators that fix a raw estimate and leave no negative count,
#: :data:`ppdm.bayesnet.estimation.LEARNING_FIXES` (read from the estimator table here:
#: importing the Bayesian-network package would double the command line's start-up).
NegativeFix = _choice(
    "NegativeFix",
    [e.name for e in ESTIMATORS.values() if e.from_raw and e.nonnegative],
    "What to do with negative estimated counts.",
)


class _TextArgument(_click_types.ParamType):
    """A text argument whose help shows its metavar only (no ``<str>`` type column)."""

    name = "text"

    def convert(self, value, param, ctx):
        return value if isinstance(value, str) else str(value)

    def get_metavar(self, param, ctx=None) -> str:  # noqa: ARG002 - click's signature
        return ""


class _PathArgument(_TextArgument):
    """A path argument whose help shows its metavar only; an empty text (an unset shell
    variable) is refused, as ``Path("")`` would be the current directory."""

    name = "path"

    def convert(self, value, param, ctx):
        if isinstance(value, Path):
            return value
        if not str(value).strip():
            self.fail("is empty (an unset shell variable?)", param, ctx)
        return Path(value)


PATH_ARGUMENT = _PathArgument()
TEXT_ARGUMENT = _TextArgument()


def path_argument(metavar: str, help: str):  # noqa: A002 - typer's keyword
    """A required positional file or directory, shown by its metavar (``FILE``, ``DIR``)."""
    return typer.Argument(..., click_type=PATH_ARGUMENT, metavar=metavar, help=help)


def out_option(
    metavar: str | None,
    help: str,  # noqa: A002 - typer's keyword
    *,
    default=...,
    short: bool = False,
    flag: str = "--out",
):
    """``--out`` (``-o`` too with ``short``), or another ``flag``: a path to write, never empty;
    required unless a ``default`` (a path, or ``None``) is given."""
    names = (flag, "-o") if short else (flag,)
    return typer.Option(default, *names, parser=output_path, metavar=metavar, help=help)


def choice_option(
    default: _Choice,
    flag: str,
    help: str | None = None,  # noqa: A002 - typer's keyword
    short: str | None = None,
):
    """``flag`` taking one of the values of ``default``'s choice (help: its docstring)."""
    names = (flag,) if short is None else (flag, short)
    return typer.Option(default, *names, help=type(default).__doc__ if help is None else help)


def value_option(
    default,
    flag: str,
    metavar: str,
    help: str,  # noqa: A002 - typer's keyword
    *,
    short: str | None = None,
    **extra,
):
    """``flag METAVAR`` (or ``short``): an option taking a value; ``extra`` goes to
    :func:`typer.Option`."""
    names = (flag,) if short is None else (flag, short)
    return typer.Option(default, *names, metavar=metavar, help=help, **extra)


def file_option(flag: str, help: str, default=...):  # noqa: A002 - typer's keyword
    """``flag FILE``: a file the command reads (required unless a ``default`` is given)."""
    return typer.Option(default, flag, metavar="FILE", help=help, click_type=PATH_ARGUMENT)


def seed_option(help: str, default: int | None = None):  # noqa: A002 - typer's keyword
    """``--seed SEED``; ``help`` says what it seeds. Checked before any work is done."""
    return typer.Option(default, "--seed", metavar="SEED", callback=_check_seed, help=help)


def _check_seed(value: int | None) -> int | None:
    return value if value is None else check_flag(check_at_least, value, "--seed", 0)


def method_option(help: str = "Estimation method of Dist."):  # noqa: A002 - typer's keyword
    """``--method`` of the distribution estimate, set-scale unless told."""
    return choice_option(EstimationMethod.SET_SCALE, "--method", help)


def flag_option(flag: str, help: str, short: str | None = None):  # noqa: A002
    """A switch, off unless given."""
    names = (flag,) if short is None else (flag, short)
    return typer.Option(False, *names, help=help)


OVERWRITE_FILE_OPTION = flag_option("--overwrite", "Replace an existing output file.")
OVERWRITE_DIR_OPTION = flag_option(
    "--overwrite", "Replace an existing non-empty release directory (whole)."
)
RELEASE_ARGUMENT = path_argument("DIR", "Release directory.")
CLASS_OPTION = value_option(..., "--class", "COL", "Name of the class column.", short="-c")
ReleaseEngine = _choice(
    "ReleaseEngine",
    ("local", "partitioned", "dask"),
    "Streamed in this process, partition by partition here, or on dask (the same bytes).",
)
ENGINE_OPTION = typer.Option(
    None,
    "--engine",
    help="local: in this process (a directory or glob of parts partition by partition); "
    "partitioned: partition by partition here, also one file; dask: one task per "
    "partition on a cluster. The same bytes whichever.",
    show_default="local",
)
SCHEDULER_OPTION = value_option(
    None, "--scheduler", "ADDRESS", "Dask scheduler address; none starts a LocalCluster."
)
RELEASE_SEED_OPTION = seed_option("Seed for experiments only (never for a real release).")
JSON_OPTION = flag_option("--json", "Machine-readable output.")
PROGRESS_OPTION = typer.Option(True, "--progress/--no-progress", help="Show a progress bar.")
CONFIDENCE_OPTION = value_option(
    0.25, "--confidence", "CF", "C4.5 pruning confidence factor (J48 -C).", short="-C"
)
MIN_LEAF_OPTION = value_option(
    2, "--min-leaf", "N", "C4.5 minimum instances per leaf (J48 -M).", short="-M"
)
BATCH_SIZE_OPTION = value_option(
    None,
    "--batch-size",
    "ROWS",
    "Rows per batch (bounds memory); default about 1.5 M values: 250,000 rows of six "
    "columns, fewer of more.",
)
