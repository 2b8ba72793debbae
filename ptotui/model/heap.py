"""Giving memory back: the C heap of a long-running process that parses big reports.

Python hands objects over 512 bytes (a dict's table, a list's items, a long text) to the C
library's ``malloc``. glibc gives each thread that allocates its own heap ("arena", up to
eight per core), and keeps what a load freed for later instead of returning it. The dashboard
loads on one thread and compares on others, so each thread's peak stays in the process:
at 10,000 kernels ~60 MB of the app's RSS was such freed memory (``benchmarks/bench_runs.py``
and ``benchmarks/bench_scale.py`` measure it). Two calls fix that, on glibc only (elsewhere
they do nothing):

- :func:`one_arena` before the threads start: all threads share one heap (the GIL lets one
  thread run Python at a time; malloc keeps a per-thread cache for its fast path);
- :func:`trim` after a load: the heap's free pages are given back (``malloc_trim``: a few
  milliseconds at 200 MB, with the GIL released).
"""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable

_M_ARENA_MAX = -8  # glibc's mallopt parameter
TRIM_EVERY_S = 2.0  # at most one trim in this long (a load, a slice of the run history)


def _libc() -> ctypes.CDLL | None:
    try:
        lib = ctypes.CDLL(None)  # the process's own symbols: the C library it runs on
    except OSError:
        return None
    if not hasattr(lib, "mallopt") or not hasattr(lib, "malloc_trim") or not hasattr(lib, "gnu_get_libc_version"):
        return None  # not glibc (musl, macOS): nothing to tune
    return lib


_LIB = _libc()


def one_arena() -> bool:
    """Let every thread allocate from one heap; True when the C library took it."""
    return _LIB is not None and _LIB.mallopt(_M_ARENA_MAX, 1) == 1


def trim() -> None:
    """Give the C heap's free pages back to the system."""
    if _LIB is not None:
        _LIB.malloc_trim(0)


class Trimmer:
    """:func:`trim` after a load (``soon=False``, each time: a few milliseconds at most), or
    while reading the run history slice by slice (``soon=True``: at most once per ``every``
    seconds).

    ``after``: no trim until this says so (the factory passes the watcher's ``ui_shown``).
    A trim holds the one heap's lock, so the UI thread building its first frame waited for
    it at each allocation it made meanwhile; the load after the first frame trims what the
    first one left."""

    def __init__(
        self,
        every: float = TRIM_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
        after: Callable[[], bool] | None = None,
    ) -> None:
        self.every, self.clock, self.after = every, clock, after
        self._last: float | None = None
        self._lock = threading.Lock()
        self.count = 0

    def __call__(self, soon: bool = False) -> None:
        if self.after is not None and not self.after():
            return
        with self._lock:
            now = self.clock()
            if soon and self._last is not None and now - self._last < self.every:
                return
            self._last = now
            self.count += 1
        trim()
