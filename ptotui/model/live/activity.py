"""Whether the user is typing: the loader and the history reader give way to keys.

Shared by the App (which records each key or click) and the threads that read big files
(which wait while keys come), so neither reaches into the other."""

from __future__ import annotations

import threading
import time

QUIET = 0.3  # seconds without a key or click before reading goes on (and start-up work left over runs)


class Activity:
    """When the last key or click came, and whether the app is leaving."""

    def __init__(self, quiet: float | None = None) -> None:
        self.quiet = QUIET if quiet is None else quiet
        self.last_input: float | None = None  # monotonic time of the last key or click (None: none yet)
        # Set as the app starts to leave, on every path (q, a signal, run_test's end): the
        # waits on other threads end with it.
        self.leaving = threading.Event()

    def touch(self) -> None:
        self.last_input = time.monotonic()

    def keys_coming(self) -> bool:
        """Whether a key or click came in the last ``quiet`` seconds. Measured from the last
        one, never from the clock's zero: a machine booted minutes ago reads small values."""
        last = self.last_input
        return last is not None and time.monotonic() - last < self.quiet

    def give_way(self) -> None:
        """On a reader's thread, before each file: while keys are coming, wait. The first read of
        4,000 snapshots is 2.6 s of CPU; on a machine busy elsewhere it shared one core and the
        interpreter with the UI thread, and keys took up to 0.27 s (benchmarks/bench_history.py)."""
        while self.keys_coming() and not self.leaving.wait(0.05):
            pass
