"""Everything known about one kernel, with a plain-words reading at the top.

The screen holds the keys, the scrolling and the worker that reads report.json; what it
shows is drawn by ``ptotui/app/render/detail.py`` from values.
"""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message

from ptotui.app.context import Context
from ptotui.app.messages import RerunOutputRequested, RerunRequested
from ptotui.app.render import changes as changes_render
from ptotui.app.render import detail as detail_render
from ptotui.app.screens.base import PtoScreen, page, thread_worker
from ptotui.app.widgets.footer import StableFooter
from ptotui.app.widgets.rendered import RenderedStatic
from ptotui.app.widgets.search import SearchActions, SearchBar, key_named
from ptotui.model.bench.record import Run
from ptotui.model.changes.points import ChangePoint, Listed, collect, for_detail, run_dir, with_artifacts
from ptotui.model.core.shapes import shape_dirs
from ptotui.model.i18n import N_, _, language
from ptotui.model.read.loader import read_file
from ptotui.model.read.sidefiles import read_kernel_report
from ptotui.model.rerun.queue import Event
from ptotui.model.session import Update
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel


class DetailScroll(VerticalScroll):
    """The detail's scroll: keys jump at once. Textual animates Home, End and the page
    keys for up to a second, redrawing the whole screen at every step of the way."""

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)


