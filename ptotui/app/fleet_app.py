"""``ptotui fleet`` in a terminal: the App reads the fleet on a timer, off the UI thread, and
hands each reading to the view model (:mod:`ptotui.model.fleetview`); the screen draws it.

A read runs on a thread worker (one at a time: a tick while one runs is skipped): the fetch of
the remote's host branches, then only the hosts whose branch moved are read again
(:class:`ptotui.model.fleetfeed.FleetFeed`). The first read does not fetch, so the branches
fetched before are on screen at once; the first fetch follows it.

The host columns (hidden, their order, the reference) start as the settings file's ``[fleet]``
left them; each change of them is written back there on a worker (:class:`SettingsKeeper`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual import on
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from ptotui.app.screens.base import thread_worker
from ptotui.app.screens.fleet import FleetScreen
from ptotui.model.config import FleetSettings
from ptotui.model.fleetfeed import FleetFeed, Reading
from ptotui.model.fleetview import Columns, FleetView, SettingsKeeper
from ptotui.model.i18n import N_, _
from ptotui.model.text import clean, one_line


@dataclass(eq=False)
class FleetRead(Message):
    """A read of the fleet finished (on the worker thread): its reading, or why it failed."""

    reading: Reading | None
    error: str | None = None


@dataclass(eq=False)
class ColumnsSaved(Message):
    """The host columns were written to the settings file (on the worker thread), or why not."""

    error: str | None


class FleetApp(App[None]):
    """Every bench host's published branch, side by side, read again every ``fetch_every`` s."""

    CSS_PATH = "ptotui.tcss"
    TITLE = "ptotui fleet"
    BINDINGS = [
        Binding("q", "quit", N_("Quit"), id="fleet.quit"),
        Binding("question_mark,f1", "help", N_("Help"), id="fleet.help"),
        Binding("r", "fetch_now", N_("Fetch now"), id="fleet.fetch"),
    ]

    def __init__(
        self,
        feed: FleetFeed,
        fetch_every: float = 60.0,
        clock: Callable[[], float] = time.time,
        settings: FleetSettings | None = None,
        settings_path: Path | None = None,
        settings_warning: str | None = None,
    ) -> None:
        """``settings``: the ``[fleet]`` read from ``settings_path`` (None: no settings file, as in
        the tests: nothing is read or written); ``settings_warning``: what was wrong with that file."""
        super().__init__()
        self.feed = feed
        self.fetch_every = fetch_every
        self.clock = clock
        settings = settings or FleetSettings()
        self.view = FleetView(columns=Columns.from_settings(settings), settings_warning=settings_warning)
        self.keeper = SettingsKeeper(settings_path, settings)
        self.saves = 0  # settings writes done (the tests wait on it)
        self.reads = 0  # readings taken (the tests wait on it)
        self.reading_now = False
        self.fleet_screen = FleetScreen(self.view, clock, self.columns_changed)

    def get_default_screen(self) -> FleetScreen:
        return self.fleet_screen

    def on_mount(self) -> None:
        if self.view.settings_warning:
            self.notify(self.view.settings_warning, title=_("Settings"), severity="warning", timeout=10, markup=False)
        self._read(fetch=False)  # what was fetched before: on screen at once
        if self.feed.remote is not None and self.fetch_every > 0:
            self.set_interval(self.fetch_every, self.action_fetch_now)

    def action_fetch_now(self) -> None:
        if not self.reading_now and self.feed.remote is not None:
            self._read(fetch=True)

    def _read(self, fetch: bool) -> None:
        self.reading_now = True
        self.fleet_screen.reading(fetch)
        self._reader(fetch)

    @thread_worker(N_("Reading the fleet"), group="fleet", exclusive=True)
    def _reader(self, fetch: bool) -> None:
        try:
            reading = self.feed.read(fetch, elsewhere=True)
        except Exception as exc:  # noqa: BLE001 - a read that fails is one line; the last data stays
            self.post_message(FleetRead(None, one_line(clean(exc), 200) or type(exc).__name__))
            return
        self.post_message(FleetRead(reading))

    @on(FleetRead)
    def _fleet_read(self, message: FleetRead) -> None:
        self.reading_now = False
        self.reads += 1
        first = self.reads == 1
        reading = message.reading
        if reading is None:
            self.fleet_screen.failed(_("read failed: {error}").format(error=message.error))
        else:
            if reading.fetched:
                self.view.fetches.record(reading.fetch_error, self.clock())
            problem = self.feed.no_hosts() if not reading.fleet.hosts else None
            self.view.take(reading.fleet, problem)
            self.fleet_screen.redraw(reading.moved)
        if first and self.feed.remote is not None and self.fetch_every > 0:
            self._read(fetch=True)  # then the first fetch, at once

    def columns_changed(self) -> None:
        """x, a, < >, p changed the host columns: kept in the settings file, on a worker."""
        if self.keeper.stage(self.view.columns.settings()):
            self._save_columns()

    @thread_worker(N_("Saving the fleet's host columns"), group="fleet-settings")
    def _save_columns(self) -> None:
        try:
            self.keeper.write()
        except (OSError, ValueError) as exc:
            self.post_message(ColumnsSaved(one_line(clean(exc), 300)))
        else:
            self.post_message(ColumnsSaved(None))

    @on(ColumnsSaved)
    def _columns_saved(self, message: ColumnsSaved) -> None:
        self.saves += 1
        if message.error is not None:
            said = _("Host columns not saved: {why}").format(why=message.error)
            self.notify(said, title=_("Settings"), severity="warning", markup=False)

    def on_unmount(self) -> None:
        """A change just before q, not written yet: written now."""
        with contextlib.suppress(OSError, ValueError):
            self.keeper.write()

    def action_help(self) -> None:
        from ptotui.app.screens.fleet_detail import FleetHelpScreen

        if isinstance(self.screen, FleetHelpScreen):
            self.pop_screen()
        else:
            self.push_screen(FleetHelpScreen())
