"""What every screen and widget is handed (Textual's "attributes down"): the session it
draws, the options, the keys as the settings file maps them, and the signal each published
Update comes on. None of them reads the App's own members; what they ask for goes up as a
message (:mod:`ptotui.app.messages`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.signal import Signal

from ptotui.model.i18n import language
from ptotui.model.notices import NoticeLog
from ptotui.model.session import Session, Update

if TYPE_CHECKING:
    from ptotui.model.config import Config
    from ptotui.model.control.controller import Controller
    from ptotui.model.core.tiers import Thresholds
    from ptotui.model.history.snapshots import History
    from ptotui.model.location import Location
    from ptotui.model.options import DashboardOptions
    from ptotui.model.rerun.controller import RerunController
    from ptotui.model.rerun.queue import Event
    from ptotui.model.triage import Status
    from ptotui.model.types import Kernel


class Context:
    """One dashboard's state as the screens see it."""

    def __init__(
        self,
        controller: Controller,
        keymap: dict[str, str],
        changed: Signal[Update],
        clock: Callable[[], float],
        reruns_changed: Signal[Event | None],
        make_reruns: Callable[[], RerunController],
    ) -> None:
        self.controller = controller
        self.session: Session = controller.session
        self.options: DashboardOptions = controller.options
        self.keymap = keymap  # binding id -> keys, from the settings file
        self.changed = changed  # published after every step of the session: the screens draw from it
        self.clock = clock  # wall time, shown (never compared with a fixed value)
        self.notices = NoticeLog(clock)  # every toast of this session, newest kept (N lists them)
        # The re-runs (R, L: their controller, ptotui/model/rerun/controller.py, which the screens
        # draw from) are made after the first frame, or at the first R, L or q before it
        # (reruns_now): None until then. Their events come on reruns_changed (None once, when
        # they are made), which exists from the start so screens can subscribe.
        self.reruns: RerunController | None = None
        self.reruns_changed = reruns_changed
        self._make_reruns = make_reruns

    def reruns_now(self) -> RerunController:
        """The re-runs, made now if they are not yet (their failed.json is read then)."""
        if self.reruns is None:
            self.reruns = self._make_reruns()
            self.reruns_changed.publish(None)
        return self.reruns

    @property
    def config(self) -> Config:
        """The settings file as the column and language choices leave it."""
        return self.controller.config

    @property
    def thresholds(self) -> Thresholds:
        return self.controller.thresholds

    @property
    def lang(self) -> str:
        """The language in force: every screen draws its words in it."""
        return language()

    @property
    def location(self) -> Location:
        return self.session.location

    @property
    def history(self) -> History | None:
        return self.session.history

    def triage_status(self, kernel: Kernel) -> Status:
        return self.session.triage_status(kernel)
