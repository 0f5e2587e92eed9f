"""Name -> runner table for ``ppdm reproduce NAME``.

Every experiment family registers its runners here by name, so ``ppdm reproduce`` can
list and run them without knowing the families. A runner takes a
:class:`RunContext` and returns the paths it wrote. Registration is lazy: a family's
module is imported only when one of its runners is looked up.

Examples
--------
>>> sorted(n for n in names() if n.startswith("fig"))[:2]
['fig2', 'fig3']
"""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ppdm.exceptions import ParameterError

if TYPE_CHECKING:
    from ppdm.cells import Checkpoint

    from .cellrun import CellRun

__all__ = ["RunContext", "Runner", "register", "register_lazy", "get", "names", "describe"]


@dataclass
class RunContext:
    """What every runner receives.

    Attributes
    ----------
    out : Path
        Output directory (tidy CSVs, PNGs, checkpoints, timings).
    quick : bool
        Reduced grid for a run in seconds (CI).
    jobs : int
        Worker processes of the default local mapper.
    seed : int
        Master seed; every cell's stream is derived from (seed, cell key).
    mapper : callable, optional
        ``mapper(fn, cells) -> iterable of results`` (any order); ``None`` is the local
        multiprocessing mapper with ``jobs`` workers.
    progress : bool
        Show a progress bar with ETA.
    options : dict
        Family-specific options (for example ``learner``).
    """

    out: Path
    quick: bool = False
    jobs: int = 1
    seed: int = 0
    mapper: Callable | None = None
    progress: bool = True
    options: dict = field(default_factory=dict)

    def deadline(self) -> float | None:
        """The ``time.monotonic()`` instant ``options["max_minutes"]`` from now, if set."""
        budget = self.options.get("max_minutes")
        return time.monotonic() + 60.0 * budget if budget else None

    def cell_run(
        self, checkpoint: Checkpoint | None = None, deadline: float | None = None
    ) -> CellRun:
        """The run's mapper, jobs and progress, with a grid's checkpoint and deadline."""
        from .cellrun import CellRun

        return CellRun(
            jobs=self.jobs,
            mapper=self.mapper,
            progress=self.progress,
            checkpoint=checkpoint,
            deadline=deadline,
        )


Runner = Callable[[RunContext], list[Path]]


@dataclass(frozen=True)
class _Entry:
    runner: Runner | None
    target: str | None
    help: str


_REGISTRY: dict[str, _Entry] = {}


def register(name: str, runner: Runner, help: str = "") -> None:
    """Register ``runner`` under ``name`` (replacing an earlier registration)."""
    _REGISTRY[name] = _Entry(runner, None, help)


def register_lazy(name: str, target: str, help: str = "") -> None:
    """Register ``"package.module:function"`` under ``name``, imported on first use."""
    if ":" not in target:
        raise ParameterError(f"target must look like 'package.module:function' (got {target!r})")
    _REGISTRY[name] = _Entry(None, target, help)


def get(name: str) -> Runner:
    """The runner registered as ``name``; a clear error lists the known names."""
    if name not in _REGISTRY:
        raise KeyError(f"unknown experiment {name!r}; choose one of {', '.join(names())}")
    entry = _REGISTRY[name]
    if entry.runner is not None:
        return entry.runner
    module, func = entry.target.split(":")  # type: ignore[union-attr]
    return getattr(importlib.import_module(module), func)


def names() -> list[str]:
    """Registered experiment names, in registration order."""
    return list(_REGISTRY)


def describe() -> Iterable[tuple[str, str]]:
    """(name, help) pairs, in registration order."""
    return [(n, e.help) for n, e in _REGISTRY.items()]


# The Dowd, Xu & Zhang reproduction and Kang's multiple substitutions. Other families
# (attacks, islam-brankovic, bn-*, beyond) add their own lines with register_lazy.
register_lazy("fig2", "ppdm_papers.fig2:run", "estimation error surfaces (Sec. 6.1, Fig. 2)")
register_lazy("fig3", "ppdm_papers.fig3:run", "entropy of the gamma-diagonal matrix (Fig. 3)")
register_lazy("table1", "ppdm_papers.table1:run", "C4.5 accuracy on the original data (Table 1)")
register_lazy(
    "fig4", "ppdm_papers.accuracy:run", "C4.5 accuracy from reconstructed data (Figs. 4-6)"
)
register_lazy("kang", "ppdm_papers.kang:run", "Kang's multiple random substitutions")
register_lazy(
    "beyond",
    "ppdm_papers.beyond:run",
    "release tree vs Algorithm 2, ByClass and Local over gamma 5..12 (beyond the papers)",
)
register_lazy(
    "beyond-summary",
    "ppdm_papers.beyond_summary:run",
    "release tree vs the original on the recommended cells, from beyond*.csv in --out",
)
register_lazy(
    "attacks", "ppdm_papers.families:attacks", "attacks on additive noise vs substitution"
)
register_lazy(
    "bn-table2", "ppdm_papers.families:bn_table2", "Ma & Sivakumar Table 2 (Fig. 2 network)"
)
register_lazy(
    "bn-privacy-accuracy", "ppdm_papers.families:bn_privacy_accuracy", "Ma & Sivakumar Fig. 4"
)
register_lazy("bn-sample-size", "ppdm_papers.families:bn_sample_size", "Ma & Sivakumar Fig. 5")
register_lazy(
    "islam-brankovic",
    "ppdm_papers.families:islam_brankovic",
    "Islam & Brankovic: class and attribute noise, tree similarity (Boston, WBC)",
)
register_lazy(
    "fig4-readings",
    "ppdm_papers.readings:run",
    "Figs. 4-6 accuracy under each reading of the paper's setup, one change at a time",
)
register_lazy(
    "table1-mdl",
    "ppdm_papers.readings:run_mdl",
    "Synth2 on the original data with and without C4.5's MDL correction (Table 1)",
)
register_lazy(
    "claims",
    "ppdm_papers.claims:run",
    "numbers quoted in REPRODUCTION.md, from the result CSVs already in --out (nothing rerun)",
)
register_lazy(
    "ordinal",
    "ppdm_papers.ordinal:run",
    "ordinal matrix vs gamma-diagonal at equal gamma; unequal vs equal budget splits",
)
