"""The one verdict: did PTO regress, judged the same way by every surface.

The state judged is the newest of each kernel, as the dashboard shows it: its summary row, or
a run newer than the summary (:func:`ptotui.model.bench.benchrun.apply_runs`). The reference
is chosen one way (:meth:`ptotui.model.history.snapshots.History.reference_stamps`): the
newest snapshot file that differs from the current state, else the newest committed version
of the reports that does, else none. Each side's move since the reference is held against
that side's noise band, taken from the runs at or before the reference
(:mod:`ptotui.model.core.noise`). The dashboard's header, marks, ``C``, toast, bell and hook
reach the same functions through its controller (``measure_since`` over the reports its
pipeline overlaid with the same runs); ``summary``, ``export`` and ``diff`` come here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ptotui.model.core.tiers import Thresholds
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.model.bench.runs import RunsReader
    from ptotui.model.history.since import SinceSnapshot
    from ptotui.model.location import Location


def newest_state(
    location: Location,
    thresholds: Thresholds = Thresholds(),
    reports: ReportSet | None = None,
    clock: Callable[[], float] | None = None,
) -> tuple[ReportSet, RunsReader | None]:
    """The reports of ``location`` with each kernel whose newest run is newer than the summary
    as that run gives it (``Kernel.from_run``), as the dashboard shows them; and the runs
    reader that read them (None when the tree has neither ``results/`` nor ``generated/``). ``reports``: the reports
    already loaded (they are changed in place). ``clock``: "now", for the runs reader to pass
    over a run stamped in the future (the commands give ``time.time``; None: no such check)."""
    from ptotui.model.read.loader import load

    if reports is None:
        reports = load(location, thresholds)
    if not any((location.bench / part).is_dir() for part in ("results", "generated")):
        return reports, None  # no run to read (the dashboard reads generated/ copies as runs too)
    from ptotui.model.bench.benchrun import apply_runs, summary_stamp
    from ptotui.model.bench.record import NEWEST_STAMP
    from ptotui.model.bench.runs import RunsReader
    from ptotui.model.core.aggregate import aggregate

    reader = RunsReader(location.bench, clock=clock)
    reader.keep_after = (summary_stamp(reports.generated_at) or NEWEST_STAMP) if reports.kernels else None
    log = reader.read(history=False)
    reports.kernels, reports.bench_run = apply_runs(
        reports.kernels, reports.generated_at, log, reader.kernel_of, reports.gaps, thresholds
    )
    if log.warnings:
        reports.warnings = [*reports.warnings, *aggregate(log.warnings)]
    return reports, reader


@dataclass(frozen=True)
class Verdict:
    """The newest state of a tree and what regressed in it since its reference."""

    reports: ReportSet
    since: SinceSnapshot | None  # None: no reference (no snapshot file, no committed version)


def judge(
    location: Location,
    thresholds: Thresholds = Thresholds(),
    ratio_pp: float = 2.0,
    min_change: float | None = None,
    git: bool = True,
    reports: ReportSet | None = None,
    clock: Callable[[], float] | None = None,
) -> Verdict:
    """The verdict on ``location``'s newest state, as the dashboard gives it. ``git``: the
    committed versions of the reports are a reference when there is no snapshot file;
    ``clock``: as :func:`newest_state`'s."""
    newest, _reader = newest_state(location, thresholds, reports, clock)
    snapshots = bool(location.snapshots())
    # A committed version is the reference only where there is no snapshot file: git is read then only.
    if not snapshots and (not git or not _in_git(location)):
        return Verdict(newest, None)  # no reference: nothing to read (the 10,000-kernel export's case)
    from ptotui.model.core.noise import FLOOR_PCT
    from ptotui.model.history.since import measure_since
    from ptotui.model.history.snapshots import HistoryReader

    reader_of_history = HistoryReader(thresholds, git=git and not snapshots)
    try:
        history = reader_of_history.read(location)
    finally:
        reader_of_history.close()
    if not history.stamps:
        return Verdict(newest, None)
    runs = newest.bench_run.runs if newest.bench_run is not None else None
    floor = FLOOR_PCT if min_change is None else min_change
    since = measure_since(location, newest, history, thresholds, ratio_pp, floor, runs)
    return Verdict(newest, since)


def _in_git(location: Location) -> bool:
    from ptotui.model.history.gitreports import find_repository

    found = find_repository(location.reports)
    if found.repository is None:
        return False
    found.repository.close()
    return True
