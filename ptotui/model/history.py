"""Per-kernel history across the timestamped state-matrix snapshots, and the
versions of the reports committed to git (:mod:`ptotui.model.gitreports`).

A bench host writes a snapshot per run, so a reports directory can hold
thousands. Per snapshot only what history shows is kept (a small :class:`Point`
per kernel, its strings shared), and :class:`HistoryReader` reads only the
snapshot files that are new or changed since its last read: the update after a
new snapshot costs one file, not all of them (benchmarks/bench_history.py).
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.loader import gc_paused, load_file
from ptotui.model.location import Location
from ptotui.model.tiers import Thresholds
from ptotui.model.types import ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.gitreports import GitPoints

BARS = "▁▂▃▄▅▆▇█"
KEEP_WHOLE = 2  # snapshots kept whole (not just their points): the newest two, for the start-up diff


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
    """Reads the history again and again, re-reading only new or changed snapshot files.

    One reader per reports directory, kept between reads; safe to call from more
    than one worker thread (calls are serialised).
    """

    def __init__(self, thresholds: Thresholds = Thresholds(), git: bool = False) -> None:
        """``git``: also the versions of the reports committed along the current branch."""
        self.thresholds = thresholds
        self.git = git
        self._git: GitPoints | None = None
        self._cache: dict[Path, _Snapshot] = {}
        self._lock = threading.Lock()
        self.files_read = 0  # snapshot files parsed so far (for tests and benchmarks)

    def read(self, location: Location) -> History:
        """The history now. Reads files: call it off the UI thread."""
        with self._lock:
            paths = location.snapshots()
            cache: dict[Path, _Snapshot] = {}
            newest = set(paths[-KEEP_WHOLE:])
            for path in paths:
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

    def _committed(self, location: Location) -> tuple[list[_Snapshot], list[ReadWarning], list[ReadWarning]]:
        """The committed versions, git's notes, and the warnings of committed files."""
        from ptotui.model.gitreports import GitPoints

        if self._git is None or self._git.reports != location.reports:
            self.close()
            self._git = GitPoints(location.reports)
        read, warnings = self._git.read(self.thresholds)
        notes = [w for w in warnings if w.file == str(location.reports) or "shallow clone" in w.message]
        torn = [w for w in warnings if w not in notes]
        committed = [
            _Snapshot((0, 0, 0), p.stamp, _points(p.stamp, p.reports), [], None, p.state_run, True) for p in read
        ]
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
        with gc_paused():  # a snapshot's parse makes thousands of containers and no cycles
            reports = load_file(path, self.thresholds)
        self.files_read += 1
        stamp = path.stem.rsplit("_", 1)[-1]
        # Only the newest stay whole: holding every ReportSet until the end of a first read
        # of 4,000 snapshots peaked at 400 MB, and the process kept that memory.
        whole = reports if keep_whole else None
        return _Snapshot(signature, stamp, _points(stamp, reports), reports.warnings, whole, reports.generated_at)

    def _assemble(self, snapshots: list[_Snapshot]) -> History:
        stamps: list[str] = []
        kernels: dict[str, list[Point]] = {}
        warnings: list[ReadWarning] = []
        whole: list[ReportSet] = []
        used = [s for s in snapshots if s.points]
        files = [s for s in used if not s.committed]
        newest = {id(s) for s in files[-KEEP_WHOLE:]}
        for snapshot in snapshots:
            warnings.extend(snapshot.warnings)
        for snapshot in used:
            stamps.append(snapshot.stamp)
            for name, point in snapshot.points:
                kernels.setdefault(name, []).append(point)
            if snapshot.committed:
                continue  # the git reader keeps its own; the start-up diff compares files
            if id(snapshot) in newest:
                if snapshot.reports is None:  # dropped earlier, needed again (newer ones were deleted)
                    snapshot.reports = self._reread(snapshot)
                if snapshot.reports is not None:
                    whole.append(snapshot.reports)
            else:
                snapshot.reports = None  # only the points are kept
        return History(stamps, kernels, warnings, whole)

    def _reread(self, snapshot: _Snapshot) -> ReportSet | None:
        for path, known in self._cache.items():
            if known is snapshot:
                self.files_read += 1
                return load_file(path, self.thresholds)
        return None


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
