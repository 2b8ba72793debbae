"""Per-kernel history across the timestamped state-matrix snapshots, and the
versions of the reports committed to git (:mod:`ptotui.model.history.gitreports`).

A bench host writes a snapshot per run, so a reports directory can hold
thousands. Per snapshot only what history shows is kept (a small :class:`Point`
per kernel, its strings shared), and :class:`HistoryReader` updates the history
it read last: it lists the directory again only when the directory changed,
reads only the snapshot files that are new or changed, and appends their points
to the ones it has. The update after a new snapshot costs that one file, not
all of them (benchmarks/bench_history.py).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.core.tiers import Thresholds
from ptotui.model.location import SNAPSHOT, Location
from ptotui.model.read.loader import gc_paused, load_file
from ptotui.model.types import ReadWarning, ReportSet

if TYPE_CHECKING:
    from collections.abc import Callable

    from ptotui.model.history.gitpoints import GitPoints

BARS = "▁▂▃▄▅▆▇█"
KEEP_WHOLE = 2  # snapshots kept whole (not just their points): the newest two, for the start-up diff
CHECK_NEWEST = 2  # snapshot files looked at on every read: a run may still be writing them in place
FULL_CHECK_S = 60.0  # and every file at most this often: one edited in place changes no directory
RACY_NS = 2_000_000_000  # a directory changed this recently may change again within its mtime's tick


@dataclass(frozen=True, slots=True)
class Point:
    stamp: str
    klass: str | None
    baseline_status: str | None
    pto_status: str | None
    ratio_min_pct: float | None
    ratio_max_pct: float | None
    ratio_median_pct: float | None
    tier: str


@dataclass
class History:
    """Snapshots oldest first, each kernel's points in that order, and the newest two snapshots whole."""

    stamps: list[str]
    kernels: dict[str, list[Point]]
    warnings: list[ReadWarning]
    snapshots: list[ReportSet]  # only the newest KEEP_WHOLE
    notes: list[ReadWarning] = field(default_factory=list)  # git's, each given once (git missing, shallow)
    committed: frozenset[str] = frozenset()  # the stamps that are committed versions from git, not snapshot files

    def reference_stamps(self) -> list[str]:
        """The stamps a verdict's reference is chosen from, oldest first: the snapshot files'
        when there is one, else the committed versions' (a checkout whose generators keep no
        snapshots). The same choice in a git checkout as in a copy of it: a committed version
        between two snapshots is history to draw, never the reference."""
        files = [stamp for stamp in self.stamps if stamp not in self.committed]
        return files if files else list(self.stamps)

    def sparkline(self, name: str, width: int = 12) -> str:
        """One character per snapshot: a bar for the median ratio, ``×`` blocked, space unknown."""
        recent = self.stamps[-width:]
        # Points are in stamp order, so only the kernel's last ``width`` can fall in ``recent``.
        points = {p.stamp: p for p in self.kernels.get(name, [])[-width:]}
        chars = []
        for stamp in recent:
            point = points.get(stamp)
            if point is None:
                chars.append(" ")
            elif point.pto_status == "blocked" or point.baseline_status == "blocked":
                chars.append("×")
            elif point.ratio_median_pct is None:
                chars.append("·")
            else:
                level = min(max(point.ratio_median_pct, 0.0), 100.0) / 100.0
                chars.append(BARS[min(int(level * len(BARS)), len(BARS) - 1)])
        return "".join(chars)


def _intern(text: str | None) -> str | None:
    """Every snapshot repeats the same class and status words: keep one copy of each."""
    return sys.intern(text) if text is not None else None


@dataclass
class _Snapshot:
    """What one snapshot file gave, keyed in the reader by its path and signature."""

    signature: tuple[int, int, int]
    stamp: str
    points: list[tuple[str, Point]]
    warnings: list[ReadWarning]
    reports: ReportSet | None = field(default=None, repr=False)
    generated_at: str | None = None
    committed: bool = False  # a version from git, not a snapshot file


def _points(stamp: str, reports: ReportSet) -> list[tuple[str, Point]]:
    stamp = sys.intern(stamp)
    return [
        (
            sys.intern(k.name),
            Point(
                stamp,
                _intern(k.klass),
                _intern(k.baseline_status),
                _intern(k.pto_status),
                k.ratio_min_pct,
                k.ratio_max_pct,
                k.ratio_median_pct,
                sys.intern(k.tier),
            ),
        )
        for k in reports.kernels
    ]


