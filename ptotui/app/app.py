"""The App: wires the loader thread to the screens. Logic lives in the screens and the model."""

from __future__ import annotations

import time
from typing import Callable, Iterable

from rich.text import Text
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from ptotui.app.messages import LoaderError, ReportsLoaded
from ptotui.app.screens.help import HelpScreen
from ptotui.app.screens.main import MainScreen
from ptotui.model.live import ReportWatcher
from ptotui.model.location import Location
from ptotui.model.tiers import Thresholds


class PtoTuiApp(App):
    """ptotui: a live dashboard over a PTO bench reports directory."""

    CSS_PATH = "ptotui.tcss"
    TITLE = "ptotui"
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark,f1", "show_help", "Help", key_display="?"),
    ]

    def __init__(
        self,
        location: Location,
        thresholds: Thresholds,
        lang: str = "en",
        initial_filter: str = "",
        poll: bool = False,
        ratio_pp: float = 2.0,
        watch: bool = True,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        self.clock = clock
        self.location = location
        self.thresholds = thresholds
        self.lang = lang
        self.ratio_pp = ratio_pp
        self.main = MainScreen(initial_filter)
        self.watcher = ReportWatcher(
            location, self._loaded_from_thread, thresholds, poll=poll, on_error=self._error_from_thread
        )
        self._watch = watch

    # Called on the loader thread: post only.
    def _loaded_from_thread(self, reports) -> None:
        self.post_message(ReportsLoaded(reports))

    def _error_from_thread(self, text: str) -> None:
        self.post_message(LoaderError(text))

    def on_mount(self) -> None:
        self.push_screen(self.main)
        if self._watch:
            self.watcher.start()
        else:
            self.watcher.request_reload()
            self.run_worker(self._load_once, thread=True, exclusive=True, group="load", exit_on_error=False)

    def _load_once(self) -> None:
        self.watcher._reload(force=True)  # the same code path as the thread, without watching

    def on_unmount(self) -> None:
        self.watcher.stop()

    def on_reports_loaded(self, message: ReportsLoaded) -> None:
        self.main.apply(message.reports)

    def on_loader_error(self, message: LoaderError) -> None:
        self.notify(message.text, severity="error", markup=False, timeout=8)

    def request_reload(self) -> None:
        if self._watch:
            self.watcher.request_reload(force=True)
        else:
            self.run_worker(self._load_once, thread=True, exclusive=True, group="load", exit_on_error=False)

    def history_line(self, kernel: str) -> Text | None:
        """The kernel's history across snapshots, when known (see the history issue)."""
        return None

    def action_show_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.screen))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        main = self.main
        yield SystemCommand("Reload reports", "Read the reports again now", self.request_reload)
        yield SystemCommand("Toggle blocker pane", "Show or hide blockers by layer", main.action_toggle_blockers)
        yield SystemCommand("Clear filters", "Show every kernel", main.action_clear_filters)
        yield SystemCommand("Reverse sort order", "Ascending / descending", main.action_flip_order)
        yield SystemCommand("Show keys", "Every key binding", self.action_show_help)
        from ptotui.model.tiers import TIER_LABELS

        for tier, label in TIER_LABELS.items():
            yield SystemCommand(f"Only {label}", f"Filter to the {tier} tier", lambda t=tier: main.action_filter_tier(t))
