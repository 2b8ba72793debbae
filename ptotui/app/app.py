"""The App: runs what the controller decides (ptotui/model/control), keeps the screens, the
driver, help and the palette. It decides nothing about reports."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from textual import events, on
from textual.app import App, SystemCommand
from textual.driver import Driver
from textual.filter import LineFilter, Monochrome, NoColor
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.signal import Signal

from ptotui.app import compat, lifecycle, render
from ptotui.app.context import Context
from ptotui.app.keys import APP_BINDINGS, palette_commands
from ptotui.app.messages import Call, Intent, ReportsLoaded, RerunMessage
from ptotui.app.screens.main import MainScreen
from ptotui.model.control.controller import Controller
from ptotui.model.control.effects import Bell, Effect, Hook, Job, Notice, Publish
from ptotui.model.control.wording import failure
from ptotui.model.i18n import _, language, set_language
from ptotui.model.live.activity import Activity
from ptotui.model.live.watcher import Mailbox, ReportWatcher
from ptotui.model.location import Location
from ptotui.model.session import Session

if TYPE_CHECKING:
    from textual.theme import Theme

    from ptotui.app.rerun import Reruns
    from ptotui.model.history.compare import Source
    from ptotui.model.options import DashboardOptions


class PtoTuiApp(App):
    """ptotui: a live dashboard over a PTO bench reports directory."""

    CSS_PATH = "ptotui.tcss"
    TITLE = "ptotui"
    BINDINGS = APP_BINDINGS  # ptotui/app/keys.py

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
        self.gc = lifecycle.GcPause(gc_paused)  # the CLI's choice: the app may tune the collector
        set_language(options.language)
        self.activity = activity or Activity()
        self.session = Session(location, options.ratio_pp, clock, compare=compare)
        post = lambda thunk: self.post_message(Call(thunk))  # noqa: E731 - from any thread: run on the UI thread
        self.controller = Controller(
            self.session, options, watcher, post, watch=watch, gc_managed=gc_paused, give_way=self.activity.give_way
        )
        # Published after every step of the session (an Update): the screens draw from it.
        self.ctx = Context(
            self.controller,
            dict(options.settings.keys),
            Signal(self, "session-changed"),
            clock,
            Signal(self, "reruns-changed"),
            self._make_reruns,
        )
        # The theme picked in the palette, kept in the settings file (the default theme is not).
        self._default_theme = self.theme
        wanted = options.settings.theme
        self._missing_theme = wanted if wanted is not None and wanted not in self.available_themes else None
        if wanted is not None and self._missing_theme is None:
            self.theme = wanted
        self.main = MainScreen(self.ctx, options.filter, sort=(options.settings.sort, options.settings.reverse))
        self.mailbox = mailbox
        self._first_shown = False
        self.later = lifecycle.StartUp(self, self.activity)  # start-up work left for a quiet moment
        # NO_COLOR: Textual greys every colour by its brightness (Monochrome), which drew red
        # "blocked" and "▼" as grey 237 on 235. No colour at all instead, the terminal's own
        # foreground on its background: the signals are told by glyphs, bold and reverse.
        self._no_color_filter = NoColor()
        render.set_no_color(self.no_color)

    def get_default_screen(self) -> Screen:
        """Not pushed in on_mount: a screen pushed while the app mounts is drawn in Textual's
        start-up batch, and that first frame is thrown away (never displayed)."""
        return self.main

    def on_mount(self) -> None:
        lifecycle.exit_on_signals(self)
        if self.gc.paused:
            self.set_timer(5.0, self.gc.resume)  # reports slow to arrive: do not wait for them
        # The footer, filter line and changes pane come once the first rows are on screen;
        # if the reports are slow or the first load fails, no later than this.
        self.set_timer(2.0, self.later.start)
        self.run_effects(self.controller.started())
        if self._missing_theme is not None:
            self.run_effects(self.controller.theme_missing(self._missing_theme))
        self.theme_changed_signal.subscribe(self, self._theme_changed)
        post = self.controller.post
        loaded = lambda reports: self.post_message(ReportsLoaded(reports))  # noqa: E731 - on the loader thread
        pending = self.mailbox.attach(loaded, lambda text: post(functools.partial(self.controller.loader_failed, text)))
        if pending is not None:  # loaded while Textual started: into the very first frame
            self.on_reports_loaded(ReportsLoaded(pending))
        if self.session.compare_sources:
            self.set_timer(0.3, lambda: self.run_effects(self.controller.start_compare()))  # after the first rows

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, with NO_COLOR's Monochrome replaced by NoColor (see __init__)."""
        return [self._no_color_filter if isinstance(f, Monochrome) else f for f in super().get_line_filters()]

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
        lifecycle.exit_on_signals(self, install=False)
        if self.ctx.reruns is not None:
            self.ctx.reruns.stop_all()
        self.controller.leaving()
        self.gc.resume()

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
            elif isinstance(effect, Hook | Job):
                # The UI never waits for the hook; the controller's runner runs them one at a time.
                effect = effect.job(self.controller.hooks) if isinstance(effect, Hook) else effect
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

        # Described by its name: Textual's description is repr() of every argument (at 10k kernels 1.4 s a load).
        self.run_worker(work, job.name, job.group, job.name, False, exclusive=job.exclusive, thread=True)

    @on(Intent)
    def _intent(self, message: Intent) -> None:
        self.run_effects(message.effects(self.controller))

    def _make_reruns(self) -> Reruns:
        """R and L (ptotui/app/rerun.py): not on the way to the first frame, where their run
        reader and command line cost start-up time (tests/cli/test_startup_imports.py)."""
        from ptotui.app.rerun import Reruns

        return Reruns(self, self.ctx.reruns_changed)

    @property
    def reruns(self) -> Reruns:
        return self.ctx.reruns_now()

    @on(RerunMessage)
    def _rerun(self, message: RerunMessage) -> None:
        message.handle(self.reruns)

    async def action_quit(self) -> None:
        """``q``: quit, after asking when re-runs are queued or running (ptotui/app/rerun.py)."""
        reruns = self.ctx.reruns  # none made: none running
        if reruns is None or not reruns.ask_before_quit():
            self.exit()

    def on_reports_loaded(self, message: ReportsLoaded) -> None:
        self.run_effects(self.controller.loaded(message.reports))
        if not self._first_shown:
            self._first_shown = True
            self.call_after_refresh(self._first_frame_shown)

    def _first_frame_shown(self) -> None:
        self.run_effects(self.controller.first_frame_shown())
        self.gc.resume()
        self.later.start()

    def exit(self, result: Any = None, return_code: int = 0, message: RenderableType | None = None) -> None:
        self.activity.leaving.set()
        super().exit(result, return_code, message)

    async def _shutdown(self) -> None:
        # Every way out comes here (run_test's end calls it without exit()).
        self.activity.leaving.set()
        await super()._shutdown()

    def _theme_changed(self, theme: Theme) -> None:
        """A theme picked in the command palette: kept in the settings file, as ``l`` keeps the language."""
        self.run_effects(self.controller.theme_chosen(theme.name, self._default_theme))

    def action_switch_language(self) -> None:
        """``l``: English / 中文 for the whole app, kept in the settings file like the columns."""
        set_language("zh" if language() == "en" else "en")
        compat.redraw_words(self)
        self.run_effects(self.controller.language_chosen(language()))

    def action_show_help(self) -> None:
        from ptotui.app.screens.help import HelpScreen  # the first ? imports it, not the start-up

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(self.install_help(type(self.screen)))

    def install_help(self, screen: type[Screen]) -> str:
        """One help screen per kind of screen, kept: a second ? shows it without building it again."""
        from ptotui.app.screens.help import HelpScreen

        name = f"help-{screen.__name__}"
        if not self.is_screen_installed(name):
            self.install_screen(HelpScreen(screen, self.ctx), name)
        return name

    def action_command_palette(self) -> None:
        """Textual's, with its search placeholder and its "No matches found" from the catalogue."""
        from ptotui.app.compat.palette import Palette

        if self.use_command_palette and not Palette.is_open(self):
            self.push_screen(Palette(placeholder=_("Search for commands…"), id="--command-palette"))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Textual's, then ours: made from the bindings that are Commands (ptotui/app/keys.py),
        each running its binding's action and showing its key as the settings file maps it."""
        for textual in super().get_system_commands(screen):  # Textual's words, as the catalogue says them
            yield SystemCommand(_(textual.title), _(textual.help), textual.callback, textual.discover)
        nodes = ((self, self.BINDINGS), (self.main, self.main.BINDINGS))
        yield from palette_commands(self, self.ctx.keymap, nodes, lambda needs: bool(getattr(self.session, needs)))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every toast, whoever shows it (the controller's notices, a screen's own), is also
        kept in the session's notice log: ``N`` lists them when the toast is gone."""
        self.ctx.notices.add(message, title, severity)
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def _refresh_notifications(self) -> None:
        super()._refresh_notifications()
        self.call_later(compat.drop_empty_toast_holders, self)

    def set_triage(self, kernel: Any, state: str | None, note: str | None = None) -> bool:
        """Triage ``kernel`` as its keys do (the screenshot script and tests); whether it took."""
        effects = self.controller.triage(kernel, state, note)
        self.run_effects(effects)
        return any(isinstance(e, Publish) for e in effects)