class HistoryReader:
    """Reads the history again and again, updating what it read last.

    One reader per reports directory, kept between reads; safe to call from more
    than one worker thread (calls are serialised). Each read returns a new
    :class:`History`; one returned earlier is never changed (the UI may be drawing it).

    What a read after the first costs: one ``stat`` of the directory and of the
    newest :data:`CHECK_NEWEST` files. Only when the directory changed is it
    listed again (file names and inode numbers, no ``stat`` per file), and only
    files that are new, or replaced under the same name (another inode), are
    read. A file edited in place keeps its inode and changes no directory: every
    file is looked at again at most every :data:`FULL_CHECK_S` seconds for that.
    When the snapshots read are the ones of last time plus newer ones, their
    points are appended to the last history (copying the lists, not rebuilding them).
    """

    def __init__(
        self, thresholds: Thresholds = Thresholds(), git: bool = False, give_way: Callable[[], None] | None = None
    ) -> None:
        """``git``: also the versions of the reports committed along the current branch.
        ``give_way``: called before each file or committed version is parsed; the app's
        waits while keys are coming, so a first read of thousands of snapshots (seconds of
        CPU) does not take the interpreter and the core from the UI thread meanwhile."""
        self.thresholds = thresholds
        self.git = git
        self.give_way = give_way
        self._git: GitPoints | None = None
        self._cache: dict[Path, _Snapshot] = {}
        self._lock = threading.Lock()
        self.files_read = 0  # snapshot files parsed so far (for tests and benchmarks)
        self._listed: tuple[Path, int, int] | None = None  # directory, its inode and mtime when listed
        self._paths: list[Path] = []
        self._inodes: dict[Path, int] = {}
        self._names: dict[str, Path] = {}  # a Path per file name, made once
        self._parsed: dict[str, tuple[str, str] | None] = {}  # file name: (stamp, extension) or not a snapshot
        self._full_at = float("-inf")  # when every file was last stat'ed (time.monotonic)
        self.full_check_s = FULL_CHECK_S
        self._last: _Assembled | None = None
        self._committed_snapshots: dict[int, tuple[ReportSet, _Snapshot]] = {}

    def read(self, location: Location) -> History:
        """The history now. Reads files: call it off the UI thread."""
        with self._lock:
            paths, listed = self._list(location.reports)
            full = time.monotonic() - self._full_at >= self.full_check_s
            if full:
                self._full_at = time.monotonic()
            check = set(paths[-CHECK_NEWEST:])
            newest = set(paths[-KEEP_WHOLE:])
            # Each snapshot as read, kept to the next read: an update after one more snapshot
            # reads that one (the history's update time and memory, benchmarks/bench_history.py).
            cache: dict[Path, _Snapshot] = {}
            for path in paths:
                known = self._cache.get(path)
                if known is not None and not full and path not in check:
                    replaced = listed and self._inodes.get(path, known.signature[0]) != known.signature[0]
                    if not replaced:
                        cache[path] = known
                        continue
                snapshot = self._snapshot(path, keep_whole=path in newest)
                if snapshot is not None:
                    cache[path] = snapshot
            self._cache = cache
            snapshots = [cache[p] for p in paths if p in cache]
            notes: list[ReadWarning] = []
            torn: list[ReadWarning] = []
            if self.git:
                committed, notes, torn = self._committed(location)
                snapshots = _merge(snapshots, committed)
            history = self._assemble(snapshots)
            history.notes = notes
            history.warnings.extend(torn)
            return history

    def _list(self, reports: Path) -> tuple[list[Path], bool]:
        """The snapshot files, oldest first (JSON preferred over its markdown twin), and
        whether the directory was listed anew. Lists it only when it changed."""
        try:
            st = os.stat(reports)
        except OSError:
            self._listed, self._paths = None, []
            return [], True
        if self._listed == (reports, st.st_ino, st.st_mtime_ns):
            return self._paths, False
        chosen: dict[str, tuple[str, int]] = {}
        parsed: dict[str, tuple[str, str] | None] = {}
        known = self._parsed
        try:
            with os.scandir(reports) as entries:
                for entry in entries:
                    name = entry.name
                    if name in known:  # a name seen before is not parsed again
                        stamp_ext = known[name]
                    else:
                        match = SNAPSHOT.match(name)
                        stamp_ext = (match.group(1), match.group(2)) if match else None
                    parsed[name] = stamp_ext
                    if stamp_ext is not None and (stamp_ext[0] not in chosen or stamp_ext[1] == "json"):
                        chosen[stamp_ext[0]] = (name, entry.inode())
        except OSError:
            self._listed, self._paths = None, []
            return [], True
        names: dict[str, Path] = {}
        paths: list[Path] = []
        inodes: dict[Path, int] = {}
        for stamp in sorted(chosen):
            name, inode = chosen[stamp]
            path = self._names.get(name) or reports / name
            names[name] = path
            paths.append(path)
            inodes[path] = inode
        self._names, self._paths, self._inodes, self._parsed = names, paths, inodes, parsed
        # A directory that changed just before it was listed may change again with the
        # same mtime (within one tick of the file system's clock): list it again next time.
        racy = time.time_ns() - st.st_mtime_ns <= RACY_NS
        self._listed = None if racy else (reports, st.st_ino, st.st_mtime_ns)
        return paths, True

    def _committed(self, location: Location) -> tuple[list[_Snapshot], list[ReadWarning], list[ReadWarning]]:
        """The committed versions, git's notes, and the warnings of committed files."""
        from ptotui.model.history.gitpoints import GitPoints, says_shallow

        if self._git is None or self._git.reports != location.reports:
            self.close()
            self._git = GitPoints(location.reports)
        read, warnings = self._git.read(self.thresholds, self.give_way)
        notes = [w for w in warnings if w.file == str(location.reports) or says_shallow(w.message)]
        torn = [w for w in warnings if w not in notes]
        # The git reader hands back the same ReportSet for a version it read before:
        # the same _Snapshot then, so that an update can append to the last history.
        known, committed = self._committed_snapshots, []
        kept: dict[int, tuple[ReportSet, _Snapshot]] = {}
        for p in read:
            hit = known.get(id(p.reports))
            if hit is None or hit[0] is not p.reports or (hit[1].stamp, hit[1].generated_at) != (p.stamp, p.state_run):
                snapshot = _Snapshot((0, 0, 0), p.stamp, _points(p.stamp, p.reports), [], None, p.state_run, True)
                hit = (p.reports, snapshot)
            kept[id(p.reports)] = hit
            committed.append(hit[1])
        self._committed_snapshots = kept
        return committed, notes, torn

    def close(self) -> None:
        """End the git process of the committed versions, if one runs."""
        if self._git is not None:
            self._git.close()
            self._git = None

    def _snapshot(self, path: Path, keep_whole: bool) -> _Snapshot | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        signature = (st.st_ino, st.st_size, st.st_mtime_ns)
        known = self._cache.get(path)
        if known is not None and known.signature == signature:
            return known
        if self.give_way is not None:
            self.give_way()
        with gc_paused():  # a snapshot's parse makes thousands of containers and no cycles
            reports = load_file(path, self.thresholds)
        self.files_read += 1
        stamp = path.stem.rsplit("_", 1)[-1]
        # Only the newest stay whole: holding every ReportSet until the end of a first read
        # of 4,000 snapshots peaked at 400 MB, and the process kept that memory.
        whole = reports if keep_whole else None
        return _Snapshot(signature, stamp, _points(stamp, reports), reports.warnings, whole, reports.generated_at)

    def _assemble(self, snapshots: list[_Snapshot]) -> History:
        """The history of ``snapshots``: the last one's plus the new points when
        ``snapshots`` are the last ones and newer ones, else built again."""
        last = self._last
        count = len(last.snapshots) if last is not None else 0
        if (
            last is not None
            and len(snapshots) >= count
            and all(a is b for a, b in zip(last.snapshots, snapshots[:count], strict=True))
        ):
            assembled = last.extended(snapshots[len(last.snapshots) :])
        else:
            assembled = _Assembled.of(snapshots)
        self._last = assembled
        files = [s for s in snapshots if s.points and not s.committed]
        whole: list[ReportSet] = []
        for snapshot in files[:-KEEP_WHOLE]:
            snapshot.reports = None  # only the points are kept
        for snapshot in files[-KEEP_WHOLE:]:
            if snapshot.reports is None:  # dropped earlier, needed again (newer ones were deleted)
                snapshot.reports = self._reread(snapshot)
            if snapshot.reports is not None:
                whole.append(snapshot.reports)
        committed = frozenset(s.stamp for s in snapshots if s.committed and s.points)
        return History(assembled.stamps, assembled.kernels, list(assembled.warnings), whole, committed=committed)

    def _reread(self, snapshot: _Snapshot) -> ReportSet | None:
        for path, known in self._cache.items():
            if known is snapshot:
                self.files_read += 1
                return load_file(path, self.thresholds)
        return None


