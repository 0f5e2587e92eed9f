"""End a process whose work is done without unloading its modules.

When a Python program ends, the interpreter joins its threads, runs the ``atexit``
functions, flushes the output streams and then tears down every module it loaded. With
pandas, pyarrow and matplotlib loaded that last step alone takes 0.2-0.3 s: as long as
reading and writing a million-row Parquet file, and a fifth of a small command's time.
It frees memory the operating system takes back anyway and writes nothing, so the
``ppdm`` command (and the process that draws figures beside it) skips it. Everything a
program relies on at exit still happens, in the interpreter's order.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from typing import NoReturn

__all__ = ["flush_and_end", "quick_exit"]


def flush_and_end(code: int = 0) -> NoReturn:
    """Flush standard output and error, then end the process with ``code`` at once.

    A stream that cannot be flushed (its reader went away, or it is closed) is left as
    it is, as the interpreter would at exit.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def quick_exit(code: object = 0) -> NoReturn:
    """``sys.exit(code)``, without the unloading of modules.

    ``code`` as :class:`SystemExit` takes it: ``None`` is 0, an integer is the exit
    status, anything else is printed on standard error and the status is 1. The
    ``atexit`` functions run and the output streams are flushed, as at any exit; if a
    thread that is not a daemon is still running, the interpreter's own exit is used
    (it waits for the thread).
    """
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
