"""What changed: reload after reload (newest first), then since the previous snapshot (regressions first)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ptotui.app.render import mark
from ptotui.model.i18n import _, language, ngettext
from ptotui.model.text import clean, one_line

if TYPE_CHECKING:  # mounted after the first frame: the diff and the snapshots are not on its way
    from ptotui.model.core.diff import Change
    from ptotui.model.history.since import SinceSnapshot

SHOWN = 200  # lines per part; more is not readable, and slow to lay out


class ChangesPane(OptionList):
    """A log of reloads, newest first, then the changes since the newest differing snapshot;
    selecting one jumps to its kernel. Tab reaches it; j/k, PgUp/PgDn, Home/End move in it."""

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="pane.down"),
        Binding("k", "cursor_up", "Up", show=False, id="pane.up"),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = _("Changes")
        self._signature: tuple = ()

    def action_first(self) -> None:
        super().action_first()
        self.scroll_home(animate=False)  # the first heading too, not only the first line under it

    def language_changed(self) -> None:
        self.border_title = _("Changes")  # the screen's redraw shows the lines again

    def show(self, since: SinceSnapshot | None, changes: list[tuple[float, Change]]) -> None:
        signature = (language(), id(since), len(changes), changes[-1] if changes else None)
        if signature == self._signature:
            return
        self._signature = signature
        self.clear_options()
        options: list[Option | None] = []
        if changes:  # the newest news first: the reloads' changes, then the snapshot's (often dozens)
            options.append(Option(Text(_("on reload, newest first"), style="bold"), disabled=True))
            for index, (when, change) in enumerate(reversed(changes[-SHOWN:])):
                line = Text(time.strftime("%H:%M:%S ", time.localtime(when)), style="dim")
                line.append_text(self._line(change))
                options.append(Option(line, id=f"r{index}:{change.kernel}"))
        if since is not None and since.stamp is not None:
            head = Text(_("since snapshot {stamp}: ").format(stamp=one_line(clean(since.stamp))), style="bold")
            regressions = ngettext("{n} regression", "{n} regressions", since.regressions)
            head.append(regressions.format(n=since.regressions), style="bold red" if since.regressions else "dim")
            head.append(", " + ngettext("{n} change", "{n} changes", len(since.changes)).format(n=len(since.changes)))
            options.append(Option(head, disabled=True))
            for index, change in enumerate(since.changes[:SHOWN]):
                options.append(Option(self._line(change), id=f"s{index}:{change.kernel}"))
        if not options:
            # since is None until the snapshots are read and compared (a second or more at start)
            empty = _("no changes since the previous snapshot or since start")
            if since is None:
                empty = _("comparing with the newest snapshot…")
            options.append(Option(Text(empty, style="dim"), disabled=True))
        self.add_options(options)

    @staticmethod
    def _line(change: Change) -> Text:
        from ptotui.model.core.diff import change_mark

        line = Text()
        line.append_text(mark(change_mark(change)))  # a regression ▼, PTO better ▲, the baseline moved ◇
        style = "bold red" if change.regression else "cyan" if change.baseline_moved else ""
        line.append(" " + one_line(clean(change.describe()), 200), style=style)
        return line
