"""The runs of a tree held as columns: each kernel directory's runs as a few arrays, a Run
record made only when one is asked for; :class:`RunView` is what the dashboard and the commands
read them through."""

from __future__ import annotations

import bisect
import heapq
import os
import sys
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, overload

from ptotui.model.bench.record import Pending, Run, stamp_of_time, stamp_seconds
from ptotui.model.types import Kernel, ReadWarning, no_items

# -- the tree, held as columns -------------------------------------------------------------
#
# 10,000 kernels x 50 runs is the scale this is read at: one object per run (a Run, its path, its
# stamp, a signature) held ~1 KB a run, 500 MB in all. Each kernel directory's runs are held as
# a few arrays instead (55 bytes a run in the dashboard, 83 in a command); a Run record is made
# only when one is asked for (the kernel a screen shows, the run log a command prints).

UNREAD, NO_REPORT, READ, REFUSED = 0, 1, 2, 3  # the state of a run directory's report.json
_FIGURES = 7  # baseline_ms, pto_ms, baseline_min, baseline_max, pto_min, pto_max, ratio_pct
_NAN = float("nan")
_NO_FINISH = 0
PUBLISH_EVERY = 256  # kernel directories of history read between two publishes of a long read


FloatCode = Literal["d", "f"]  # a figure column's: 8-byte floats, or 4-byte (RunsReader's precise=False)


def _int_code(statuses: array[int]) -> Literal["H", "I"]:
    return "I" if statuses.typecode == "I" else "H"


def _code_of(figures: array[float]) -> FloatCode:
    return "f" if figures.typecode == "f" else "d"


def stamp_number(stamp: str) -> int:
    """``20260316T031000Z`` as 20260316031000: it sorts as the stamp does and turns back exactly."""
    return int(stamp[:8] + stamp[9:15])


def stamp_text(number: int) -> str:
    digits = f"{number:014d}"
    return f"{digits[:8]}T{digits[8:]}Z"


def _number_or_none(value: float) -> float | None:
    return None if value != value else value  # NaN: that side did not run


def _flag(value: bool | None) -> int:
    return -1 if value is None else int(bool(value))


def _unflag(value: int) -> bool | None:
    return None if value < 0 else bool(value)


class Statuses:
    """The distinct status texts of one reader, each held once; a run holds their indexes."""

    def __init__(self) -> None:
        self.texts: list[str | None] = [None]  # append-only: views made earlier index it too
        self._index: dict[str | None, int] = {None: 0}

    def code(self, text: str | None) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.texts)
            self.texts.append(text)
        return found


def file_signature(info: os.stat_result) -> int:
    """What says a report.json changed: a 31-bit hash of its inode, size and mtime (never -1,
    which stands for "no signature"; 4 bytes a run: a change goes unseen once in 2**31)."""
    return hash((info.st_ino, info.st_size, info.st_mtime_ns)) & 0x7FFFFFFF


def _finish_seconds(stamp: str | None) -> int:
    """A finish stamp as seconds since the epoch in 4 bytes (0: none, or outside 1970..2106)."""
    seconds = stamp_seconds(stamp) if stamp else None
    return int(seconds) if seconds is not None and 0 < seconds < 2**32 else _NO_FINISH


NO_SIGNATURE = -1


