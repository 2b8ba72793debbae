"""The bench runs themselves: ``bench/results/<family>/<kernel>/<stamp>/report.json``.

The bench runner (``python/pto_kernels/bench/runner.py`` in pto-kernels) works kernel by
kernel: it creates the run directory ``bench/results/<family>/<kernel>/<YYYYMMDDTHHMMSSZ>/``
(UTC), compiles and benchmarks both sides, writes ``report.json`` there with a plain
``write_text``, then replaces ``bench/generated/<family>/<kernel>`` with a copy of the run
directory. Every run directory with a ``report.json`` is one :class:`Run`; one without it is a
:class:`Pending` run (still running, or abandoned when the runner died).

A run is read by the rules the summary generator (``scripts/summarize_latest_regression.py``)
applies to the same file: :func:`summary_record` turns a report.json into the very record the
generator would write into ``regression_latest.json``, and the regression reader makes the
kernel of it. So the state a run gives a kernel is the state the next summary will give it.

:class:`RunsReader` reads a tree again and again, re-reading only what is new: a kernel
directory whose (inode, mtime, link count) did not change is not listed again, and a
report.json already read is not read again unless its signature changed.
"""

from __future__ import annotations

import bisect
import os
import stat
import sys
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ptotui.model.bench.columns import (
    EMPTY_PUBLISHED,
    NO_REPORT,
    NO_SIGNATURE,
    PUBLISH_EVERY,
    READ,
    REFUSED,
    UNREAD,
    Block,
    FloatCode,
    KernelDir,
    Published,
    RunLog,
    RunView,
    Statuses,
    file_signature,
    run_order,
    stamp_number,
    stamp_text,
)
from ptotui.model.bench.generated import GENERATED_GRACE_S, GeneratedCopy, read_copy
from ptotui.model.bench.listing import dir_signature, lstat_or_none, subdirs
from ptotui.model.bench.record import (
    STAMP,
    Pending,
    Run,
    RunUnreadable,
    read_run,
    stamp_seconds,
)
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.read import safefile
from ptotui.model.text import clean, one_line, visible
from ptotui.model.types import Kernel, ReadWarning, shared_if_empty

# A run stamped further ahead of the clock than this is not taken as a run: a stamp of 2099 would
# otherwise be every later run's newest and hide them all. A day: any time zone's offset, and a
# runner host's clock a little ahead, stay within it.
FUTURE_S = 86_400.0


