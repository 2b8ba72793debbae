"""The kernel table: one row per kernel, drawn a line at a time.

Not a DataTable: DataTable renders every cell through Rich's console (padding,
styling, cropping), which took 63 ms of the first 160x48 frame on the reference
snapshot, and at 10k rows its per-cell update and sort calls cost ~0.1 s of the UI
thread per reload. Our cells are single-line Text of known width, so a line is a
handful of Segments, and a reload only swaps the list of rows.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

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
    entries: dict = field(default_factory=dict)  # triage entries (frozen) by kernel name
    history: dict[str, Text] = field(default_factory=dict)
    compare: list[dict[str, Text]] = field(default_factory=list)  # per --compare source

    def key(self) -> tuple:
        """The whole context: when it equals the last one, no row's signature changed."""
        return (
            tuple(sorted(self.marks.items())),
            frozenset(self.flash),
            frozenset(self.highlighted),
            tuple(self.entries.items()),
            self.history,
            tuple(id(cells) for cells in self.compare),
        )

    def signature(self, kernel: Kernel) -> tuple:
        """Everything besides the kernel that a row shows: equal means the same cells.

        The triage cell is a function of the kernel and its entry, so the entry stands
        for it: looking it up is cheaper than building the cell for 10k rows a reload.
        """
        name = kernel.name
        return (
            self.marks.get(name),
            name in self.flash,
            name in self.highlighted,
            self.entries.get(name),
            self.history.get(name),
            tuple(cells.get(name) for cells in self.compare),
        )


def _name(kernel: Kernel, ctx: RowContext) -> Text:
    style = "bold reverse" if kernel.name in ctx.flash else "bold underline" if kernel.name in ctx.highlighted else ""
    return render.literal(kernel.name, style=style)


