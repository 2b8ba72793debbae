"""What one dashboard knows, without Textual: the reports and where they are, what changed
and what was seen, the history, the triage entries and the compared sources.

The app feeds it (a load, what was seen when ptotui last closed, the history, the compare
with the newest differing snapshot, a compared source) from its workers and reacts to the
``Update`` each step returns: it announces regressions, rings, runs the ``--on-regression``
hook and tells the screens to draw. The screens read it and draw; nothing here draws, and
the only I/O is the triage store's, which the app runs on its workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.core.blockers import is_blocker
from ptotui.model.location import Location
from ptotui.model.present.view import default_order, matches, sort_key
from ptotui.model.triage import Status, TriageStore, triage_rank
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:  # needed after the first rows: not imported on the way to them (tests/cli/test_startup_imports.py)
    from ptotui.model.changes.live import Steps
    from ptotui.model.changes.points import ChangePoint
    from ptotui.model.core.diff import Change
    from ptotui.model.history.compare import CompareSource, Side
    from ptotui.model.history.since import Seen, SinceSnapshot
    from ptotui.model.history.snapshots import History

FLASH_SECONDS = 4.0  # a kernel that changed in the last reload is shown inverted this long
CHANGE_LOG = 500  # changes kept for the changes pane, newest last


@dataclass(frozen=True)
class Update:
    """What one step of the session changed: what the app announces, what the screens draw."""

    reports: ReportSet | None = None  # the reports now (None: none loaded yet)
    previous: ReportSet | None = None  # a load replaced: the reports before it
    changes: tuple[Change, ...] = ()  # from ``previous`` to ``reports``: flashed, in the change log
    regressed: tuple[str, ...] = ()  # kernels a reload regressed (each once): announce, ring, hook
    since: SinceSnapshot | None = None  # the first compare with the snapshots, when it found regressions
    since_regressed: tuple[str, ...] = ()  # its regressed kernels, to announce
    since_marked: bool = False  # whether the table marks any of those (not seen since)

    @property
    def flashing(self) -> bool:
        """Kernels changed and are shown inverted: draw again when that ends."""
        return bool(self.changes)


@dataclass(frozen=True)
class Filters:
    """Which kernels the table shows: every filter of the main screen, as one value."""

    text: str = ""  # ``/``: every word must match
    tiers: frozenset[str] = frozenset()  # the tier keys; none: every tier
    untriaged: bool = False  # ``t``: only untriaged blockers
    changed: bool = False  # ``c``: only kernels changed since last seen
    # With ``changed``: the kernels marked when it was turned on stay shown after the cursor
    # has seen them (their mark goes), so stepping through them hides none.
    changed_shown: frozenset[str] = frozenset()
    differing: bool = False  # ``=``: only kernels whose tier or a status differs in a compared source
    only: tuple[str, Callable[[Kernel], bool]] | None = None  # a bar picked in the overview

    def toggle_tier(self, tier: str) -> Filters:
        """A tier key: its tier joins the shown ones or leaves them; ``""`` (``0``): every tier."""
        return replace(self, tiers=self.tiers ^ {tier} if tier else frozenset())


class Session:
    """The reports of one reports directory and everything the dashboard knows about them.

    ``clock`` stamps the change log and the warnings (wall time, shown); ``monotonic``
    times the flash of changed kernels (only differences of it are used)."""

    def __init__(
        self,
        location: Location,
        ratio_pp: float = 2.0,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        compare: list[CompareSource] | None = None,
    ) -> None:
        self.location = location
        self.ratio_pp = ratio_pp
        self.clock = clock
        self.monotonic = monotonic
        self.reports: ReportSet | None = None
        self.loaded_at: float | None = None
        self.warned_since: dict[str, float] = {}  # a warning's file -> when it was first warned of
        # Warnings dismissed in W (file, line, message): the box leaves them out until their text
        # changes; for this session only (a warning is worth seeing again at the next start).
        self.dismissed_warnings: set[tuple[str, int | None, str]] = set()
        self.marks: dict[str, int] = {}  # kernel -> direction of its unseen change (+1, -1, 0)
        self.flash_until: dict[str, float] = {}  # kernel -> monotonic end of its flash
        self.changes: list[tuple[float, Change]] = []  # the change log: (when, change)
        self.seen: Seen | None = None  # what the user has seen: marks are first → now
        self._first_kernels: list[Kernel] = []  # of the first load with kernels, until seen is read
        self._first_at: str | None = None  # their reports' stamp
        self.since: SinceSnapshot | None = None  # the reports against the newest differing snapshot
        self._since_of: ReportSet | None = None  # the reports ``since`` was computed for
        self.history: History | None = None  # per kernel, its state in each snapshot (read after the rows)
        self._history_key: tuple | None = None  # what the history was read for
        self.triage: TriageStore | None = None  # this reports directory's entries (None until the first load)
        # --compare: each source, its reports (None until read), and per kernel how it compares
        self.compare_sources: list[CompareSource] = list(compare or [])
        self.compare_reports: list[ReportSet | None] = [None] * len(self.compare_sources)
        self.compare_sides: list[dict[str, Side]] = [{} for _ in self.compare_sources]
        # Each kernel's regressed state as last announced, with the run (generated_at) that
        # gave it: the same state of the same run coming back is no new regression.
        self.announced: dict[str, tuple[str | None, Kernel]] = {}
        # Each kernel's change points, kept true as runs land (made on the first worker that
        # asks: the Step column's, or a landed run's; not on the way to the first rows).
        self._steps: Steps | None = None
        self._steps_lock = threading.Lock()

    # -- where the reports are --------------------------------------------------------

    def relocate(self, location: Location) -> None:
        """PATH resolved anew once reports appeared under it: the triage entries of the old
        directory no longer apply (the next load opens this one's)."""
        if location != self.location:
            self.location = location
            self.triage = None
            self._steps = None

    def open_triage(self, state_file: Path, read_only: bool) -> TriageStore:
        """This directory's triage entries, not read yet (the app reads them on a worker, which
        also finds their key: it may ask git)."""
        if self.triage is None:
            from ptotui.model.reportskey import reports_key

            reports = self.location.reports
            self.triage = TriageStore(state_file, lambda: reports_key(reports), read=False, writable=not read_only)
        return self.triage

    # -- loads -------------------------------------------------------------------------

    def apply(self, reports: ReportSet) -> Update:
        """A new load arrived: note what changed since the last one, and mark it."""
        now = self.clock()
        if self.seen is not None:
            self.seen.start(reports.kernels, reports.generated_at)  # (once, at the first load with kernels)
        elif not self._first_kernels:
            self._first_kernels = reports.kernels  # what was seen starts from these when it is read
            self._first_at = reports.generated_at
        previous = self.reports
        changes: list[Change] = []
        if previous is not None:
            if reports.changes is not None:
                changes = reports.changes
            else:
                from ptotui.model.core.diff import diff

                changes = diff(previous, reports, self.ratio_pp)
            until = self.monotonic() + FLASH_SECONDS
            for change in changes:
                self.changes.append((now, change))
                self.flash_until[change.kernel] = until
            self.flash_until = {n: t for n, t in self.flash_until.items() if t > self.monotonic()}
            del self.changes[:-CHANGE_LOG]
        self.marks = self.seen.marks(reports.kernels) if self.seen is not None else {}
        for warning in reports.warnings:
            self.warned_since.setdefault(warning.file, now)
        files = {w.file for w in reports.warnings}
        self.warned_since = {f: t for f, t in self.warned_since.items() if f in files}
        self.reports, self.loaded_at = reports, now
        if self.compare_sources:
            self._compare_again()
        return Update(reports, previous, tuple(changes), self._to_announce(reports, changes))

    def _to_announce(self, reports: ReportSet, changes: list[Change]) -> tuple[str, ...]:
        """The kernels a load regressed that were not announced in this very state of this very
        run: a regression that only flickered through older data (a torn JSON read around)
        and came back is announced once."""
        if not changes:  # the first load: nothing to announce
            return ()
        from ptotui.model.core.diff import regressed_kernels

        fresh = []
        by_name = reports.by_name()
        for name in regressed_kernels(changes):
            kernel = by_name.get(name)
            if kernel is None:
                continue
            said = self.announced.get(name)
            if said is None or said[0] != reports.generated_at or said[1] != kernel:
                fresh.append(name)
            self.announced[name] = (reports.generated_at, kernel)
        if len(self.announced) > 2 * len(by_name) + CHANGE_LOG:  # kernels renamed away: forget them
            self.announced = {n: v for n, v in self.announced.items() if n in by_name}
        return tuple(fresh)

    @property
    def steps(self) -> Steps:
        """The change points of this directory's kernels (:mod:`ptotui.model.changes.live`)."""
        with self._steps_lock:
            if self._steps is None:
                from ptotui.model.changes.live import Steps

                self._steps = Steps()
            return self._steps

    def take_steps(self, found: Sequence[ChangePoint], steps: Steps) -> Update | None:
        """Slowdowns of PTO that landed runs made significant (``steps.landed`` tells each
        once): regressions, logged, flashed and announced as a reload's are. None when there
        are none, or ``steps`` were another directory's (PATH resolved anew meanwhile)."""
        reports = self.reports
        if not found or reports is None or steps is not self._steps:
            return None
        from ptotui.model.core.diff import regressed_kernels, step_change

        by_name = reports.by_name()
        changes = [step_change(step) for step in found if step.kernel in by_name]
        if not changes:
            return None
        now, until = self.clock(), self.monotonic() + FLASH_SECONDS
        for change in changes:
            self.changes.append((now, change))
            self.flash_until[change.kernel] = until
        del self.changes[:-CHANGE_LOG]
        return Update(reports, reports, tuple(changes), tuple(regressed_kernels(changes)))

    def moves_of(self, kernel: str, newest: int = 3) -> tuple[list[Change], list[tuple[float, Change]]]:
        """What moved for ``kernel``: its changes since the previous snapshot, and its newest
        ``newest`` changes on reload (when, change), newest last. The detail says from them
        which side moved."""
        since = [c for c in self.since.changes if c.kernel == kernel] if self.since is not None else []
        logged = [(when, c) for when, c in self.changes if c.kernel == kernel][-newest:]
        return since, logged

    def flashing(self) -> set[str]:
        """The kernels shown inverted now: changed in the last few seconds."""
        now = self.monotonic()
        return {n for n, until in self.flash_until.items() if until > now}

    # -- history ------------------------------------------------------------------

    def history_due(self, reports: ReportSet, git: bool) -> bool | None:
        """Whether the history must be read (again) for ``reports``: None when not, else
        whether this is the first read. New snapshot files mean a new history; with git so
        do reports that changed under a pull or a checkout (the committed versions moved)."""
        key = (reports.snapshots, reports.generated_at if git else None)
        if key == self._history_key:
            return None
        first = self._history_key is None
        self._history_key = key
        return first

    def set_history(self, history: History) -> Update:
        self.history = history
        return Update(self.reports)

    # -- --compare -------------------------------------------------------------------

    def set_compared(self, index: int, reports: ReportSet) -> Update:
        """The ``index``-th compared source was read."""
        self.compare_reports[index] = reports
        self._compare_again()
        return Update(self.reports)

    def _compare_again(self) -> None:
        from ptotui.model.history.compare import compare

        main = self.reports
        self.compare_sides = [
            compare(main, other) if main is not None and other is not None else {} for other in self.compare_reports
        ]

    # -- triage ----------------------------------------------------------------------

    def triage_status(self, kernel: Kernel) -> Status:
        if self.triage is None:
            return Status(None, False, False)
        return self.triage.status(kernel)

    def triage_statuses(self, by_name: dict[str, Kernel] | None = None) -> dict[str, Status]:
        """Statuses of the kernels with a triage entry; any other kernel has none.

        Entries are few and kernels many (10k): walking the entries, not the kernels,
        keeps a redraw from asking the store about every kernel three times.
        """
        store = self.triage
        if self.reports is None or store is None or not store.entries:
            return {}
        by_name = self.reports.by_name() if by_name is None else by_name
        return {name: store.status(by_name[name]) for name in store.entries if name in by_name}

    def untriaged(self, statuses: dict[str, Status], by_name: dict[str, Kernel]) -> int:
        """Blockers with no triage entry, or a stale one (``statuses`` as triage_statuses gives)."""
        kernels = self.reports.kernels if self.reports is not None else []
        return sum(1 for k in kernels if is_blocker(k)) - sum(
            1 for name, status in statuses.items() if not status.untriaged and is_blocker(by_name[name])
        )

    # -- what the table shows -----------------------------------------------------

    def visible(
        self,
        filters: Filters,
        sort: tuple[str | None, bool] = (None, False),
        statuses: dict[str, Status] | None = None,
    ) -> list[Kernel]:
        """The kernels ``filters`` keep, in the order of ``sort`` (a column and whether
        reversed; no column: tier, then ratio). ``statuses`` saves asking the triage store."""
        if self.reports is None:
            return []
        column, reverse = sort
        if column is None:
            ordered = self.reports.ordered
            shown = ordered if ordered is not None else default_order(self.reports.kernels)
        else:
            shown = self.reports.kernels
        if filters.tiers:
            shown = [k for k in shown if k.tier in filters.tiers]
        if filters.text.strip():
            shown = [k for k in shown if matches(k, filters.text)]
        if filters.untriaged:
            statuses = self.triage_statuses() if statuses is None else statuses
            shown = [k for k in shown if is_blocker(k) and (k.name not in statuses or statuses[k.name].untriaged)]
        if filters.changed:
            shown = [k for k in shown if k.name in self.marks or k.name in filters.changed_shown]
        if filters.differing:
            sides = self.compare_sides
            shown = [k for k in shown if any(s[k.name].differs for s in sides if k.name in s)]
        if filters.only is not None:
            keep = filters.only[1]
            shown = [k for k in shown if keep(k)]
        if column is None:
            return list(shown)
        getter = None
        if column == "triage":
            by_entry = self.triage_statuses() if statuses is None else statuses
            getter = lambda k: triage_rank(by_entry.get(k.name), k)  # noqa: E731 - one key, used here
        return sorted(shown, key=sort_key(column, reverse, getter), reverse=reverse)

    # -- the compare with the snapshots -----------------------------------------------

    @property
    def since_pending(self) -> bool:
        """The reports changed since ``since`` was computed and its compare for them has not
        arrived yet: its count is of the reports before (not to be shown as the current one)."""
        return self.since is not None and self._since_of is not self.reports

    def set_since(self, since: SinceSnapshot, reports: ReportSet) -> Update | None:
        """The reports ``reports`` compared with the newest differing snapshot; None when a
        newer load came meanwhile (it is being compared already)."""
        if reports is not self.reports:
            return None
        first = self.since is None
        self.since, self._since_of = since, reports
        if self.seen is not None:
            self.seen.from_snapshot(since)  # judged as the count judges (a first run: what the snapshot says)
            self.marks = self.seen.marks(reports.kernels)
        if not (first and since.regressions):
            return Update(reports)
        from ptotui.model.core.diff import regressed_kernels

        regressed = tuple(regressed_kernels(list(since.changes)))
        # Marked only if not seen since (after m in an earlier session, none are).
        marked = bool(set(regressed) & set(self.marks))
        return Update(reports, since=since, since_regressed=regressed, since_marked=marked)

    # -- what was seen ----------------------------------------------------------------

    def start_seen(self, saved: dict[str, Kernel] | None) -> Update | None:
        """What was seen when ptotui last closed has been read (after the first rows): the
        marks start from it. None when it was started already (``m`` or leaving came first)."""
        if self.seen is not None:
            return None
        seen = self._make_seen(saved)
        if self.reports is None:
            return Update()
        # The row the cursor starts on is not seen until a key moves onto it: a restart with
        # no key pressed shows the marks the last session left.
        self.marks = seen.marks(self.reports.kernels)
        return Update(self.reports)

    def _make_seen(self, saved: dict[str, Kernel] | None) -> Seen:
        from ptotui.model.history.since import Seen

        seen = self.seen = Seen(saved, self.ratio_pp)
        seen.start(self._first_kernels, self._first_at)  # a reload meanwhile is marked, as if seen was read at once
        if self.since is not None:
            seen.from_snapshot(self.since)
        return seen

    def seen_now(self, read_saved: Callable[[], dict[str, Kernel] | None]) -> Seen:
        """What was seen, read with ``read_saved`` when the worker's read has not arrived
        yet (``m`` or leaving in the first moments): what the user does then is not lost."""
        if self.seen is not None:
            return self.seen
        return self._make_seen(read_saved())

    def visit(self, name: str | None) -> bool:
        """The cursor reached ``name``: a marked kernel counts as seen. Whether it was marked
        (a kernel still flashing keeps its mark: the change has only just been shown)."""
        if name is None or name not in self.marks or name in self.flashing() or self.reports is None:
            return False
        kernel = self.reports.by_name().get(name)
        if kernel is not None and self.seen is not None:
            self.seen.see(kernel, self.reports.generated_at)
        del self.marks[name]  # seen: the mark has done its job
        return True

    def see_all(self, read_saved: Callable[[], dict[str, Kernel] | None]) -> dict[str, Kernel] | None:
        """``m``: every kernel counts as seen as it is now; what was seen, to save (None:
        nothing loaded, nothing to save)."""
        self.marks.clear()
        if self.reports is None:
            return None
        seen = self.seen_now(read_saved)
        seen.see_all(self.reports.kernels, self.reports.generated_at)
        return seen.kernels
