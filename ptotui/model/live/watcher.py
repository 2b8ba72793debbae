"""Keep a ReportSet true while generators rewrite the files (no Textual here).

The generators write in place, not atomically, so a reader can see an empty or
half-written file, several modify events per rewrite, and JSON and markdown
updated a moment apart; a bench host may also delete and recreate the whole
directory. :class:`StableSource` reads a file only when it holds still and
validates it, retrying with back-off; a JSON file still invalid after the retries is
handed to the parser as it is (the load then reads its twins, as a fresh start
would, unless they are older than its last good text, which is then kept), a
markdown or CSV file still incomplete falls back to its last good text;
:class:`ReportWatcher` turns file events into at most one reload per burst.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.core.tiers import Thresholds
from ptotui.model.i18n import _
from ptotui.model.live.pipeline import Shown, reload_reports
from ptotui.model.live.source import StableSource, signature
from ptotui.model.location import Location, looks_like_reports
from ptotui.model.read.loader import gc_paused
from ptotui.model.text import clean
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from watchdog.observers.api import BaseObserver

    from ptotui.model.bench.runs import RunsReader

HISTORY_SLICE_S = 0.2  # the run history read between loads, this long at a time
UI_WAIT_S = 2.0  # with ``wait_for_ui``: the longest the watches and the runs wait for the first frame


class ReportWatcher:
    """Watch a location and call ``on_load`` with each new ReportSet, from a thread.

    ``on_load`` must be thread-safe (the app passes ``post_message``). File events
    only mark the reports dirty; one loader thread waits for ``quiet`` seconds of
    calm (at most ``cap``), reloads, and skips the result when no file changed.
    A rescan every ``rescan`` seconds re-arms the watches after a directory was
    deleted and recreated, and catches what inotify cannot see.
    """

    def __init__(
        self,
        location: Location,
        on_load: Callable[[ReportSet], None],
        thresholds: Thresholds = Thresholds(),
        poll: bool = False,
        quiet: float = 0.05,
        cap: float = 1.0,
        rescan: float = 2.0,
        on_error: Callable[[str], None] | None = None,
        ratio_pp: float = 2.0,
        relocate: Callable[[], Location] | None = None,
        wait_for_ui: bool = False,
        runs: bool = True,
        min_change: float = FLOOR_PCT,
        give_way: Callable[[], None] | None = None,
        after_load: Callable[..., None] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.location = location
        # The time now for the runs reader (stamps ahead of it are refused): the UI gives time.time.
        self.clock = clock
        self.relocate = relocate
        self.on_load = on_load
        self.thresholds = thresholds
        self.poll = poll
        self.quiet, self.cap, self.rescan = quiet, cap, rescan
        self.on_error = on_error
        self.ratio_pp, self.min_change = ratio_pp, min_change
        self._shown = Shown()  # what the last reload gave the UI
        self.source = StableSource()
        # The bench run: bench/results and bench/generated, read on this thread like the reports
        # (the figures of past runs as 4-byte floats: what the charts and the detail show).
        # The reader is made when first asked for, after the first rows (see ``runs``).
        self._with_runs = runs
        self._runs: RunsReader | None = None
        self._runs_lock = threading.Lock()
        self._run_watches: dict[Path, object] = {}  # directory -> its watch on the observer
        self._watch_limit_said = False
        self._runs_loaded = -1  # the runs reader's version the last reload showed
        self._runs_ready = False  # set after the first rows: from then on each load has the runs
        # Called before each report.json of the runs is read (the app waits there while keys come).
        self.give_way = give_way
        # Called after each load, and after each slice of the run history with soon=True, on
        # this thread (the CLI gives the C heap's free pages back: :class:`ptotui.model.heap.Trimmer`).
        self.after_load = after_load
        self._next_rescan = 0.0
        self._runs_fresh = False  # the runs were read this turn (the rescan's look): not again for the load
        self._dirty = threading.Event()
        self._force = False
        self._last_event = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._observer: BaseObserver | None = None
        self._watched: dict[Path, tuple[int, int] | None] = {}
        self._signatures: tuple = ()
        # With ``wait_for_ui`` the watches are set up once the UI sets ``shown`` (its first
        # frame is out) or after 2 s: importing watchdog and starting its thread would
        # compete with that frame for the interpreter. A write meanwhile is caught below.
        self._ui_shown = threading.Event()
        if not wait_for_ui:
            self._ui_shown.set()

    # -- public --------------------------------------------------------------------

    @property
    def runs(self) -> RunsReader | None:
        """The bench runs' reader (None: not asked for), made on first use: the first rows
        never need it, and importing it was start-up time (tests/cli/test_startup_imports.py)."""
        if self._runs is None and self._with_runs:
            with self._runs_lock:
                if self._runs is None:
                    from ptotui.model.bench.runs import RunsReader

                    self._runs = RunsReader(
                        self.location.bench, give_way=self._give_way, precise=False, clock=self.clock
                    )
        return self._runs

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="ptotui-reload", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._dirty.set()
        observer, self._observer = self._observer, None
        if observer is not None:
            with contextlib.suppress(Exception):  # shutting down; nothing to report to
                observer.stop()
                observer.join(timeout=2)
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=3)

    def request_reload(self, force: bool = True) -> None:
        """Reload now (the ``r`` key); with ``force`` even when nothing changed."""
        self._force = self._force or force
        self._last_event = 0.0
        self._dirty.set()

    def load_now(self) -> None:
        """One load on the calling thread, without watching (for a worker or a script)."""
        self._reload(force=True, arm=False)

    def first_frame_shown(self) -> None:
        """The UI's first frame is out: the watches may be set up now (``wait_for_ui``)."""
        self._ui_shown.set()

    def ui_shown(self) -> bool:
        """Whether the UI's first frame is out (always, without ``wait_for_ui``)."""
        return self._ui_shown.is_set()

    @property
    def follows_runs(self) -> bool:
        """Whether the loads carry the bench runs (bench/results, bench/generated); asks
        nothing of the reader, which is made after the first frame."""
        return self._with_runs

    def parsed_state(self, path: Path) -> tuple[list[Kernel], str | None] | None:
        """What the last load parsed of a state matrix (its kernels, its stamp), if still current."""
        return self.source.parsed_state(path)

    def loaded_once_more(self) -> None:
        """Work of a load's size was done off this thread (the compare with the snapshots): the
        same step as after a load (the CLI gives the C heap's free pages back)."""
        if self.after_load is not None:
            self.after_load()

    def mark_dirty(self) -> None:
        self._last_event = time.monotonic()
        self._dirty.set()

    # -- thread --------------------------------------------------------------------

    def _run(self) -> None:
        self._safely(lambda: self._reload(force=True, arm=False), "reload")  # first rows before the watch
        self._ui_shown.wait(timeout=UI_WAIT_S)
        self._runs_ready = True
        self._safely(self._arm)
        if self.runs is not None and self._shown.reports is not None:
            self.mark_dirty()  # the load with the runs (after a failed first load: the next change, or r)
        if self._current_signatures() != self._signatures:
            self.mark_dirty()
        while not self._stop.is_set():
            self._step()

    def _step(self) -> None:
        """One turn of the loader: a load when files changed, else a slice of the run history
        while it is unread, else (every ``rescan`` seconds) a look at what no event reports."""
        history = self._history_due()
        woke = self._dirty.wait(0.0 if history else self.rescan)
        self._runs_fresh = False
        if self._stop.is_set():
            return
        try:
            if woke:
                self._settle()
                self._dirty.clear()
                force, self._force = self._force, False
                self._reload(force=force)
            elif history and time.monotonic() < self._next_rescan:
                self._read_run_history()
            else:
                self._next_rescan = time.monotonic() + self.rescan
                moved = self._follow_path()
                self._arm()
                if moved or self._current_signatures() != self._signatures or self._runs_moved():
                    self._reload(force=moved)
        except Exception as exc:  # noqa: BLE001 - the loader thread must outlive any bug
            self._failed("reload", exc)

    def _settle(self) -> None:
        started = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            calm_for = now - self._last_event
            if calm_for >= self.quiet or now - started >= self.cap:
                return
            time.sleep(min(self.quiet - calm_for, self.cap - (now - started)) + 0.001)

    def _follow_path(self) -> bool:
        """While there is no report here, resolve the user's PATH again: a checkout whose
        bench/reports does not exist yet resolved to the checkout itself."""
        if self.relocate is None or looks_like_reports(self.location):
            return False
        found = self.relocate()
        if found == self.location or not looks_like_reports(found):
            return False
        self.location = found
        self.source = StableSource()
        if self._with_runs:
            with self._runs_lock:
                self._runs = None  # made again for the new location when next asked for
            self._runs_loaded = -1
        return True

    def _give_way(self) -> None:
        if self.give_way is not None:
            self.give_way()

    def _history_due(self) -> bool:
        """The runs behind each kernel's newest are still to be read (after the load that
        showed the newest ones)."""
        return self._runs_ready and self._runs_loaded >= 0 and self.runs is not None and not self.runs.complete

    def _read_run_history(self) -> None:
        """One slice of the run history (10,000 kernels x 50 runs is half a million files):
        between the loads, a slice at a time, so a landed run or a rewrite waits for one slice
        at most. The slice that completes it starts a load (the comparison since the snapshot
        and the charts take the whole history)."""
        if self.runs is None:
            return
        with gc_paused():
            done = self.runs.read_history(HISTORY_SLICE_S)
        if done:
            self.mark_dirty()
        if self.after_load is not None:
            self.after_load(soon=not done)

    def _runs_moved(self) -> bool:
        """The rescan's look at the run directories: a new run directory inside a kernel's
        directory is seen only here (one watch per kernel directory would not scale)."""
        if not self._runs_ready or self.runs is None:
            return False
        if not self._runs_fresh:  # read once a turn: 10,000 kernel directories take a while to look at
            self.runs.read(history=False)
            self._runs_fresh = True
        if self._runs_loaded < 0 and self._shown.reports is None:
            # Nothing shown yet (the first load failed): the runs read for the first time are no
            # change to retry it for; a change, a new run or `r` is.
            self._runs_loaded = self.runs.version
            return False
        return self.runs.version != self._runs_loaded

    def _current_signatures(self) -> tuple:
        return tuple(signature(p) for p in self.location.watched_files())

    def _safely(self, step: Callable[[], None], what: str = "watch") -> None:
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - the loader thread must outlive any bug
            self._failed(what, exc)

    def _failed(self, what: str, exc: Exception) -> None:
        # Take the files as they are now as seen: the rescan would otherwise retry (and
        # report) the same failure every few seconds; a change or `r` retries it.
        with contextlib.suppress(Exception):
            self._signatures = self._current_signatures()
            if self._runs_ready and self.runs is not None:  # and the runs as read: a new run retries it
                self._runs_loaded = self.runs.version
        if self.on_error:
            self.on_error(f"{what} failed: {type(exc).__name__}: {clean(exc)}")

    def _reload(self, force: bool, arm: bool = True) -> None:
        # The collector stays off until the load's temporaries (a copy of every kernel,
        # most dropped again for the unchanged originals) are freed: the first collection
        # afterwards then walks only what the load kept, not 10k throwaway kernels
        # (benchmarks/bench_scale.py: key presses during a reload).
        with gc_paused():
            reports = self._read(force, arm)
        if reports is not None:
            self.on_load(reports)
            if self.after_load is not None:
                self.after_load()

    def _read(self, force: bool, arm: bool) -> ReportSet | None:
        """The new ReportSet, or None when nothing changed since the last one."""
        if arm:
            self._arm()
        signatures = self._current_signatures()
        if not force and signatures == self._signatures and not self._runs_moved():
            return None  # a trailing event (close after write) of files already read
        # The first rows never wait for the run history (10,000 kernels x 50 runs is half a
        # million report.json files): the runs join from the load after the first frame.
        runs = self.runs if self._runs_ready else None
        reports, self._shown = reload_reports(
            self.location,
            self.source,
            self._shown,
            self.thresholds,
            self.ratio_pp,
            force,
            min_change=self.min_change,
            runs=runs,
            runs_fresh=self._runs_fresh,
        )
        self._runs_fresh = False
        if runs is not None:
            self._runs_loaded = runs.version
        if arm:
            self._arm_runs()
        # Each file as it was when read, not as it was before the load began: the events of
        # a write the load already read (the close after a long write) then reload nothing.
        source = self.source
        self._signatures = tuple(
            source.take_read_signature(p, s) for p, s in zip(self.location.watched_files(), signatures, strict=True)
        )
        source.read_signatures.clear()
        return reports

    # -- watches -------------------------------------------------------------------

    def _dir_ids(self) -> dict[Path, tuple[int, int] | None]:
        ids: dict[Path, tuple[int, int] | None] = {}
        for directory in (self.location.bench, self.location.reports):
            try:
                st = os.stat(directory)
                ids[directory] = (st.st_dev, st.st_ino)
            except OSError:
                ids[directory] = None
        return ids

    def _arm(self) -> None:
        """(Re)start the observer when a watched directory appeared, vanished or was replaced."""
        ids = self._dir_ids()
        alive = self._observer is not None and self._observer.is_alive()
        if ids == self._watched and (alive or not any(ids.values())):
            return
        self._watched = ids
        old, self._observer = self._observer, None
        if old is not None:
            with contextlib.suppress(Exception):  # the old observer may already be dead
                old.stop()
        directories = [d for d, ident in ids.items() if ident is not None]
        if not directories:
            return
        try:
            self._observer = self._observe(directories)
        except OSError as exc:
            if self.poll:  # a directory gone or unreadable meanwhile: the load says so, the rescan re-arms
                return
            # The host's inotify limit (watches or instances): polled from now on, as with --poll
            # (the report directories by the polling observer, the bench run by the rescan).
            self._cannot_watch(directories[0], exc)
            self.poll = True
            with contextlib.suppress(OSError):
                self._observer = self._observe(directories)
        self._run_watches = {}
        self._arm_runs()

    def _observe(self, directories: list[Path]) -> BaseObserver:
        """A started observer of ``directories`` (not recursive); an OSError from inotify stops
        what it had started and is raised."""
        observer: BaseObserver
        if self.poll:
            from watchdog.observers.polling import PollingObserver

            observer = PollingObserver(timeout=0.25)
        else:
            from watchdog.observers import Observer

            observer = Observer()
        from ptotui.model.live.watch_events import DirtyOnChange

        names = {p.name for p in self.location.watched_files()} | {self.location.reports.name}
        handler = DirtyOnChange(names, self.mark_dirty)
        try:
            for directory in directories:
                try:
                    observer.schedule(handler, str(directory), recursive=False)
                except OSError:  # gone since it was looked at: the rescan re-arms
                    continue
            observer.daemon = True
            observer.start()
        except OSError:
            with contextlib.suppress(Exception):  # the emitters that did start, and their inotify
                observer.unschedule_all()
            raise
        return observer

    def _cannot_watch(self, directory: Path, exc: OSError) -> None:
        """One warning, whichever watch was refused first."""
        if self._watch_limit_said or not self.on_error:
            return
        self._watch_limit_said = True
        said = _("cannot watch {directory} ({error}): the reports and the bench run are polled instead")
        self.on_error(said.format(directory=directory, error=clean(exc.strerror or exc)))

    def _arm_runs(self) -> None:
        """Watch the levels of the bench run that matter: results/ and generated/ and their
        family directories (a kernel directory replaced in generated/ is an event there), and
        each run directory without report.json (its report.json landing). A few dozen watches
        for 10,000 kernels; a new run directory inside a kernel's directory is found by the
        rescan. With ``--poll`` nothing is added: the rescan polls the run directories itself."""
        observer = self._observer
        if observer is None or self.poll or self.runs is None:
            return
        bench = self.location.bench
        wanted = {bench / "results", bench / "generated", *self.runs.kernel_dirs(), *self.runs.pending_dirs()}
        wanted = {d for d in wanted if d.is_dir()}
        for gone in set(self._run_watches) - wanted:
            with contextlib.suppress(Exception):
                observer.unschedule(self._run_watches.pop(gone))  # type: ignore[arg-type]
        new = wanted - set(self._run_watches)
        if not new:
            return
        from ptotui.model.live.watch_events import DirtyOnAny

        handler = DirtyOnAny(self.mark_dirty)
        for directory in sorted(new):
            try:
                self._run_watches[directory] = observer.schedule(handler, str(directory), recursive=False)
            except OSError as exc:
                if not self._watch_limit_said and self.on_error:
                    self._watch_limit_said = True
                    said = _("cannot watch {directory} ({error}): the bench run is polled every few seconds instead")
                    self.on_error(said.format(directory=directory, error=clean(exc.strerror or exc)))
                return


class Mailbox:
    """Hands loads from the loader thread to a receiver that may not exist yet.

    Until a receiver is attached only the newest load (and errors) are kept; after,
    every delivery goes straight to it. The receiver's callables must be thread-safe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._on_load: Callable[[ReportSet], object] | None = None
        self._on_error: Callable[[str], object] | None = None
        self._pending: ReportSet | None = None
        self._errors: list[str] = []

    def attach(self, on_load: Callable[[ReportSet], object], on_error: Callable[[str], object]) -> ReportSet | None:
        """Route future deliveries to the receiver; return the load that was waiting, if any."""
        with self._lock:
            self._on_load, self._on_error = on_load, on_error
            pending, self._pending = self._pending, None
            errors, self._errors = self._errors, []
        for error in errors:
            on_error(error)
        return pending

    def deliver(self, reports: ReportSet) -> None:
        with self._lock:
            if self._on_load is None:
                self._pending = reports
                return
            on_load = self._on_load
        on_load(reports)

    def error(self, text: str) -> None:
        with self._lock:
            if self._on_error is None:
                self._errors.append(text)
                return
            on_error = self._on_error
        on_error(text)
