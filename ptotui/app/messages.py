"""Messages the loader thread posts to the app (thread-safe via post_message)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

from ptotui.model.types import Kernel, ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.history import History
    from ptotui.model.since import SinceSnapshot


class ReportsLoaded(Message):
    """A new, different ReportSet was read. A newer one replaces a queued older one."""

    def __init__(self, reports: ReportSet) -> None:
        super().__init__()
        self.reports = reports

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReportsLoaded)


class LoaderError(Message):
    """The loader thread hit an unexpected error; it keeps running."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class SinceComputed(Message):
    """The current reports compared with the newest snapshot that differs (off the UI thread)."""

    def __init__(self, since: SinceSnapshot, reports: ReportSet) -> None:
        super().__init__()
        self.since = since
        self.reports = reports


class SeenRead(Message):
    """What the user had seen when ptotui last closed, read off the UI thread (None: never
    saved, or unreadable: then ``warnings`` say why)."""

    def __init__(self, saved: dict[str, Kernel] | None, warnings: list[ReadWarning]) -> None:
        super().__init__()
        self.saved = saved
        self.warnings = warnings


class HookFailed(Message):
    """The --on-regression command failed; shown as a warning."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class HistoryLoaded(Message):
    """The snapshots were read into a per-kernel history (off the UI thread)."""

    def __init__(self, history: History, first: bool) -> None:
        super().__init__()
        self.history = history
        self.first = first


class CompareLoaded(Message):
    """The reports of the ``index``-th --compare source were read (off the UI thread)."""

    def __init__(self, index: int, reports: ReportSet) -> None:
        super().__init__()
        self.index = index
        self.reports = reports


class TriageDone(Message):
    """A worker finished reading or writing the triage file of ``store``."""

    def __init__(self, store: object, changed: bool, error: str | None = None) -> None:
        super().__init__()
        self.store = store
        self.changed = changed
        self.error = error
