"""``v``: the column chooser. Show, hide and reorder the kernel table's columns."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.table_columns import COLUMNS, INDEX
from ptotui.model.config import COLUMNS as CHOOSABLE
from ptotui.model.config import DEFAULT_COLUMNS
from ptotui.model.i18n import N_, _

HINT = (
    N_("space/enter show or hide · shift+↑↓ (or K J) move · d defaults · esc/v done (saved to the settings file)"),
    N_("Shown columns come first, in table order: the ones up to Kernel stay put, the rest scroll with ← →."),
)


def hint() -> str:
    return "\n".join(_(line) for line in HINT)


LIST_ROWS = 18  # the list's height when there is room for it
BOX_MAX = 80  # the box's widest (ptotui.tcss, #columns-box)


class ColumnsScreen(PtoScreen[tuple[str, ...]]):
    """The table's columns, shown ones first in their order; returns the new order."""

    BINDINGS = [
        Binding("space", "show_hide", N_("Show/hide"), id="columns.show-hide"),
        Binding("j", "cursor(1)", N_("Cursor down"), show=False, id="columns.cursor-down"),
        Binding("k", "cursor(-1)", N_("Cursor up"), show=False, id="columns.cursor-up"),
        Binding("shift+up,K", "move(-1)", N_("Move up"), id="columns.up"),
        Binding("shift+down,J", "move(1)", N_("Move down"), id="columns.down"),
        Binding("d", "defaults", N_("Defaults"), id="columns.defaults"),
        Binding("escape,v,q", "done", N_("Done"), id="columns.done"),
    ]

    def __init__(self, shown: tuple[str, ...]) -> None:
        super().__init__()
        self.items: list[tuple[str, bool]] = []
        self._set(shown)

    def _set(self, shown: tuple[str, ...]) -> None:
        self.items = [(key, True) for key in shown] + [(key, False) for key in CHOOSABLE if key not in shown]

    @property
    def shown(self) -> tuple[str, ...]:
        return tuple(key for key, on_ in self.items if on_)

    def compose(self) -> ComposeResult:
        with Vertical(id="columns-box"):
            yield Static(Text(_("Columns"), style="bold"), id="columns-title")
            yield OptionList(id="column-list")
            yield Static(Text(hint(), style="dim"), id="columns-hint")

    def on_mount(self) -> None:
        self._redraw(0)
        self.query_one(OptionList).focus()

    def language_changed(self) -> None:
        self.query_one("#columns-title", Static).update(Text(_("Columns"), style="bold"))
        self.query_one("#columns-hint", Static).update(Text(hint(), style="dim"))
        self._redraw(self._cursor)
        self.on_resize()

    def on_resize(self) -> None:
        """The list gives up rows so that the hint below it is whole (at 80x24 it was cut
        after its first line: the box is at most 90% of the screen)."""
        width = max(min(int(self.size.width * 0.9), BOX_MAX) - 4, 10)  # less the border and padding
        hint_lines = len(Text(hint()).wrap(self.app.console, width))
        room = int(self.size.height * 0.9) - 2 - 1 - hint_lines  # less the border and the title
        self.query_one(OptionList).styles.max_height = max(3, min(LIST_ROWS, room))

    def _redraw(self, highlight: int) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        for key, on_ in self.items:
            label = Text("[x] " if on_ else "[ ] ", style="bold" if on_ else "dim")
            label.append(_(COLUMNS[INDEX[key]].label), style="" if on_ else "dim")
            if key == "kernel":
                label.append("  " + _("(always shown)"), style="dim")
            elif key == "range":
                label.append("  " + _("(shown beside the ratio)"), style="dim")
            options.add_option(Option(label, id=key))
        options.highlighted = max(0, min(highlight, len(self.items) - 1))

    @property
    def _cursor(self) -> int:
        highlighted = self.query_one(OptionList).highlighted
        return highlighted if highlighted is not None else 0

    def action_show_hide(self) -> None:
        index = self._cursor
        key, on_ = self.items[index]
        if key == "kernel":
            self.notify(_("The kernel column is always shown."), timeout=2)
            return
        self.items[index] = (key, not on_)
        # A shown column goes to the end of the shown ones; a hidden one to the hidden.
        item = self.items.pop(index)
        place = sum(1 for _key, shown in self.items if shown)
        self.items.insert(place, item)
        self._redraw(index)

    @on(OptionList.OptionSelected, "#column-list")
    def _selected(self) -> None:
        self.action_show_hide()

    def action_cursor(self, step: int) -> None:
        """``j``/``k``: as ↓/↑ (the list's own keys; the table, the panes and `less` take them too)."""
        options = self.query_one(OptionList)
        if step > 0:
            options.action_cursor_down()
        else:
            options.action_cursor_up()

    def action_move(self, step: int) -> None:
        index = self._cursor
        target = index + step
        if not 0 <= target < len(self.items) or self.items[index][1] != self.items[target][1]:
            return  # hidden columns have no order; shown ones move among themselves
        self.items[index], self.items[target] = self.items[target], self.items[index]
        self._redraw(target)

    def action_defaults(self) -> None:
        self._set(DEFAULT_COLUMNS)
        self._redraw(0)

    def action_done(self) -> None:
        self.dismiss(self.shown)
