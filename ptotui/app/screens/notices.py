"""``N``: the notices (toasts) of this session, newest first, so one that vanished can be read again."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ptotui.app.keys import keys_of
from ptotui.app.screens.base import PtoScreen
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.notices import KEPT, Logged

_STYLES = {"warning": "bold black on yellow", "error": "bold white on red"}
SEVERITY_WORDS = {"information": N_("information"), "warning": N_("warning"), "error": N_("error")}


def notice_head(notice: Logged) -> Text:
    """When, how grave, and the title."""
    text = Text()
    text.append(time.strftime("%H:%M:%S", time.localtime(notice.at)), style="dim")
    severity = SEVERITY_WORDS.get(notice.severity, N_("information"))
    text.append(f" {_(severity)} ", style=_STYLES.get(notice.severity, "bold"))
    if notice.title:
        text.append(f" {notice.title}", style="bold")
    return text


class NoticesScreen(PtoScreen[None]):
    """Lists the notices it is handed, newest first; escape, q or N closes it. ``↑`` ``↓``
    ``PgUp`` ``PgDn`` ``Home`` ``End`` scroll (the scroll area has the focus)."""

    CLOSE = Binding("escape,q,N", "app.pop_screen", N_("Close"), id="notices.close")
    BINDINGS = [CLOSE]

    def __init__(self, notices: list[Logged], keymap: dict[str, str]) -> None:
        super().__init__()
        self.notices = notices
        self.keymap = keymap  # binding id -> keys, as the settings file maps them

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="notices-box"):
            said = ngettext(
                "{count} notice this session, newest first (the last {kept} are kept)",
                "{count} notices this session, newest first (the last {kept} are kept)",
                len(self.notices),
            ).format(count=len(self.notices), kept=KEPT)
            yield Static(Text(said, style="bold"), id="notices-title", markup=False)
            if not self.notices:
                yield Static(Text(_("No notice yet."), style="dim"), markup=False)
            for notice in self.notices:
                yield Static(notice_head(notice), classes="notice-head", markup=False)
                yield Static(Text(notice.text), classes="notice-entry", markup=False)
            yield Static(Text(self._hint(), style="dim"), id="notices-hint", markup=False)

    def _hint(self) -> str:
        """``esc / q / N: back``, as the settings file maps the keys."""
        keys = keys_of(self.CLOSE, self.keymap)
        shown = " / ".join(self.app.get_key_display(Binding(key, "")) for key in keys)
        return _("{keys}: back").format(keys=shown)

    def on_mount(self) -> None:
        self.query_one("#notices-box", VerticalScroll).focus()
