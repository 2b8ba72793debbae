"""The reload pipeline: from the files on disk to the ReportSet the screen shows next.

No threads and no watching here. :class:`ptotui.model.live.watcher.ReportWatcher` decides
*when* to reload (file events, debounce, rescans) and calls :func:`reload_reports`
from its loader thread; tests call it directly. Everything one reload needs from
the one before it travels in a :class:`Shown`, so the function's result depends
only on its arguments and the files.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ptotui.model.core.aggregate import aggregate
from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.core.tiers import Thresholds
from ptotui.model.i18n import _
from ptotui.model.location import Location
from ptotui.model.present.view import default_order
from ptotui.model.read.loader import MergeMemo, load
from ptotui.model.read.readers import Source
from ptotui.model.text import clean
from ptotui.model.types import ReadWarning, ReportSet, kernel_fields

if TYPE_CHECKING:  # the first load reads no runs and compares with nothing: imported when needed
    from ptotui.model.bench.runs import RunsReader


def clock(stamp: float) -> str:
    """A wall-clock time as warnings show it."""
    return time.strftime("%H:%M:%S", time.localtime(stamp))


class TrackingSource(Protocol):
    """A file source that remembers what it handed out (``ptotui.model.live.source.StableSource``)."""

    merge_memo: MergeMemo  # what the last load merged (a source serves one location)

    def __call__(self, path: Path, warnings: list[ReadWarning]) -> Source | None: ...

    def digest(self) -> str:
        """A hash of every file handed out by the last load: equal means nothing changed."""
        ...

    def used(self, path: Path) -> None:
        """The text just handed out for ``path`` gave kernels: the one to keep if it goes bad."""
        ...

    def kept(self, path: Path) -> tuple[Source, str] | None:
        """The text the load used last of a JSON of no use now, and the warning to show it with."""
        ...

    def release(self, path: Path) -> None:
        """The load reads that JSON's twins instead: forget its last good text."""
        ...

    def modified(self, path: Path) -> int | None:
        """The modification time of the version of ``path`` last handed out whole."""
        ...


@dataclass(frozen=True)
class Shown:
    """What the last reload handed to the screen: all a reload needs from the one before."""

    reports: ReportSet | None = None
    digest: str = ""  # the source's digest and the warnings that gave ``reports``
    read_at: float = 0.0  # when the files behind ``reports`` were last read
    runs: bool = False  # ``reports`` includes the bench runs (the first loads may not)


def reload_reports(
    location: Location,
    source: TrackingSource,
    shown: Shown,
    thresholds: Thresholds = Thresholds(),
    ratio_pp: float = 2.0,
    force: bool = False,
    min_change: float = FLOOR_PCT,
    runs: RunsReader | None = None,
    runs_fresh: bool = False,
) -> tuple[ReportSet | None, Shown]:
    """Read the reports again: the new ReportSet (None when nothing changed) and what to remember.

    The new set carries what the UI would otherwise compute on its own thread: the
    snapshot names, the changes since ``shown``, and the default order; a kernel
    that did not change is the very object shown before. With ``runs``, each kernel whose
    newest run is newer than the summary is shown as that run gives it
    (:func:`ptotui.model.bench.benchrun.apply_runs`), and the set says what runs now;
    ``runs_fresh``: the reader was read just now (the loader's look for new run directories).
    """
    reports = load(location, thresholds, source=source, memo=source.merge_memo, last_good=source)
    runs_digest = ""
    if runs is not None:
        from ptotui.model.bench.benchrun import apply_runs, summary_stamp
        from ptotui.model.bench.record import NEWEST_STAMP

        # Of the kernels' newest runs, only those newer than the summary change the table.
        # (A summary without a usable stamp is newer than every run; no summary, older.)
        runs.keep_after = (summary_stamp(reports.generated_at) or NEWEST_STAMP) if reports.kernels else None
        last = runs.last if runs_fresh else None
        log = last if last is not None else runs.read(history=False)  # the history: read_history
        reports.kernels, reports.bench_run = apply_runs(
            reports.kernels, reports.generated_at, log, runs.kernel_of, reports.gaps, thresholds, runs.live()
        )
        if log.warnings:
            reports.warnings = [*reports.warnings, *aggregate(log.warnings)]
        runs_digest = f"|runs {runs.version}"
    read_at = time.time()
    previous = shown.reports
    had_summary = previous is not None and not (previous.bench_run is not None and previous.bench_run.no_summary)
    problem = directory_problem(location.reports)
    if previous is not None and previous.kernels and had_summary and problem is not None:
        reports, read_at = _last_good(previous, reports, location, shown.read_at, problem), shown.read_at
    else:
        if problem is not None and problem.unreadable:  # one warning for the directory, not one per file
            reports.warnings = [problem.warning(location), *_outside(reports.warnings, location)]
        reports.snapshots = tuple(p.name for p in location.snapshots())
    digest = source.digest() + runs_digest + "|" + "|".join(str(w) for w in reports.warnings)
    if not force and digest == shown.digest:
        return None, replace(shown, read_at=read_at, runs=runs is not None)
    if previous is not None:
        from ptotui.model.bench.noisedata import bench_noise
        from ptotui.model.core.diff import diff

        reuse_unchanged(previous, reports)
        # The earlier reports' own files are gone (rewritten): the bench tree's runs, parity
        # rounds and the new generated reports are the measurements at hand.
        noise, noise_warnings = bench_noise(location, reports.kernels, min_change)
        reports.changes = diff(previous, reports, ratio_pp, noise)
        reports.warnings.extend(noise_warnings)
        if runs is not None and not shown.runs:
            # The first load with the runs: what they say was already so before this session
            # looked; it is the state the screen starts from, not a change (no bell at start-up).
            fresh = {k.name for k in reports.kernels if k.from_run}
            reports.changes = [c for c in reports.changes if c.kernel not in fresh]
    reports.ordered = default_order(reports.kernels)
    return reports, Shown(reports, digest, read_at, runs is not None)


