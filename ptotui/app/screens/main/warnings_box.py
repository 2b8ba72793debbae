"""The main screen's warnings box: one line a warning, how many it does not show, and ``W``
for every warning in a screen of its own (ptotui/app/screens/warnings.py)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.text import Text
from textual.widgets import Static

from ptotui.app.screens.base import PtoScreen
from ptotui.model.i18n import _
from ptotui.model.present.warnlist import WarningEntry, box_count, current_warnings, more_line, standing
from ptotui.model.session import Session
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.app.context import Context


class WarningsBox(PtoScreen[None]):
    """Mixed into MainScreen, which provides what is declared here."""

    ctx: Context
    session: Session

    if TYPE_CHECKING:

        @property
        def reports(self) -> ReportSet | None: ...

        def _key_of(self, binding_id: str) -> str: ...

    def current_warnings(self) -> list[WarningEntry]:
        """Every warning now standing: the reports' and runs', triage's, the settings file's."""
        triage = self.session.triage
        return current_warnings(
            self.reports.warnings if self.reports else [],
            triage.warnings if triage else [],
            self.ctx.options.settings_warning,
            self.session.warned_since,
            self.session.location.bench,
        )

    def _draw_warnings(self) -> None:
        widget = self.query_one("#warnings", Static)
        warnings = standing(self.current_warnings(), self.session.dismissed_warnings)  # W lists them all
        if self.reports is not None and not self.reports.kernels and not self.session.location.reports.exists():
            waiting = _("waiting for {path} to appear…").format(path=self.session.location.reports)
            widget.update(Text(" " + waiting, style="bold yellow"))
            widget.display = True
            return
        widget.display = bool(warnings)
        if not warnings:
            return
        # One line a warning, cut at the edge (W shows each whole): a wrapped one pushed the
        # last ones, and the line saying how many more, out of the box's five lines.
        text = Text(no_wrap=True, overflow="ellipsis")
        shown = box_count(len(warnings))
        for index, warning in enumerate(warnings[:shown]):
            first = warning.since if warning.since is not None else self.session.clock()
            since = time.strftime("%H:%M:%S", time.localtime(first))
            text.append("\n" if index else "")
            text.append(" ! ", style="bold black on yellow")
            text.append(" " + _("since {at}").format(at=since) + " ", style="dim")
            message = clean(warning.message)  # the file escaped (it can be found), the message cleaned
            text.append(one_line(f"{warning.where()}: {message}" if warning.file else message, 300))
        if len(warnings) > shown:
            text.append("\n   " + more_line(len(warnings) - shown, self._key_of("main.warnings")), style="dim")
        widget.update(text)

    def action_show_notices(self) -> None:
        """``N``: every notice of this session, newest first (a toast that vanished, read again):
        beside the warnings, what ptotui has told you."""
        from ptotui.app.screens.notices import NoticesScreen

        self.app.push_screen(NoticesScreen(self.ctx.notices.newest_first(), self.ctx.keymap))

    def action_show_warnings(self) -> None:
        from ptotui.app.screens.warnings import WarningsScreen

        entries = self.current_warnings()
        self.app.push_screen(WarningsScreen(entries, self.ctx.keymap, self.session.dismissed_warnings))