class RunsReader:
    """Reads ``bench/results`` (and ``bench/generated``) of one bench directory, incrementally.

    Each :meth:`read` returns a new :class:`RunLog`; one returned earlier is never changed.
    When nothing changed since the last read, the lists are the same objects as last time.
    ``generated``: also the latest report of each kernel in ``bench/generated`` whose run
    directory is not in ``bench/results`` (a run directory removed, or never kept). One that
    vanishes is kept for :data:`GENERATED_GRACE_S` seconds: the runner replaces it by
    ``rm -rf`` and a copy, and the kernel must not flash as gone in between.

    ``read(history=False)`` reads only each kernel's newest run with a report.json (what the
    table shows) and leaves the older ones for :meth:`read_history`, which reads them a
    budget at a time; ``read()`` reads them all. Only the newest run of each kernel keeps the
    kernel its report gives (:meth:`kernel_of`); the others keep their figures only.

    ``precise``: the figures (each side's median, min and max over shapes, the ratio) as
    read; False (the dashboard): as 4-byte floats, 7 significant digits, what a chart or a
    table of the runs shows, half the memory of the run history (10,000 kernels x 50 runs:
    14 MB less). The kernel a newest run gives is always as read.

    ``clock``: the time now, in seconds since the epoch (the UI and the commands give
    ``time.time``); a run directory (or a generated copy of one) stamped more than
    :data:`FUTURE_S` after it is not taken as a run, with a warning. None: no stamp is refused
    for its time.
    """

    def __init__(
        self,
        bench: Path,
        generated: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
        give_way: Callable[[], None] | None = None,
        precise: bool = True,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.bench = Path(bench)
        self.clock = clock
        self._horizon: float | None = None  # stamps after this (seconds) are ahead of the clock
        self._figures: FloatCode = "d" if precise else "f"
        self._results = str(self.bench / "results")  # as a string: a path made per kernel directory costs
        self.give_way = give_way  # called before each report.json is read (it may wait while keys come)
        self.generated = generated
        self.monotonic = monotonic
        self._dirs: dict[tuple[str, str], KernelDir] = {}
        # family directory -> (its signature, its kernel directories, the warnings of listing it)
        # family directory -> (its signature, its kernel directories' names, the warnings of listing it)
        self._families: dict[str, tuple[tuple[int, int, int] | None, list[str], list[ReadWarning]]] = {}
        self._blocks: dict[tuple[str, str], Block] = {}
        self._copied: set[tuple[str, str]] = set()  # blocks copied since the last publish: changed in place
        self._statuses = Statuses()
        self._generated: dict[tuple[str, str], GeneratedCopy] = {}
        self._generated_seen: set[str] = set()
        self._by_path: dict[str, Kernel | None] = {}  # None: read again, and not usable
        self._landed: list[tuple[tuple[str, str], int]] = []  # (block key, stamp number) READ this read
        self._changed = True
        self.version = 0  # counts the reads that found something changed (not the history's progress)
        self._last: RunLog | None = None
        self._published = EMPTY_PUBLISHED
        self._top_warnings: list[ReadWarning] = []
        self._first = True
        self._keep_after: str | None = None

    @property
    def keep_after(self) -> str | None:
        """The kernel a newest run's report gives is kept only for runs newer than this stamp
        (the summary's: older runs do not change what the table shows); None: all."""
        return self._keep_after

    @keep_after.setter
    def keep_after(self, stamp: str | None) -> None:
        if stamp == self._keep_after:
            return
        self._keep_after = stamp
        if stamp is None:
            return
        # Those kept before the stamp was known (the runs are read once before the first load
        # that has them) are let go: 10,000 kernels' newest runs, each with its shapes.
        for block in self._blocks.values():
            if block.newest_kernel is not None and stamp_text(block.newest_stamp) <= stamp:
                row = block.newest_row()
                if row >= 0:
                    self._by_path.pop(block.path(row, self._results), None)
                block.newest_kernel = None  # (asked for, it is read again: :meth:`kernel_of`)

    @property
    def results(self) -> Path:
        return self.bench / "results"

    @property
    def complete(self) -> bool:
        """Whether every run directory's report.json has been looked at."""
        return not any(block.unread for block in self._blocks.values())

    @property
    def last(self) -> RunLog | None:
        """What the last :meth:`read` gave (its view brought up to the history read since)."""
        return self._last

    def live(self) -> RunView:
        """A view that always shows the latest read, the history read so far included."""
        return RunView(lambda: self._published)

    def kernel_of(self, run: Run) -> Kernel | None:
        """The kernel a run's report.json gives (the summary's rules), for each kernel's newest
        run: held when it is newer than :attr:`keep_after`, else read again when asked for."""
        held = self._by_path.get(run.path)
        if held is not None or run.path in self._by_path:
            return held
        key = (run.family or "", run.kernel)
        block = self._blocks.get(key)
        if block is None or block.newest_row() < 0 or block.path(block.newest_row(), self._results) != run.path:
            return None
        try:
            made = read_run(run.path, block.family, block.kernel, run.started, False)[1]
        except (OSError, RunUnreadable, safefile.FileRefused):
            made = None
        self._by_path[run.path] = made
        return made

    def pending_dirs(self) -> list[Path]:
        """The run directories without report.json, as last read (a watch on each sees it land)."""
        if self._last is None:
            return []
        return [Path(p.path) for p in self._last.pending]

    def kernel_dirs(self) -> list[Path]:
        """The family directories of results/ and generated/, as last read (the watched levels)."""
        families = {self.results / family for family, _ in self._dirs}
        families |= {self.bench / "generated" / family for family, _ in self._generated}
        return sorted(families)

    # -- reading -------------------------------------------------------------------------

    def read(self, history: bool = True) -> RunLog:
        """Look at the tree again. ``history=False``: of each kernel only the newest runs (down
        to the first with a usable report.json); :meth:`read_history` reads the rest later."""
        top: list[ReadWarning] = []
        present: set[tuple[str, str]] = set()
        self._horizon = self.clock() + FUTURE_S if self.clock is not None else None
        for family, family_dir in subdirs(self.results, N_("family directory"), top):
            for kernel in self._kernels_of(family_dir, top):
                key = (family, kernel)
                present.add(key)
                self._read_kernel(key, os.path.join(family_dir, kernel))
        for gone in set(self._dirs) - present:
            del self._dirs[gone]
            self._blocks.pop(gone, None)
            self._changed = True
        if self.generated:
            self._read_generated(top)
        if top != self._top_warnings:
            self._top_warnings = top
            self._changed = True
        if history:
            self.read_history(None)
        if not self._changed and self._last is not None:
            if self._copied:
                self._publish()
            last = self._last
            return RunLog(last.runs, last.pending, last.warnings, [], last.complete)
        self._changed = False
        self.version += 1
        log = self._assemble()
        self._last = log
        return log

    def read_history(self, budget_s: float | None) -> bool:
        """Read the runs behind each kernel's newest, newest first, for about ``budget_s``
        seconds (None: all of them; one file at least). True when every run has been read;
        the view (:meth:`live`) shows what was read. The read that completes the history
        counts as a change (:attr:`version`)."""
        began = self.monotonic()
        was_complete = self.complete
        results = self._results
        read_any = False  # at least one file a call, however short the budget
        for key, block in list(self._blocks.items()):
            if not block.unread:
                continue
            state = block.state
            for row in range(len(state) - 1, -1, -1):
                if state[row] != UNREAD:
                    continue
                if budget_s is not None and self.monotonic() - began >= budget_s and read_any:
                    self._recount(key)
                    self._publish()
                    return False
                self._read_row(key, row, results, newest=False)
                state, read_any = self._blocks[key].state, True
            self._recount(key)
            if len(self._copied) >= PUBLISH_EVERY:  # the blocks replaced are let go as it goes
                self._publish()
        self._publish()
        if not was_complete:
            self._changed = True
        return True

    def _snapshot(self) -> Callable[[], Published]:
        published = self._published
        return lambda: published

    def _writable(self, key: tuple[str, str]) -> Block:
        """The key's block, to change: a copy when the one held was published (views hold it)."""
        block = self._blocks[key]
        if key not in self._copied:
            block = self._blocks[key] = block.copy()
            self._copied.add(key)
        return block

    def _recount(self, key: tuple[str, str]) -> None:
        if key in self._copied:  # a published block is never changed, not even its counts
            self._blocks[key].recount()

    def _publish(self) -> None:
        extra = tuple(sorted(self._extra_runs(), key=run_order))  # merged in order with the blocks' runs
        blocks = tuple(self._blocks.values())
        count = sum(block.read for block in blocks) + len(extra)
        self._published = Published(blocks, extra, self._results, self._statuses.texts, count)
        self._copied.clear()
        last = self._last
        if last is not None:  # the reader's own last log lets go of the blocks replaced (half the memory)
            self._last = RunLog(RunView(self._snapshot()), last.pending, last.warnings, [], self.complete)

    def _extra_runs(self) -> Iterator[Run]:
        """The runs only bench/generated holds (their run directory gone, or never kept)."""
        if not self._generated:
            return
        by_kernel: dict[str, list[Block]] = {}
        for block in self._blocks.values():
            by_kernel.setdefault(block.kernel, []).append(block)
        for gen in self._generated.values():
            copy = gen.run
            if copy is None:
                continue
            number = stamp_number(copy.started)
            held = False
            for block in by_kernel.get(copy.kernel, []):
                index = bisect.bisect_left(block.stamps, number)
                if index < len(block.stamps) and block.stamps[index] == number and block.state[index] == READ:
                    held = True
            if not held:
                yield copy

    def _assemble(self) -> RunLog:
        self._publish()
        published = self._published
        warnings = list(self._top_warnings)
        pending: list[Pending] = []
        by_path: dict[str, Kernel | None] = {}
        newest_number: dict[str, int] = {}
        results = published.results
        for key, block in self._blocks.items():
            warnings.extend(self._dirs[key].warnings)
            if block.warnings:
                warnings.extend(block.warnings[stamp] for stamp in sorted(block.warnings))
            if block.missing:
                for row, state in enumerate(block.state):
                    if state == NO_REPORT:
                        started = stamp_text(block.stamps[row])
                        pending.append(
                            Pending(
                                block.kernel,
                                block.family,
                                started,
                                os.path.join(results, block.family, block.kernel, started),
                            )
                        )
            row = block.newest_row() if block.read else -1
            if row >= 0:
                newest_number[block.kernel] = max(block.stamps[row], newest_number.get(block.kernel, 0))
                made_kernel = block.kernel_of_newest()
                if made_kernel is not None:
                    by_path[block.path(row, results)] = made_kernel
        for gen in self._generated.values():
            if gen.warning is not None:
                warnings.append(gen.warning)
        kernel_of_copy = {id(gen.run): gen.kernel for gen in self._generated.values() if gen.run is not None}
        for copy in published.extra:
            gen_kernel = kernel_of_copy.get(id(copy))
            if gen_kernel is not None and stamp_number(copy.started) > newest_number.get(copy.kernel, 0):
                by_path[copy.path] = gen_kernel
        pending.sort(key=lambda p: (p.started, p.kernel))
        view = RunView(self._snapshot())
        landed: Sequence[Run]
        if self._first:
            landed, self._first = view, False
        else:
            made = []
            for key, number in self._landed:
                held = self._blocks.get(key)
                if held is None:
                    continue
                index = bisect.bisect_left(held.stamps, number)
                if index < len(held.stamps) and held.stamps[index] == number and held.state[index] == READ:
                    made.append(held.run(index, results, published.statuses))
            made.extend(run for run in published.extra if run.path not in self._generated_seen)
            landed = sorted(made, key=run_order)
        self._landed = []
        self._generated_seen = {run.path for run in published.extra}
        self._by_path = by_path
        return RunLog(view, pending, warnings, landed, self.complete)

    def _kernels_of(self, family_dir: str, top: list[ReadWarning]) -> list[str]:
        """A family directory's kernel directories' names: listed again only when the directory
        changed (the rescan looks at 10,000 kernel directories every few seconds). Held as the
        names alone, each once (the summary's kernel names are the same strings)."""
        info = lstat_or_none(family_dir)
        signature = dir_signature(info) if info is not None else None
        held = self._families.get(family_dir)
        if held is not None and signature is not None and held[0] == signature:
            top.extend(held[2])
            return held[1]
        warnings: list[ReadWarning] = []
        kernels = [sys.intern(name) for name, _path in subdirs(family_dir, N_("kernel directory"), warnings)]
        self._families[family_dir] = (signature, kernels, warnings)
        top.extend(warnings)
        return kernels

    def _read_kernel(self, key: tuple[str, str], path: str) -> None:
        family, kernel = key
        kdir = self._dirs.get(key)
        if kdir is None:
            kdir = self._dirs[key] = KernelDir()
            self._blocks[key] = Block(family, kernel, self._figures)
            self._copied.add(key)  # not published yet: changed in place
        info = lstat_or_none(path)
        signature = hash(dir_signature(info)) if info is not None else None
        horizon = self._horizon
        caught_up = kdir.future_from is not None and (horizon is None or kdir.future_from <= horizon)
        if signature != kdir.signature or signature is None or caught_up:
            kdir.signature = signature
            stamps: list[int] = []
            warnings: list[ReadWarning] = []
            odd: list[str] = []
            unreal: list[str] = []
            future: list[tuple[float, str]] = []
            for name, _run_dir in subdirs(path, N_("run directory"), warnings):
                if not STAMP.match(name):
                    odd.append(name)
                elif (seconds := stamp_seconds(name)) is None:
                    unreal.append(name)
                elif horizon is not None and seconds > horizon:
                    future.append((seconds, name))
                else:
                    stamps.append(stamp_number(name))
            kdir.future_from = min(future)[0] if future else None
            if future:  # 20991231T235959Z would be the newest run for ever, hiding every later one
                future.sort()
                said = ngettext(
                    "a run directory stamped more than a day after this machine's clock, not taken as a run: {shown}",
                    "{n} run directories stamped more than a day after this machine's clock, not taken as"
                    " runs: {shown}",
                    len(future),
                )
                warnings.append(ReadWarning(path, said.format(n=len(future), shown=_few([n for _s, n in future]))))
            if unreal:  # 20261399T999999Z: a run's stamp, as the runner writes it, is a real UTC time
                said = ngettext(
                    "a run directory whose stamp is not a real time (YYYYMMDDTHHMMSSZ, UTC), skipped: {shown}",
                    "{n} run directories whose stamps are not real times (YYYYMMDDTHHMMSSZ, UTC), skipped: {shown}",
                    len(unreal),
                )
                warnings.append(ReadWarning(path, said.format(n=len(unreal), shown=_few(unreal))))
            if odd:  # one warning for the kernel's directory, however many (debug_probe, debug_probe2, ...)
                shown = _few(odd)
                said = ngettext(
                    "a directory not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    "{n} directories not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    len(odd),
                )
                warnings.append(ReadWarning(path, said.format(n=len(odd), shown=shown)))
            if warnings != kdir.warnings:
                self._changed = True
            kdir.warnings = shared_if_empty(warnings)
            stamps.sort()
            if array("q", stamps) != self._blocks[key].stamps:
                self._changed = True
                self._writable(key).relist(stamps)
        self._read_newest(key, self._results)

    def _read_newest(self, key: tuple[str, str], results: str) -> None:
        """Every row not READ down to the newest READ one (what the table needs), and the rows
        without report.json or refused below it (they may have landed since)."""
        block = self._blocks[key]
        if block.state and block.state[-1] == READ and not block.missing and not block.warnings:
            return  # the newest read, nothing waiting or refused below it: only the history's rows left
        found = False
        for row in range(len(self._blocks[key].state) - 1, -1, -1):
            current = self._blocks[key].state[row]
            if current == READ:
                found = True
            elif current != UNREAD or not found:  # UNREAD below the newest: the history's
                self._read_row(key, row, results, newest=not found)
                found = found or self._blocks[key].state[row] == READ
        self._recount(key)

    def _read_row(self, key: tuple[str, str], row: int, results: str, newest: bool) -> None:
        """Look at one run directory's report.json; read it when it is new or changed. The
        block is copied before it changes (:meth:`_writable`). ``newest``: no newer row has a
        run, so this one keeps the kernel its report gives."""
        block = self._blocks[key]
        path = block.path(row, results)
        info = lstat_or_none(path)
        was = block.state[row]
        if info is None:
            if was != NO_REPORT:
                self._writable(key).set_state(row, NO_REPORT, NO_SIGNATURE)
                self._changed = True
            return
        signature = file_signature(info)
        if signature == block.signatures[row] and was != UNREAD:
            return  # the same torn or refused file as last time: its warning stands
        block = self._writable(key)
        if self.give_way is not None:
            self.give_way()
        if stat.S_ISLNK(info.st_mode):
            block.set_state(row, REFUSED, signature, ReadWarning(path, _("is a symlink; not followed")))
            self._changed = True
            return
        try:
            run, made = read_run(path, block.family, block.kernel, stamp_text(block.stamps[row]), False)
        except FileNotFoundError:  # gone between the stat and the read: looked at again next time
            block.set_state(row, NO_REPORT, NO_SIGNATURE)
            self._changed = self._changed or was != NO_REPORT
            return
        except (safefile.FileRefused, RunUnreadable, OSError) as exc:
            if isinstance(exc, safefile.FileRefused):
                said = exc.message
            elif isinstance(exc, RunUnreadable):
                said = str(exc)
            else:
                said = _("cannot be read: {error}").format(error=clean(exc.strerror or exc))
            block.set_state(row, REFUSED, signature, ReadWarning(path, said))
            self._changed = True
            return
        codes = (self._statuses.code(run.baseline_status), self._statuses.code(run.pto_status))
        block.set_run(row, run, signature, codes, self._statuses.code(run.environment))
        if newest:
            keep = self._keep_after is None or stamp_text(block.stamps[row]) > self._keep_after
            block.newest_kernel, block.newest_stamp = (made if keep else None), block.stamps[row]
        if newest or was != UNREAD:  # not the history: a run that landed (or now reads)
            self._changed = True
            self._landed.append((key, block.stamps[row]))

    def _read_generated(self, top: list[ReadWarning]) -> None:
        present: set[tuple[str, str]] = set()
        now = self.monotonic()
        for family, family_dir in subdirs(self.bench / "generated", N_("family directory"), top):
            for kernel in self._kernels_of(family_dir, top):
                key = (family, kernel)
                path = os.path.join(family_dir, kernel, "report.json")
                info = lstat_or_none(path)
                if info is None:
                    continue  # being replaced, or a kernel without a report yet: the grace below
                present.add(key)
                gen = self._generated.setdefault(key, GeneratedCopy())
                gen.missing_since = None
                signature = (info.st_ino, info.st_size, info.st_mtime_ns)
                if signature == gen.signature:
                    continue
                self._changed = True
                read_copy(gen, path, family, kernel, info, signature, self._horizon, self._results)
        for key in set(self._generated) - present:
            gen = self._generated[key]
            if gen.missing_since is None:
                gen.missing_since = now
            elif now - gen.missing_since > GENERATED_GRACE_S:
                del self._generated[key]
                self._changed = True


def _few(names: list[str]) -> str:
    """At most three directory names, and how many more; a control character in a name is
    written as an escape (``debug\\x1b]0;``), so the directory can be found."""
    shown = ", ".join(one_line(visible(n), 80) for n in names[:3])
    if len(names) > 3:
        shown = _("{shown} and {n} more").format(shown=shown, n=len(names) - 3)
    return shown


def read_runs(bench: Path, clock: Callable[[], float] | None = None) -> RunLog:
    """Every run of a bench directory, once: ``bench/results`` and what only ``bench/generated``
    holds (``clock``: as for :class:`RunsReader`)."""
    return RunsReader(bench, clock=clock).read()
