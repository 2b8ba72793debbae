"""Run ``ptotui PATH`` headless and print, at the app's first-frame hook, what was imported.

Used by tests/cli/test_startup_imports.py in a fresh interpreter. ``startup_probe.py ARGS...``
runs the real command line (``ptotui.cli.main``), so the CLI's and the factory's imports
count too. Prints one JSON object: the modules already there when the interpreter started,
the modules in ``sys.modules`` at the first frame (when ``PtoTuiApp._first_frame_shown``
ran), the table's row count then, and whether start-up work meant for after the first
frame had run before it.

What start-up defers runs after the first frame or after a fixed delay, whichever comes
first (the App's timers, the loader's wait for the UI): on a busy machine the delay can come
first. The probe stretches those delays, so it sees the path to the first frame however slow
the machine, and nothing else changes.
"""

from __future__ import annotations

import builtins
import json
import os
import sys

STARTUP = sorted(sys.modules)
os.environ["TEXTUAL_DRIVER"] = "textual.drivers.headless_driver:HeadlessDriver"
os.environ["COLUMNS"], os.environ["LINES"] = "160", "48"
out: dict[str, object] = {"startup": STARTUP, "early": False}
real_import = builtins.__import__


def _patch_app() -> None:
    from ptotui.app import lifecycle
    from ptotui.app.app import PtoTuiApp
    from ptotui.app.widgets.kernel_table import KernelTable

    first_frame, start_up, set_timer = PtoTuiApp._first_frame_shown, lifecycle.StartUp.start, PtoTuiApp.set_timer

    def stretched(app: PtoTuiApp, delay: float, callback: object = None, *args: object, **kwargs: object) -> object:
        target = getattr(callback, "func", callback)  # (a functools.partial: what it calls)
        if "modules" not in out and str(getattr(target, "__module__", "")).startswith("ptotui."):
            delay = 120.0  # ptotui's own "after the first frame, or in N s at the latest", and deferred jobs
        return set_timer(app, delay, callback, *args, **kwargs)  # type: ignore[arg-type]

    def shown(app: PtoTuiApp) -> None:
        if "modules" not in out:
            out["modules"] = sorted(sys.modules)
            out["rows"] = app.main.query_one(KernelTable).row_count
            app.call_later(app.exit)
        first_frame(app)

    def start(later: lifecycle.StartUp) -> None:
        if "modules" not in out:
            out["early"] = True  # the work left for after the first frame began before it
        start_up(later)

    PtoTuiApp._first_frame_shown = shown  # type: ignore[method-assign]
    PtoTuiApp.set_timer = stretched  # type: ignore[assignment]
    lifecycle.StartUp.start = start  # type: ignore[method-assign]


def _importing(name: str, *args: object, **kwargs: object) -> object:
    module = real_import(name, *args, **kwargs)  # type: ignore[arg-type]
    if name == "ptotui.app.app" and builtins.__import__ is _importing:
        builtins.__import__ = real_import  # once the App's module is whole, as the factory imports it
        _patch_app()
    return module


if __name__ == "__main__":
    from ptotui.model.live import watcher  # (imported before the first frame anyway)

    watcher.UI_WAIT_S = 120.0  # the loader's after-frame work waits for the frame, however slow the machine
    builtins.__import__ = _importing  # type: ignore[assignment]
    from ptotui.cli import main  # after the hook: the CLI's imports are measured too

    out["code"] = main(sys.argv[1:])
    print(json.dumps(out))
