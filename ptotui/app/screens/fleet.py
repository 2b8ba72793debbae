"""The fleet view's screen: a header naming each host, and a table with a row per kernel and a
column per host. What it shows is decided by :class:`ptotui.model.fleetview.FleetView`; the
keys change its columns (hide, move, pin the reference) or open a kernel's detail."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ptotui.app.compat.table import KeptCellsTable
from ptotui.app.render import cell, short_badge
from ptotui.app.render.fleet_hosts import host_lines
from ptotui.app.widgets.footer import StableFooter
from ptotui.model.core.fmt import ms, pct
from ptotui.model.fleet import Cell, Host, Row
from ptotui.model.fleetview import Compared, FleetView
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.present.names import cut_names
from ptotui.model.text import clean, visible

KERNEL_COLUMNS = 2  # the disagreement mark and the kernel's name come before the hosts


def cell_text(value: Cell | None, compared: Compared | None, comparable: bool) -> Text:
    """``▼ MID 42.3% 0.1234ms``; against the reference ``+1.2pp +5%`` (or ``≠env``)."""
    if value is None:
        return cell("—", "dim")
    text = Text(no_wrap=True)
    text.append("▼" if value.regressed else " ", style="bold red")
    text.append_text(short_badge(value.tier))
    text.append(f" {pct(value.ratio_median_pct)}")
    if value.pto_ms is not None:
        text.append(f" {ms(value.pto_ms)}ms", style="" if comparable else "dim")
    if compared is not None:
        if compared.ratio_pp is not None:
            text.append(f" {compared.ratio_pp:+.1f}pp", style="cyan")
        if compared.other_environment:
            text.append(" ≠env", style="yellow")
        elif compared.ms_pct is not None:
            moved = round(compared.ms_pct)
            text.append(f" {moved:+d}%" if moved else " ±0%", style="red" if moved > 0 else "green" if moved else "")
        if compared.differs:
            text.append(" ≠", style="bold yellow")
    return text


class FleetScreen(Screen[None]):
    """The fleet: hosts in the header, kernels by hosts in the table."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "detail", N_("Detail"), id="fleet.detail"),
        Binding("j", "step(1)", N_("Cursor down"), show=False, id="fleet.down"),
        Binding("k", "step(-1)", N_("Cursor up"), show=False, id="fleet.up"),
        Binding("x", "hide", N_("Hide host"), id="fleet.hide"),
        Binding("a", "show_all", N_("Show all hosts"), id="fleet.show_all"),
        Binding("less_than_sign,comma", "move(-1)", N_("Host left"), id="fleet.left"),
        Binding("greater_than_sign,full_stop", "move(1)", N_("Host right"), id="fleet.right"),
        Binding("p", "pin", N_("Pin as reference"), id="fleet.pin"),
        Binding("i", "hosts", N_("Hosts in full"), id="fleet.hosts"),
        Binding("w", "warnings", N_("Warnings"), id="fleet.warnings"),
    ]
    # The footer's keys left out first when they do not all fit (StableFooter: whole keys, in the
    # user's language); ``?`` lists them all.
    FOOTER_DROP = ("show_all", "move(1)", "move(-1)", "warnings", "hosts", "hide", "pin")

    def __init__(
        self, view: FleetView, clock: Callable[[], float] = time.time, changed: Callable[[], None] | None = None
    ) -> None:
        """``changed``: called after a key changed the host columns (the app keeps them)."""
        super().__init__()
        self.view = view
        self.clock = clock
        self.changed = changed or (lambda: None)
        self.status = ""
        self.redraws = 0  # tables drawn (the tests wait on it)
        # hosts, kernels, the reference, whether each host's ms compare, the names' width: as drawn
        self._layout: tuple[list[str], list[str], str | None, list[bool], int] | None = None
        self._drawn: dict[str, list[Text]] = {}
        self._pending: list[int] = []  # host columns (indexes into those shown) a read still has to draw
        self._pass = 0  # counts the draws: a pending column's callback of an older one does nothing

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-status", markup=False)
        yield Static(id="fleet-hosts", markup=False)
        yield Static(id="fleet-note", markup=False)
        # The mark and the kernel's name stay put when the hosts' columns scroll sideways (at 80
        # columns the cursor on the second host scrolled the names out of sight).
        yield KeptCellsTable[Text](
            id="fleet-table", cursor_type="cell", zebra_stripes=True, fixed_columns=KERNEL_COLUMNS
        )
        yield StableFooter()

    def on_mount(self) -> None:
        self.set_interval(30, self._draw_header)  # the ages and stale marks move with the clock
        self._draw_header()

    @property
    def table(self) -> KeptCellsTable[Text]:
        return self.query_one("#fleet-table", KeptCellsTable)

    # -- drawing ------------------------------------------------------------------------

    def reading(self, fetch: bool) -> None:
        self.status = _("fetching…") if fetch else _("reading…")
        self._draw_header()

    def failed(self, words: str) -> None:
        self.status = words
        self._draw_header()

    def redraw(self, moved: list[str] | None = None) -> None:
        """``moved``: the hosts read again (None: any may differ, as after a key)."""
        self.status = ""
        self._draw_header()
        self._draw_table(moved)

    def _draw_header(self) -> None:
        if not self.is_mounted:
            return
        now = self.clock()
        view = self.view
        status = Text(no_wrap=True, overflow="ellipsis")
        if view.fleet is None:
            status.append(self.status or _("reading…"))
        else:
            hosts = len(view.fleet.hosts)
            status.append(ngettext("{n} bench host", "{n} bench hosts", hosts).format(n=hosts), style="bold")
            if view.fleet.environments > 1:
                status.append(" " + _("in {n} environments").format(n=view.fleet.environments))
            reference = view.columns.reference
            if reference is not None:
                status.append("  " + _("reference ★ {host}").format(host=visible(reference)), style="yellow")
            failed = view.fetches.words()
            if failed is not None:
                status.append("  " + failed, style="bold red")
            elif view.fetches.ok_at is not None:
                said = _("fetched {time}").format(time=time.strftime("%H:%M", time.localtime(view.fetches.ok_at)))
                status.append("  " + said, style="dim")
            if self.status:
                status.append("  " + self.status, style="dim")
            warnings = len(view.fleet.warnings) + sum(len(host.warnings) for host in view.fleet.hosts)
            warnings += view.settings_warning is not None
            if warnings:
                said = ngettext("{n} warning (w)", "{n} warnings (w)", warnings).format(n=warnings)
                status.append("  " + said, style="yellow")
        self.query_one("#fleet-status", Static).update(status)
        width, height = self.size.width or self.app.size.width, self.size.height or self.app.size.height
        listed = self._header_hosts()
        room = max(2, height // 3)  # a third of the screen at most: the table keeps its rows
        shown = listed if len(listed) <= room else listed[: room - 1]
        fitted = host_lines(view, shown, now, width)
        if len(shown) < len(listed):
            more = len(listed) - len(shown)
            said = ngettext("+{n} more host (i: every host)", "+{n} more hosts (i: every host)", more)
            fitted.append(Text(said.format(n=more), style="dim"))
        lines = Text("\n", no_wrap=True, overflow="ellipsis").join(fitted)
        if view.problem is not None:
            lines = Text(view.problem, style="bold")
        self.query_one("#fleet-hosts", Static).update(lines)
        note = view.environments_note()
        self.query_one("#fleet-note", Static).update(Text(note or "", style="yellow", no_wrap=True))
        self.query_one("#fleet-note", Static).display = note is not None

    def _header_hosts(self) -> list[Host]:
        shown = self.view.shown()
        return shown + [h for h in (self.view.fleet.hosts if self.view.fleet else []) if h not in shown]

    def _draw_table(self, moved: list[str] | None = None) -> None:
        """The table from the view: when the hosts shown, their environments and the kernels are
        as drawn before, only the cells that differ are written again, and after a read only
        the moved hosts' columns are made again (a publish changes a few cells of one column;
        making 300 rows x 16 hosts of cells held a key's frame for 180 ms: bench_fleet.py), one
        column a frame (:meth:`_next_column`)."""
        table = self.table
        view = self.view
        shown = view.shown()
        rows = view.rows()
        width = self._name_width()
        layout = (
            [host.name for host in shown],
            [row.name for row in rows],
            view.columns.reference,
            [view.ms_comparable(host) for host in shown],
            width,
        )
        if layout == self._layout:
            self._flush()  # columns of a read before, not drawn yet: drawn now, from this one's view
            reference = view.columns.reference
            if moved is not None and reference not in moved:
                redo = [index for index, host in enumerate(shown) if host.name in moved]
            else:
                redo = list(range(len(shown)))
            self._write_columns(redo[:1], disagree=True)
            self._pending, self._pass = redo[1:], self._pass + 1
            self._next_column(self._pass)
            return
        self._pending, self._pass = [], self._pass + 1  # made again whole below
        cut = cut_names((clean(row.name) for row in rows), width)  # the middle cut of the kernel table
        cells = {
            row.name: [
                cell("≠", "bold yellow") if view.disagrees(row) else cell(""),
                cell(cut.get(clean(row.name), clean(row.name))),
            ]
            + [self._cell(row, host) for host in shown]
            for row in rows
        }
        keep_row, keep_host = self._cursor()
        table.clear(columns=True)
        table.add_column("≠", key="≠")
        table.add_column(_("Kernel"), key="kernel")
        for host in shown:
            label = Text(("★ " if view.columns.reference == host.name else "") + visible(host.name), style="bold")
            if not view.ms_comparable(host):
                label.append(" ≠env", style="yellow")
            table.add_column(label, key=host.name)
        for name, values in cells.items():
            table.add_row(*values, key=name)
        self._layout, self._drawn = layout, cells
        self.redraws += 1
        names = layout[0]
        column = KERNEL_COLUMNS + names.index(keep_host) if keep_host in names else 1
        if keep_row is not None and keep_row in table.rows:
            table.move_cursor(row=table.get_row_index(keep_row), column=column, scroll=True)
        else:
            table.move_cursor(column=column)

    def _write_columns(self, redo: list[int], disagree: bool = False) -> None:
        """The host columns ``redo`` (indexes into the hosts shown), and with ``disagree`` the
        ``≠`` column, made again from the view; only the cells that differ are written, and only
        those are rendered again in the next frame (KeptCellsTable: Textual rendered every
        visible cell again after one update, 125–216 ms). One wider than its column widens it."""
        view = self.view
        shown = view.shown()
        keys = ["≠", "kernel", *(host.name for host in shown)]
        columns = ([0] if disagree else []) + [KERNEL_COLUMNS + index for index in redo]
        updates: list[tuple[str, str, Text]] = []
        for row in view.rows():
            before = self._drawn[row.name]
            values = list(before)
            if disagree:
                values[0] = cell("≠", "bold yellow") if view.disagrees(row) else cell("")
            for index in redo:
                values[KERNEL_COLUMNS + index] = self._cell(row, shown[index])
            for column in columns:
                value, old = values[column], before[column]
                if value.plain != old.plain or value.spans != old.spans or value.style != old.style:
                    updates.append((row.name, keys[column], value))
            self._drawn[row.name] = values
        self.table.update_cells(updates, update_width=True)

    def _next_column(self, draw: int) -> None:
        """The next pending host column, one a frame: a read that changes every column (the
        pinned reference host moved, and every cell is compared with it) made 300 x 16 cells in
        131–137 ms on the UI thread and rendered every visible one in the next frame, and a key
        waited for both; now it waits for one column's, 18–20 ms (docs/performance.md,
        ``bench_fleet.py --pinned``). ``draw``: the read's pass; a newer one (a read, or the
        table made again) has taken over when it differs."""
        if draw != self._pass:
            return
        if not self._pending:
            self.redraws += 1
            return
        self._write_columns([self._pending.pop(0)])
        self.call_after_refresh(self._next_column, draw)

    def _flush(self) -> None:
        """The pending host columns all written now (a newer read is drawn after them)."""
        pending, self._pending = self._pending, []
        if pending:
            self._pass += 1
            self._write_columns(pending)
            self.redraws += 1

    def _name_width(self) -> int:
        """The kernel column's width: a third of the screen, at least 16 cells; a longer name is
        cut in the middle, apart from the others (ptotui/model/present/names.py)."""
        return max(16, (self.size.width or self.app.size.width) // 3)

    def on_resize(self) -> None:
        """The header's lines and the names fitted to the new width; a resize that leaves the
        names as drawn makes no cell again."""
        self._draw_header()
        if self.view.fleet is not None and self._layout is not None and self._layout[4] != self._name_width():
            self._draw_table()

    def _cell(self, row: Row, host: Host) -> Text:
        return cell_text(row.cells.get(host.name), self.view.compared(row, host), self.view.ms_comparable(host))

    def _cursor(self) -> tuple[str | None, str | None]:
        """The kernel and the host under the cursor."""
        table = self.table
        if not table.row_count:
            return None, None
        row_key, column_key = table.coordinate_to_cell_key(table.cursor_coordinate)
        column = column_key.value
        host = column if column in self.view.hosts else None
        return row_key.value, host

    # -- keys -----------------------------------------------------------------------------

    def _host(self) -> str | None:
        _row, host = self._cursor()
        if host is None:
            self.notify(_("Put the cursor on a host's column first."), markup=False, timeout=3)
        return host

    def action_step(self, rows: int) -> None:
        """``j`` / ``k``: the cursor a row down / up, as in the dashboard's tables."""
        if rows > 0:
            self.table.action_cursor_down()
        else:
            self.table.action_cursor_up()

    def action_hide(self) -> None:
        host = self._host()
        if host is not None:
            if self.view.columns.hide(host):
                self.redraw()
                self.changed()
            else:
                self.notify(_("The last host shown stays."), markup=False, timeout=3)

    def action_show_all(self) -> None:
        if self.view.columns.show_all():
            self.redraw()
            self.changed()

    def action_move(self, step: int) -> None:
        host = self._host()
        if host is not None and self.view.columns.move(host, step):
            self.redraw()
            table = self.table
            table.cursor_coordinate = Coordinate(
                table.cursor_coordinate.row, KERNEL_COLUMNS + self.view.columns.visible().index(host)
            )
            self.changed()

    def action_pin(self) -> None:
        host = self._host()
        if host is not None:
            self.view.columns.pin(host)
            self.redraw()
            self.changed()

    def action_detail(self) -> None:
        row, _host = self._cursor()
        if row is None:
            return
        from ptotui.app.screens.fleet_detail import FleetDetailScreen

        self.app.push_screen(FleetDetailScreen(self.view, row))

    def action_hosts(self) -> None:
        """Every host in full: what the header leaves out to fit."""
        from ptotui.app.screens.fleet_detail import FleetHostsScreen

        self.app.push_screen(FleetHostsScreen(self.view, self._header_hosts(), self.clock()))

    def action_warnings(self) -> None:
        from ptotui.app.screens.fleet_detail import FleetTextScreen

        fleet = self.view.fleet
        lines = [self.view.settings_warning] if self.view.settings_warning else []
        lines += list(fleet.warnings) if fleet else []
        for host in fleet.hosts if fleet else []:
            lines += [f"{visible(host.name)}: {warning}" for warning in host.warnings]
        self.app.push_screen(FleetTextScreen(_("Warnings"), [Text(clean(line)) for line in lines] or [_("none")]))

    def on_data_table_cell_selected(self, event: DataTable.CellSelected) -> None:
        self.action_detail()
