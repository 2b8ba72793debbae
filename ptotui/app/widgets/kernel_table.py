"""The kernel table: one row per kernel, reconciled in place on reload."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from rich.text import Text
from textual.widgets import DataTable

from ptotui.app import render
from ptotui.app.render import cell
from ptotui.model.types import Kernel


@dataclass
class RowContext:
    """Per-reload facts the rows show besides the kernel itself."""

    marks: dict[str, int] = field(default_factory=dict)  # unseen change direction
    flash: set[str] = field(default_factory=set)  # changed in the last reload
    highlighted: set[str] = field(default_factory=set)  # picked in the blocker pane
    triage: Callable[[Kernel], Text] = lambda kernel: cell("")
    history: dict[str, Text] = field(default_factory=dict)

    def signature(self, kernel: Kernel) -> tuple:
        """Everything besides the kernel that a row shows: equal means the same cells."""
        name = kernel.name
        return (self.marks.get(name), name in self.flash, name in self.highlighted,
                self.triage(kernel), self.history.get(name))


def _name(kernel: Kernel, ctx: RowContext) -> Text:
    style = "bold reverse" if kernel.name in ctx.flash else "bold underline" if kernel.name in ctx.highlighted else ""
    return render.literal(kernel.name, style=style)


# (key, header label, cell function). The key doubles as the sort column name.
COLUMNS: list[tuple[str, str, Callable[[Kernel, RowContext], Text]]] = [
    ("mark", "Δ", lambda k, c: render.mark(c.marks.get(k.name))),
    ("tier", "Tier", lambda k, c: render.badge(k.tier)),
    ("kernel", "Kernel", _name),
    ("ratio", "Baseline / PTO", lambda k, c: render.ratio(k)),
    ("pto_ms", "PTO ms", lambda k, c: render.pto_ms(k)),
    ("baseline", "Baseline", lambda k, c: render.status(k.baseline_status)),
    ("pto", "PTO", lambda k, c: render.status(k.pto_status)),
    ("correct", "Correct", lambda k, c: render.correctness(k)),
    ("scalar", "Scalar", lambda k, c: cell("scalar", "yellow") if k.scalar_heavy else cell("")),
    ("gaps", "Gaps", lambda k, c: cell(str(len(k.gap_ids)) if k.gap_ids else "", "", "right")),
    ("triage", "Triage", lambda k, c: c.triage(k)),
    ("family", "Family", lambda k, c: render.literal(k.family)),
    ("wave", "Wave", lambda k, c: render.literal(k.wave)),
    ("class", "Class", lambda k, c: render.literal(k.klass)),
]
HISTORY_COLUMN = ("history", "History", lambda k, c: c.history.get(k.name, cell("")))


FIRST_BATCH = 200  # rows added before the first paint
BATCH = 2000  # rows added per tick after that
MAX_WIDTH = {"kernel": 44, "class": 40, "family": 20, "triage": 24}


def _same(a: Text, b: Text) -> bool:
    return a is b or a.plain == b.plain and a.style == b.style and a.spans == b.spans


class KernelTable(DataTable):
    """A DataTable that updates only changed cells when the set of rows is unchanged."""

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self.fixed_columns = 3
        self.show_history = False
        self._rows: dict[str, tuple[Text, ...]] = {}
        self._order: list[str] = []
        self._columns_shown: tuple[str, ...] = ()
        self._cache: dict[str, tuple[Kernel, tuple, tuple[Text, ...]]] = {}
        self._populating = False
        self._generation = 0
        self._focus_target: tuple[str | None, int] = (None, 0)

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
        """Show ``kernels`` in this order, touching as little of the table as possible.

        A row is rebuilt only when its Kernel object or its context changed; the
        live loader keeps unchanged kernels as the same objects across reloads.
        """
        spec = self.columns_spec()
        keys = tuple(key for key, _label, _cell in spec)
        if keys != self._columns_shown:
            self._cache.clear()
        rows: dict[str, tuple[Text, ...]] = {}
        changed: list[str] = []
        for kernel in kernels:
            signature = ctx.signature(kernel)
            cached = self._cache.get(kernel.name)
            if cached is not None and cached[0] is kernel and cached[1] == signature:
                rows[kernel.name] = cached[2]
                continue
            cells = tuple(make(kernel, ctx) for _key, _label, make in spec)
            self._cache[kernel.name] = (kernel, signature, cells)
            rows[kernel.name] = cells
            changed.append(kernel.name)
        order = list(rows)
        if not self._populating and keys == self._columns_shown and set(order) == set(self._order):
            self._update_in_place(rows, changed, keys)
            self._set_widths([max(a, b) for a, b in zip(self._widths_now(), self._widths(rows, spec, changed))])
            if order != self._order:
                position = {name: index for index, name in enumerate(order)}
                keep = self.cursor_kernel
                self.sort("kernel", key=lambda value: position[value.plain])
                self._order = order
                self.focus_kernel(keep)
            return
        for name in set(self._cache) - set(rows):
            del self._cache[name]
        self._rebuild(rows, order, spec, self._widths(rows, spec, order))

    @staticmethod
    def _widths(rows: dict[str, tuple[Text, ...]], spec, names: list[str]) -> list[int]:
        """Column widths from our own cells: exact, cheap, and never left unmeasured.

        DataTable's auto width measures new rows on idle with Rich (1.6-1.9 s at
        10k rows, see ENGINEERING.md); our cells are single-line Text, whose
        cell length is the width.
        """
        widths = []
        for index, (key, label, _cell) in enumerate(spec):
            widest = max((rows[name][index].cell_len for name in names), default=0)
            widths.append(min(max(widest, len(label)), MAX_WIDTH.get(key, 1000)))
        return widths

    def _widths_now(self) -> list[int]:
        return [column.width for column in self.ordered_columns]

    def _set_widths(self, widths: list[int]) -> None:
        changed = False
        for column, width in zip(self.ordered_columns, widths):
            if column.width != width:
                column.width, changed = width, True
        if changed:
            self._require_update_dimensions = True  # DataTable recomputes its virtual size on idle
            self.refresh()

    def _update_in_place(self, rows: dict[str, tuple[Text, ...]], changed: list[str], keys: tuple[str, ...]) -> None:
        for name in changed:
            old = self._rows[name]
            for index, value in enumerate(rows[name]):
                if not _same(value, old[index]):
                    self.update_cell(name, keys[index], value)
        self._rows = rows

    def _rebuild(self, rows: dict[str, tuple[Text, ...]], order: list[str], spec, widths: list[int]) -> None:
        if self._populating:  # the cursor has not reached its row yet: keep aiming for it
            keep, offset = self._focus_target
        else:
            keep, offset = self.cursor_kernel, self.cursor_row - round(self.scroll_y)
        self._focus_target = (keep, offset)
        keys = tuple(key for key, _label, _cell in spec)
        if keys != self._columns_shown:
            self.clear(columns=True)
            for (key, label, _cell), width in zip(spec, widths):
                self.add_column(label, key=key, width=width)
            self._columns_shown = keys
        else:
            self.clear()
            self._set_widths(widths)
        self._rows, self._order = rows, order
        self._generation += 1
        self._add_rows(order, 0, self._generation, keep, offset)

    def _add_rows(self, order: list[str], start: int, generation: int, keep: str | None, offset: int) -> None:
        """Add rows in batches: the first screenful paints at once, the rest follow on later
        ticks, so 10k rows neither delay the first frame nor freeze the keyboard."""
        if generation != self._generation:
            return  # a newer show() started over
        batch = FIRST_BATCH if start == 0 else BATCH
        for name in order[start : start + batch]:
            self.add_row(*self._rows[name], key=name)
        end = start + batch
        if start <= self._index_of(order, keep) < end or (keep is None and start == 0):
            self.focus_kernel(keep, offset)
        if end < len(order):
            self._populating = True
            self.set_timer(0.001, lambda: self._add_rows(order, end, generation, keep, offset))
        else:
            self._populating = False

    @staticmethod
    def _index_of(order: list[str], name: str | None) -> int:
        try:
            return order.index(name) if name is not None else -1
        except ValueError:
            return -1

    def focus_kernel(self, name: str | None, offset: int | None = None) -> None:
        """Put the cursor back on ``name`` (and the row back at its place in the viewport)."""
        if name is None or name not in self._rows:
            return
        row = self.get_row_index(name)
        self.move_cursor(row=row, animate=False, scroll=offset is None)
        if offset is not None:
            self.scroll_to(y=max(row - offset, 0), animate=False, immediate=True)
