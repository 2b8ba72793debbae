"""The kernel table: one row per kernel, reconciled in place on reload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rich.text import Text
from textual.widgets import DataTable

from ptotui.app import render
from ptotui.model.types import Kernel


@dataclass
class RowContext:
    """Per-reload facts the rows show besides the kernel itself."""

    marks: dict[str, int] = field(default_factory=dict)  # unseen change direction
    flash: set[str] = field(default_factory=set)  # changed in the last reload
    highlighted: set[str] = field(default_factory=set)  # picked in the blocker pane
    triage: dict[str, Text] = field(default_factory=dict)
    history: dict[str, Text] = field(default_factory=dict)


def _name(kernel: Kernel, ctx: RowContext) -> Text:
    style = "bold reverse" if kernel.name in ctx.flash else "bold underline" if kernel.name in ctx.highlighted else ""
    return render.literal(kernel.name, style=style)


# (key, header label, cell function). The key doubles as the sort column name.
COLUMNS: list[tuple[str, str, Callable[[Kernel, RowContext], Text]]] = [
    ("mark", "Δ", lambda k, c: render.mark(c.marks.get(k.name))),
    ("tier", "Tier", lambda k, c: render.badge(k.tier)),
    ("kernel", "Kernel", _name),
    ("family", "Family", lambda k, c: render.literal(k.family)),
    ("wave", "Wave", lambda k, c: render.literal(k.wave)),
    ("ratio", "Baseline / PTO", lambda k, c: render.ratio(k)),
    ("pto_ms", "PTO ms", lambda k, c: render.pto_ms(k)),
    ("baseline", "Baseline", lambda k, c: render.status(k.baseline_status)),
    ("pto", "PTO", lambda k, c: render.status(k.pto_status)),
    ("correct", "Correct", lambda k, c: render.correctness(k)),
    ("scalar", "Scalar", lambda k, c: Text("scalar", style="yellow") if k.scalar_heavy else Text("")),
    ("gaps", "Gaps", lambda k, c: Text(str(len(k.gap_ids)) if k.gap_ids else "", justify="right")),
    ("triage", "Triage", lambda k, c: c.triage.get(k.name, Text(""))),
    ("class", "Class", lambda k, c: render.literal(k.klass)),
]
HISTORY_COLUMN = ("history", "History", lambda k, c: c.history.get(k.name, Text("")))


MAX_WIDTH = {"kernel": 44, "class": 40, "family": 20, "triage": 24}


def _same(a: Text, b: Text) -> bool:
    return a.plain == b.plain and a.style == b.style and a.spans == b.spans


class KernelTable(DataTable):
    """A DataTable that updates only changed cells when the set of rows is unchanged."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.fixed_columns = 3
        self.show_history = False
        self._rows: dict[str, tuple[Text, ...]] = {}
        self._order: list[str] = []
        self._columns_shown: tuple[str, ...] = ()

    def columns_spec(self) -> list[tuple[str, str, Callable[[Kernel, RowContext], Text]]]:
        return COLUMNS + ([HISTORY_COLUMN] if self.show_history else [])

    @property
    def cursor_kernel(self) -> str | None:
        if not self._order or self.cursor_row < 0 or self.cursor_row >= self.row_count:
            return None
        try:
            return self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value
        except Exception:  # noqa: BLE001 - an empty or resizing table
            return None

    def show(self, kernels: list[Kernel], ctx: RowContext) -> None:
        """Show ``kernels`` in this order, touching as little of the table as possible."""
        spec = self.columns_spec()
        rows = {k.name: tuple(cell(k, ctx) for _key, _label, cell in spec) for k in kernels}
        order = list(rows)
        keys = tuple(key for key, _label, _cell in spec)
        widths = self._widths(rows, spec)
        if keys == self._columns_shown and set(order) == set(self._order):
            self._update_in_place(rows, keys)
            self._set_widths(widths)
            if order != self._order:
                position = {name: index for index, name in enumerate(order)}
                keep = self.cursor_kernel
                self.sort("kernel", key=lambda cell: position[cell.plain])
                self._order = order
                self.focus_kernel(keep)
            return
        self._rebuild(rows, order, spec, widths)

    @staticmethod
    def _widths(rows: dict[str, tuple[Text, ...]], spec) -> list[int]:
        """Column widths from our own cells: exact, cheap, and never left unmeasured.

        DataTable's auto width measures new rows on idle with Rich (1.6-1.9 s at
        10k rows, see ENGINEERING.md); our cells are single-line Text, whose
        cell length is the width.
        """
        widths = []
        for index, (key, label, _cell) in enumerate(spec):
            widest = max((cells[index].cell_len for cells in rows.values()), default=0)
            widths.append(min(max(widest, len(label)), MAX_WIDTH.get(key, 1000)))
        return widths

    def _set_widths(self, widths: list[int]) -> None:
        changed = False
        for column, width in zip(self.ordered_columns, widths):
            if column.width != width:
                column.width, changed = width, True
        if changed:
            self._require_update_dimensions = True  # DataTable recomputes its virtual size on idle
            self.refresh()

    def _update_in_place(self, rows: dict[str, tuple[Text, ...]], keys: tuple[str, ...]) -> None:
        for name, cells in rows.items():
            old = self._rows[name]
            for index, cell in enumerate(cells):
                if not _same(cell, old[index]):
                    self.update_cell(name, keys[index], cell)
        self._rows = rows

    def _rebuild(self, rows: dict[str, tuple[Text, ...]], order: list[str], spec, widths: list[int]) -> None:
        keep = self.cursor_kernel
        offset = self.cursor_row - round(self.scroll_y)
        keys = tuple(key for key, _label, _cell in spec)
        if keys != self._columns_shown:
            self.clear(columns=True)
            for (key, label, _cell), width in zip(spec, widths):
                self.add_column(label, key=key, width=width)
            self._columns_shown = keys
        else:
            self.clear()
            self._set_widths(widths)
        for name in order:
            self.add_row(*rows[name], key=name)
        self._rows, self._order = rows, order
        self.focus_kernel(keep, offset)

    def focus_kernel(self, name: str | None, offset: int | None = None) -> None:
        """Put the cursor back on ``name`` (and the row back at its place in the viewport)."""
        if name is None or name not in self._rows:
            return
        row = self.get_row_index(name)
        self.move_cursor(row=row, animate=False, scroll=offset is None)
        if offset is not None:
            self.scroll_to(y=max(row - offset, 0), animate=False, immediate=True)
