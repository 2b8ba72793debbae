"""The App's start and end that are not about reports: signals, and the start-up work left
for a quiet moment after the first rows."""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import signal
import threading
from collections.abc import Callable

from textual.app import App
from textual.screen import Screen
from textual.timer import Timer

from ptotui.model.live.activity import Activity

EXIT_GRACE = 3.0  # seconds a SIGTERM/SIGHUP exit may take before the process ends anyway


def exit_on_signals(app: App, install: bool = True) -> None:
    """SIGTERM and SIGHUP end the app through Textual, which restores the terminal (the
    default action killed the process in the alternate screen, mouse tracking on). When the
    terminal is gone (tmux kill-session, a dropped SSH link), Textual's writer thread and its
    shutdown could wait on each other for ever: seen as ptotui processes left running for hours
    on a deleted pty. So if the exit has not ended the process in EXIT_GRACE seconds, it ends
    anyway; by then the triage file and what was seen are saved (on unmount)."""
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
            app.exit(return_code=128 + signum)

        loop.add_signal_handler(signum, leave)


class StartUp:
    """What start-up leaves for after the first rows, each step at a moment when no key or
    click came for a while. A key typed as the rows appeared waited for all of it: mounting the
    footer restyled and redrew the whole screen (~50 ms), and the first ``?`` imported and built
    the help (~25 ms). A key that needs a hidden widget (``/``, ``C``) mounts it itself, as ``R``
    and ``L`` make the re-runs (their failed.json read then).

    Handed the ``steps``, the App's ``set_interval`` that paces them, and the ``activity`` they
    give way to: it reads nothing of the App."""

    def __init__(
        self,
        steps: list[Callable[[], object]],
        set_interval: Callable[..., Timer],
        activity: Activity,
    ) -> None:
        self._todo = steps
        self._set_interval = set_interval
        self.activity = activity
        self._steps: list[Callable[[], object]] | None = None
        self._timer: Timer | None = None

    def start(self) -> None:
        """Once; a second call does nothing."""
        if self._steps is not None:
            return
        self._steps = list(self._todo)
        self._timer = self._set_interval(0.1, self._step, name="start-up work")

    def _step(self) -> None:
        """One step per tick: each gets a frame of its own."""
        if self.activity.keys_coming():
            return
        if self._steps:
            self._steps.pop(0)()
        if not self._steps and self._timer is not None:
            self._timer.stop()


def prepare_screens(install_help: Callable[[type[Screen]], str], main: type[Screen]) -> None:
    """Import the help and detail screens and make the ``main`` screen's help (``install_help``:
    the App's), so that the first ``?`` and the first ``enter`` of the session cost what later
    ones do."""
    importlib.import_module("ptotui.app.screens.detail")
    install_help(main)


class GcPause:
    """The cyclic collector, paused by the CLI for start-up (hundreds of thousands of objects
    allocated and almost none freed: its passes were a tenth of the time to the first rows)."""

    def __init__(self, paused: bool) -> None:
        self.paused = paused

    def resume(self) -> None:
        """End of start-up: what exists now mostly lives as long as the app, so freeze it out of
        every later full collection, then collect as usual. Not at every load: objects frozen
        later would include UI strips that turn into cyclic garbage at the next frame (+430 MB
        over 1,000 reloads when each load was frozen). Once; later calls do nothing."""
        if self.paused:
            self.paused = False
            gc.freeze()
            gc.enable()


def apply_theme(app: App, wanted: str | None) -> str | None:
    """The settings file's theme set on ``app``; its name when the app has no such theme (a
    newer Textual's), which is then left as it is and said once (Controller.theme_missing)."""
    if wanted is None:
        return None
    if wanted not in app.available_themes:
        return wanted
    app.theme = wanted
    return None
