"""The App: wires the loader thread to the screens. Logic lives in the screens and the model."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import importlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual import events
from textual.app import App, ScreenStackError, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.signal import Signal
from textual.timer import Timer
from textual.worker import Worker

from ptotui.app.keys import Command, commands, keys_of, remapped
from ptotui.app.messages import (
    ColumnsChosen,
    CompareLoaded,
    HistoryLoaded,
    HookFailed,
    LoaderError,
    ReloadRequested,
    ReportsLoaded,
    SeenRead,
    SeenSaved,
    SinceComputed,
    TriageDone,
    TriageRequested,
)
from ptotui.app.screens.base import thread_worker, warn_if_failed
from ptotui.app.screens.main import MainScreen
from ptotui.model.config import save_columns, save_lang
from ptotui.model.i18n import N_, _, language, ngettext, set_language
from ptotui.model.live.watcher import Mailbox, ReportWatcher
from ptotui.model.location import Location, bundled_samples
from ptotui.model.read.loader import gc_paused
from ptotui.model.session import Session, Update
from ptotui.model.text import clean, one_line
from ptotui.model.triage import Status, TriageStore, default_state_file
from ptotui.model.types import Kernel, ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.history.compare import Source
    from ptotui.model.history.snapshots import History, HistoryReader
    from ptotui.model.options import DashboardOptions

EXIT_GRACE = 3.0  # seconds a SIGTERM/SIGHUP exit may take before the process ends anyway
QUIET = 0.3  # seconds without a key or click before start-up work left over runs


# Textual's own words that the app shows: its system commands in the palette, the
# palette's search placeholder and its footer key (description and tooltip). Marked
# here for the catalogue; translated where they are drawn (get_system_commands,
# action_command_palette, widgets/footer.py).
TEXTUAL_WORDS = (
    N_("Theme"),
    N_("Change the current theme"),
    N_("Quit"),
    N_("Quit the application as soon as possible"),
    N_("Keys"),
    N_("Hide the keys and widget help panel"),
    N_("Show help for the focused widget and a summary of available keys"),
    N_("Minimize"),
    N_("Minimize the widget and restore to normal size"),
    N_("Maximize"),
    N_("Maximize the focused widget"),
    N_("Screenshot"),
    N_("Save an SVG 'screenshot' of the current screen"),
    N_("Bell"),
    N_("Ring the bell"),
    N_("palette"),
    N_("Open the command palette"),
)


def _names(kernels: Iterable[str], shown: int = 6) -> str:
    """Kernel names for a notification: the first few, then how many more."""
    unique = list(dict.fromkeys(one_line(clean(k), 60) for k in kernels))
    if len(unique) <= shown:
        return ", ".join(unique)
    rest = len(unique) - shown
    return ngettext("{names} and {n} more", "{names} and {n} more", rest).format(
        names=", ".join(unique[:shown]), n=rest
    )


def _read_and_freeze(reader: HistoryReader, location: Location) -> History:
    """The first history read, with the collector paused, then frozen out of its full passes.

    The history of thousands of snapshots is hundreds of thousands of small objects
    (4,000 snapshots x 50 kernels: 420,000) that live as long as the app, and later
    updates keep them (they add points). Each full collection walked all of them with
    the interpreter held: 130 ms during the read, then 0.3-0.4 s every so often while
    a bench run's files were read, stalling whatever key was pressed then
    (benchmarks/bench_history.py). The read makes no cyclic garbage; what the UI
    thread left meanwhile is frozen with it, once (the start-up freeze explains why
    only once)."""
    with gc_paused():
        history = reader.read(location)
        gc.freeze()
    return history


class PtoTuiApp(App):
    """ptotui: a live dashboard over a PTO bench reports directory."""

    CSS_PATH = "ptotui.tcss"
    TITLE = "ptotui"
    BINDINGS = [
        Binding("q", "quit", N_("Quit"), id="app.quit"),
        # Textual's ctrl+c only says "press ctrl+q"; in a terminal tool it quits. (In the
        # filter and note inputs it still copies: the focused widget's binding comes first.)
        Binding("ctrl+c", "quit", N_("Quit"), show=False, id="app.interrupt"),
        Command(
            "question_mark,f1",
            "show_help",
            N_("Help"),
            key_display="?",
            id="app.help",
            title=N_("Show keys"),
            help=N_("Every key binding"),
        ),
        Binding("l", "switch_language", N_("English / 中文"), show=False, id="app.language"),
    ]

    def __init__(
        self,
        location: Location,
        options: DashboardOptions,
        *,
        watcher: ReportWatcher,
        mailbox: Mailbox,
        compare: list[Source] | None = None,
        watch: bool = True,
        clock: Callable[[], float] = time.time,
        gc_paused: bool = False,
    ) -> None:
        super().__init__()
        self._compare_watchers: list[ReportWatcher] = []
        self.options = options  # the flags; git: history also from the versions committed to git
        self.config = options.settings  # the settings file, as the column choice leaves it
        self.keymap: dict[str, str] = dict(self.config.keys)  # binding id -> keys, from the settings file
        self.set_keymap(self.keymap)
        self._gc_paused = gc_paused
        self._gc_managed = gc_paused  # the CLI's choice: the app may tune the collector
        self.clock = clock
        self.state_file = options.state or default_state_file()
        self._history_reader: tuple[Location, HistoryReader] | None = None
        self.thresholds = options.thresholds
        set_language(options.language)
        self.ratio_pp = options.ratio_pp
        self.session = Session(location, options.ratio_pp, clock, compare=compare)
        # Published after every step of the session (an Update): the screens draw from it.
        self.session_changed: Signal[Update] = Signal(self, "session-changed")
        self.main = MainScreen(self.session, options.filter, sort=(self.config.sort, self.config.reverse))
        self.watcher = watcher
        watcher.give_way = self._give_way  # the run history is read while no keys come
        self.mailbox = mailbox
        self._watch = watch
        self._last_input: float | None = None  # monotonic time of the last key or click (None: none yet)
        # Set as the app starts to leave, on every path (q, a signal, run_test's end): the
        # waits on other threads (the history reader's give-way) end with it.
        self._leaving = threading.Event()
        self._later: list[Callable[[], None]] | None = None  # start-up work left for a quiet moment
        self._later_timer: Timer | None = None

    # What the screens read of the session (it owns them).

    @property
    def location(self) -> Location:
        return self.session.location

    @property
    def history(self) -> History | None:
        return self.session.history

    @property
    def triage(self) -> TriageStore | None:
        return self.session.triage

    def get_default_screen(self) -> Screen:
        """The main screen is Textual's default screen, not pushed over it in on_mount: a
        screen pushed while the app is still mounting is laid out and rendered inside
        Textual's start-up batch, and that first frame is thrown away (never displayed), so
        the rows came one full render later (benchmarks/bench_startup.py)."""
        return self.main

    # Called on the loader thread: post only.
    def _loaded_from_thread(self, reports: ReportSet) -> None:
        self.post_message(ReportsLoaded(reports))

    def _error_from_thread(self, text: str) -> None:
        self.post_message(LoaderError(text))

    def on_mount(self) -> None:
        self._exit_on_signals()
        if self._gc_paused:
            self.set_timer(5.0, self._resume_gc)  # reports slow to arrive: do not wait for them
        # The footer, filter line and changes pane come once the first rows are on screen;
        # if the reports are slow or the first load fails, no later than this.
        self.set_timer(2.0, self._finish_start)
        if self.options.settings_warning:
            self.notify(
                self.options.settings_warning, title=_("Settings"), severity="warning", markup=False, timeout=10
            )
        pending = self.mailbox.attach(self._loaded_from_thread, self._error_from_thread)
        if pending is not None:  # loaded while Textual started: into the very first frame
            self.on_reports_loaded(ReportsLoaded(pending))
        if not self._watch:
            self._load_once()
        if self.session.compare_sources:
            self.set_timer(0.3, self._start_compare)  # after the first frame: the rows come first

    @thread_worker(N_("Reading the reports"), group="load", exclusive=True)
    def _load_once(self) -> None:
        self.watcher.load_now()

    def get_driver_class(self) -> type[Driver]:
        """In a terminal, Textual's driver with a prompt escape key (app/driver.py)."""
        driver = super().get_driver_class()
        from textual.drivers.linux_driver import LinuxDriver

        if driver is LinuxDriver:
            from ptotui.app.driver import PromptEscapeDriver

            return PromptEscapeDriver
        return driver

    async def on_event(self, event: events.Event) -> None:
        """Once the app is leaving (q, a signal), keys and clicks do nothing: a note typed
        fast after q opened its screen on the closing app, which crashed in its on_mount."""
        if isinstance(event, events.InputEvent):
            if self.return_code is not None:
                return
            self._last_input = time.monotonic()
        await super().on_event(event)

    def on_unmount(self) -> None:
        self._exit_on_signals(install=False)
        session = self.session
        if session.reports is not None:  # (before the first load nothing was seen)
            self.save_seen(session.seen_now(lambda: self.saved_seen()[0]).kernels)
        self.watcher.stop()
        for watcher in self._compare_watchers:
            watcher.stop()
        if self._history_reader is not None:
            self._history_reader[1].close()
        self._resume_gc()
        if self.triage is not None:  # a key pressed just before q: write it before leaving
            with contextlib.suppress(OSError, ValueError):
                self.triage.flush()

    def _exit_on_signals(self, install: bool = True) -> None:
        """SIGTERM and SIGHUP end the app through Textual, which restores the terminal
        (the default action killed the process in the alternate screen, mouse tracking on)."""
        if threading.current_thread() is not threading.main_thread():
            return  # asyncio takes signals on the main thread only
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if install:
                loop.add_signal_handler(signum, functools.partial(self._signalled, signum))
            else:
                loop.remove_signal_handler(signum)

    def _signalled(self, signum: int) -> None:
        """Leave through Textual; if that has not ended the process in EXIT_GRACE seconds,
        end it anyway. When the terminal is gone (tmux kill-session, a dropped SSH link),
        Textual's writer thread and its shutdown could wait on each other for ever: seen as
        ptotui processes left running for hours on a deleted pty. By then the triage file
        and what was seen are saved (on unmount, before the terminal is closed)."""
        guard = threading.Timer(EXIT_GRACE, os._exit, (128 + signum,))
        guard.daemon = True
        guard.start()
        self.exit(return_code=128 + signum)

    def _first_frame_shown(self) -> None:
        self.watcher.shown.set()
        # Not at once: the frame is still being written out (Textual's writer thread needs
        # the interpreter, which the read would hold), and the rows came ~130 ms later at 10k.
        self.set_timer(0.3, self._read_seen)
        self._resume_gc()
        self._finish_start()

    def _finish_start(self) -> None:
        """What start-up leaves for after the first rows, each step at a moment when no key
        or click came for QUIET seconds (once; a second call does nothing). A key typed as
        the rows appeared waited for all of it: mounting the footer restyled and redrew the
        whole screen (~50 ms), and the first ``?`` imported and built the help (~25 ms).
        A key that needs a hidden widget (``/``, ``C``) mounts it itself."""
        if self._later is not None:
            return
        self._later = [self.main.mount_hidden, self._prepare_screens]
        self._later_timer = self.set_interval(0.1, self._run_later, name="start-up work")

    def _run_later(self) -> None:
        """One step per tick: each gets a frame of its own."""
        if self._keys_coming():
            return
        if self._later:
            self._later.pop(0)()
        if not self._later and self._later_timer is not None:
            self._later_timer.stop()

    def _prepare_screens(self) -> None:
        """Import the help and detail screens and make the main screen's help, so that the
        first ``?`` and the first ``enter`` of the session cost what later ones do."""
        importlib.import_module("ptotui.app.screens.detail")
        self._help_screen(type(self.main))

    def _resume_gc(self) -> None:
        """End of start-up: what exists now mostly lives as long as the app (modules,
        classes, widgets), so freeze it out of every later full collection, then collect
        as usual. Not at every load: objects frozen later would include UI strips that
        turn into cyclic garbage at the next frame and could never be collected (measured:
        +430 MB over 1,000 reloads when each load was frozen). The first history read is
        frozen once more (``_read_and_freeze``)."""
        if self._gc_paused:
            self._gc_paused = False
            gc.freeze()
            gc.enable()

    def on_reports_loaded(self, message: ReportsLoaded) -> None:
        session = self.session
        session.relocate(self.watcher.location)  # PATH resolved anew once reports appeared
        store = session.open_triage(self.state_file, self.options.read_only)
        self._triage_io(store.reload)  # first read, or entries another ptotui wrote meanwhile
        self._react(session.apply(message.reports))
        if session.history is not None:
            self._compare_with_snapshots(message.reports)
        if not self.watcher.shown.is_set():
            self.call_after_refresh(self._first_frame_shown)
        first = session.history_due(message.reports, self.options.git)
        if first is not None:

            def read() -> None:
                self._read_history(first)

            if first:
                self.set_timer(0.5, read)  # after the first frame: the rows do not need the snapshots
            else:
                read()  # (a zero-interval Textual timer divides by zero when it fires late)

    # -- --compare -------------------------------------------------------------------

    def _start_compare(self) -> None:
        for index, source in enumerate(self.session.compare_sources):
            deliver = functools.partial(self._compare_from_thread, index)
            if source.location is not None:  # another host's directory: watched like the main one
                watcher = ReportWatcher(
                    source.location, deliver, self.thresholds, poll=self.options.poll, ratio_pp=self.ratio_pp
                )
                if self._watch:
                    watcher.start()
                else:
                    self._load_compared(watcher)
                self._compare_watchers.append(watcher)
            else:  # a revision does not change: read once
                self._read_compared(index, source)

    @thread_worker(N_("Reading a --compare directory"), group="compare")
    def _load_compared(self, watcher: ReportWatcher) -> None:
        watcher.load_now()

    @thread_worker(N_("Reading a --compare revision"), group="compare")
    def _read_compared(self, index: int, source: Source) -> None:
        from ptotui.model.history import compare

        self._compare_from_thread(index, compare.read(source, self.location, self.thresholds))

    def _compare_from_thread(self, index: int, reports: ReportSet) -> None:
        self.post_message(CompareLoaded(index, reports))

    def on_compare_loaded(self, message: CompareLoaded) -> None:
        self.session_changed.publish(self.session.set_compared(message.index, message.reports))

    @thread_worker(N_("Reading the history"), group="history", exclusive=True)
    def _read_history(self, first: bool) -> None:
        from ptotui.model.history.snapshots import HistoryReader

        location = self.location
        reader = self._history_reader
        if reader is None or reader[0] != location:  # one reader per reports directory: it caches
            if reader is not None:
                reader[1].close()
            git = self.options.git and location.bench.resolve() != bundled_samples().resolve()  # not ptotui's own repo
            reader = self._history_reader = (location, HistoryReader(self.thresholds, git, self._give_way))
        if first and self._gc_managed:
            history = _read_and_freeze(reader[1], location)
        else:
            history = reader[1].read(location)
        self.post_message(HistoryLoaded(history, first))

    def _give_way(self) -> None:
        """On a history reader's thread, before each file: while keys are coming, wait. The
        first read of 4,000 snapshots is 2.6 s of CPU; on a machine busy elsewhere it shared
        one core and the interpreter with the UI thread, and keys took up to 0.27 s
        (benchmarks/bench_history.py). The history is not needed to answer a key."""
        while self._keys_coming() and not self._leaving.wait(0.05):
            pass

    def _keys_coming(self) -> bool:
        """Whether a key or click came in the last QUIET seconds. Measured from the last
        one, never from the clock's zero: a machine booted minutes ago reads small values."""
        last = self._last_input
        return last is not None and time.monotonic() - last < QUIET

    def exit(self, result: Any = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        self._leaving.set()
        super().exit(result, return_code, message)

    async def _shutdown(self) -> None:
        # Every way out comes here (run_test's end calls it without exit()).
        self._leaving.set()
        await super()._shutdown()

    def on_history_loaded(self, message: HistoryLoaded) -> None:
        for note in message.history.notes:  # git missing, a shallow clone: each said once
            self.notify(str(note), title=_("History from git"), severity="warning", markup=False, timeout=8)
        self.session_changed.publish(self.session.set_history(message.history))
        if self.session.reports is not None:
            self._compare_with_snapshots(self.session.reports)

    # -- regressions -------------------------------------------------------------------

    def _compare_with_snapshots(self, reports: ReportSet) -> None:
        """Diff the reports with the newest snapshot that differs, off the UI thread."""
        history = self.session.history
        if history is None:
            return
        if reports.bench_run is None and self._watch and getattr(self.watcher, "runs", None) is not None:
            return  # the runs join from the next load: without them every ratio drop would count
        self._compare_since(history, self.session.location, reports)

    @thread_worker(N_("Comparing with the snapshots"), group="since", exclusive=True)
    def _compare_since(self, history: History, location: Location, reports: ReportSet) -> None:
        from ptotui.model.history.since import measure_since

        source = self.watcher.source if self.watcher.location == location else None
        bench = reports.bench_run  # the runs give the snapshot's latencies: which side moved since
        since = measure_since(
            location,
            reports,
            history,
            self.thresholds,
            self.ratio_pp,
            self.options.min_change,
            bench.runs if bench is not None else None,
            source.parsed_state if source is not None else None,
        )
        self.post_message(SinceComputed(since, reports))
        if self.watcher.after_load is not None:  # the comparison's peak (a second state matrix) given back
            self.watcher.after_load()

    def on_since_computed(self, message: SinceComputed) -> None:
        update = self.session.set_since(message.since, message.reports)
        if update is not None:  # (None: a newer load is being compared already)
            self._react(update)

    def _react(self, update: Update) -> None:
        """Announce what a step of the session brought, then let the screens draw it."""
        if update.changes:
            self._alert_regressions(update)
        since = update.since
        if since is not None and update.since_regressed:
            # Marked only if not seen since (after m in an earlier session, none are).
            if update.since_marked:
                listed = _("C lists them; the table marks those you have not seen.")
            else:
                listed = _("C lists them.")
            said = ngettext(
                "{n} regression since snapshot {stamp}: {kernels}.",
                "{n} regressions since snapshot {stamp}: {kernels}.",
                since.regressions,
            )
            self.notify(
                said.format(n=since.regressions, stamp=since.stamp, kernels=_names(update.since_regressed))
                + " "
                + listed,
                title=_("Regressions"),
                severity="warning",
                markup=False,
                timeout=10,
            )
        self.session_changed.publish(update)

    def _redraw(self) -> None:
        """Something the rows show changed outside a load (history, triage, a compared source)."""
        self.session_changed.publish(Update(self.session.reports))

    def _alert_regressions(self, update: Update) -> None:
        """A reload brought regressions: say which, ring, and run the --on-regression hook once."""
        from ptotui.model.core.diff import baseline_kernels

        kernels = update.regressed  # counted as diff counts them: a kernel once
        if not kernels:
            moved = baseline_kernels(update.changes)
            if moved:  # the goalpost moved: worth a word, never the bell or the hook
                self.notify(
                    _("only the baseline moved for {kernels}: not a PTO regression").format(kernels=_names(moved)),
                    title=_("Baseline moved"),
                    severity="information",
                    markup=False,
                    timeout=6,
                )
            return
        self.notify(
            ngettext(
                "{n} kernel regressed on reload: {kernels}", "{n} kernels regressed on reload: {kernels}", len(kernels)
            ).format(n=len(kernels), kernels=_names(kernels)),
            title=_("Regression"),
            severity="error",
            markup=False,
            timeout=12,
        )
        if self.options.bell:
            self.bell()
        if self.options.on_regression and update.previous is not None and update.reports is not None:
            import json

            from ptotui.model.core.diff import payload

            data = json.dumps(payload(update.previous, update.reports, list(update.changes)), indent=2) + "\n"
            self._run_hook(self.options.on_regression, data)

    @thread_worker(N_("Running --on-regression"), group="hook")
    def _run_hook(self, command: str, data: str) -> None:
        """On a worker thread: the UI never waits for the hook."""
        import subprocess

        try:
            # The command is the user's own --on-regression flag, run as a shell would.
            done = subprocess.run(  # noqa: S603 - the user's own command line, by design
                ["/bin/sh", "-c", command], input=data, capture_output=True, text=True, timeout=120, check=False
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self.post_message(HookFailed(_("--on-regression failed: {error}").format(error=exc)))
            return
        if done.returncode != 0:
            tail = (done.stderr or "").strip().splitlines()[-1:] or [""]
            self.post_message(
                HookFailed(_("--on-regression exited {code}: {error}").format(code=done.returncode, error=tail[0]))
            )

    def on_hook_failed(self, message: HookFailed) -> None:
        self.notify(one_line(clean(message.text), 300), severity="warning", markup=False, timeout=10)

    # -- what was seen ---------------------------------------------------------------------

    @thread_worker(N_("Reading what was seen"), group="seen")
    def _read_seen(self) -> None:
        """On a worker thread, once the first rows are on screen: what the user had seen in
        this reports directory when ptotui last closed. At 10,000 kernels that is ~0.3 s
        of CPU, which the first rows waited for when it was read on the UI thread."""
        self.post_message(SeenRead(*self.saved_seen()))

    def saved_seen(self) -> tuple[dict[str, Kernel] | None, list[ReadWarning]]:
        from ptotui.model.history.since import load_seen, seen_file

        warnings: list[ReadWarning] = []
        return load_seen(seen_file(self.state_file), str(self.location.reports.resolve()), warnings), warnings

    def on_seen_read(self, message: SeenRead) -> None:
        for warning in message.warnings:
            self.notify(str(warning), title=_("What was seen"), severity="warning", markup=False, timeout=10)
        update = self.session.start_seen(message.saved)
        if update is not None:
            self.session_changed.publish(update)

    def on_seen_saved(self, message: SeenSaved) -> None:
        self.save_seen(message.seen)

    def save_seen(self, seen: dict[str, Kernel]) -> None:
        from ptotui.model.history.since import save_seen, seen_file

        if self.options.read_only:  # serve --read-only writes nothing, "last looked" included
            return
        try:
            save_seen(seen_file(self.state_file), str(self.location.reports.resolve()), seen)
        except OSError as exc:
            self.notify(_("What was seen is not saved: {why}").format(why=exc), severity="warning", markup=False)

    # -- triage ----------------------------------------------------------------------

    def triage_status(self, kernel: Kernel) -> Status:
        return self.session.triage_status(kernel)

    def may_triage(self) -> bool:
        """False, said on screen, when the triage keys are off."""
        if self.options.read_only:
            self.notify(_("Read-only: triage is off here."), title=_("Triage"), severity="warning", markup=False)
        return not self.options.read_only

    def on_triage_requested(self, message: TriageRequested) -> None:
        if self.set_triage(message.kernel, message.state, message.note):
            self._redraw()

    def set_triage(self, kernel: Kernel, state: str | None, note: str | None = None) -> bool:
        """Show the change at once; write it on a worker (neither state nor note: clear)."""
        store = self.session.triage
        if store is None or not self.may_triage():
            return False
        try:
            store.stage(kernel, state, note)
        except (OSError, ValueError) as exc:
            self.notify(_("Triage not saved: {why}").format(why=exc), severity="error", markup=False)
            return False
        self._triage_io(store.flush)
        return True

    def _triage_io(self, work: Callable[[], None]) -> None:
        """Triage file I/O off the UI thread: a big shared file must not stall keys. The store
        serialises its readers and writers and keeps staged changes in order."""
        store = self.session.triage
        if store is not None:
            self._triage_worker(store, work)

    @thread_worker(N_("Reading or writing the triage file"), group="triage")
    def _triage_worker(self, store: TriageStore, step: Callable[[], None]) -> None:
        before, warned = store.entries, len(store.warnings)
        try:
            step()
        except (OSError, ValueError) as exc:
            self.post_message(TriageDone(store, True, _("Triage not saved: {why}").format(why=exc)))
            return
        self.post_message(TriageDone(store, store.entries != before or len(store.warnings) != warned))

    def on_triage_done(self, message: TriageDone) -> None:
        if message.store is not self.session.triage:
            return  # the reports moved to another directory meanwhile
        if message.error:
            self.notify(message.error, severity="error", markup=False)
        if message.changed:
            self._redraw()

    # -- settings --------------------------------------------------------------------

    @property
    def lang(self) -> str:
        """The language in force (model/i18n.py): every screen draws its words in it."""
        return language()

    @lang.setter
    def lang(self, value: str) -> None:
        set_language(value)

    def action_switch_language(self) -> None:
        """``l``: English / 中文 for the whole app, kept in the settings file like the columns."""
        self.lang = "zh" if self.lang == "en" else "en"
        for name in [n for n in self._installed_screens if n.startswith("help-")]:
            if all(screen is not self._installed_screens[name] for screen in self.screen_stack):
                self.uninstall_screen(name)  # built in the old language; the next ? builds it anew
        installed = [s for s in self._installed_screens.values() if isinstance(s, Screen)]
        # Each widget that draws words, then the screen: those shown, and those installed
        # to be shown later (the overview, the detail), which were built in the old language.
        for screen in dict.fromkeys([*self.screen_stack, *installed]):
            for node in [*screen.walk_children(), screen]:
                redraw = getattr(node, "language_changed", None)
                if redraw is not None:
                    redraw()
        self.config = replace(self.config, lang=self.lang)
        if self.config.path is not None:
            try:
                save_lang(self.config.path, self.lang)
            except (OSError, ValueError) as exc:
                self.notify(_("Language not saved: {why}").format(why=exc), severity="warning", markup=False, timeout=8)

    def on_columns_chosen(self, message: ColumnsChosen) -> None:
        self.save_columns(message.columns)

    def save_columns(self, columns: tuple[str, ...]) -> None:
        """Keep the column choice in the settings file, if the app has one."""
        self.config = self.config.with_columns(columns)
        if self.config.path is None:
            return
        try:
            save_columns(self.config.path, columns)
        except (OSError, ValueError) as exc:
            self.notify(_("Columns not saved: {why}").format(why=exc), severity="warning", markup=False, timeout=8)

    # -- toasts ----------------------------------------------------------------------

    def _refresh_notifications(self) -> None:
        super()._refresh_notifications()
        self.call_later(self._drop_empty_toast_holders)

    def _drop_empty_toast_holders(self) -> None:
        """Textual 8's toast rack takes out a toast whose notification expired before the
        toast's own timer fired, but leaves the ToastHolder around it on the screen for
        good. With a regression toast on every reload (a bench run writing every few tenths
        of a second, a busy loop) that kept some 20 KB a reload; the growth is measured by
        benchmarks/bench_live.py --regressions (reloads that bring a regression). Runs after the rack's
        own update (both are queued with call_later, in this order)."""
        from textual.widgets._toast import Toast, ToastHolder

        try:
            holders = list(self.screen.query(ToastHolder))
        except ScreenStackError:  # no screen: the app is leaving
            return
        for holder in holders:
            if not holder.is_mounted or holder._pruning:
                continue  # not there yet (its toast is being mounted), or on its way out
            if not any(isinstance(child, Toast) and not child._pruning for child in holder.children):
                holder.remove()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        warn_if_failed(self, event)

    def on_loader_error(self, message: LoaderError) -> None:
        self.notify(message.text, severity="error", markup=False, timeout=8)

    def on_reload_requested(self, message: ReloadRequested) -> None:
        self.request_reload()

    def request_reload(self) -> None:
        if self._watch:
            self.watcher.request_reload(force=True)
        else:
            self._load_once()

    def action_show_help(self) -> None:
        from ptotui.app.screens.help import HelpScreen  # the first ? imports it, not the start-up

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(self._help_screen(type(self.screen)))

    def _help_screen(self, screen: type[Screen]) -> str:
        """One help screen per kind of screen, kept: a second ? shows it without building
        and laying it out again."""
        from ptotui.app.screens.help import HelpScreen

        name = f"help-{screen.__name__}"
        if not self.is_screen_installed(name):
            self.install_screen(HelpScreen(screen), name)
        return name

    def action_command_palette(self) -> None:
        """Textual's, with its search placeholder and its "No matches found" from the catalogue."""
        from ptotui.app.widgets.palette import Palette

        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(placeholder=_("Search for commands…"), id="--command-palette"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's, then ours: made from the bindings that are Commands (ptotui/app/keys.py),
        each running its binding's action and showing its key as the settings file maps it."""
        for textual in super().get_system_commands(screen):  # Textual's words, as the catalogue says them
            yield SystemCommand(_(textual.title), _(textual.help), textual.callback, textual.discover)
        for node, bindings in ((self, self.BINDINGS), (self.main, self.main.BINDINGS)):
            for command in commands(bindings):
                if command.needs and not getattr(self.session, command.needs):
                    continue
                keys = keys_of(command, self.keymap)
                shown = (not remapped(command, self.keymap) and command.key_display) or self.get_key_display(
                    Binding(keys[0], "")
                )
                title, about = command.entry()
                yield SystemCommand(
                    title,
                    f"{about} ({shown})",
                    functools.partial(node.call_later, node.run_action, command.action),
                )
