"""The fleet view's table (ptotui/app/compat/table.py's KeptCellsTable): a cell update renders
again only the cells it changes, and the screen still shows every value, the cursor and each
change of the columns as before. Decisions (which cells Rich renders), not timings: those are
benchmarks/bench_fleet.py's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.padding import Padding
from rich.text import Text
from textual.app import App, ComposeResult
from textual.renderables.styled import Styled
from textual.widgets import DataTable
from textual.widgets.data_table import CellDoesNotExist, ColumnKey, CursorType, RowKey

from ptotui.app.compat.table import PRIVATE_MEMBERS, KeptCellsTable
from ptotui.app.factory import make_fleet_app
from ptotui.app.fleet_app import FleetApp
from tests.cli.test_fleet import Team
from tests.helpers import until
from tests.model.test_verdict import STEADY, WOBBLE, land

COLUMNS = ("name", "a", "b", "c")
ROWS = 40  # more than fit: some rows are out of view


class Tiny(App[None]):
    def __init__(self, cursor_type: CursorType = "cell", columns: tuple[str, ...] = COLUMNS, fixed: int = 0) -> None:
        super().__init__()
        self.cursor_type = cursor_type
        self.columns = columns
        self.fixed = fixed

    def compose(self) -> ComposeResult:
        yield KeptCellsTable[Text](id="t", cursor_type=self.cursor_type, zebra_stripes=True, fixed_columns=self.fixed)

    def on_mount(self) -> None:
        table = self.query_one(KeptCellsTable)
        for column in self.columns:
            table.add_column(column, key=column)
        for row in range(ROWS):
            table.add_row(*(Text(f"{column}{row:02d}") for column in self.columns), key=f"r{row:02d}")


def the_table(app: App) -> KeptCellsTable:
    return app.query_one(KeptCellsTable)


def shown(table: DataTable) -> list[str]:
    """The table's lines as the next frame puts them on screen (a line not marked for
    repainting comes from what the last frame drew)."""
    return [strip.text for strip in table.render_lines(table.size.region)]


def settled(table: DataTable) -> list[str]:
    """Every line drawn again now: the render caches are those of the table as it is (Textual
    renews its caches' keys on a resize without drawing, and the first frame after that draws
    each line it draws in full)."""
    table.refresh()
    return shown(table)


def under_cursor(table: DataTable) -> list[str]:
    """Per line on screen, the text drawn in the cursor's colours."""
    cursor = table.get_component_rich_style("datatable--cursor").bgcolor
    lines = []
    for strip in table.render_lines(table.size.region):
        lines.append("".join(seg.text for seg in strip if seg.style is not None and seg.style.bgcolor == cursor))
    return lines


def rendered(app: App, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each table cell's value Rich renders from now on (DataTable renders a cell as
    ``Styled(Padding(value))`` through ``console.render_lines``)."""
    seen: list[object] = []
    real = app.console.render_lines

    def spy(renderable, *args, **kwargs):
        if isinstance(renderable, Styled) and isinstance(renderable.renderable, Padding):
            seen.append(renderable.renderable.renderable)
        return real(renderable, *args, **kwargs)

    monkeypatch.setattr(app.console, "render_lines", spy)
    return seen


def line_of(row: int) -> int:
    return 1 + row  # the header first


async def test_textuals_private_members_it_relies_on_are_as_it_reads_them() -> None:
    """A Textual that renames these, or reorders the caches' keys, fails here, loudly: else
    KeptCellsTable would drop nothing and the screen keep a cell's old value."""
    app = Tiny()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        shown(table)
        for name in PRIVATE_MEMBERS:
            assert hasattr(table, name), f"Textual's DataTable has no {name} any more"
        row, column = RowKey("r02"), ColumnKey("b")
        assert any(key[0] == row and key[1] == column for key in table._cell_render_cache.keys())
        assert any(key[0] == row for key in table._row_render_cache.keys())
        assert any(key[1] == 2 for key in table._row_renderable_cache.keys())
        assert any(key[0] == line_of(2) for key in table._line_cache.keys())
        assert table._row_locations.get(row) == 2 and table._column_locations.get(column) == 2
        assert table._y_offsets[2] == (row, 0)
        assert table._data[row][column].plain == "b02"


