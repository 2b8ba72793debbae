"""Messages the workers and the loader thread post to the app (thread-safe via post_message),
and the intents the screens send up to it (what the user asked for: the app does it).

Dataclasses with the real types of what they carry (Textual's Message initialises itself
in ``__post_init__``); ``eq=False``: a message is one event, not a value to compare.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from ptotui.model.control.controller import Controller
    from ptotui.model.control.effects import Effect
    from ptotui.model.rerun.controller import RerunController
    from ptotui.model.rerun.effects import RerunEffect
    from ptotui.model.rerun.queue import Event


@dataclass(eq=False)
class ReportsLoaded(Message):
    """A new, different ReportSet was read. A newer one replaces a queued older one."""

    reports: ReportSet

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ReportsLoaded)


# -- intents: a screen asks, the app acts and publishes what changed ------------------------


class Intent(Message):
    """Something for the controller: the App runs the effects it returns, in order."""

    def effects(self, controller: Controller) -> list[Effect]:
        raise NotImplementedError


@dataclass(eq=False)
class Call(Intent):
    """From another thread (a job's result, a compared source's load): run on the UI thread."""

    thunk: Callable[[], list[Effect]]

    def effects(self, controller: Controller) -> list[Effect]:
        return self.thunk()


@dataclass(eq=False)
class Effects(Intent):
    """Effects a screen has to hand (the controller's answer to a question it asked)."""

    items: list[Effect]

    def effects(self, controller: Controller) -> list[Effect]:
        return self.items


@dataclass(eq=False)
class TriageRequested(Intent):
    """Triage ``kernel``: a state, a note (on an untriaged kernel it acknowledges it), or
    neither (clear its entry)."""

    kernel: Kernel
    state: str | None
    note: str | None = None

    def effects(self, controller: Controller) -> list[Effect]:
        return controller.triage(self.kernel, self.state, self.note)


@dataclass(eq=False)
class ReloadRequested(Intent):
    """Read the reports again now (``r``)."""

    def effects(self, controller: Controller) -> list[Effect]:
        return controller.reload()


@dataclass(eq=False)
class SeeAll(Intent):
    """Every kernel was marked seen (``m``): remember it for the next start."""

    def effects(self, controller: Controller) -> list[Effect]:
        return controller.see_all()


@dataclass(eq=False)
class ColumnsChosen(Intent):
    """The column chooser closed with another choice: keep it in the settings file."""

    columns: tuple[str, ...]

    def effects(self, controller: Controller) -> list[Effect]:
        return controller.columns_chosen(self.columns)


@dataclass(eq=False)
class WarningDismissed(Intent):
    """``d`` in ``W``: leave this warning (file, line, message) out of the box, or show it again."""

    key: tuple[str, int | None, str]
    dismissed: bool

    def effects(self, controller: Controller) -> list[Effect]:
        return controller.warning_dismissed(self.key, self.dismissed)


# -- re-runs: for the re-run controller (ptotui/model/rerun/controller.py), made when first needed --


@dataclass(eq=False)
class RerunMessage(Message):
    """Something for the re-run controller: the App has its adapter (ptotui/app/rerun.py) carry
    out the effects it returns, in order."""

    def effects(self, reruns: RerunController) -> list[RerunEffect]:
        raise NotImplementedError


@dataclass(eq=False)
class RerunEvent(RerunMessage):
    """Something happened to a re-run (posted from the queue's threads). A newer output event
    of the same run replaces a queued older one: the screen reads the ring when it draws."""

    event: Event

    def effects(self, reruns: RerunController) -> list[RerunEffect]:
        return reruns.happened(self.event)

    def can_replace(self, message: Message) -> bool:
        return (
            isinstance(message, RerunEvent)
            and message.event.kind == "output" == self.event.kind
            and message.event.job is self.event.job
        )


@dataclass(eq=False)
class RerunRequested(RerunMessage):
    """``R``: re-run these kernels (one confirmation), or stop the one that runs."""

    kernels: list[Kernel]

    def effects(self, reruns: RerunController) -> list[RerunEffect]:
        return reruns.request(self.kernels)


@dataclass(eq=False)
class RerunOutputRequested(RerunMessage):
    """``L``: the output of the running re-run, or of the last one."""

    def effects(self, reruns: RerunController) -> list[RerunEffect]:
        return reruns.show_output()
