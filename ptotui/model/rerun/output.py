"""A runner's output: the last lines in memory, every line in a log file, and a throttle for
telling the UI that more came.

Lines arrive on reader threads (one per stream) as fast as the runner writes them (a
compiler's warnings: thousands a second); the UI reads the ring when it draws, at most every
:data:`UI_INTERVAL_S`.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ptotui.model import private
from ptotui.model.i18n import _
from ptotui.model.text import clean

RING_LINES = 2000
LINE_CHARS = 4000  # one line held at most this long (a runner dumping a blob on one line)
KEEP_LOGS = 20
LOG_BYTES = 10 << 20  # one log at most this long: past it the oldest output goes, the tail stays
UI_INTERVAL_S = 0.1


@dataclass(frozen=True, slots=True)
class Line:
    """One line the runner wrote: ``err`` when on stderr. The text is cleaned: no control
    sequence of the runner's reaches the terminal."""

    text: str
    err: bool


class OutputRing:
    """The last ``size`` lines of a run, safe to fill from reader threads while the UI reads."""

    def __init__(self, size: int = RING_LINES) -> None:
        self._lines: deque[Line] = deque(maxlen=size)
        self._lock = threading.Lock()
        self.total = 0  # every line ever added (the ring keeps the last ``size``)
        self.last_err: str | None = None  # the last non-blank stderr line

    def add(self, raw: bytes | str, err: bool) -> Line:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        text = clean(text.rstrip("\r\n")[:LINE_CHARS]).replace("\n", " ")
        line = Line(text, err)
        with self._lock:
            self._lines.append(line)
            self.total += 1
            if err and text.strip():
                self.last_err = text.strip()
        return line

    def lines(self) -> list[Line]:
        with self._lock:
            return list(self._lines)

    def since(self, total: int) -> tuple[list[Line], int]:
        """The lines added after the ring's ``total`` was ``total`` (those it still holds), and
        its total now: what a view that drew up to ``total`` appends."""
        with self._lock:
            fresh = min(self.total - total, len(self._lines))
            return list(self._lines)[len(self._lines) - fresh :] if fresh > 0 else [], self.total


class Throttle:
    """Calls ``emit`` at most once per ``interval`` seconds however often :meth:`poke` is
    called, and once more after the last poke (so the final lines are never left unsaid)."""

    def __init__(
        self, emit: Callable[[], None], interval: float = UI_INTERVAL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._emit = emit
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._last = float("-inf")
        self._timer: threading.Timer | None = None

    def poke(self) -> None:
        with self._lock:
            if self._timer is not None:
                return  # an emit is due already
            wait = self._last + self._interval - self._clock()
            if wait > 0:
                self._timer = threading.Timer(wait, self._fire)
                self._timer.daemon = True
                self._timer.start()
                return
            self._last = self._clock()
        self._emit()

    def _fire(self) -> None:
        with self._lock:
            self._timer = None
            self._last = self._clock()
        self._emit()

    def cancel(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None


_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def log_name(stamp: str, kernel: str) -> str:
    """``<stamp>-<kernel>.log``; a kernel name's unusual characters become ``_``."""
    return f"{stamp}-{_UNSAFE.sub('_', kernel)[:80] or 'kernel'}.log"


def log_dir(state_file: Path) -> Path:
    """Where the runs' logs go: ``reruns/`` beside the triage file, never in the reports tree."""
    return state_file.parent / "reruns"


def prune_logs(directory: Path, keep: int = KEEP_LOGS) -> list[Path]:
    """Remove all but the newest ``keep`` logs (by name: each starts with its UTC stamp)."""
    try:
        logs = sorted(p for p in directory.iterdir() if p.suffix == ".log" and p.is_file())
    except OSError:
        return []
    gone = logs[: max(len(logs) - keep, 0)]
    for path in gone:
        try:
            path.unlink()
        except OSError:
            pass
    return gone


class CappedLog:
    """A run's log file, never more than ``cap`` bytes. Past the cap the older half goes and
    the newest output stays (the end of a runner's output is what explains its failure), under
    a first line that says how much was cut. A runner writing 100 MB left a 102 MB log, and 20
    are kept. Written from the reader threads under the caller's lock."""

    def __init__(self, file: IO[bytes], cap: int = LOG_BYTES) -> None:
        self._file = file
        self.cap = cap
        self._size = 0  # bytes in the file
        self._head = 0  # of them, the first line saying what was cut
        self.cut = 0  # bytes of output cut so far

    def write(self, text: str) -> None:
        data = text.encode("utf-8", "replace")
        self._file.write(data)
        self._size += len(data)
        if self._size > self.cap:
            self._trim()

    def _trim(self) -> None:
        file = self._file
        file.flush()
        keep = self.cap // 2
        file.seek(max(self._size - keep, self._head))
        tail = file.read()
        newline = tail.find(b"\n")
        if 0 <= newline < len(tail) - 1:
            tail = tail[newline + 1 :]  # from the start of a line
        self.cut += self._size - self._head - len(tail)
        said = _("[{cut} bytes of output cut here: this log keeps the last {kept} MB of it]")
        head = (said.format(cut=self.cut, kept=f"{keep / (1 << 20):.3g}") + "\n").encode("utf-8")
        file.seek(0)
        file.write(head + tail)
        file.truncate()
        self._head = len(head)
        self._size = len(head) + len(tail)

    def close(self) -> None:
        self._file.close()


def open_log(directory: Path, stamp: str, kernel: str, cap: int = LOG_BYTES) -> tuple[Path, CappedLog]:
    """A new log file, readable by its owner only (a runner's output may name private paths),
    at most ``cap`` bytes long."""
    private.make_dirs(directory)
    path = directory / log_name(stamp, kernel)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    return path, CappedLog(os.fdopen(descriptor, "w+b"), cap)


def read_lines(stream: IO[bytes]) -> Iterator[bytes]:
    """A pipe's lines as they come; a line longer than the pipe buffers is split, not held whole."""
    while True:
        line = stream.readline(1 << 16)
        if not line:
            return
        yield line
