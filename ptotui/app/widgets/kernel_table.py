"""The kernel table: one row per kernel, drawn a line at a time.

Not a DataTable: DataTable renders every cell through Rich's console (padding,
styling, cropping), which dominated the first 160x48 frame on the reference snapshot
(benchmarks/startup_breakdown.py), and at 10k rows its per-cell update and sort calls
held the UI thread on every reload (benchmarks/bench_scale.py). Our cells are
single-line Text of known width, so a line is a handful of Segments, and a reload
only swaps the list of rows.
"""

from __future__ import annotations

import itertools
from typing import Any

from rich.cells import cell_len
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
from ptotui.app.widgets.table_columns import (
    COLUMNS,
    INDEX,
    KERNEL,
    TIER,
    Column,
    Row,
    RowContext,
    compare_column,
    data_width,
    header_width,
    short_badge_of,
)
from ptotui.model.config import DEFAULT_COLUMNS, normal_columns
from ptotui.model.i18n import _
from ptotui.model.present.layout import Layout, column_width, fit_columns
from ptotui.model.present.names import cut_names
from ptotui.model.types import Kernel


def _style_of(text: Text) -> Style:
    style = text.style
    return Style.parse(style) if isinstance(style, str) else style  # Style.parse is cached


def _cell_segments(text: Text, width: int, base: Style, post: Style | None) -> list[Segment]:
    """One cell, exactly ``width`` cells wide, an ellipsis where it is cut."""
    if text.spans:  # several styles in one cell: let Rich split it, then fit it
        segments = list(Segment.apply_style(_span_segments(text), base, post))
        if cell_len(text.plain) > width > 1:  # cut: the last cell is an ellipsis
            kept = list(Segment.adjust_line_length(segments, width - 1, base))
            return [*kept, Segment("…", kept[-1].style if kept else base)]
        return list(Segment.adjust_line_length(segments, width, base + post if post else base))
    plain = text.plain
    length = cell_len(plain)
    style = base + _style_of(text)
    if post:
        style += post
    if length > width:
        return [Segment(render.clip(plain, width), style)]
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
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("pageup", "cursor_page(-1)", "Page up", show=False, id="table.page-up"),
        Binding("pagedown", "cursor_page(1)", "Page down", show=False, id="table.page-down"),
        Binding("home", "cursor_to(0)", "First row", show=False, id="table.first"),
        Binding("end", "cursor_to(-1)", "Last row", show=False, id="table.last"),
        Binding("enter", "select_cursor", "Detail", show=False, id="table.open"),
        Binding("left", "column_left", "Column left", show=False, id="table.left"),
        Binding("right", "column_right", "Column right", show=False, id="table.right"),
    ]

    class RowHighlighted(_FromTable):
        """The cursor moved onto another kernel (or off the last one). ``placed``: the rows
        put it there (the first rows, its kernel gone), not a key or a click."""

        def __init__(self, table: KernelTable, kernel: str | None, placed: bool = False) -> None:
            super().__init__(table)
            self.kernel = kernel
            self.placed = placed

    class RowSelected(_FromTable):
        """Enter, or a click on the row under the cursor: open this kernel."""

        def __init__(self, table: KernelTable, kernel: str) -> None:
            super().__init__(table)
            self.kernel = kernel

    class Compacted(_FromTable):
        """The table switched to (or from) its narrow forms: short badges, short headers."""

        def __init__(self, table: KernelTable, compact: bool) -> None:
            super().__init__(table)
            self.compact = compact

    class HeaderSelected(_FromTable):
        """A click on a column header."""

        def __init__(self, table: KernelTable, column: str) -> None:
            super().__init__(table)
            self.column = column

    def __init__(self, columns: tuple[str, ...] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.order: tuple[str, ...] = normal_columns(columns or DEFAULT_COLUMNS)
        self.first_column = 0  # how many scrolled columns are off to the left
        self.empty_text = ""  # what an empty table says (why nothing is shown)
        self.sorted_by: tuple[str | None, bool] = (None, False)
        self.cursor_row = 0
        self._columns: tuple[Column, ...] = COLUMNS  # the cells of a row: COLUMNS, then --compare's
        self._at: dict[str, int] = dict(INDEX)  # a column's cell in a row
        self._compare_labels: tuple[str, ...] = ()
        self._measured: dict[int, int] = {}  # a column's widest cell (cell index -> width), measured on demand
        self._blank: dict[int, bool] = {}  # a column with nothing in any shown row (cell index), asked on demand
        self._fitted: Layout | None = None
        self._fitted_for: tuple = ()
        self._fitted_cells: tuple[tuple[int, int], ...] = ()  # the fitted columns' (cell index, width)
        self._cut: tuple[int, dict[str, str]] | None = None  # (width, how each long name is shown in it)
        self._compact = False  # the narrow forms are shown (the screen shows their legend)
        self._kernels: dict[str, Kernel] = {}  # shown, by name
        self._ctx = RowContext()
        self._order: list[str] = []
        self._index: dict[str, int] = {}
        # name -> (kernel, signature, its cells once drawn): cells are built only for the
        # rows that are drawn, and kept until the kernel or its signature changes.
        self._cache: dict[str, tuple[Kernel, tuple, Row | None]] = {}
        self._last_context: tuple | None = None

    # -- reading ---------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self._order)

    @property
    def column_keys(self) -> tuple[str, ...]:
        """Every column's key, in the order of a row's cells."""
        return tuple(column.key for column in self._columns)

    @property
    def cursor_kernel(self) -> str | None:
        return self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None

    def get_row(self, kernel: str) -> Row:
        """A shown kernel's cells (built now if its row was not drawn yet)."""
        kernel_, signature, row = self._cache[kernel]
        if row is None:
            row = tuple(column.make(kernel_, self._ctx) for column in self._columns)
            self._cache[kernel] = (kernel_, signature, row)
        return row

    def get_row_at(self, index: int) -> Row:
        return self.get_row(self._order[index])

    def get_cell(self, kernel: str, column: str) -> Text:
        return self.get_row(kernel)[self._at[column]]

    # -- columns ---------------------------------------------------------------------

    @property
    def compare_labels(self) -> tuple[str, ...]:
        """The --compare sources: a column each, right after the ratio (or the kernel)."""
        return self._compare_labels

    @compare_labels.setter
    def compare_labels(self, labels: tuple[str, ...]) -> None:
        if labels == self._compare_labels:
            return
        self._compare_labels = labels
        self._columns = COLUMNS + tuple(compare_column(i, label) for i, label in enumerate(labels))
        self._at = {column.key: index for index, column in enumerate(self._columns)}
        self._measured, self._blank = {}, {}
        self._cache = {name: (kernel, signature, None) for name, (kernel, signature, _row) in self._cache.items()}
        self._last_context = None  # every row gains cells: each is rebuilt when drawn
        self._relayout()

    def language_changed(self) -> None:
        """``l``: every built row and measured width was in the other language."""
        self._measured, self._blank = {}, {}
        self._cache = {name: (kernel, signature, None) for name, (kernel, signature, _row) in self._cache.items()}
        self._last_context = None
        self._relayout()

    def shown_order(self) -> tuple[str, ...]:
        """The columns as the screen shows them, left to right (those scrolled off included)."""
        return self._shown_order()

    def _shown_order(self) -> tuple[str, ...]:
        """The chosen columns, with the --compare columns right after the ratio (or the kernel)."""
        compares = tuple(column.key for column in self._columns[len(COLUMNS) :])
        if not compares:
            return self.order
        at = self.order.index("ratio" if "ratio" in self.order else "kernel") + 1
        return self.order[:at] + compares + self.order[at:]

    def set_columns(self, order: tuple[str, ...]) -> None:
        """Show these columns, in this order (the chooser, the settings file, ``h``)."""
        self.order = normal_columns(order)
        self.first_column = 0
        self._relayout()

    @property
    def show_step(self) -> bool:
        """Step is among the chosen columns (its cells need every kernel's change points)."""
        return "step" in self.order

    @property
    def show_history(self) -> bool:
        """History is among the chosen columns (its cells cost a build per load)."""
        return "history" in self.order

    def toggle_history(self) -> bool:
        """Show or hide History, right after the ratio (where a change of it is seen);
        True when it is now shown."""
        order = list(self.order)
        if "history" in order:
            order.remove("history")
        else:
            anchor = "ratio" if "ratio" in order else "kernel"
            order.insert(order.index(anchor) + 1, "history")
        self.set_columns(tuple(order))
        return "history" in self.order

    def fit(self) -> Layout:
        """The columns as they fit the current width (recomputed only when something changed)."""
        key = (self.scrollable_content_region.width, self._shown_order(), self.first_column, self.sorted_by)
        if self._fitted is None or key != self._fitted_for:
            fitted = fit_columns(
                ("mark", *key[1]),
                key[0],
                self.first_column,
                self._width,
                self._header_width,
                cuttable={column.key for column in self._columns if column.limit},
                empty=self._empty,
            )
            self.first_column = fitted.hidden_left
            self._fitted, self._fitted_for = fitted, key
            self._fitted_cells = tuple((self._at[column], width) for column, width in fitted.columns)
            if fitted.compact != self._compact:
                self._compact = fitted.compact
                self.post_message(self.Compacted(self, self._compact))
        return self._fitted

    def _cut_name(self, name: str, width: int) -> str:
        """``name`` cut in the middle to ``width``, apart from every other shown name."""
        if self._cut is None or self._cut[0] != width:
            self._cut = (width, cut_names((render.literal_text(n) for n in self._kernels), width))
        return self._cut[1].get(name, name)

    def _relayout(self) -> None:
        self._fitted = None
        self.refresh()

    def _header_width(self, key: str, compact: bool) -> int:
        return header_width(self._columns[self._at[key]], compact, self.sorted_by[0])

    def _width(self, key: str, compact: bool) -> int:
        """A column's width: its widest cell (within limits), never less than its header."""
        index = self._at[key]
        limit = self._columns[index].limit
        return column_width(key, self._data_width(index), self._header_width(key, compact), compact, limit)

    def action_column_right(self) -> None:
        if self.fit().hidden_right:
            self.first_column += 1
            self._relayout()

    def action_column_left(self) -> None:
        if self.first_column > 0:
            self.first_column -= 1
            self._relayout()

    # -- data ------------------------------------------------------------------------

    def show(self, kernels: list[Kernel], ctx: RowContext) -> None:
        """Show ``kernels`` in this order; the cursor stays on its kernel, at its place.

        Nothing is drawn here: a row's cells are built when the row is drawn, and a
        column is measured when the layout asks for its width, so 10k kernels cost a
        screenful of rows and the columns that fit (benchmarks/bench_scale.py). A built
        row is kept until its Kernel object or its context changes: the live loader
        keeps unchanged kernels as the same objects across reloads.
        """
        cache = self._cache
        by_name: dict[str, Kernel] = {}
        changed: list[Kernel] = []
        context = ctx.key()
        same_context, self._last_context = context == self._last_context, context
        for kernel in kernels:
            name = kernel.name
            by_name[name] = kernel
            cached = cache.get(name)
            if cached is not None and cached[0] is kernel and same_context:
                continue  # a sort or a filter: only identities to check
            signature = ctx.signature(kernel)
            if cached is not None and cached[0] is kernel and cached[1] == signature:
                continue
            cache[name] = (kernel, signature, None)
            changed.append(kernel)
        triaged = ctx.entries != self._ctx.entries
        self._ctx = ctx
        order = list(by_name)
        same_kernels = by_name.keys() == self._kernels.keys()
        if same_kernels:
            # The same kernels: columns only grow, so a reload never jiggles the layout.
            grown = {i: max(w, self._columns[i].widest(changed, ctx)) for i, w in self._measured.items()}
            # An empty column stays so only while the changed rows have nothing in it either.
            blank = {i: b and self._columns[i].blank(changed, ctx) for i, b in self._blank.items()}
            if triaged:  # but the user's own triage (a note cleared) is measured anew
                grown.pop(self._at["triage"], None)
                blank.pop(self._at["triage"], None)
        else:
            for name in cache.keys() - by_name.keys():
                del cache[name]
            grown, blank = {}, {}  # measured again as the layout asks
        keep, offset = self.cursor_kernel, self.cursor_row - self.scroll_offset.y
        if grown != self._measured or blank != self._blank or not same_kernels:
            self._fitted = None
        self._measured, self._blank, self._kernels = grown, blank, by_name
        self._cut = None
        if order != self._order:
            self._order = order
            self._index = {name: index for index, name in enumerate(order)}
        self.virtual_size = Size(0, len(order) + 1)  # sideways moves are whole columns, not scrolling
        if keep in self._index:
            # Reordered (a reload, a sort): the view stays, so rows rising to the top are
            # seen. Filtered: the cursor's row keeps its line, as if the others slid away.
            self.focus_kernel(keep, None if same_kernels else offset)
        else:
            self.move_cursor(min(self.cursor_row, len(order) - 1), placed=True)
        self.refresh()

    def _empty(self, key: str) -> bool:
        """Nothing in any shown row of column ``key`` (the layout leaves it out first when short of room)."""
        index = self._at[key]
        blank = self._blank.get(index)
        if blank is None:
            blank = self._blank[index] = self._columns[index].blank(self._kernels.values(), self._ctx)
        return blank

    def _data_width(self, index: int) -> int:
        """The widest cell of a column over the shown kernels (at least its short header),
        measured the first time the layout asks after the kernels changed."""
        width = self._measured.get(index)
        if width is None:
            width = data_width(self._columns[index], self._kernels.values(), self._ctx)
            self._measured[index] = width
        return width

    # -- cursor ----------------------------------------------------------------------

    @property
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)  # less the header line

    def move_cursor(self, row: int, scroll: bool = True, placed: bool = False) -> None:
        """Put the cursor on ``row`` (clamped); tell the screen when the kernel under it changes
        (``placed``: by the rows, not by the user)."""
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
            self.post_message(self.RowHighlighted(self, self.cursor_kernel, placed))

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
        """Where column ``key`` starts on screen (None when it is not shown)."""
        x = 0
        fitted = self.fit()
        for column, width in fitted.columns:
            if column == key:
                return x
            x += width + fitted.gap
        return None

    def column_at(self, screen_x: int) -> str | None:
        x = 0
        fitted = self.fit()
        for column, width in fitted.columns:
            if x <= screen_x < x + width + fitted.gap:
                return column
            x += width + fitted.gap
        return None

    # -- drawing ---------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        layout = self.fit()
        if y == 0:
            style = base + self.get_component_rich_style("kernel-table--header")
            return self._line(self._header(layout), style, None, layout, width, layout.marker)
        index = self.scroll_offset.y + y - 1
        if index >= len(self._order):
            if y == 1 and self.empty_text:
                message = Segment(" " + self.empty_text, base + Style(italic=True))
                return Strip([message]).adjust_cell_length(width, base)
            return Strip.blank(width, base)
        if index % 2:
            base += self.get_component_rich_style("kernel-table--even-row")
        post = self.get_component_rich_style("kernel-table--cursor") if index == self.cursor_row else None
        return self._line(self.get_row(self._order[index]), base, post, layout, width)

    def _header(self, layout: Layout) -> Row:
        sorted_key, reverse = self.sorted_by
        arrow = " ▼" if reverse else " ▲"
        cells = [cell("")] * len(self._columns)
        for index in layout.keys:
            column = self._columns[self._at[index]]
            label = _(column.short if layout.compact else column.label)
            cells[self._at[index]] = cell(label + arrow if column.key == sorted_key else label)
        return tuple(cells)

    def _line(self, cells: Row, base: Style, post: Style | None, layout: Layout, width: int, marker: str = "") -> Strip:
        fill = base + post if post else base
        blank = Segment(" ", fill)
        compact = layout.compact
        segments: list[Segment] = []
        for index, width_of_cell in self._fitted_cells:
            text = cells[index]
            if index == TIER and compact:
                text = short_badge_of(text)
            elif index == KERNEL and not text.spans and cell_len(text.plain) > width_of_cell:
                text = Text(self._cut_name(text.plain, width_of_cell), style=text.style, no_wrap=True)
            segments.append(blank)
            segments.extend(_cell_segments(text, width_of_cell, base, post))
            if not compact:
                segments.append(blank)
        line = Strip(segments)
        if marker:  # right-aligned in the header, in room the layout kept free for it
            room = width - cell_len(marker) - 1
            line = Strip.join([line.extend_cell_length(room, fill).crop(0, room), Strip([Segment(marker + " ", fill)])])
        # One segment per style run: paddings and cells of one style become one escape
        # sequence, which roughly halves what a frame sends down an SSH link.
        return line.extend_cell_length(width, fill).crop(0, width).simplify()
