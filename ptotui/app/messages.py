"""Messages the workers and the loader thread post to the app (thread-safe via post_message),
and the intents the screens send up to it (what the user asked for: the app does it).

Dataclasses with the real types of what they carry (Textual's Message initialises itself
in ``__post_init__``); ``eq=False``: a message is one event, not a value to compare.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ptotui.model.types import Kernel, ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.history.since import SinceSnapshot
    from ptotui.model.history.snapshots import History
    from ptotui.model.triage import TriageStore


@dataclass(eq=False)
class ReportsLoaded(Message):
    """A new, different ReportSet was read. A newer one replaces a queued older one."""

    reports: ReportSet

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReportsLoaded)


@dataclass(eq=False)
class LoaderError(Message):
    """The loader thread hit an unexpected error; it keeps running."""

    text: str


@dataclass(eq=False)
class SinceComputed(Message):
    """The current reports compared with the newest snapshot that differs (off the UI thread)."""

    since: SinceSnapshot
    reports: ReportSet


@dataclass(eq=False)
class SeenRead(Message):
    """What the user had seen when ptotui last closed, read off the UI thread (None: never
    saved, or unreadable: then ``warnings`` say why)."""

    saved: dict[str, Kernel] | None
    warnings: list[ReadWarning]


@dataclass(eq=False)
class HookFailed(Message):
    """The --on-regression command failed; shown as a warning."""

    text: str


@dataclass(eq=False)
class HistoryLoaded(Message):
    """The snapshots were read into a per-kernel history (off the UI thread)."""

    history: History
    first: bool


@dataclass(eq=False)
class CompareLoaded(Message):
    """The reports of the ``index``-th --compare source were read (off the UI thread)."""

    index: int
    reports: ReportSet


@dataclass(eq=False)
class TriageDone(Message):
    """A worker finished reading or writing the triage file of ``store``."""

    store: TriageStore
    changed: bool
    error: str | None = None


# -- intents: a screen asks, the app acts and publishes what changed ------------------------


@dataclass(eq=False)
class TriageRequested(Message):
    """Triage ``kernel``: a state, a note (on an untriaged kernel it acknowledges it), or
    neither (clear its entry)."""

    kernel: Kernel
    state: str | None
    note: str | None = None


@dataclass(eq=False)
class ReloadRequested(Message):
    """Read the reports again now (``r``)."""


@dataclass(eq=False)
class SeenSaved(Message):
    """Every kernel was marked seen (``m``): remember it for the next start."""

    seen: dict[str, Kernel]


@dataclass(eq=False)
class ColumnsChosen(Message):
    """The column chooser closed with another choice: keep it in the settings file."""

    columns: tuple[str, ...]