class Block:
    """One kernel directory's run directories, oldest first, as columns.

    Rows: every directory named as a stamp. ``state`` says whether its report.json was read
    (READ), is not there (NO_REPORT: running, or the runner died), could not be used (REFUSED:
    ``warnings`` says why), or was not read yet (UNREAD: the history is read after the newest
    run of every kernel). A block a :class:`RunView` holds is never changed: the reader changes
    a copy (:meth:`copy`) and publishes that.
    """

    __slots__ = (
        "family",
        "kernel",
        "stamps",
        "state",
        "signatures",
        "finished",
        "statuses",
        "figures",
        "correct",
        "envs",
        "warnings",
        "newest_kernel",
        "newest_stamp",
        "read",
        "unread",
        "missing",
    )

    def __init__(self, family: str, kernel: str, figures: FloatCode = "d") -> None:
        self.family = sys.intern(family)
        self.kernel = sys.intern(kernel)
        self.stamps = array("q")
        self.state = array("b")
        self.signatures = array("i")
        self.finished = array("I")  # seconds since the epoch
        self.statuses = array("H")  # two a row: baseline, PTO ("I" once a code passes 65,535)
        self.figures = array(figures)  # _FIGURES a row, NaN for None ("d", or "f": see RunsReader)
        self.correct = array("b")  # two a row: -1 None, 0 False, 1 True
        self.envs = array("I")  # where each run ran: a code of the reader's texts (Statuses), 0 none
        self.warnings: dict[int, ReadWarning] | None = None  # by stamp number: the REFUSED rows'
        self.newest_kernel: Kernel | None = None  # what the report of the row stamped newest_stamp gives
        self.newest_stamp = -1
        self.read = self.unread = self.missing = 0  # rows READ, UNREAD, NO_REPORT

    def copy(self) -> Block:
        other = Block.__new__(Block)
        other.family, other.kernel = self.family, self.kernel
        other.stamps, other.state, other.signatures = self.stamps[:], self.state[:], self.signatures[:]
        other.finished, other.statuses, other.figures = self.finished[:], self.statuses[:], self.figures[:]
        other.correct, other.warnings = self.correct[:], dict(self.warnings) if self.warnings else None
        other.envs = self.envs[:]
        other.newest_kernel, other.newest_stamp = self.newest_kernel, self.newest_stamp
        other.read, other.unread, other.missing = self.read, self.unread, self.missing
        return other

    def recount(self) -> None:
        state = self.state
        self.read, self.unread, self.missing = state.count(READ), state.count(UNREAD), state.count(NO_REPORT)

    def relist(self, stamps: list[int]) -> None:
        """The rows for these stamps (sorted): rows kept where the stamp stays, new ones UNREAD.
        Each column is made whole at its size (appending row by row over-allocates)."""
        old = {stamp: row for row, stamp in enumerate(self.stamps)}
        rows = [old.get(stamp, -1) for stamp in stamps]
        f = _FIGURES
        self.state = array("b", [self.state[r] if r >= 0 else UNREAD for r in rows])
        self.signatures = array("i", [self.signatures[r] if r >= 0 else NO_SIGNATURE for r in rows])
        self.finished = array("I", [self.finished[r] if r >= 0 else _NO_FINISH for r in rows])
        statuses, figures, correct = self.statuses, self.figures, self.correct
        self.statuses = array(_int_code(statuses), [statuses[2 * r + i] if r >= 0 else 0 for r in rows for i in (0, 1)])
        code = _code_of(figures)
        self.figures = array(code, [figures[f * r + i] if r >= 0 else _NAN for r in rows for i in range(f)])
        self.correct = array("b", [correct[2 * r + i] if r >= 0 else -1 for r in rows for i in (0, 1)])
        envs = self.envs
        self.envs = array("I", [envs[r] if r >= 0 else 0 for r in rows])
        self.stamps = array("q", stamps)
        kept = set(stamps)
        if self.warnings:
            self.warnings = {stamp: w for stamp, w in self.warnings.items() if stamp in kept} or None
        self.recount()

    def set_run(self, row: int, run: Run, signature: int, codes: tuple[int, int], env: int = 0) -> None:
        self.set_state(row, READ, signature)
        self.envs[row] = env
        self.finished[row] = _finish_seconds(run.finished)
        if max(codes) > 0xFFFF and self.statuses.typecode == "H":  # a tree with 65,536 distinct statuses
            self.statuses = array("I", self.statuses)
        self.statuses[2 * row], self.statuses[2 * row + 1] = codes
        self.figures[_FIGURES * row : _FIGURES * row + _FIGURES] = array(
            _code_of(self.figures),
            (
                _NAN if value is None else value
                for value in (
                    run.baseline_ms,
                    run.pto_ms,
                    run.baseline_min_ms,
                    run.baseline_max_ms,
                    run.pto_min_ms,
                    run.pto_max_ms,
                    run.ratio_pct,
                )
            ),
        )
        self.correct[2 * row] = _flag(run.baseline_correct)
        self.correct[2 * row + 1] = _flag(run.pto_correct)

    def set_state(self, row: int, state: int, signature: int, warning: ReadWarning | None = None) -> None:
        self.state[row] = state
        self.signatures[row] = signature
        stamp = self.stamps[row]
        if warning is None:
            if self.warnings and self.warnings.pop(stamp, None) is not None and not self.warnings:
                self.warnings = None
        elif self.warnings is None:
            self.warnings = {stamp: warning}
        else:
            self.warnings[stamp] = warning

    def kernel_of_newest(self) -> Kernel | None:
        """The kernel the newest READ row's report gives (None when that row's was not kept:
        a newer run directory removed since)."""
        row = self.newest_row()
        return self.newest_kernel if row >= 0 and self.stamps[row] == self.newest_stamp else None

    def newest_row(self) -> int:
        state = self.state
        for row in range(len(state) - 1, -1, -1):
            if state[row] == READ:
                return row
        return -1

    def path(self, row: int, results: str) -> str:
        return os.path.join(results, self.family, self.kernel, stamp_text(self.stamps[row]), "report.json")

    def run(self, row: int, results: str, statuses: list[str | None]) -> Run:
        figures = self.figures[_FIGURES * row : _FIGURES * row + _FIGURES]
        finished = self.finished[row]
        return Run(
            kernel=self.kernel,
            family=self.family,
            started=stamp_text(self.stamps[row]),
            finished=stamp_of_time(finished) if finished != _NO_FINISH else None,
            baseline_status=statuses[self.statuses[2 * row]],
            pto_status=statuses[self.statuses[2 * row + 1]],
            baseline_ms=_number_or_none(figures[0]),
            pto_ms=_number_or_none(figures[1]),
            baseline_min_ms=_number_or_none(figures[2]),
            baseline_max_ms=_number_or_none(figures[3]),
            pto_min_ms=_number_or_none(figures[4]),
            pto_max_ms=_number_or_none(figures[5]),
            ratio_pct=_number_or_none(figures[6]),
            baseline_correct=_unflag(self.correct[2 * row]),
            pto_correct=_unflag(self.correct[2 * row + 1]),
            path=self.path(row, results),
            environment=statuses[self.envs[row]],
        )

    def runs(self, results: str, statuses: list[str | None]) -> Iterator[Run]:
        state = self.state
        for row in range(len(state)):
            if state[row] == READ:
                yield self.run(row, results, statuses)


