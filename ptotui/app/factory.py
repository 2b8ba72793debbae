"""The one place an app is built: the CLI, the tests and the screenshot script use it."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.config import Config
from ptotui.model.live import Mailbox, ReportWatcher
from ptotui.model.location import Location, locate
from ptotui.model.tiers import Thresholds

if TYPE_CHECKING:  # Textual is imported inside make_app, after the loader thread starts
    from ptotui.app.app import PtoTuiApp
    from ptotui.model.compare import Source


def make_app(
    location: Location | str | Path | None = None,
    *,
    thresholds: Thresholds | None = None,
    lang: str = "en",
    initial_filter: str = "",
    poll: bool = False,
    state_file: Path | None = None,
    ratio_pp: float = 2.0,
    watch: bool = True,
    clock: Callable[[], float] | None = None,
    pause_gc: bool = False,
    config: Config | None = None,
    config_warning: str | None = None,
    git: bool = False,
    read_only: bool = False,
    compare: list[Source] | None = None,
    bell: bool = True,
    on_regression: str | None = None,
) -> PtoTuiApp:
    """Build a PtoTuiApp for ``location`` (a Location, or a PATH as the CLI takes it).

    The loader thread starts here, before Textual is imported: the first load runs
    while the app is built and mounted, and waits in a mailbox for the app.

    ``pause_gc`` (the CLI's choice, not a library's): start-up allocates hundreds of
    thousands of objects and frees almost none, so the cyclic collector's passes over
    them are wasted (a tenth of the time to first rows, benchmarks/startup_breakdown.py).
    The app turns it back on,
    freezing what start-up built, once the first rows are on screen.

    ``config`` is the settings file as read (columns, default sort); the app saves the
    column choice back to ``config.path``, and shows ``config_warning`` once it is up.
    Without one, nothing is read or written (tests, embedding).

    ``git`` (the CLI's default, off for tests and embedding): history also shows the
    versions of the reports committed along the current branch when they are in a git
    work tree (read off the UI thread); never for the bundled samples.

    ``read_only`` turns the triage keys off (``ptotui serve --read-only``).

    ``compare``: other sources shown beside each kernel (``--compare``), read after
    the first frame; a compared directory is watched like the main one.
    """
    if pause_gc:
        gc.disable()
    relocate = None
    if not isinstance(location, Location):
        path = location
        location = locate(path)
        relocate = lambda: locate(path)  # noqa: E731 - follow PATH once reports appear under it
    thresholds = thresholds or Thresholds()
    mailbox = Mailbox()
    watcher = ReportWatcher(
        location,
        mailbox.deliver,
        thresholds,
        poll=poll,
        on_error=mailbox.error,
        ratio_pp=ratio_pp,
        relocate=relocate,
        wait_for_ui=True,
    )
    if watch:
        watcher.start()

    from ptotui.app.app import PtoTuiApp

    return PtoTuiApp(
        location,
        thresholds,
        watcher=watcher,
        mailbox=mailbox,
        lang=lang,
        initial_filter=initial_filter,
        ratio_pp=ratio_pp,
        watch=watch,
        state_file=state_file,
        gc_paused=pause_gc,
        config=config or Config(),
        config_warning=config_warning,
        git=git,
        read_only=read_only,
        compare=compare or [],
        poll=poll,
        bell=bell,
        on_regression=on_regression,
        **({"clock": clock} if clock else {}),
    )
