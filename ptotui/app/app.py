"""The App: runs what the controller decides (ptotui/model/control), keeps the screens, the
driver, help and the palette. It decides nothing about reports."""

from __future__ import annotations

import asyncio
import functools
import gc
import importlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual import events, on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.driver import Driver
from textual.screen import Screen
from textual.signal import Signal
from textual.timer import Timer

from ptotui.app import compat
from ptotui.app.context import Context
from ptotui.app.keys import Command, commands, keys_of, remapped
from ptotui.app.messages import Call, Intent, ReportsLoaded
from ptotui.app.screens.main import MainScreen
from ptotui.model.control.controller import Controller
from ptotui.model.control.effects import Bell, Effect, Hook, Job, Notice, Publish
from ptotui.model.control.wording import failure, run_hook
from ptotui.model.i18n import N_, _, language, set_language
from ptotui.model.live.activity import Activity
from ptotui.model.live.watcher import Mailbox, ReportWatcher
from ptotui.model.location import Location
from ptotui.model.session import Session
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.model.history.compare import Source
    from ptotui.model.options import DashboardOptions

EXIT_GRACE = 3.0  # seconds a SIGTERM/SIGHUP exit may take before the process ends anyway

# Textual's own words that the app shows: its system commands in the palette, the palette's
# search placeholder and its footer key. Marked here for the catalogue; translated where they
# are drawn (get_system_commands, action_command_palette, widgets/footer.py).
TEXTUAL_WORDS = (
    *(N_("Theme"), N_("Change the current theme"), N_("Quit"), N_("Quit the application as soon as possible")),
    *(N_("Keys"), N_("Hide the keys and widget help panel")),
    N_("Show help for the focused widget and a summary of available keys"),
    *(N_("Minimize"), N_("Minimize the widget and restore to normal size"), N_("Maximize")),
    *(N_("Maximize the focused widget"), N_("Screenshot"), N_("Save an SVG 'screenshot' of the current screen")),
    *(N_("Bell"), N_("Ring the bell"), N_("palette"), N_("Open the command palette")),
)


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
        activity: Activity | None = None,
        compare: list[Source] | None = None,
        watch: bool = True,
        clock: Callable[[], float] = time.time,
        gc_paused: bool = False,
    ) -> None:
        super().__init__()
        self.set_keymap(dict(options.settings.keys))  # binding id -> keys, from the settings file
        self._gc_paused = gc_paused  # the CLI's choice: the app may tune the collector
        set_language(options.language)
        self.activity = activity or Activity()
        session = Session(location, options.ratio_pp, clock, compare=compare)
        self.controller = Controller(
            session, options, watcher, self._call, watch=watch, gc_managed=gc_paused, give_way=self.activity.give_way
        )
        # Published after every step of the session (an Update): the screens draw from it.
        self.ctx = Context(self.controller, dict(options.settings.keys), Signal(self, "session-changed"), clock)
        self.main = MainScreen(self.ctx, options.filter, sort=(options.settings.sort, options.settings.reverse))
        self.mailbox = mailbox
        self._first_shown = False
        self._later: list[Callable[[], None]] | None = None  # start-up work left for a quiet moment
        self._later_timer: Timer | None = None

    @property
    def session(self) -> Session:
        return self.controller.session

    def get_default_screen(self) -> Screen:
        """The main screen is Textual's default screen, not pushed over it in on_mount: a
        screen pushed while the app is still mounting is laid out and rendered inside
        Textual's start-up batch, and that first frame is thrown away (never displayed)."""
        return self.main

    def on_mount(self) -> None:
        self._exit_on_signals()
        if self._gc_paused:
            self.set_timer(5.0, self._resume_gc)  # reports slow to arrive: do not wait for them
        # The footer, filter line and changes pane come once the first rows are on screen;
        # if the reports are slow or the first load fails, no later than this.
        self.set_timer(2.0, self._finish_start)
        self.run_effects(self.controller.started())
        pending = self.mailbox.attach(
            self._loaded, lambda text: self._call(functools.partial(self.controller.loader_failed, text))
        )
        if pending is not None:  # loaded while Textual started: into the very first frame
            self.on_reports_loaded(ReportsLoaded(pending))
        if self.session.compare_sources:
            self.set_timer(0.3, self._start_compare)  # after the first frame: the rows come first

    def _start_compare(self) -> None:
        options = self.controller.options

        def feed(location: Location, deliver: Callable[[ReportSet], None]) -> ReportWatcher:
            return ReportWatcher(location, deliver, options.thresholds, poll=options.poll, ratio_pp=options.ratio_pp)

        self.run_effects(self.controller.start_compare(feed))

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
            self.activity.touch()
        await super().on_event(event)

    def on_unmount(self) -> None:
        self._exit_on_signals(install=False)
        self.controller.leaving()
        self._resume_gc()

    def _exit_on_signals(self, install: bool = True) -> None:
        """SIGTERM and SIGHUP end the app through Textual, which restores the terminal. When
        the terminal is gone (tmux kill-session, a dropped SSH link), Textual's writer thread
        and its shutdown could wait on each other for ever: if the exit has not ended the
        process in EXIT_GRACE seconds, it ends anyway (the files are saved on unmount)."""
        if threading.current_thread() is not threading.main_thread():
            return  # asyncio takes signals on the main thread only
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if not install:
                loop.remove_signal_handler(signum)
                continue

            def leave(signum: int = signum) -> None:
                guard = threading.Timer(EXIT_GRACE, os._exit, (128 + signum,))
                guard.daemon = True
                guard.start()
                self.exit(return_code=128 + signum)

            loop.add_signal_handler(signum, leave)

    # -- effects ------------------------------------------------------------------------

    def run_effects(self, effects: Iterable[Effect]) -> None:
        """Do what the controller decided, in order."""
        for effect in effects:
            if isinstance(effect, Publish):
                self.ctx.changed.publish(effect.update)
            elif isinstance(effect, Notice):
                self.notify(
                    effect.text,
                    title=effect.title or "",
                    severity=effect.severity,
                    markup=False,
                    timeout=effect.timeout,
                )
            elif isinstance(effect, Bell):
                self.bell()
            elif isinstance(effect, Hook):  # on a worker: the UI never waits for the hook
                self._start(
                    Job(
                        N_("Running --on-regression"),
                        functools.partial(run_hook, effect.command, effect.data),
                        group="hook",
                    )
                )
            elif isinstance(effect, Job):
                if effect.delay > 0:
                    self.set_timer(effect.delay, functools.partial(self._start, effect))
                else:  # (a zero-interval Textual timer divides by zero when it fires late)
                    self._start(effect)

    def _start(self, job: Job) -> None:
        """A job on a worker thread; its result, or the one notice of its failure, comes back here."""

        def work() -> None:
            try:
                result = job.work()
            except Exception as exc:  # noqa: BLE001 - every failure is said, none ends the app
                error = exc
                self.post_message(Call(lambda: [failure(_(job.name), error)]))
                return
            if job.done is not None:
                done = job.done
                self.post_message(Call(lambda: done(result)))

        self.run_worker(
            work,
            name=job.name,
            description=job.name,
            group=job.group,
            exclusive=job.exclusive,
            thread=True,
            exit_on_error=False,
        )

    def _call(self, thunk: Callable[[], list[Effect]]) -> None:
        """From any thread: run ``thunk`` on the UI thread, then its effects."""
        self.post_message(Call(thunk))

    def _loaded(self, reports: ReportSet) -> None:  # on the loader thread: post only
        self.post_message(ReportsLoaded(reports))

    def _loader_failed(self, text: str) -> None:  # on the loader thread too
        self._call(functools.partial(self.controller.loader_failed, text))

    @on(Intent)
    def _intent(self, message: Intent) -> None:
        self.run_effects(message.effects(self.controller))

    def on_reports_loaded(self, message: ReportsLoaded) -> None:
        self.run_effects(self.controller.loaded(message.reports))
        if not self._first_shown:
            self._first_shown = True
            self.call_after_refresh(self._first_frame_shown)

    # -- start-up and leaving --------------------------------------------------------------

    def _first_frame_shown(self) -> None:
        self.run_effects(self.controller.first_frame_shown())
        self._resume_gc()
        self._finish_start()

    def _finish_start(self) -> None:
        """What start-up leaves for after the first rows, each step at a moment when no key
        or click came for a while (once; a second call does nothing): mounting the footer
        restyled and redrew the whole screen, and the first ``?`` built the help. A key that
        needs a hidden widget (``/``, ``C``) mounts it itself."""
        if self._later is not None:
            return
        self._later = [self.main.mount_hidden, self._prepare_screens]
        self._later_timer = self.set_interval(0.1, self._run_later, name="start-up work")

    def _run_later(self) -> None:
        """One step per tick: each gets a frame of its own."""
        if self.activity.keys_coming():
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
        """End of start-up: what exists now mostly lives as long as the app, so freeze it out
        of every later full collection, then collect as usual. Not at every load: objects
        frozen later would include UI strips that turn into cyclic garbage at the next frame
        (+430 MB over 1,000 reloads when each load was frozen)."""
        if self._gc_paused:
            self._gc_paused = False
            gc.freeze()
            gc.enable()

    def exit(self, result: Any = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        self.activity.leaving.set()
        super().exit(result, return_code, message)

    async def _shutdown(self) -> None:
        # Every way out comes here (run_test's end calls it without exit()).
        self.activity.leaving.set()
        await super()._shutdown()

    # -- language, help, palette ---------------------------------------------------------

    def action_switch_language(self) -> None:
        """``l``: English / 中文 for the whole app, kept in the settings file like the columns."""
        set_language("zh" if language() == "en" else "en")
        installed = compat.installed_screens(self)
        for name in [n for n in installed if n.startswith("help-")]:
            if all(screen is not installed[name] for screen in self.screen_stack):
                self.uninstall_screen(name)  # built in the old language; the next ? builds it anew
        # Each widget that draws words, then the screen: those shown, and those installed
        # to be shown later (the overview, the detail), which were built in the old language.
        for screen in dict.fromkeys([*self.screen_stack, *(s for s in installed.values() if isinstance(s, Screen))]):
            for node in [*screen.walk_children(), screen]:
                redraw = getattr(node, "language_changed", None)
                if redraw is not None:
                    redraw()
        self.run_effects(self.controller.language_chosen(language()))

    def action_show_help(self) -> None:
        from ptotui.app.screens.help import HelpScreen  # the first ? imports it, not the start-up

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(self._help_screen(type(self.screen)))

    def _help_screen(self, screen: type[Screen]) -> str:
        """One help screen per kind of screen, kept: a second ? shows it without building it again."""
        from ptotui.app.screens.help import HelpScreen

        name = f"help-{screen.__name__}"
        if not self.is_screen_installed(name):
            self.install_screen(HelpScreen(screen, self.ctx), name)
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
        keymap = self.ctx.keymap
        for node, bindings in ((self, self.BINDINGS), (self.main, self.main.BINDINGS)):
            for command in commands(bindings):
                if command.needs and not getattr(self.session, command.needs):
                    continue
                keys = keys_of(command, keymap)
                own = not remapped(command, keymap) and command.key_display
                title, about = command.entry()
                run = functools.partial(node.call_later, node.run_action, command.action)
                yield SystemCommand(title, f"{about} ({own or self.get_key_display(Binding(keys[0], ''))})", run)

    def _refresh_notifications(self) -> None:
        super()._refresh_notifications()
        self.call_later(compat.drop_empty_toast_holders, self)

    def set_triage(self, kernel: Any, state: str | None, note: str | None = None) -> bool:
        """Triage ``kernel`` as its keys do (the screenshot script and tests); whether it took."""
        effects = self.controller.triage(kernel, state, note)
        self.run_effects(effects)
        return any(isinstance(e, Publish) for e in effects)
