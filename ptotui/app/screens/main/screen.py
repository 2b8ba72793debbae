"""The main screen: header, tier badges, kernel table, blocker pane, warnings."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets import Input, OptionList, Static

from ptotui.app import render
from ptotui.app.messages import ColumnsChosen, ReloadRequested
from ptotui.app.render import Part, display_path, empty_reason
from ptotui.app.screens.main.keys import MAIN_BINDINGS, MAIN_HELP_EXTRA
from ptotui.app.screens.main.step_cells import StepCells
from ptotui.app.screens.main.triage_actions import TriageActions
from ptotui.app.screens.main.warnings_box import WarningsBox
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.changes_pane import ChangesPane
from ptotui.app.widgets.fitted_line import FittedLine
from ptotui.app.widgets.kernel_table import KernelTable
from ptotui.app.widgets.table_columns import RowContext
from ptotui.app.widgets.tier_bar import TierBadge, TierBar
from ptotui.model.core.blockers import HOST_SIDE, PTO_SIDE
from ptotui.model.core.tiers import TIER_LABELS, TIERS
from ptotui.model.i18n import _, ngettext
from ptotui.model.present.focus import BLOCKERS, CHANGES, TABLE, next_stop
from ptotui.model.present.view import SORT_KEYS, sort_words
from ptotui.model.session import FLASH_SECONDS, Filters, Update
from ptotui.model.text import clean, one_line
from ptotui.model.triage import Status
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from ptotui.app.context import Context
    from ptotui.model.bench.benchrun import BenchRun
    from ptotui.model.rerun.queue import Event


def _status_parts(bench: BenchRun | None, now: float) -> list[tuple[str, str, int]]:
    """The bench run's status line; its module (and the runs') imported once there is one."""
    if bench is None:
        return []
    from ptotui.model.bench.benchrun import status_parts

    return status_parts(bench, now)


def _raise(error: Exception) -> None:
    raise error


class MainScreen(WarningsBox, TriageActions):
    """Everything the dashboard shows at a glance."""

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    # Each binding's id is what the settings file's [keys] table remaps (README, Configuration);
    # a PaletteCommand is also a command-palette entry (ptotui/app/keys.py).
    BINDINGS = MAIN_BINDINGS  # ptotui/app/screens/main/keys.py

    # Keys of the table: ? shows them as written here, or as [keys] maps the ids named.
    HELP_EXTRA = MAIN_HELP_EXTRA
    HELP_BINDINGS = KernelTable.BINDINGS  # the defaults of the ids HELP_EXTRA names

    def __init__(self, ctx: Context, initial_filter: str = "", sort: tuple[str | None, bool] = (None, False)) -> None:
        super().__init__()
        self.ctx = ctx
        self.session = ctx.session
        self.filters = Filters(text=initial_filter)
        self.sort_column, self.sort_reverse = sort  # the settings file's default sort
        self.highlighted: set[str] = set()
        self._filter_from: str | None = None  # the cursor's kernel when ``/`` opened the filter
        self._history_cells: tuple[object, object, dict[str, Text]] | None = None  # (history, reports, cells)
        self._steps = StepCells()
        self._compare_cells: tuple[object, list[dict[str, Text]]] | None = None  # (sides, cells)
        self._mounted = False
        self._shown_count = 0  # kernels in the table, for the header
        self._bench_timer: Timer | None = None  # ticks the running kernel's time while one runs

    def compose(self) -> ComposeResult:
        yield FittedLine(id="header")
        yield FittedLine(id="benchrun")
        yield TierBar(id="tiers")
        with Horizontal(id="body"):
            yield KernelTable(self.ctx.config.columns, id="kernels")
            with Vertical(id="side"):
                yield BlockerPane(id="blockers")
        if self.filters.text:
            yield self._filter_input()
        yield Static("", id="warnings", markup=False)

    # The filter line and the changes pane start hidden, so they are mounted once the first
    # rows are on screen (the app calls mount_hidden): mounting and styling them up front
    # delays the first rows (benchmarks/bench_startup.py). The footer too: it shows, but its
    # key hints can come a frame after the rows; composing and styling a widget per key
    # delayed the first rows the most of any widget.

    def _filter_input(self) -> Input:
        return Input(
            value=self.filters.text,
            id="filter",
            placeholder=_("filter: kernel, family, class, reason, gap id (enter: apply, esc: clear)"),
        )

    def mount_hidden(self) -> None:
        """Mount the filter line, the changes pane and the footer (once; later calls do nothing)."""
        warnings = self.query("#warnings")
        if not self.is_attached or not warnings:  # the app is closing (its children going)
            return
        if not self.query("#filter"):
            self.mount(self._filter_input(), before=warnings.first())
        if not self.query(ChangesPane):
            pane = ChangesPane(id="changes")
            self.query_one("#side").mount(pane)
            pane.show(self.session.since, self.session.changes)
        if not self.query("StableFooter"):
            from ptotui.app.widgets.footer import StableFooter  # mounted after the first frame: imported then

            self.mount(StableFooter(eager=True))  # with its keys at once, not a layout later

    def on_mount(self) -> None:
        # A key typed at once can be handled before this runs (the screen is the app's
        # default one): a ``/`` that opened the filter keeps it open and focused.
        if self.filters.text:
            self.add_class("-filtering")
        table = self.query_one(KernelTable)
        table.compare_labels = tuple(source.label for source in self.session.compare_sources)
        if self.app.focused is None:
            table.focus()
        self._mounted = True
        self.ctx.changed.subscribe(self, self._session_changed, immediate=True)
        self.ctx.reruns_changed.subscribe(self, self._rerun_changed)
        self._draw()

    @property
    def reports(self) -> ReportSet | None:
        """The session's reports (None until the first load)."""
        return self.session.reports

    # -- data ----------------------------------------------------------------------

    def _session_changed(self, update: Update) -> None:
        """The session changed (a load, what was seen, the compare with the snapshots): draw.
        Run at once, as the app publishes it: an error here is raised on the app's own
        queue, not swallowed by the signal."""
        try:
            if update.flashing:
                self.set_timer(FLASH_SECONDS + 0.1, self._draw)  # the flash ends
            self._draw()
        except Exception as exc:  # noqa: BLE001 - raised again where Textual reports it
            self.app.call_next(_raise, exc)

    def refresh_rows(self) -> None:
        self._draw()

    def visible_kernels(self, statuses: dict[str, Status] | None = None) -> list[Kernel]:
        return self.session.visible(self.filters, (self.sort_column, self.sort_reverse), statuses)

    def row_context(self) -> RowContext:
        session = self.session
        return RowContext(
            marks=dict(session.marks),
            flash=session.flashing(),
            highlighted=self.highlighted,
            triage=lambda kernel: render.triage(kernel, session.triage_status(kernel)),
            entries=session.triage.entries if session.triage else {},
            # Built per load (each ends on the kernel now): only when the column is shown.
            history=self.history_cells() if self.query_one(KernelTable).show_history else {},
            steps=self._steps.cells(self, self.session.reports) if self.query_one(KernelTable).show_step else {},
            compare=self.compare_cells(),
            reruns=self._failed_reruns(),
        )

    def _failed_reruns(self) -> dict[str, str]:
        """The rows whose last re-run failed (none before the re-runs are made)."""
        reruns, reports = self.ctx.reruns, self.session.reports
        if reruns is None or reports is None or not reruns.queue.failures:
            return {}
        return reruns.failed_marks(reports.kernels)

    def history_cells(self) -> dict[str, Text]:
        """The History column: the snapshots' sparkline, then the kernel now as the last point."""
        history, reports = self.session.history, self.session.reports
        if history is None or reports is None:
            return {}
        cached = self._history_cells
        if cached is None or cached[0] is not history or cached[1] is not reports:
            from ptotui.model.history.since import current_mark

            cells = {
                k.name: render.cell(history.sparkline(k.name, width=11) + current_mark(k), "cyan")
                for k in reports.kernels
            }
            cached = self._history_cells = (history, reports, cells)
        return cached[2]

    def compare_cells(self) -> list[dict[str, Text]]:
        """Per --compare source, each kernel's cell: that source's tier and median ratio,
        ``≠`` and bold where its tier or a status differs from the main reports."""
        sides = self.session.compare_sides
        if self._compare_cells is None or self._compare_cells[0] is not sides:
            cells = [{name: render.compare_cell(side) for name, side in by_name.items()} for by_name in sides]
            self._compare_cells = (sides, cells)
        return self._compare_cells[1]

    # -- drawing -------------------------------------------------------------------

    def on_unmount(self) -> None:
        self._mounted = False

    def language_changed(self) -> None:
        """``l``: every line drawn again in the language now in force."""
        self._draw()

    def _draw(self) -> None:
        if not self._mounted:  # a late message (history, a timer) during start-up
            return
        try:
            self._draw_all()
        except NoMatches:
            pass  # shutting down: the children unmount before this screen's on_unmount runs

    def _draw_all(self) -> None:
        session = self.session
        kernels = self.reports.kernels if self.reports else []
        has_entries = session.triage is not None and bool(session.triage.entries)
        by_name = self.reports.by_name() if self.reports is not None and has_entries else {}
        statuses = session.triage_statuses(by_name)
        untriaged = session.untriaged(statuses, by_name)
        self.query_one(TierBar).show(kernels, self.filters.tiers, untriaged=untriaged)
        shown = self.visible_kernels(statuses)
        table = self.query_one(KernelTable)
        table.sorted_by = (self.sort_column, self.sort_reverse)
        table.empty_text = self._empty_reason(len(kernels))
        table.show(shown, self.row_context())
        self.query_one(BlockerPane).show(shown, statuses, self.reports.gaps if self.reports else {})
        for pane in self.query(ChangesPane):
            pane.show(self.session.since, self.session.changes)
        self._draw_header(len(shown))
        self._draw_bench_run()
        self._draw_warnings()

    def _rerun_changed(self, event: Event | None) -> None:
        """The re-runs' line beside the bench run's, and their failed run dirs (not running):
        redrawn when they are made (``None``) and when one starts, ends or is queued."""
        if event is not None and event.kind == "finished":  # a failed one is said on its row
            self._draw()
        elif event is None or event.kind != "output":  # output changes nothing here; the line's clock ticks on its own
            self._draw_bench_run()

    def _draw_bench_run(self) -> None:
        """``running <kernel> 4m12s (last runs 10–11 min) · 23 of 50 re-measured since 03:10``,
        redrawn every second while a kernel runs; hidden when no bench run is under way."""
        bench = self.reports.bench_run if self.reports is not None else None
        reruns = self.ctx.reruns  # None until made (after the first frame): none running then
        if reruns is not None:
            bench = reruns.bench(bench)  # without the re-runs' own run directories
        now = self.ctx.clock()
        parts = _status_parts(bench, now)
        rerun_parts = reruns.status_parts() if reruns is not None else []
        widget = self.query_one("#benchrun", FittedLine)
        widget.display = bool(parts or rerun_parts)
        style = "bold red" if bench is not None and any(run.stalled(now) for run in bench.running) else "bold"
        line = [
            Part(Text(" " * (i == 0) + t, style=style), rank, Text(" " * (i == 0) + s, style=style))
            for i, (t, s, rank) in enumerate(parts)
        ]
        for t, s, rank in rerun_parts:
            lead = " · " if line else " "
            line.append(Part(Text(lead + t, style="bold magenta"), rank, Text(lead + s, style="bold magenta")))
        if line:
            widget.set_parts(line)
        running = (bench is not None and bool(bench.running)) or bool(rerun_parts)
        if running and self._bench_timer is None:
            self._bench_timer = self.set_interval(1.0, self._draw_bench_run, name="bench run clock")
        elif not running and self._bench_timer is not None:
            self._bench_timer.stop()
            self._bench_timer = None

    def _empty_reason(self, total: int) -> str:
        if self.reports is None:
            return "loading…"
        f = self.filters
        tiers = [t for t in TIERS if t in f.tiers]
        only = f.only[0] if f.only is not None else None
        return empty_reason(f.text, tiers, f.untriaged, f.changed, total, f.differing, only)

    def _draw_header(self, shown: int | None = None) -> None:
        """The line above the tier bar, fitted to the width: what filters the table and the
        regressions are kept longest, the path and the read time go first."""
        if shown is None:
            shown = self._shown_count
        self._shown_count = shown
        parts: list[Part] = []
        since = self.session.since
        if since is not None and since.stamp is not None and self.session.since_pending:
            # The reports changed and their compare has not come back: the count would be the
            # old reports' over the new data. Said as being recomputed, where the count goes.
            pending = _("regressions since {stamp}: comparing…").format(stamp=since.reference())
            parts.append(Part(Text(" " + pending, style="dim"), 0))
            since = None  # (nor the "no regressions since" below)
        if since is not None and since.stamp is not None and since.regressions:
            said = ngettext("{n} regression since {stamp}", "{n} regressions since {stamp}", since.regressions)
            regressions = " " + said.format(n=since.regressions, stamp=since.reference())
            bare = " " + said.format(n=since.regressions, stamp=one_line(clean(since.stamp)))  # narrow: the stamp
            parts.append(Part(Text(regressions, style="bold red"), 1, Text(bare, style="bold red"), 0))
        path = one_line(clean(display_path(self.session.location.reports)))
        tail = "/".join(Path(path).parts[-2:])
        lead = "  " if parts else " "  # two blanks after the regressions, as between the other parts
        short = Text(lead + "…/" + tail, style="bold") if tail != path else None
        # The path shortens first; the short path (or a path too short to shorten, such as
        # bench/reports in a checkout) outlives the read time.
        parts.append(Part(Text(lead + path, style="bold"), 6 if short is not None else 4, short, 4))
        if self.reports is None:
            parts.append(Part(Text("  " + _("loading…"), style="dim"), 0))
        else:
            bench = self.reports.bench_run
            if bench is not None and bench.no_summary:  # a new bench host: the runs, no summary yet
                parts.append(Part(Text("  " + _("no summary yet"), style="bold yellow"), 1))
            else:
                generated = one_line(clean(self.reports.generated_at or _("n/a")))
                parts.append(Part(Text("  " + _("gen {at}").format(at=generated)), 3))
            stamp = time.strftime("%H:%M:%S", time.localtime(self.session.loaded_at or 0))
            parts.append(Part(Text("  " + _("read {at}").format(at=stamp), style="dim"), 5))
            parts.append(Part(Text(f"  {shown}/{len(self.reports.kernels)}"), 1))
        if since is not None and since.stamp is not None and not since.regressions:
            none_since = _("no regressions since {stamp}").format(stamp=since.reference())
            parts.append(Part(Text("  " + none_since, style="dim"), 4))
        order = sort_words(self.sort_column)
        by = _("by {order}").format(order=order) + (" ▼" if self.sort_reverse else "")
        parts.append(Part(Text("  " + by, style="dim"), 2))
        f = self.filters
        tiers = "+".join(TIER_LABELS[t] for t in TIERS if t in f.tiers)
        flags = ((f.untriaged, _("untriaged")), (f.changed, _("changed")), (f.differing, _("differing")))
        for flag, word in (*flags, (tiers, tiers)):
            if flag:
                parts.append(Part(Text("  " + _("only {what}").format(what=word), style="bold yellow"), 0))
        if f.only is not None:
            only = _("only {what}").format(what=one_line(clean(f.only[0]), 40))
            parts.append(Part(Text("  " + only, style="bold yellow"), 0))
        if f.text:
            label = Text("  " + _("filter: "), style="dim")
            label.append(one_line(clean(f.text), 40), style="bold yellow")
            parts.append(Part(label, 0))
        self.query_one("#header", FittedLine).set_parts(parts)  # fitted to its width as it is drawn

    # -- actions -------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_filter" and isinstance(self.app.focused, Input):
            return False  # a "/" typed into the filter (or a note) is text
        return True

    def action_open_filter(self) -> None:
        self.mount_hidden()  # (a no-op unless ``/`` came before the first frame was out)
        self._filter_from = self.query_one(KernelTable).cursor_kernel  # where the cursor was
        self.add_class("-filtering")
        self.app.set_focus(self.query_one("#filter", Input))  # now, not on the next tick

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        if event.value == self.filters.text:  # set from here (cleared): drawn already
            return
        self.filters = replace(self.filters, text=event.value)
        self._draw()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        table = self.query_one(KernelTable)
        table.focus()
        self.set_class(bool(self.filters.text), "-filtering")
        # The filter applied: the cursor stays on its kernel when that matches, else it goes to
        # the first match (not the old row number, which could be the last match).
        before = self._filter_from
        if self.filters.text and table.cursor_kernel != before:
            table.focus_kernel(before)  # (nothing when it is not shown)
            if table.cursor_kernel != before:
                table.move_cursor(0)

    def action_clear_filters(self) -> None:
        if isinstance(self.focused, BlockerPane):  # esc leaves the pane first, filters stay
            self._leave_pane()
            return
        if self.has_class("-narrow") and self.has_class("-show-changes"):  # it covers the table: closed first
            self.remove_class("-show-changes")
            return
        self._clear_filters()
        self._draw()

    def _clear_filters(self) -> None:
        """Every filter off, the table focused; the caller draws once."""
        self.filters = Filters()
        self.highlighted = set()
        for widget in self.query("#filter").results(Input):
            widget.value = ""  # (its Changed then finds the filter as it is: no second draw)
        self.remove_class("-filtering")
        self.query_one(KernelTable).focus()

    def show_only(self, label: str, keep: Callable[[Kernel], bool]) -> None:
        """Only the kernels ``keep`` accepts, every other filter cleared (``esc`` clears it)."""
        self._clear_filters()
        self.filters = Filters(only=(label, keep))
        self._draw()  # once (benchmarks/bench_overview.py, enter)

    def action_show_overview(self) -> None:
        from ptotui.app.screens.overview import OverviewScreen, Pick  # imports plotext: not at start-up

        def picked(pick: Pick | None) -> None:
            if pick is not None:
                self.show_only(*pick)

        self.app.push_screen(OverviewScreen(self.ctx), picked)

    def action_filter_tier(self, tier: str) -> None:
        """A tier key adds its tier to the shown set, or takes it out again; ``0`` clears."""
        self.filters = self.filters.toggle_tier(tier)
        self._draw()

    def action_show_all_blockers(self) -> None:
        self.filters = replace(self.filters, tiers=frozenset((*PTO_SIDE, *HOST_SIDE)))
        self._draw()

    @on(TierBadge.Picked)
    def _tier_clicked(self, event: TierBadge.Picked) -> None:
        self.action_filter_tier(event.tier)

    def _sort_by(self, column: str | None, reverse: bool) -> None:
        self.sort_column, self.sort_reverse = column, reverse
        if not self._mounted or self.reports is None:
            self._draw()
            return
        # Only the table and the header depend on the order: the tier counts and the
        # blocker pane (its own order) are left as they are (benchmarks/bench_scale.py, key `s`).
        shown = self.visible_kernels()
        table = self.query_one(KernelTable)
        table.sorted_by = (column, reverse)
        table.show(shown, self.row_context())
        self._draw_header(len(shown))

    def _sortable(self) -> tuple[str, ...]:
        """The columns ``s`` steps through: the sortable ones, in the order the table shows them."""
        tables = self.query(KernelTable)
        order = tables.first().shown_order() if tables else tuple(SORT_KEYS)
        return tuple(key for key in order if key in SORT_KEYS)

    def action_sort_next(self, step: int = 1) -> None:
        cycle = (None, *self._sortable())  # the default order (tier, then ratio) is a stop on the way round
        current = cycle.index(self.sort_column) if self.sort_column in cycle else 0
        self._sort_by(cycle[(current + step) % len(cycle)], False)

    def action_sort_previous(self) -> None:
        self.action_sort_next(-1)

    def action_flip_order(self) -> None:
        self._sort_by(self.sort_column, not self.sort_reverse)

    @on(KernelTable.HeaderSelected)
    def _header_clicked(self, event: KernelTable.HeaderSelected) -> None:
        column = event.column
        if column not in SORT_KEYS:
            return
        reverse = not self.sort_reverse if column == self.sort_column else False
        self._sort_by(column, reverse)

    def _pane_shown(self) -> bool:
        if self.has_class("-narrow"):
            return self.has_class("-show-blockers")
        return not self.has_class("-hide-blockers")

    def _show_pane(self, shown: bool) -> None:
        wide = self.has_class("-wide")
        self.set_class(not shown if wide else shown, "-hide-blockers" if wide else "-show-blockers")

    def action_toggle_blockers(self) -> None:
        """``b``: show the pane and focus it, or (from the pane) hide it and go back to the table."""
        if self._pane_shown() and (isinstance(self.focused, BlockerPane) or self.has_class("-narrow")):
            self._show_pane(False)
            self.query_one(KernelTable).focus()
        else:
            self._enter_pane()

    def _enter_pane(self) -> None:
        self._show_pane(True)
        pane = self.query_one(BlockerPane)
        # The class takes effect at the next layout: focus once the pane is displayed.
        self.call_after_refresh(pane.focus)

    def _leave_pane(self) -> None:
        if self.has_class("-narrow"):
            self._show_pane(False)  # full width: back to the table it covered
        self.query_one(KernelTable).focus()

    def action_cycle_focus(self, step: int = 1) -> None:
        """Tab / shift+tab: table → blocker pane → changes pane (when shown) → table
        (``ptotui.model.present.focus``; the filter, when open, joins the cycle)."""
        focused = self.focused
        if isinstance(focused, Input) and focused.id == "filter" and step > 0:
            self.query_one(KernelTable).focus()
            return
        current = TABLE
        if isinstance(focused, BlockerPane | ChangesPane):
            current = BLOCKERS if isinstance(focused, BlockerPane) else CHANGES
        narrow, changes = self.has_class("-narrow"), self.has_class("-show-changes")
        target = next_stop(current, step, narrow, changes)
        if current == BLOCKERS and target != BLOCKERS:
            self._leave_pane()
        if current == CHANGES and target == TABLE and narrow:
            self.remove_class("-show-changes")  # it covers the table
        if target == BLOCKERS:
            self._enter_pane()
        elif target == CHANGES:
            self.call_after_refresh(self.query_one(ChangesPane).focus)
        else:
            self.query_one(KernelTable).focus()

    def action_toggle_pane_view(self) -> None:
        """``g``: the pane by layer, or by gap; opens and focuses the pane when hidden."""
        self.query_one(BlockerPane).toggle_view()
        if not self._pane_shown() or not isinstance(self.focused, BlockerPane):
            self._enter_pane()

    def action_choose_columns(self) -> None:
        from ptotui.app.screens.main.columns import ColumnsScreen

        table = self.query_one(KernelTable)

        def chosen(columns: tuple[str, ...] | None) -> None:
            if columns is None or columns == table.order:
                return
            table.set_columns(columns)
            self.post_message(ColumnsChosen(table.order))

        self.app.push_screen(ColumnsScreen(table.order), chosen)

    def action_reload(self) -> None:
        self.post_message(ReloadRequested())
        self.notify(_("Reloading…"), timeout=1.5)

    @on(BlockerPane.Picked)
    def _blocker_picked(self, event: BlockerPane.Picked) -> None:
        self.highlighted = event.affected
        table = self.query_one(KernelTable)
        table.show(self.visible_kernels(), self.row_context())
        if event.kernel is not None:
            table.focus_kernel(event.kernel)

    @on(BlockerPane.Opened)
    def _blocker_opened(self, event: BlockerPane.Opened) -> None:
        self.open_detail(event.kernel)

    def action_show_detail(self) -> None:
        kernel = self.current_kernel()
        if kernel is not None:
            self.open_detail(kernel.name)

    @on(KernelTable.Compacted, "#kernels")
    def _table_compacted(self, event: KernelTable.Compacted) -> None:
        """Short badges in the table: the tier bar becomes their legend (a line taller when wide)."""
        self.set_class(event.compact, "-short-badges")
        self.query_one(TierBar).short = event.compact

    @on(KernelTable.RowSelected, "#kernels")
    def _row_selected(self, event: KernelTable.RowSelected) -> None:
        self.open_detail(event.kernel)

    @on(KernelTable.RowHighlighted, "#kernels")
    def _row_highlighted(self, event: KernelTable.RowHighlighted) -> None:
        # Seen when a key or click brings the cursor there, not when the rows put it there.
        if not event.placed and self.session.visit(event.kernel):
            self.call_after_refresh(self._draw)

    @on(OptionList.OptionSelected, "#changes")
    def _change_selected(self, event: OptionList.OptionSelected) -> None:
        name = (event.option.id or "").split(":", 1)[-1]
        self.query_one(KernelTable).focus_kernel(name)
        self.query_one(KernelTable).focus()

    def open_detail(self, name: str) -> None:
        if self.reports is None or name not in self.reports.by_name():
            return
        from ptotui.app.screens.detail import DetailScreen

        self.app.push_screen(DetailScreen(self.reports.by_name()[name], self.ctx))
