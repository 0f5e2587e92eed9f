"""Keep large temporary arrays in the C heap between batches (glibc only).

Batch-wise work allocates and frees many arrays of a few megabytes (a 250,000-row
column of float64 is 2 MB). By default glibc serves such blocks with fresh ``mmap``
calls and returns them to the system on ``free``, so every batch touches new pages and
the kernel zero-fills each 4 KiB page again: on the release commands that page
faulting costs as much as the arithmetic itself (``np.floor`` of a 2 MB column took
1.5 ms instead of 0.15 ms). Raising the mmap threshold to 32 MiB (glibc's maximum) and
the trim threshold to 256 MiB lets freed blocks be reused, at the price of keeping up
to 256 MiB of freed heap mapped. Results are unchanged; only where memory comes from.
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
    """Tune glibc's ``malloc`` for batch work; True if it was tuned.

    Does nothing (and returns False) off Linux, or on a C library without ``mallopt``
    (e.g. musl).
    """
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
