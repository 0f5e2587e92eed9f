"""Progress over a command's passes through a release, and the checks the release commands share."""

from __future__ import annotations

from pathlib import Path

from ._common import fail


class _Passes:
    """Progress over several passes of the rows: one bar, re-labelled at every pass;
    ``total`` rows when known, else the first pass counts them for the later ones."""

    def __init__(self, advance, total: int | None, factors: dict[str, int] | None = None):
        self._advance, self._base, self._factors = advance, total, factors or {}
        self._rows, self._started = 0, False

    def start(self, label: str) -> None:
        if self._started and self._base is None:
            self._base = self._rows
        self._started, self._rows = True, 0
        total = None if self._base is None else self._base * self._factors.get(label, 1)
        self._advance.reset(label, total)

    def advance(self, rows: int) -> None:
        self._rows += rows
        self._advance(rows)


def _counted(rel, passes: _Passes, labels: tuple[str, ...]):
    """``rel`` whose every read of the rows (one per pass) moves the bar of ``passes``."""
    from ..pipeline import DEFAULT_BATCH

    calls = iter(labels)

    class Counted(type(rel)):
        def batches(self, batch_size: int = DEFAULT_BATCH):
            passes.start(next(calls, labels[-1]))
            for batch in super().batches(batch_size):
                yield batch
                passes.advance(len(batch))

    return Counted(rel.spec, rel.data_path)


def _check_by_class(spec, by_class: bool, release: Path) -> None:
    """``--by-class`` on a release without a class names the release and the flag."""
    if by_class and spec.class_attribute is None:
        fail(
            f"--by-class: release {str(release)!r} has no class attribute (it was made "
            "without --class); leave --by-class out",
            usage=True,
        )
