"""A DataTable whose cell updates keep what was rendered of the cells they leave alone (Textual's
private render caches). Serves the fleet view's keys during a fetch (target ≤ 100 ms key to frame)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeVar

from rich.text import Text
from textual.geometry import Region
from textual.render import measure
from textual.widgets import DataTable
from textual.widgets._data_table import default_cell_formatter
from textual.widgets.data_table import CellDoesNotExist, ColumnKey, RowKey

__all__ = ["PRIVATE_MEMBERS", "KeptCellsTable"]

CellType = TypeVar("CellType")

# What KeptCellsTable reads or writes of Textual's DataTable. tests/app/test_fleet_table.py checks
# that each is there and that the caches' keys still start as read here (the row key and column
# key first in a cell's, the row key first in a row's lines, the row's index second in its
# renderables, the line's y first in a screen line's): a Textual that renames or reshapes one
# fails that test, not a user's screen left showing a cell's old value.
PRIVATE_MEMBERS = (
    "_data",
    "_row_locations",
    "_column_locations",
    "_update_count",
    "_cell_render_cache",
    "_row_render_cache",
    "_row_renderable_cache",
    "_line_cache",
    "_y_offsets",
    "_update_dimensions",
    "_clear_caches",
)


class KeptCellsTable(DataTable[CellType]):
    """A DataTable in which a cell update renders again only the cells it changes.

    Textual's ``update_cell`` bumps ``_update_count``, which is part of the key of every render
    cache (each cell's lines, each row's lines and renderables, each screen line), so one changed
    cell had the next frame render every visible cell again through Rich: 125–216 ms at 160×48
    with 16 hosts, the one frame per fetch of a moved host that missed the fleet view's target of
    100 ms from a key to its frame (benchmarks/bench_fleet.py, docs/performance.md). Here
    :meth:`update_cells` writes the values and drops the cache entries of those cells, their rows'
    lines and the screen lines of those rows; ``_update_count`` stays, and with it the row offsets
    and the row order cached on it, which a new value does not change. The cursor and hover
    highlights are keys of those caches of their own, as in Textual.

    What changes the layout still goes through Textual and renders everything again: adding or
    removing rows or columns, ``clear``, ``sort``, a resize, a style change; and, with
    ``update_width``, a value wider than its column (the column grows, the cells right of it
    move). A column is not narrowed when its widest value goes (that would move them too): the
    next full draw fits it.
    """

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """Textual's measuring of new rows (on the table's idle), then, when a column's width
        changed, every render dropped: a frame drawn between ``add_row`` and that idle (a resize
        forces one, and the fleet view makes its table again when the names' width changes)
        rendered the new rows at the widths before them, and those renders are kept under the
        same keys, so the table showed each cell cut to its column's label until the next
        change. Seen in tmux from 80×24 to 160×48; tests/app/test_fleet_table.py."""
        widths = [column.content_width for column in self.columns.values()]
        super()._update_dimensions(new_rows)
        if widths != [column.content_width for column in self.columns.values()]:
            self._clear_caches()

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: CellType,
        *,
        update_width: bool = False,
    ) -> None:
        self.update_cells([(row_key, column_key, value)], update_width=update_width)

    def update_cells(
        self,
        updates: Iterable[tuple[RowKey | str, ColumnKey | str, CellType]],
        *,
        update_width: bool = False,
    ) -> None:
        """Write each value; the next frame renders these cells (and composes their rows'
        lines) again, nothing else. The caches are gone through once for the whole batch."""
        changed: set[tuple[RowKey, ColumnKey]] = set()
        wider: list[tuple[RowKey, ColumnKey, CellType]] = []
        for row, column, value in updates:
            row_key = RowKey(row) if isinstance(row, str) else row
            column_key = ColumnKey(column) if isinstance(column, str) else column
            if row_key not in self._row_locations or column_key not in self._column_locations:
                raise CellDoesNotExist(f"No cell exists for row_key={row_key!r}, column_key={column_key!r}.")
            if update_width and self._wider(row_key, column_key, value):
                wider.append((row_key, column_key, value))
            else:
                self._data[row_key][column_key] = value
                changed.add((row_key, column_key))
        if changed:
            self._forget(changed)
        for row_key, column_key, value in wider:  # Textual's way: the column grows, every cell is drawn again
            DataTable.update_cell(self, row_key, column_key, value, update_width=True)

    def _wider(self, row_key: RowKey, column_key: ColumnKey, value: Any) -> bool:
        column = self.columns[column_key]
        if not column.auto_width:
            return False
        if isinstance(value, Text) and "\n" not in value.plain and "\t" not in value.plain:
            return value.cell_len > column.content_width  # what Rich measures it at, without Rich (a third of a redraw)
        height = self.rows[row_key].height
        shown = default_cell_formatter(value, wrap=height != 1, height=height)
        return measure(self.app.console, shown, 1) > column.content_width

    def _forget(self, changed: set[tuple[RowKey, ColumnKey]]) -> None:
        """Drop what was rendered of these cells: their lines, their rows' lines and
        renderables, the screen lines those rows are on; then mark them on screen."""
        rows = {row_key: self.get_row_index(row_key) for row_key, _column in changed}  # and their index
        top = self.header_height if self.show_header else 0
        ys: dict[RowKey, list[int]] = {}  # each changed row's lines, from the table's top
        for y, (row_key, _line) in enumerate(self._y_offsets, start=top):
            if row_key in rows:
                ys.setdefault(row_key, []).append(y)
        cells = self._cell_render_cache
        for cell in [cell for cell in cells.keys() if (cell[0], cell[1]) in changed]:
            cells.discard(cell)
        row_lines = self._row_render_cache
        for row_line in [row_line for row_line in row_lines.keys() if row_line[0] in rows]:
            row_lines.discard(row_line)
        renderables = self._row_renderable_cache
        indexes = set(rows.values())
        for renderable in [renderable for renderable in renderables.keys() if renderable[1] in indexes]:
            renderables.discard(renderable)
        lines = {y for row_ys in ys.values() for y in row_ys}
        screen_lines = self._line_cache
        for line in [line for line in screen_lines.keys() if line[0] in lines]:
            screen_lines.discard(line)
        self._repaint([(rows[row_key], row_ys[0], len(row_ys)) for row_key, row_ys in ys.items()])

    def _repaint(self, rows: list[tuple[int, int, int]]) -> None:
        """Mark the changed rows' lines in view for the next frame: ``(index, y, height)``, y from
        the table's top. Whole lines: each is composed again anyway, and a fixed column's cell is
        not where the horizontal scroll puts the others."""
        width, height = self.size
        scroll_y = self.scroll_offset.y
        for index, y, lines in rows:
            on_screen = y if index < self.fixed_rows else y - scroll_y
            if on_screen + lines > 0 and on_screen < height:
                self.refresh(Region(0, on_screen, width, lines))
