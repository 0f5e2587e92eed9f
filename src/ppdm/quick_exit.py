"""End a process whose work is done without unloading its modules.

With pandas, pyarrow and matplotlib loaded, the interpreter's teardown of its modules takes
0.2-0.3 s (a fifth of a small command) and only frees memory the system takes back anyway;
the threads, ``atexit`` functions and stream flushes a program relies on still happen.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

__all__ = ["flush_and_end", "quick_exit"]


def flush_and_end(code: int = 0) -> NoReturn:
    """Flush standard output and error (if they still can be), then end the process at once."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def quick_exit(code: object = 0) -> NoReturn:
    """``sys.exit(code)``, ``code`` as :class:`SystemExit` takes it, without the unloading of
    modules; while a non-daemon thread runs, the interpreter's own exit (it waits for it)."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    main = threading.main_thread()
    if any(t is not main and t.is_alive() and not t.daemon for t in threading.enumerate()):
        sys.exit(code)
    atexit._run_exitfuncs()
    flush_and_end(code)