@dataclass(frozen=True)
class Published:
    """What one read gave: the blocks (never changed after), the runs only bench/generated
    holds, and the lookups made from them when first asked for."""

    blocks: tuple[Block, ...]
    extra: tuple[Run, ...]
    results: str
    statuses: list[str | None]
    count: int
    by_name: dict[str, list[Block]] = field(default_factory=dict, compare=False)

    def blocks_of(self, kernel: str) -> list[Block]:
        index = self.by_name
        if not index and self.blocks:  # the UI thread and the loader's may both ask first
            built: dict[str, list[Block]] = {}
            for block in self.blocks:
                built.setdefault(block.kernel, []).append(block)
            index.update(built)  # whole, in one step under the interpreter lock: never seen half made
        return index.get(kernel, [])


EMPTY_PUBLISHED = Published((), (), "", [None], 0)


def run_order(run: Run) -> tuple[str, str]:
    return run.started, run.kernel


class RunView(Sequence[Run]):
    """Every finished run of a tree, oldest first (by stamp, then kernel): a sequence of
    :class:`Run` made on demand from the columns a :class:`RunsReader` holds.

    A view of one read never changes; :meth:`RunsReader.live` gives one that always shows the
    reader's latest read (the history fills in after the newest runs: the detail and the
    charts then show what is read so far). Iterating or indexing makes a Run for each run;
    :meth:`of`, :meth:`newest`, :meth:`at_or_before` and :meth:`next_start` do not.
    """

    __slots__ = ("_source",)

    def __init__(self, source: Callable[[], Published]) -> None:
        self._source = source

    @classmethod
    def of_runs(cls, runs: Iterable[Run]) -> RunView:
        """A view of runs already made (a test's, or a tool's)."""
        ordered = tuple(sorted(runs, key=run_order))
        published = Published((), ordered, "", [None], len(ordered))
        return cls(lambda: published)

    def __len__(self) -> int:
        return self._source().count

    def __bool__(self) -> bool:
        return self._source().count > 0

    def __iter__(self) -> Iterator[Run]:
        now = self._source()
        streams = [block.runs(now.results, now.statuses) for block in now.blocks if block.read]
        return heapq.merge(*streams, now.extra, key=run_order)

    @overload
    def __getitem__(self, index: int) -> Run: ...

    @overload
    def __getitem__(self, index: slice) -> list[Run]: ...

    def __getitem__(self, index: int | slice) -> Run | list[Run]:
        return list(self)[index]  # every Run made: for tests and small trees

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, RunView)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunView({len(self)} runs)"

    def of(self, kernel: str) -> list[Run]:
        """The kernel's runs, oldest first (every family's kernel of that name)."""
        now = self._source()
        out = [run for block in now.blocks_of(kernel) for run in block.runs(now.results, now.statuses)]
        out.extend(run for run in now.extra if run.kernel == kernel)
        out.sort(key=run_order)
        return out

    def newest(self, after: str | None = None) -> dict[str, Run]:
        """Each kernel's newest run (by stamp; a later family's wins a tie, as in the order
        above); with ``after``, only the kernels whose newest run is newer than that stamp (a
        Run is made for those alone: 10,000 kernels, a few measured since the summary)."""
        now = self._source()
        floor = stamp_number(after) if after is not None and stamp_seconds(after) is not None else -1
        newest: dict[str, tuple[int, Block | Run, int]] = {}  # a block and its row, or a run made
        for block in now.blocks:
            if not block.read:
                continue
            row = block.newest_row()
            stamp = block.stamps[row]
            held = newest.get(block.kernel)
            if held is None or stamp >= held[0]:
                newest[block.kernel] = (stamp, block, row)
        for run in now.extra:
            stamp = stamp_number(run.started)
            held = newest.get(run.kernel)
            if held is None or stamp >= held[0]:
                newest[run.kernel] = (stamp, run, -1)
        out: dict[str, Run] = {}
        for name, (stamp, where, row) in newest.items():
            if stamp > floor:
                out[name] = where.run(row, now.results, now.statuses) if isinstance(where, Block) else where
        return out

    def at_or_before(self, kernel: str, stamp: str) -> list[tuple[str, str, str]]:
        """(path, family, started) of the kernel's run directories at or before ``stamp``, newest
        first: those read and those not read yet (the history still being read), not those
        without a report.json or refused."""
        if stamp_seconds(stamp) is None:
            return []
        now, limit = self._source(), stamp_number(stamp)
        found: list[tuple[int, str, str, str]] = []
        for block in now.blocks_of(kernel):
            stop = bisect.bisect_right(block.stamps, limit)
            for row in range(stop - 1, -1, -1):
                if block.state[row] in (READ, UNREAD):
                    found.append(
                        (block.stamps[row], block.path(row, now.results), block.family, stamp_text(block.stamps[row]))
                    )
        for run in now.extra:
            if run.kernel == kernel and run.started <= stamp:
                found.append((stamp_number(run.started), run.path, run.family or "", run.started))
        found.sort(key=lambda item: item[0], reverse=True)
        return [(path, family, started) for _n, path, family, started in found]

    def next_start(self, stamp: str) -> str | None:
        """The first run directory's stamp after ``stamp``, of any kernel (finished or not): the
        runner works one kernel at a time, so a run ended before the next one started."""
        if stamp_seconds(stamp) is None:
            return None
        now, after = self._source(), stamp_number(stamp)
        best: int | None = None
        for block in now.blocks:
            index = bisect.bisect_right(block.stamps, after)
            if index < len(block.stamps) and (best is None or block.stamps[index] < best):
                best = block.stamps[index]
        for run in now.extra:
            number = stamp_number(run.started)
            if number > after and (best is None or number < best):
                best = number
        return stamp_text(best) if best is not None else None


@dataclass(slots=True)
class KernelDir:
    signature: int | None = None  # a hash of the directory's inode, mtime and link count
    warnings: list[ReadWarning] = field(default_factory=no_items)  # of the directory's own names
    future_from: float | None = None  # the earliest stamp skipped as ahead of the clock (seconds)


@dataclass
class RunLog:
    """Every run of a tree at one read: finished runs oldest first, pending ones, warnings.

    ``landed``: the runs this read found that the reader's previous read had not (all of
    them on the first read). ``complete``: every run directory's report.json was looked at
    (False while the history behind each kernel's newest run is still being read).
    """

    runs: RunView
    pending: list[Pending]
    warnings: list[ReadWarning]
    landed: Sequence[Run] = ()
    complete: bool = True

    def by_kernel(self) -> dict[str, list[Run]]:
        out: dict[str, list[Run]] = {}
        for run in self.runs:
            out.setdefault(run.kernel, []).append(run)
        return out