@dataclass(frozen=True)
class _Assembled:
    """Stamps, points per kernel and warnings of a list of snapshots. Never changed
    once made: a History shares these lists with the UI thread."""

    snapshots: list[_Snapshot]
    stamps: list[str]
    kernels: dict[str, list[Point]]
    warnings: list[ReadWarning]

    @classmethod
    def of(cls, snapshots: list[_Snapshot]) -> _Assembled:
        return _Assembled([], [], {}, []).extended(snapshots)

    def extended(self, new: list[_Snapshot]) -> _Assembled:
        """These and ``new`` (all newer): new lists, the old ones copied, not rebuilt."""
        if not new:
            return self
        stamps = list(self.stamps)
        added: dict[str, list[Point]] = {}
        warnings = list(self.warnings)
        for snapshot in new:
            warnings.extend(snapshot.warnings)
            if not snapshot.points:
                continue
            stamps.append(snapshot.stamp)
            for name, point in snapshot.points:
                added.setdefault(name, []).append(point)
        kernels = dict(self.kernels)
        for name, points in added.items():
            kernels[name] = kernels[name] + points if name in kernels else points
        return _Assembled(self.snapshots + new, stamps, kernels, warnings)


def _merge(files: list[_Snapshot], committed: list[_Snapshot]) -> list[_Snapshot]:
    """Snapshot files and committed versions in time order (stamps sort by time). A
    committed version with the ``generated_at`` of a snapshot file is the same run:
    it counts once, as the file."""
    runs = {s.generated_at for s in files if s.generated_at}
    kept = [s for s in committed if not s.generated_at or s.generated_at not in runs]
    return sorted(files + kept, key=lambda s: s.stamp)


def read_history(location: Location, thresholds: Thresholds = Thresholds()) -> History:
    """Read every snapshot once (JSON preferred over its markdown twin). Call off the UI thread."""
    return HistoryReader(thresholds).read(location)