@dataclass(frozen=True)
class DirectoryProblem:
    """Why the reports directory cannot be listed: gone, or there and not readable."""

    unreadable: bool
    error: str = ""

    def words(self) -> str:
        return _("not readable: {error}").format(error=self.error) if self.unreadable else _("directory is gone")

    def warning(self, location: Location, read_at: float | None = None) -> ReadWarning:
        """The one warning for the directory; with ``read_at``, the last good data (read then) is shown."""
        said = self.words()
        if read_at is not None:
            said = _("{problem}; showing last good data from {time}").format(problem=said, time=clock(read_at))
        return ReadWarning(str(location.reports), said)


def directory_problem(directory: Path) -> DirectoryProblem | None:
    """None when the reports directory can be listed. A directory that is there but cannot be
    opened (no permission, a symlink loop in its place) is not "gone": it is not readable."""
    try:
        with os.scandir(directory):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return DirectoryProblem(unreadable=False)
    except OSError as exc:
        return DirectoryProblem(unreadable=True, error=clean(exc.strerror or exc))


def _outside(warnings: list[ReadWarning], location: Location) -> list[ReadWarning]:
    """The warnings about anything but the reports directory and the files in it."""
    inside = str(location.reports)
    return [w for w in warnings if w.file != inside and Path(w.file).parent != location.reports]


def _last_good(
    previous: ReportSet, fresh: ReportSet, location: Location, read_at: float, problem: DirectoryProblem
) -> ReportSet:
    """The reports directory is gone (a bench host regenerating it) or not readable: keep
    what was shown, with one warning for the directory instead of one per file in it.

    A single file that vanishes is different: the load reads the others, as a fresh
    start would.
    """
    return ReportSet(
        source=previous.source,
        generated_at=previous.generated_at,
        kernels=list(previous.kernels),
        gaps=previous.gaps,
        warnings=[problem.warning(location, read_at), *_outside(fresh.warnings, location)],
        files_read=list(previous.files_read),
        snapshots=previous.snapshots,
        bench_run=previous.bench_run,  # without it the compare with the snapshots would wait for the runs
    )


def reuse_unchanged(old: ReportSet, new: ReportSet) -> int:
    """Put the old Kernel object wherever the new one is equal, and return how many changed.

    The UI can then tell an unchanged row by identity and skip it: at 10k kernels a
    reload that touches 1% of them redraws 100 rows, not 10,000.
    """
    before = old.by_name()
    changed = 0
    for index, kernel in enumerate(new.kernels):
        previous = before.get(kernel.name)
        # Comparing the field tuples is dataclass equality done in C, several times
        # faster at 10k kernels (benchmarks/bench_scale.py); unchanged fields mostly hold
        # the very same objects.
        if previous is not None and (previous is kernel or kernel_fields(previous) == kernel_fields(kernel)):
            new.kernels[index] = previous
        else:
            changed += 1
    return changed
