"""Keep large temporary arrays in the C heap between batches (glibc only).

By default glibc serves the few-megabyte arrays of batch work with fresh ``mmap`` calls,
so every batch faults in and zero-fills new pages: on the release commands as costly as
the arithmetic (``np.floor`` of a 2 MB column took 1.5 ms instead of 0.15 ms). The
thresholds below let freed blocks be reused, keeping up to 256 MiB of freed heap
mapped; results are unchanged.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20
TRIM_THRESHOLD = 256 << 20


def keep_freed_memory() -> bool:
    """Tune glibc's ``malloc`` for batch work; True if it was tuned."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    done = mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
    return mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1 and done