async def test_an_update_renders_again_only_the_cell_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Tiny()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        before = settled(table)
        seen = rendered(app, monkeypatch)
        new = Text("NEW")
        table.update_cell("r03", "b", new)
        after = shown(table)
        assert seen == [new]  # Textual's own DataTable renders every cell in view again here
        assert "NEW" in after[line_of(3)] and "b03" not in after[line_of(3)]
        assert [line for n, line in enumerate(after) if n != line_of(3)] == [
            line for n, line in enumerate(before) if n != line_of(3)
        ]
        assert table.get_cell("r03", "b") is new


async def test_a_batch_renders_its_cells_in_view_and_the_others_when_scrolled_to(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = Tiny()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        settled(table)
        seen = rendered(app, monkeypatch)
        table.update_cells([(f"r{row:02d}", "c", Text(f"C{row:02d}")) for row in range(ROWS)])
        lines = shown(table)
        in_view = [row for row in range(ROWS) if line_of(row) < len(lines)]
        assert sorted(str(value) for value in seen) == [f"C{row:02d}" for row in in_view]
        assert all(f"C{row:02d}" in lines[line_of(row)] for row in in_view)
        table.move_cursor(row=ROWS - 1)
        await pilot.pause()
        assert f"C{ROWS - 1:02d}" in "".join(shown(table))


@pytest.mark.parametrize("cursor_type", ["cell", "row"])
async def test_the_cursor_shows_the_new_value_and_moves_on_after_an_update(cursor_type: CursorType) -> None:
    app = Tiny(cursor_type)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        table.move_cursor(row=3, column=2)
        await pilot.pause()
        table.update_cells([("r03", "b", Text("NEW")), ("r05", "b", Text("OTH"))])
        lit = under_cursor(table)
        assert "NEW" in lit[line_of(3)] and ("c03" in lit[line_of(3)]) == (cursor_type == "row")
        assert all(not line for n, line in enumerate(lit) if n != line_of(3))
        await pilot.press("down", "down")
        lit = under_cursor(table)
        assert "OTH" in lit[line_of(5)]
        assert all(not line for n, line in enumerate(lit) if n != line_of(5))  # no highlight left behind
        assert "NEW" in shown(table)[line_of(3)]


async def test_a_fixed_column_and_a_scrolled_one_show_their_new_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fleet's mark and kernel name are fixed columns: they stay put while the hosts
    scroll sideways, and their cells are updated there too."""
    wide = ("name", *(f"host{n}-" for n in range(8)))  # "host3-07": wider than the screen, all of them
    app = Tiny(columns=wide, fixed=1)
    async with app.run_test(size=(40, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        table.scroll_to(x=30, animate=False)
        await pilot.pause()
        before = settled(table)[line_of(3)]
        assert before.startswith(" name03 ") and "host0-03" not in before and "host5-03" in before
        seen = rendered(app, monkeypatch)
        table.update_cells([("r03", "name", Text("NEW")), ("r03", "host5-", Text("SHIFTED!"))])
        line = shown(table)[line_of(3)]
        assert line.startswith(" NEW ") and "SHIFTED!" in line and "host5-03" not in line
        assert set(map(str, seen)) == {"NEW", "SHIFTED!"}  # (Textual renders a fixed cell twice: fixed, and under)


async def test_a_value_wider_than_its_column_widens_it() -> None:
    app = Tiny()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        table.update_cell("r03", "b", Text("a much wider value"), update_width=True)
        await pilot.pause()  # the widths are worked out when the app is idle
        line = shown(table)[line_of(3)]
        assert "a much wider value" in line and line.index("c03") > line.index("value")
        assert "c04" in shown(table)[line_of(4)]  # the cells right of it moved with it
        table.update_cell("r03", "b", Text("short"), update_width=True)
        await pilot.pause()
        assert "short" in shown(table)[line_of(3)]
        table.update_cell("r04", "c", "a [b]str[/b] measured by Rich", update_width=True)  # markup, not Text
        await pilot.pause()
        assert "a str measured by Rich" in shown(table)[line_of(4)]


async def test_what_changes_the_layout_still_draws_every_cell_again(monkeypatch: pytest.MonkeyPatch) -> None:
    app = Tiny()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = the_table(app)
        table.update_cell("r01", "a", Text("NEW"))
        shown(table)
        seen = rendered(app, monkeypatch)
        table.sort("name", key=lambda name: name.plain, reverse=True)
        lines = shown(table)
        assert len(seen) >= len(COLUMNS) * (len(lines) - 1)
        assert "name39" in lines[1]
        with pytest.raises(CellDoesNotExist):
            table.update_cells([("r01", "nowhere", Text("x"))])


# -- the fleet view on it ----------------------------------------------------------------------

NEVER = 3600.0


def fleet_table(app: FleetApp) -> KeptCellsTable:
    return app.fleet_screen.query_one("#fleet-table", KeptCellsTable)


def plain(app: FleetApp, kernel: str, host: str) -> str:
    value = fleet_table(app).get_cell(kernel, host)
    return value.plain if isinstance(value, Text) else str(value)


def row_line(app: FleetApp, kernel: str) -> str:
    return next(line for line in shown(fleet_table(app)) if kernel in line)


def header(app: FleetApp) -> list[str]:
    """The host columns' labels as the screen shows them, left to right."""
    line = shown(fleet_table(app))[0]
    return [word for word in line.split() if word.startswith("host-")]


async def fetched(pilot, app: FleetApp, reads: int = 2) -> None:
    await until(pilot, lambda: app.reads >= reads and not app.reading_now)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_a_moved_hosts_cells_are_on_screen_and_only_they_are_rendered_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    team = Team(tmp_path / "team")
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        table = fleet_table(app)
        settled(table)
        land(team.benches["host-b"], WOBBLE[-1] * 1.2)
        team.publish("host-b")
        seen = rendered(app, monkeypatch)
        redraws = app.fleet_screen.redraws
        await pilot.press("r")
        await fetched(pilot, app, 3)
        await until(pilot, lambda: app.fleet_screen.redraws > redraws)
        line = row_line(app, STEADY)
        assert plain(app, STEADY, "host-b").startswith("▼")
        for host in ("host-a", "host-b", "host-c"):
            assert plain(app, STEADY, host).strip() in line
        may = {id(table.get_cell(row, column)) for row in table.rows for column in ("≠", "host-b")}
        assert seen and all(id(value) in may for value in seen)  # not host-a's, host-c's or the names


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
async def test_hide_order_and_pin_still_redraw_the_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    team = Team(tmp_path / "team")
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        land(team.benches["host-b"], WOBBLE[-1] * 1.2)
        team.publish("host-b")
        await pilot.press("r")
        await fetched(pilot, app, 3)  # host-b's cells came through update_cells
        assert header(app) == ["host-a", "host-b", "host-c"]
        await pilot.press("right", "right", "greater_than_sign")  # host-b one place right
        assert header(app) == ["host-a", "host-c", "host-b"]
        assert row_line(app, STEADY).rstrip().endswith(plain(app, STEADY, "host-b").strip())
        await pilot.press("p")  # host-b pinned: first, and the others compared with it
        assert header(app) == ["host-b", "host-a", "host-c"]
        assert "pp" in plain(app, STEADY, "host-a") and plain(app, STEADY, "host-a").strip() in row_line(app, STEADY)
        await pilot.press("right", "x")  # host-a hidden
        assert header(app) == ["host-b", "host-c"]
        await pilot.press("a")
        assert header(app) == ["host-b", "host-a", "host-c"]
        assert plain(app, STEADY, "host-b").strip() in row_line(app, STEADY)


async def test_rows_drawn_before_they_are_measured_are_drawn_again_once_measured() -> None:
    """A frame between ``add_row`` and the table's idle (a resize forces one: the fleet view
    makes its table again when the names' width changes) renders the new rows at their
    columns' widths before the rows were measured. Textual keeps those renders once the rows are
    measured (measuring does not renew the caches' keys), so the table showed every cell cut to
    its column's label: ``SLOW`` for ``SLOW  20.0% 0.2495ms``. Seen in tmux, 80x24 to 160x48."""
    app = Tiny(columns=("name", "a"))
    async with app.run_test(size=(60, 12)) as pilot:
        table = the_table(app)
        await pilot.pause()
        table.clear(columns=True)
        table.add_column("n", key="name")
        table.add_column("a", key="a")
        for row in range(ROWS):
            table.add_row(Text(f"name-of-row-{row:02d}"), Text(f"value-{row:02d}"), key=f"r{row:02d}")
        early = shown(table)  # the frame a resize forces, before the idle measures the rows
        assert "name-of-row-00" not in "".join(early)  # (what Textual draws then: cut to "n")
        await until(pilot, lambda: table.columns[ColumnKey("name")].content_width > 1)
        await pilot.pause()
        assert "name-of-row-00" in "".join(shown(table)) and "value-00" in "".join(shown(table))
