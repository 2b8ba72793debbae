"""The one place an app is built: the CLI, the tests and the screenshot script use it."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.live.activity import Activity
from ptotui.model.live.watcher import Mailbox, ReportWatcher
from ptotui.model.location import Location, locate
from ptotui.model.options import DashboardOptions

if TYPE_CHECKING:  # Textual is imported inside make_app, after the loader thread starts
    from ptotui.app.app import PtoTuiApp
    from ptotui.app.fleet_app import FleetApp
    from ptotui.model.config import Config
    from ptotui.model.core.tiers import Thresholds
    from ptotui.model.history.compare import CompareSource


def make_app(
    location: Location | str | Path | None = None,
    options: DashboardOptions | None = None,
    *,
    compare: list[CompareSource] | None = None,
    watch: bool = True,
    clock: Callable[[], float] | None = None,
    runs_clock: Callable[[], float] | None = time.time,
    pause_gc: bool = False,
    lean_heap: bool = False,
) -> PtoTuiApp:
    """Build a PtoTuiApp for ``location`` (a Location, or a PATH as the CLI takes it;
    default ``options.path``) with the dashboard's ``options`` (the flags, the settings file):
    the watcher, the Session and the Controller are made here, and the App is handed them.

    The loader thread starts here, before Textual is imported: the first load runs
    while the app is built and mounted, and waits in a mailbox for the app.

    Without ``options`` (tests, embedding), history is not read from git and no settings
    file is read or written; the CLI's options have git on (--no-git: off), and the app
    saves the column choice back to the settings file they were read from, and shows
    their ``settings_warning`` once it is up. Git history is never read for the bundled samples.

    ``compare``: the ``--compare`` sources as resolved (the CLI checks them before the app
    starts); without it they are resolved here from ``options.compare``. They are read
    after the first frame; a compared directory is watched like the main one.

    ``pause_gc`` (the CLI's choice, not a library's): start-up allocates hundreds of
    thousands of objects and frees almost none, so the cyclic collector's passes over
    them are wasted (a tenth of the time to first rows, benchmarks/startup_breakdown.py).
    The app turns it back on,
    freezing what start-up built, once the first rows are on screen.

    ``runs_clock``: "now" for the runs reader, which passes over a run directory stamped more
    than a day ahead of it (None: no such check; the tests' trees are stamped in the past and
    the future alike, and no test may depend on this machine's clock).

    ``lean_heap`` (the CLI's choice too): every thread allocates from one C heap, and the
    loader gives its free pages back after each load (:mod:`ptotui.model.heap`), so a load's
    peak does not stay in the process for days.
    """
    options = options or DashboardOptions(git=False)
    if location is None:
        location = options.path
    if pause_gc:
        gc.disable()
    relocate = None
    if not isinstance(location, Location):
        path = location
        location = locate(path)
        relocate = lambda: locate(path)  # noqa: E731 - follow PATH once reports appear under it
    thresholds = options.thresholds
    if compare is None:
        compare = _resolve(options.compare, location)
    trimmer = None
    if lean_heap:
        from ptotui.model import heap

        heap.one_arena()  # before the loader thread: its allocations share the one heap
        trimmer = heap.Trimmer()
    mailbox = Mailbox()
    activity = Activity()  # the keys the App sees; the loader gives way to them
    watcher = ReportWatcher(
        location,
        mailbox.deliver,
        thresholds,
        poll=options.poll,
        on_error=mailbox.error,
        ratio_pp=options.ratio_pp,
        min_change=options.min_change,
        relocate=relocate,
        wait_for_ui=True,
        give_way=activity.give_way,
        after_load=trimmer,
        clock=runs_clock,  # now, for the runs' stamps (``clock`` is the time shown)
    )
    if trimmer is not None:
        trimmer.after = watcher.ui_shown  # no trim before the first frame
    if watch:
        watcher.start()

    from ptotui.app.app import PtoTuiApp
    from ptotui.app.messages import Call
    from ptotui.model.control.controller import Controller
    from ptotui.model.i18n import set_language
    from ptotui.model.session import Session

    set_language(options.language)
    now = clock or time.time  # the time shown
    session = Session(location, options.ratio_pp, now, compare=compare)
    app: PtoTuiApp  # made below, with the controller
    post = lambda thunk: app.post_message(Call(thunk))  # noqa: E731 - from any thread: run on the UI thread
    controller = Controller(
        session, options, watcher, post, watch=watch, gc_managed=pause_gc, give_way=activity.give_way
    )
    app = PtoTuiApp(controller, mailbox=mailbox, activity=activity, clock=now, gc_paused=pause_gc)
    return app


def _resolve(specs: tuple[str, ...], main: Location) -> list[CompareSource]:
    if not specs:
        return []
    from ptotui.model.history.compare import resolve

    return [resolve(spec, main) for spec in specs]


def make_fleet_app(
    repository: Path,
    remote: str | None,
    fetch_every: float = 60.0,
    thresholds: Thresholds | None = None,
    cache: Path | None = None,
    clock: Callable[[], float] = time.time,
    settings: Config | None = None,
    settings_warning: str | None = None,
) -> FleetApp:
    """The fleet view (``ptotui fleet`` in a terminal) over ``repository``'s host branches,
    fetched from ``remote`` every ``fetch_every`` seconds. Raises FleetError (one line) outside
    a repository and for an unknown remote, before Textual is imported.

    ``settings``: the settings file as read (the CLI's): the host columns start as its
    ``[fleet]`` left them and are written back to it as they change; ``settings_warning`` (what
    was wrong with it) is shown once the view is up. Without it (tests, embedding) no settings
    file is read or written."""
    from ptotui.model.core.tiers import Thresholds
    from ptotui.model.fleetfeed import FleetFeed

    feed = FleetFeed(repository, remote, thresholds or Thresholds(), cache, clock=time.time)

    from ptotui.app.fleet_app import FleetApp

    path = settings.path if settings is not None else None
    fleet = settings.fleet if settings is not None else None
    return FleetApp(feed, fetch_every, clock, fleet, path, settings_warning)
