"""``W``: every current warning (reports, bench runs, triage, settings), in a scrollable screen."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Static

from ptotui.app.keys import keys_of
from ptotui.app.screens.base import PtoScreen
from ptotui.model.i18n import N_, _
from ptotui.model.present.warnlist import WarningEntry, title
from ptotui.model.text import clean, one_line


def entry_head(entry: WarningEntry) -> Text:
    """A warning's first line: where it comes from, and since when it stands."""
    text = Text()
    text.append(" ! ", style="bold black on yellow")
    text.append(f" {_(entry.origin)}", style="bold")
    if entry.since is not None:
        at = time.strftime("%H:%M:%S", time.localtime(entry.since))
        text.append("  " + _("since {at}").format(at=at), style="dim")
    return text


def entry_body(entry: WarningEntry) -> Text:
    """Where, then the message, whole (the screen wraps them, indented)."""
    text = Text()
    if entry.file:
        text.append(one_line(entry.where(), 2000) + "\n", style="cyan")  # escaped, not cleaned
    text.append(clean(entry.message))
    return text


class WarningsScreen(PtoScreen[None]):
    """Lists the warnings it is handed; escape, q or W closes it. ``↑`` ``↓`` ``PgUp`` ``PgDn``
    ``Home`` ``End`` scroll (the scroll area has the focus)."""

    CLOSE = Binding("escape,q,W", "app.pop_screen", N_("Close"), id="warnings.close")
    BINDINGS = [CLOSE]

    def __init__(self, entries: list[WarningEntry], keymap: dict[str, str]) -> None:
        super().__init__()
        self.entries = entries
        self.keymap = keymap  # binding id -> keys, as the settings file maps them

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="warnings-box"):
            yield Static(Text(title(self.entries), style="bold"), id="warnings-title", markup=False)
            if not self.entries:
                yield Static(Text(_("Nothing is wrong with the files read."), style="dim"), markup=False)
            for entry in self.entries:
                yield Static(entry_head(entry), classes="warning-head", markup=False)
                yield Static(entry_body(entry), classes="warning-entry", markup=False)
            yield Static(Text(self._hint(), style="dim"), id="warnings-hint", markup=False)

    def _hint(self) -> str:
        """``esc / q / W: back``, as the settings file maps the keys."""
        keys = keys_of(self.CLOSE, self.keymap)
        shown = " / ".join(self.app.get_key_display(Binding(key, "")) for key in keys)
        return _("{keys}: back").format(keys=shown)

    def on_mount(self) -> None:
        self.query_one("#warnings-box", VerticalScroll).focus()
