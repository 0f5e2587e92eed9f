"""Wall-clock timing shared by the benchmark scripts (best of several runs)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Least wall time of ``repeat`` calls of ``fn``, and the last call's result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def best_seconds(fn: Callable[[], Any], repeat: int = 3) -> float:
    """Least wall time of ``repeat`` calls of ``fn``."""
    return best_time(fn, repeat)[0]
