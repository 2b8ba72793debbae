"""The App: runs what the controller decides (ptotui/model/control), keeps the screens, the
driver, help and the palette. It decides nothing about reports."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from functools import partial
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
from ptotui.app.screens.main.screen import MainScreen
from ptotui.model.control.controller import Controller
from ptotui.model.control.effects import Bell, Effect, Hook, Job, Notice, Publish
from ptotui.model.control.wording import failure
from ptotui.model.i18n import _, language, set_language
from ptotui.model.live.activity import Activity
from ptotui.model.live.watcher import Mailbox

if TYPE_CHECKING:
    from ptotui.app.rerun import Reruns


class PtoTuiApp(App):
    """ptotui: a live dashboard over a PTO bench reports directory."""

    CSS_PATH = "ptotui.tcss"
    TITLE = "ptotui"
    BINDINGS = APP_BINDINGS  # ptotui/app/keys.py

    def __init__(
        self,
        controller: Controller,
        *,
        mailbox: Mailbox,
        activity: Activity,
        clock: Callable[[], float] = time.time,
        gc_paused: bool = False,
    ) -> None:
        """``controller`` (and the session it holds), the ``mailbox`` the first load waits in and
        the ``activity`` the loader gives way to are made by ``make_app`` (app/factory.py)."""
        super().__init__()
        options = controller.options
        self.set_keymap(dict(options.settings.keys))  # binding id -> keys, from the settings file
        self.gc = lifecycle.GcPause(gc_paused)  # the CLI's choice: the app may tune the collector
        self.activity = activity
        self.controller = controller
        self.session = controller.session
        # Published after every step of the session (an Update): the screens draw from it.
        self.ctx = Context(
            controller,
            dict(options.settings.keys),
            Signal(self, "session-changed"),
            clock,
            Signal(self, "reruns-changed"),
            lambda: self._reruns_now().controller,
        )
        self._reruns: Reruns | None = None  # R, L and q's adapter, made with the Context's re-runs
        # The theme picked in the palette, kept in the settings file (the default theme is not).
        self._default_theme = self.theme
        self._missing_theme = lifecycle.apply_theme(self, options.settings.theme)
        self.main = MainScreen(self.ctx, options.filter, sort=(options.settings.sort, options.settings.reverse))
        self.mailbox = mailbox
        self._first_shown = False
        # Start-up work left for a quiet moment after the first rows.
        prepare = partial(lifecycle.prepare_screens, self.install_help, MainScreen)
        self.later = lifecycle.StartUp(
            [self.main.mount_hidden, prepare, self.ctx.reruns_now], self.set_interval, activity
        )
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
        # A theme picked in the command palette: kept in the settings file, as ``l`` keeps the language.
        chosen = lambda theme: self.run_effects(self.controller.theme_chosen(theme.name, self._default_theme))  # noqa: E731
        self.theme_changed_signal.subscribe(self, chosen)
        post = self.controller.post
        loaded = lambda reports: self.post_message(ReportsLoaded(reports))  # noqa: E731 - on the loader thread
        pending = self.mailbox.attach(loaded, lambda text: post(partial(self.controller.loader_failed, text)))
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
        if self._reruns is not None:
            self._reruns.run(self._reruns.controller.leaving())
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
                    self.set_timer(effect.delay, partial(self._start, effect))
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

    def _reruns_now(self) -> Reruns:
        """R, L and q's adapter (ptotui/app/rerun.py), made at the first of them or after the
        first frame: not on the way to it, where the run reader and the command line cost
        start-up time (tests/cli/test_startup_imports.py)."""
        if self._reruns is None:
            from ptotui.app.rerun import Reruns

            self._reruns = Reruns(self, self.ctx.reruns_changed, self.run_effects, self.controller)
        return self._reruns

    @on(RerunMessage)
    def _rerun(self, message: RerunMessage) -> None:
        controller = self.ctx.reruns_now()  # (made now, and said to the screens, when not yet)
        self._reruns_now().run(message.effects(controller))

    async def action_quit(self) -> None:
        """``q``: quit, after asking when re-runs are queued or running (ptotui/model/rerun/controller.py)."""
        if self._reruns is None:  # none made: none running
            self.exit()
        else:
            self._reruns.run(self._reruns.controller.quit())

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