class DetailScreen(SearchActions, PtoScreen[None]):
    """The detail of one kernel; ``l`` switches between English and Chinese.

    Every text field shows at most a screenful (``e`` pages the full texts), and
    report.json is read on a worker thread: a FIFO or a huge file there must not
    stop the keys.
    """

    BINDINGS = [
        Binding("escape", "back", N_("Back"), id="detail.back"),
        Binding("l", "switch_language", N_("中文/English"), id="detail.language"),
        Binding("e", "page_full_text", N_("Full text"), id="detail.full-text"),
        Binding("g", "toggle_charts", N_("Charts"), id="detail.charts"),
        Binding("h", "toggle_full_history", N_("All history"), id="detail.history"),
        Binding("d", "show_code_changes", N_("Code changes"), id="detail.code-changes"),
        Binding("q", "back", N_("Back"), show=False, id="detail.quit"),
        Binding("R", "rerun", N_("Re-run the kernel (running: stop it)"), show=False, id="detail.rerun"),
        Binding("L", "show_rerun_output", N_("The re-run's output, live"), show=False, id="detail.rerun-output"),
        Binding("slash", "search", N_("Search"), key_display="/", id="detail.search"),
        Binding("n", "search_step(1)", N_("Next match"), show=False, id="detail.next-match"),
        Binding("N", "search_step(-1)", N_("Previous match"), show=False, id="detail.previous-match"),
    ]
    HELP_EXTRA = [("y", N_("on the charts (g): log or linear latency axis"), ("charts.log",))]
    # The footer's keys left out first when they do not all fit (StableFooter); ``?`` lists them all.
    # The keys a reader needs to act on what the detail says (its code changes, a search) stay
    # longest; the language and the full history are a toggle a reader finds once (``?``).
    FOOTER_DROP = (
        "toggle_full_history",
        "switch_language",
        "toggle_log",
        "page_full_text",
        "search",
        "show_code_changes",
        "toggle_charts",
    )

    class ReportRead(Message):
        """report.json was read (or not) on the worker thread, and the shape sub-directories
        beside it (or in the newest run's directory) listed: they name the shapes."""

        def __init__(self, result: detail_render.Report, shape_dirs: list[str]) -> None:
            super().__init__()
            self.result = result
            self.shape_dirs = shape_dirs

    class ChangesFound(Message):
        """The kernel's change points were found (and their code compared) on a worker thread:
        for good and pending, in the detail's order (``for_detail``)."""

        def __init__(self, listed: list[Listed], pending: list[Listed]) -> None:
            super().__init__()
            self.listed = listed
            self.pending = pending

    def __init__(self, kernel: Kernel, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.kernel = kernel
        self.reruns = ctx.reruns_now()  # its failed re-runs are listed with its runs
        self.report: detail_render.Report | None = None
        self.full_history = False
        self.gone = False  # the kernel left the reports: shown as last read, and said so
        self._drawn: tuple = ()  # the inputs of the last redraw
        self.shape_dirs: list[str] = []  # the shape sub-directories of its report's or newest run's directory
        self.changes: list[ChangePoint] | None = None  # as listed (for good, then pending), once found
        self.listed: list[Listed] | None = None  # the change points for good, their shapes' repeats folded
        self.pending: list[Listed] = []  # fewer than MIN_AFTER runs after them yet

    def compose(self) -> ComposeResult:
        # The report is drawn apart: when it arrives, only its lines are measured again.
        with DetailScroll(id="detail-scroll"):
            yield RenderedStatic("", id="detail", markup=False)
            yield RenderedStatic("", id="detail-changes", markup=False)
            yield RenderedStatic("", id="detail-report", markup=False)
        yield SearchBar(lambda: self.query_one("#detail-scroll", DetailScroll), self._searched)
        yield StableFooter(eager=True)

    def on_mount(self) -> None:
        self.title = one_line(clean(self.kernel.name), 200)  # one line, whatever the name holds
        self.redraw()
        self.query_one("#detail-scroll").focus()
        self._read_report(self._newest_run_dir())
        self._changes_of: tuple[str, ...] | None = None  # the runs the change points were found in
        self._follow_runs()
        self.ctx.changed.subscribe(self, self._follow)
        self.ctx.reruns_changed.subscribe(self, self._rerun_changed)

    def _follow(self, update: Update) -> None:
        """Every published step of the session: the kernel as the reports have it now (a
        rewritten summary, a landed run), or a word that it is gone. Before, the screen kept
        the kernel it was opened with until ``esc`` ``enter``."""
        reports = self.ctx.session.reports
        now = reports.by_name().get(self.kernel.name) if reports is not None else None
        if now is None:
            if reports is not None and not self.gone:
                self.gone = True
                self.redraw()
            return
        changed = now is not self.kernel or self.gone
        self.kernel, self.gone = now, False
        if changed:
            self._rebuild_charts()
            self._read_report(self._newest_run_dir())
        if self._inputs() != self._drawn:  # what the text is drawn from moved (not each publish)
            self.redraw()
        self._follow_runs()

    def _inputs(self) -> tuple:
        """What the main part is drawn from, by identity: the kernel, its triage, the history,
        the compare with the snapshot, its runs and the change log."""
        session = self.ctx.session
        status = self.ctx.triage_status(self.kernel)
        return (self.kernel, status, session.history, session.since, len(self._runs()), len(session.changes), self.gone)

    def _rebuild_charts(self) -> None:
        """Charts drawn for the kernel before: built again for it now (if shown), else dropped."""
        from ptotui.app.widgets.charts import KernelCharts

        for charts in self.query(KernelCharts):
            shown = charts.display
            charts.remove()
            if shown:
                self.call_after_refresh(self.action_toggle_charts)

    def _follow_runs(self) -> None:
        """Find the change points again when the kernel's runs changed (its history read
        after the newest runs, or a run landed)."""
        runs = self._runs()
        stamps = tuple(run.started for run in runs)
        if stamps == self._changes_of:
            return
        self._changes_of = stamps
        if runs:
            self._find_changes(runs)
        elif self.changes is None:
            self.changes, self.listed = [], []
            self._show_changes(language())

    def _rerun_changed(self, event: Event | None) -> None:
        if event is not None and event.kind == "finished" and event.job.kernel == self.kernel.name:
            self.redraw()

    def _searched(self) -> list[RenderedStatic]:
        return [self.query_one(f"#{name}", RenderedStatic) for name in ("detail", "detail-changes", "detail-report")]

    def action_search(self) -> None:
        """``/``: find a text in the detail as drawn; ``n``/``N`` the next/previous match."""
        self.query_one(SearchBar).open(
            (
                key_named(self, self.ctx.keymap, "detail.next-match", "n"),
                key_named(self, self.ctx.keymap, "detail.previous-match", "N"),
            )
        )

    def action_rerun(self) -> None:
        self.post_message(RerunRequested([self.kernel]))

    def action_show_rerun_output(self) -> None:
        self.post_message(RerunOutputRequested())

    def _newest_run_dir(self) -> str | None:
        runs = self._runs()
        return run_dir(runs[-1]) if runs else None

    @thread_worker(N_("Reading report.json"), group="report", exclusive=True)
    def _read_report(self, newest_run: str | None = None) -> None:
        """On a worker thread: the file may be a FIFO, a device or very large. The shapes are
        named by the sub-directories beside it (the runner's copy of the newest run), else by
        the newest run's."""
        path = self.ctx.location.local_report(self.kernel.report_path)
        warnings: list = []
        text = read_file(path, warnings) if path is not None else None
        facts, problems = read_kernel_report(text, str(path)) if text is not None else ({}, [])
        dirs = shape_dirs(path.parent) if path is not None else []
        self.post_message(self.ReportRead((path, text, facts, warnings + problems), dirs or shape_dirs(newest_run)))

    @thread_worker(N_("Finding the change points"), group="changes", exclusive=True)
    def _find_changes(self, runs: list[Run]) -> None:
        """On a worker thread: each shape's series reads the kernel's report.json files again,
        and each change point compares two run directories."""
        found = collect(runs, self.kernel.name, shapes=True)
        listed, pending = for_detail(found)
        self.post_message(self.ChangesFound(*(self._compared(part) for part in (listed, pending))))

    @staticmethod
    def _compared(items: list[Listed]) -> list[Listed]:
        """The listed points with their code compared (the repeats under them are not shown apart)."""
        return [Listed(with_artifacts(item.change), item.repeats) for item in items]

    def on_detail_screen_changes_found(self, message: ChangesFound) -> None:
        self.listed, self.pending = message.listed, message.pending
        self.changes = [item.change for item in (*message.listed, *message.pending)]
        self._show_changes(language())
        self.refresh_bindings()
        self._mark_chart()

    def _show_changes(self, lang: str) -> None:
        widget = self.query_one("#detail-changes", RenderedStatic)
        if self.changes == [] and not self._runs():
            widget.display = False
            return
        widget.display = True
        widget.show(self._changes_part(lang))

    def _changes_part(self, lang: str) -> Group:
        return changes_render.section(self.listed, lang, len(self._runs()), self.app.size.width, self.pending)

    def action_back(self) -> None:
        """``esc``: the search bar closed when it is open, the text again when the charts (``g``)
        are shown, else back to the table."""
        from ptotui.app.widgets.search import SearchBar

        # (by its type's name: the charts' module imports plotext, not to be imported for an esc)
        charts = self.query("KernelCharts")
        if not self.query_one(SearchBar).is_open and charts and charts.first().display:
            self.action_toggle_charts()
            return
        super().action_back()

    def _mark_chart(self) -> None:
        from ptotui.app.widgets.charts import RunsChart

        for chart in self.query(RunsChart):
            chart.set_marks([c.after for c in self.changes or () if c.shape is None and not c.pending])

    def action_show_code_changes(self) -> None:
        """``d``: the code that changed at the first change point listed (PTO's newest of the
        kernel's series when it has one), in a view of its own; ``]`` the next listed."""
        if self.changes:
            from ptotui.app.screens.rundiff import RunDiffScreen

            repeats = [len(item.repeats) for item in (*(self.listed or ()), *self.pending)]
            self.app.push_screen(RunDiffScreen(self.changes, 0, repeats, self.ctx.keymap))

    def on_detail_screen_report_read(self, message: ReportRead) -> None:
        self.report = message.result
        if message.shape_dirs != self.shape_dirs:
            self.shape_dirs = message.shape_dirs
            self.redraw()  # the variants by their directories' names
            self._rebuild_charts()
        self.query_one("#detail-report", RenderedStatic).show(self._report_part(language()))

    def full_text(self) -> str:
        """Every long field of the kernel, whole: what ``e`` pages."""
        return detail_render.full_text(self.kernel)

    def action_page_full_text(self) -> None:
        """Suspend the app and pipe the full texts into $PAGER (default ``less``): no temp file."""
        page(self, self.full_text())

    def action_toggle_charts(self) -> None:
        from ptotui.app.widgets.charts import KernelCharts  # imports plotext: only when first shown

        KernelCharts.toggle(self, self.kernel, self.query_one("#detail-scroll"), self.ctx, self.shape_dirs)
        self.call_after_refresh(self._mark_chart)  # the charts mount first

    def _history_points(self) -> int:
        history = self.ctx.history
        points = 0 if history is None else len(history.kernels.get(self.kernel.name, []))
        return max(points, len(self._runs()))

    def _runs(self) -> list[Run]:
        """The kernel's bench runs (bench/results), oldest first."""
        reports = self.ctx.session.reports
        bench = reports.bench_run if reports is not None else None
        return bench.runs_of(self.kernel.name) if bench is not None else []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_full_history":  # offered only when it shows more, or fewer
            return self._history_points() > detail_render.HISTORY_LINES
        if action == "show_code_changes":
            return bool(self.changes)
        return True

    def action_toggle_full_history(self) -> None:
        """``h``: every snapshot in the history list, or the newest few again."""
        self.full_history = not self.full_history
        self.redraw()

    async def action_switch_language(self) -> None:
        await self.app.run_action("app.switch_language")  # the whole app; it calls language_changed here

    def language_changed(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        self._drawn = self._inputs()
        lang = language()
        self.query_one("#detail", RenderedStatic).show(self._main_part(lang))
        self._show_changes(lang)
        self.query_one("#detail-report", RenderedStatic).show(self._report_part(lang))

    def build(self, lang: str) -> Group:
        """Everything the screen shows, in ``lang``, as one renderable."""
        if self.changes == [] and not self._runs():
            return Group(self._main_part(lang), self._report_part(lang))
        return Group(
            self._main_part(lang),
            self._changes_part(lang),
            self._report_part(lang),
        )

    def _report_part(self, lang: str) -> Group:
        return detail_render.report_part(self.report, lang, self.app.size.width, self.ctx.location.generated)

    def _main_part(self, lang: str) -> Group:
        app, ctx = self.app, self.ctx
        drawn = detail_render.detail(
            self.kernel,
            ctx.triage_status(self.kernel),
            ctx.history,
            lang,
            app.size.width,
            height=app.size.height,
            thresholds=ctx.thresholds,
            full_history=self.full_history,
            console=app.console,
            runs=self._runs(),
            moves=self._moves(),
            failed=self.reruns.failed_of(self.kernel),
            shape_dirs=self.shape_dirs,
        )
        if not self.gone:
            return drawn
        said = _("{kernel} is no longer in the reports: shown as it was last read.")
        return Group(Text(said.format(kernel=one_line(clean(self.kernel.name), 120)), style="bold red"), drawn)

    def _moves(self) -> detail_render.Moves:
        session = self.ctx.session
        since, logged = session.moves_of(self.kernel.name)
        return since, logged, session.since.reference() if session.since is not None else None
