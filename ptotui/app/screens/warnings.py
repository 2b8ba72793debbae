"""``W``: every current warning (reports, bench runs, triage, settings), in a scrollable screen;
``d`` dismisses the selected one from the main screen's box until its text changes."""

from __future__ import annotations

import time
from collections.abc import Set

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from ptotui.app.keys import keys_of
from ptotui.app.messages import WarningDismissed
from ptotui.app.screens.base import PtoScreen
from ptotui.model.i18n import N_, _
from ptotui.model.present.warnlist import WarningEntry, WarningKey, title
from ptotui.model.text import clean, one_line


def entry_head(entry: WarningEntry, dismissed: bool = False) -> Text:
    """A warning's first line: where it comes from, since when it stands, whether it is dismissed."""
    text = Text()
    text.append(" ! ", style="bold black on yellow" if not dismissed else "dim")
    text.append(f" {_(entry.origin)}", style="bold" if not dismissed else "dim")
    if entry.since is not None:
        at = time.strftime("%H:%M:%S", time.localtime(entry.since))
        text.append("  " + _("since {at}").format(at=at), style="dim")
    if dismissed:
        text.append("  " + _("dismissed"), style="dim italic")  # the hint says until when
    return text


def entry_body(entry: WarningEntry) -> Text:
    """Where, then the message, whole (the screen wraps them, indented)."""
    text = Text()
    if entry.file:
        text.append(one_line(entry.where(), 2000) + "\n", style="cyan")  # escaped, not cleaned
    text.append(clean(entry.message))
    return text


class WarningItem(Vertical, can_focus=True):
    """One warning: its head and its text; ``tab`` selects it (the focused one is highlighted)."""

    def __init__(self, entry: WarningEntry, dismissed: bool) -> None:
        super().__init__(classes="warning-item")
        self.entry = entry
        self.dismissed = dismissed

    def compose(self) -> ComposeResult:
        yield Static(entry_head(self.entry, self.dismissed), classes="warning-head", markup=False)
        yield Static(entry_body(self.entry), classes="warning-entry", markup=False)

    def mark(self, dismissed: bool) -> None:
        self.dismissed = dismissed
        self.set_class(dismissed, "dismissed")
        self.query_one(".warning-head", Static).update(entry_head(self.entry, dismissed))

    def on_mount(self) -> None:
        self.set_class(self.dismissed, "dismissed")


class WarningsScreen(PtoScreen[None]):
    """Lists the warnings it is handed; escape, q or W closes it. ``↑`` ``↓`` ``PgUp`` ``PgDn``
    ``Home`` ``End`` scroll, ``tab``/``shift+tab`` select a warning and ``d`` dismisses it from
    the main screen's box (or shows it there again)."""

    CLOSE = Binding("escape,q,W", "app.pop_screen", N_("Close"), id="warnings.close")
    NEXT = Binding("tab", "select(1)", N_("Next warning"), id="warnings.next")
    DISMISS = Binding("d", "dismiss_warning", N_("Dismiss"), id="warnings.dismiss")
    BINDINGS = [
        CLOSE,
        NEXT,
        Binding("shift+tab", "select(-1)", N_("Previous warning"), show=False, id="warnings.previous"),
        DISMISS,
    ]

    def __init__(self, entries: list[WarningEntry], keymap: dict[str, str], dismissed: Set[WarningKey] = frozenset()):
        super().__init__()
        self.entries = entries
        self.keymap = keymap  # binding id -> keys, as the settings file maps them
        self.dismissed = set(dismissed)  # as the session has them; each d says so to the controller too

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="warnings-box", can_focus=not self.entries):
            yield Static(Text(title(self.entries), style="bold"), id="warnings-title", markup=False)
            if not self.entries:
                yield Static(Text(_("Nothing is wrong with the files read."), style="dim"), markup=False)
            for entry in self.entries:
                yield WarningItem(entry, entry.key in self.dismissed)
            yield Static(Text(self._hint(), style="dim"), id="warnings-hint", markup=False)

    def _keys(self, binding: Binding) -> str:
        return " / ".join(self.app.get_key_display(Binding(key, "")) for key in keys_of(binding, self.keymap))

    def _hint(self) -> str:
        """``tab: next warning · d: dismiss … · esc / q / W: back``, as the settings file maps the keys."""
        back = _("{keys}: back").format(keys=self._keys(self.CLOSE))
        if not self.entries:
            return back
        dismiss = _("{next}: next warning · {dismiss}: dismiss it from the box until its text changes (again: show it)")
        return dismiss.format(next=self._keys(self.NEXT), dismiss=self._keys(self.DISMISS)) + " · " + back

    def on_mount(self) -> None:
        items = self.query(WarningItem)
        (items.first() if items else self.query_one("#warnings-box", VerticalScroll)).focus()

    def _selected(self) -> WarningItem | None:
        focused = self.focused
        return focused if isinstance(focused, WarningItem) else None

    def action_select(self, step: int) -> None:
        items = list(self.query(WarningItem))
        selected = self._selected()
        if not items:
            return
        index = items.index(selected) + step if selected in items else 0
        items[index % len(items)].focus()

    def action_dismiss_warning(self) -> None:
        selected = self._selected()
        if selected is None:
            return
        key, dismissed = selected.entry.key, not selected.dismissed
        if dismissed:
            self.dismissed.add(key)
        else:
            self.dismissed.discard(key)
        selected.mark(dismissed)
        self.post_message(WarningDismissed(key, dismissed))
