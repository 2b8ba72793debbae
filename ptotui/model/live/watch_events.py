"""The watchdog event handler, in a module of its own so watchdog is imported only when a watch starts."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable

from watchdog.events import FileSystemEvent, FileSystemEventHandler


class DirtyOnChange(FileSystemEventHandler):
    """Calls ``mark_dirty`` when an event names one of ``names``; never raises."""

    def __init__(self, names: Iterable[str], mark_dirty: Callable[[], None]) -> None:
        super().__init__()
        self.names = frozenset(names)
        self.mark_dirty = mark_dirty

    def dispatch(self, event: FileSystemEvent) -> None:
        # An exception here would kill the observer thread silently; the rescan still catches the change.
        with contextlib.suppress(Exception):
            if event.event_type in ("opened", "closed_no_write"):
                return
            for path in (event.src_path, event.dest_path):
                if path and os.path.basename(os.fsdecode(path)) in self.names:
                    self.mark_dirty()
                    return


class DirtyOnAny(FileSystemEventHandler):
    """Calls ``mark_dirty`` on any change in a watched directory (of the bench run); never raises."""

    def __init__(self, mark_dirty: Callable[[], None]) -> None:
        super().__init__()
        self.mark_dirty = mark_dirty

    def dispatch(self, event: FileSystemEvent) -> None:
        with contextlib.suppress(Exception):
            if event.event_type not in ("opened", "closed_no_write"):
                self.mark_dirty()