# (key, header label, cell function). The key doubles as the sort column name.
ColumnSpec = tuple[str, str, Callable[[Kernel, "RowContext"], Text]]
COLUMNS: list[ColumnSpec] = [
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


def _compare_column(index: int, label: str) -> ColumnSpec:
    """The ``index``-th --compare source's tier and median ratio."""
    return (
        f"compare{index}",
        f"vs {label}",
        lambda k, c: c.compare[index].get(k.name, cell("")) if index < len(c.compare) else cell(""),
    )


FIXED_COLUMNS = 3  # Δ, tier and name stay put while the rest scroll sideways
PADDING = 1  # blank cells either side of a column
MAX_WIDTH = {"kernel": 44, "class": 40, "family": 20, "triage": 24}
Row = tuple[Text, ...]


def _style_of(text: Text) -> Style:
    style = text.style
    return Style.parse(style) if isinstance(style, str) else style  # Style.parse is cached


def _cell_segments(text: Text, width: int, base: Style, post: Style | None) -> list[Segment]:
    """One cell, exactly ``width`` cells wide, an ellipsis where it is cut."""
    if text.spans:  # several styles in one cell: let Rich split it, then fit it
        segments = list(Segment.apply_style(_span_segments(text), base, post))
        return list(Segment.adjust_line_length(segments, width, base + post if post else base))
    plain = text.plain
    length = cell_len(plain)
    style = base + _style_of(text)
    if post:
        style += post
    if length > width:
        return [Segment(set_cell_size(plain, width - 1) + "…" if width > 1 else set_cell_size(plain, width), style)]
    pad = Segment(" " * (width - length), base + post if post else base)
    if text.justify == "right":
        return [pad, Segment(plain, style)]
    return [Segment(plain, style), pad]


def _span_segments(text: Text) -> list[Segment]:
    """Text.render without a Console: our cells carry Styles or style names, never theme names."""
    segments = []
    plain = text.plain
    style = _style_of(text)
    cuts = sorted({0, len(plain), *(s.start for s in text.spans), *(s.end for s in text.spans)})
    for start, end in itertools.pairwise(cuts):
        span_style = style
        for span in text.spans:
            if span.start <= start and end <= span.end:
                span_style += Style.parse(span.style) if isinstance(span.style, str) else span.style
        segments.append(Segment(plain[start:end], span_style))
    return segments


class _FromTable(Message):
    """A message from a kernel table; ``control`` lets ``@on(..., "#id")`` pick the table."""

    def __init__(self, table: KernelTable) -> None:
        super().__init__()
        self.table = table

    @property
    def control(self) -> KernelTable:
        return self.table


class KernelTable(ScrollView, can_focus=True):
    """Kernels as rows: a sticky header, fixed name columns, a row cursor that stays on
    its kernel across reloads, sorting and re-filtering at the cost of a list swap."""

    COMPONENT_CLASSES = {"kernel-table--header", "kernel-table--even-row", "kernel-table--cursor"}
    BINDINGS = [
        Binding("up,k", "cursor_up", "Up", show=False),
        Binding("down,j", "cursor_down", "Down", show=False),
        Binding("pageup", "cursor_page(-1)", "Page up", show=False),
        Binding("pagedown", "cursor_page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "First row", show=False),
        Binding("end", "cursor_to(-1)", "Last row", show=False),
        Binding("enter", "select_cursor", "Detail", show=False),
    ]

    class RowHighlighted(_FromTable):
        """The cursor moved onto another kernel (or off the last one)."""

        def __init__(self, table: KernelTable, kernel: str | None) -> None:
            super().__init__(table)
            self.kernel = kernel

    class RowSelected(_FromTable):
        """Enter, or a click on the row under the cursor: open this kernel."""

        def __init__(self, table: KernelTable, kernel: str) -> None:
            super().__init__(table)
            self.kernel = kernel

    class HeaderSelected(_FromTable):
        """A click on a column header."""

        def __init__(self, table: KernelTable, column: str) -> None:
            super().__init__(table)
            self.column = column

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.show_history = False
        self.compare_labels: tuple[str, ...] = ()  # --compare sources: a column each, after the ratio
        self.sorted_by: tuple[str | None, bool] = (None, False)
        self.cursor_row = 0
        self._spec: list[ColumnSpec] = []
        self._widths: list[int] = []
        self._rows: dict[str, Row] = {}
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        self._cache: dict[str, tuple[Kernel, tuple, Row]] = {}
        self._last_context: tuple | None = None

    # -- reading ---------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._order)

    @property
    def column_keys(self) -> tuple[str, ...]:
        return tuple(key for key, _label, _cell in self._spec)

    @property
    def cursor_kernel(self) -> str | None:
        return self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None

    def get_row(self, kernel: str) -> Row:
        return self._rows[kernel]

    def get_row_at(self, index: int) -> Row:
        return self._rows[self._order[index]]

    def get_cell(self, kernel: str, column: str) -> Text:
        return self._rows[kernel][self.column_keys.index(column)]

    def columns_spec(self) -> list[ColumnSpec]:
        columns = list(COLUMNS)
        at = next(i for i, spec in enumerate(columns) if spec[0] == "ratio") + 1
        columns[at:at] = [_compare_column(i, label) for i, label in enumerate(self.compare_labels)]
        return columns + ([HISTORY_COLUMN] if self.show_history else [])

    # -- data ------------------------------------------------------------------------

    def show(self, kernels: list[Kernel], ctx: RowContext) -> None:
        """Show ``kernels`` in this order; the cursor stays on its kernel, at its place.

        A row's cells are rebuilt only when its Kernel object or its context changed:
        the live loader keeps unchanged kernels as the same objects across reloads.
        """
        spec = self.columns_spec()
        same_columns = spec == self._spec
        if not same_columns:
            self._cache.clear()
        rows: dict[str, Row] = {}
        changed: list[str] = []
        context = ctx.key()
        same_context, self._last_context = same_columns and context == self._last_context, context
        for kernel in kernels:
            cached = self._cache.get(kernel.name)
            if cached is not None and cached[0] is kernel and same_context:
                rows[kernel.name] = cached[2]  # a sort or a filter: only identities to check
                continue
            signature = ctx.signature(kernel)
            if cached is not None and cached[0] is kernel and cached[1] == signature:
                rows[kernel.name] = cached[2]
                continue
            cells = tuple(make(kernel, ctx) for _key, _label, make in spec)
            self._cache[kernel.name] = (kernel, signature, cells)
            rows[kernel.name] = cells
            changed.append(kernel.name)
        order = list(rows)
        same_kernels = rows.keys() == self._rows.keys()
        if same_columns and same_kernels:
            # The same kernels: columns only grow, so a reload never jiggles the layout.
            widths = [max(a, b) for a, b in zip(self._widths, self._measure(rows, spec, changed), strict=True)]
        else:
            for name in self._cache.keys() - rows.keys():
                del self._cache[name]
            widths = self._measure(rows, spec, order)
        keep, offset = self.cursor_kernel, self.cursor_row - self.scroll_offset.y
        self._spec, self._widths, self._rows = spec, widths, rows
        if order != self._order:
            self._order = order
            self._index = {name: index for index, name in enumerate(order)}
        self.virtual_size = Size(sum(w + 2 * PADDING for w in widths), len(order) + 1)
        if keep in self._index:
            # Reordered (a reload, a sort): the view stays, so rows rising to the top are
            # seen. Filtered: the cursor's row keeps its line, as if the others slid away.
            self.focus_kernel(keep, None if same_kernels else offset)
        else:
            self.move_cursor(min(self.cursor_row, len(order) - 1))
        self.refresh()

    @staticmethod
    def _measure(rows: dict[str, Row], spec: list[ColumnSpec], names: list[str]) -> list[int]:
        widths = []
        for index, (key, label, _cell) in enumerate(spec):
            widest = max((rows[name][index].cell_len for name in names), default=0)
            widths.append(min(max(widest, cell_len(label)), MAX_WIDTH.get(key, 1000)))
        return widths

    # -- cursor ----------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)  # less the header line

    def move_cursor(self, row: int, scroll: bool = True) -> None:
        """Put the cursor on ``row`` (clamped); tell the screen when the kernel under it changes."""
        before = self.cursor_kernel
        old = self.cursor_row
        self.cursor_row = max(0, min(row, len(self._order) - 1))
        if scroll:
            self._scroll_cursor_into_view()
            # Once more after the next layout: rows added just now are not yet within
            # the scroll limits, so a key right after a load would not scroll.
            self.call_after_refresh(self._scroll_cursor_into_view)
        self._refresh_row(old)
        self._refresh_row(self.cursor_row)
        if self.cursor_kernel != before:
            self.post_message(self.RowHighlighted(self, self.cursor_kernel))

    def focus_kernel(self, name: str | None, offset: int | None = None) -> None:
        """Put the cursor on ``name``: in view, or ``offset`` lines below the top row."""
        index = self._index.get(name) if name is not None else None
        if name is None or index is None:
            return
        self.move_cursor(index, scroll=offset is None)
        if offset is not None:
            self._keep_place(name, offset)
            self.call_after_refresh(self._keep_place, name, offset)  # (see move_cursor)

    def _keep_place(self, name: str, offset: int) -> None:
        if self.cursor_kernel == name:
            self.scroll_to(y=max(self.cursor_row - offset, 0), animate=False, immediate=True)

    def _scroll_cursor_into_view(self) -> None:
        top = self.scroll_offset.y
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + self._page:
            self.scroll_to(y=self.cursor_row - self._page + 1, animate=False, immediate=True)

    def _refresh_row(self, index: int) -> None:
        y = index - self.scroll_offset.y + 1
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def action_cursor_up(self) -> None:
        self.move_cursor(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_cursor(self.cursor_row + 1)

    def action_cursor_page(self, direction: int) -> None:
        self.move_cursor(self.cursor_row + direction * self._page)

    def action_cursor_to(self, row: int) -> None:
        self.move_cursor(row if row >= 0 else len(self._order) - 1)

    def action_select_cursor(self) -> None:
        if self.cursor_kernel is not None:
            self.post_message(self.RowSelected(self, self.cursor_kernel))

    def on_focus(self) -> None:
        self._refresh_row(self.cursor_row)

    def on_blur(self) -> None:
        self._refresh_row(self.cursor_row)

    # -- mouse -----------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        if offset.y == 0:
            column = self.column_at(offset.x)
            if column is not None:
                self.post_message(self.HeaderSelected(self, column))
            return
        row = self.scroll_offset.y + offset.y - 1
        if row >= len(self._order):
            return
        if row == self.cursor_row or event.chain > 1:
            self.move_cursor(row)
            self.action_select_cursor()
        else:
            self.move_cursor(row)

    def column_x(self, key: str) -> int | None:
        """Where column ``key`` starts on screen (None when scrolled out of sight)."""
        x = 0
        fixed = self._fixed_width()
        for index, (column, width) in enumerate(zip(self.column_keys, self._widths, strict=True)):
            start = x if index < FIXED_COLUMNS else x - self.scroll_offset.x
            if column == key:
                return start if index < FIXED_COLUMNS or start >= fixed else None
            x += width + 2 * PADDING
        return None

    def column_at(self, screen_x: int) -> str | None:
        for key, width in zip(self.column_keys, self._widths, strict=True):
            start = self.column_x(key)
            if start is not None and start <= screen_x < start + width + 2 * PADDING:
                return key
        return None

    def _fixed_width(self) -> int:
        return sum(w + 2 * PADDING for w in self._widths[:FIXED_COLUMNS])

    # -- drawing ---------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            return self._line(self._header(), base + self.get_component_rich_style("kernel-table--header"), None, width)
        index = self.scroll_offset.y + y - 1
        if index >= len(self._order):
            return Strip.blank(width, base)
        if index % 2:
            base += self.get_component_rich_style("kernel-table--even-row")
        post = self.get_component_rich_style("kernel-table--cursor") if index == self.cursor_row else None
        return self._line(self._rows[self._order[index]], base, post, width)

    def _header(self) -> Row:
        column, reverse = self.sorted_by
        return tuple(
            cell(label + (" ▼" if reverse else " ▲") if key == column else label) for key, label, _cell in self._spec
        )

    def _line(self, cells: Row, base: Style, post: Style | None, width: int) -> Strip:
        blank = Segment(" " * PADDING, base + post if post else base)
        fixed: list[Segment] = []
        rest: list[Segment] = []
        for index, (text, column_width) in enumerate(zip(cells, self._widths, strict=True)):
            target = fixed if index < FIXED_COLUMNS else rest
            target.append(blank)
            target.extend(_cell_segments(text, column_width, base, post))
            target.append(blank)
        fixed_width = self._fixed_width()
        scroll_x = self.scroll_offset.x
        scrolled = Strip(rest).crop(scroll_x, scroll_x + max(width - fixed_width, 0))
        line = Strip.join([Strip(fixed, fixed_width), scrolled])
        # One segment per style run: paddings and cells of one style become one escape
        # sequence, which roughly halves what a frame sends down an SSH link.
        return line.extend_cell_length(width, base + post if post else base).crop(0, width).simplify()
