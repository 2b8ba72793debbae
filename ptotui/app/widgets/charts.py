"""Charts of one kernel (latency per shape, ratio history) and of all kernels (tiers per
family, a histogram of median ratios), drawn with textual-plotext.

Importing this module imports plotext: only the detail screen's ``g`` and the overview
screen import it, so it stays off the start-up path. Below the width a chart needs, each
chart shows the same numbers as a text table instead of a squashed drawing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.terminal_theme import TerminalTheme
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.reactive import reactive
from textual.widget import Widget
from textual_plotext import PlotextPlot
from textual_plotext.plot import Plot

from ptotui.app import render
from ptotui.app.screens.base import thread_worker
from ptotui.app.widgets.fitted_line import FittedLine
from ptotui.model.bench.noisedata import SIDES
from ptotui.model.bench.record import Run
from ptotui.model.core.fmt import ms, pct
from ptotui.model.core.noise import Band
from ptotui.model.core.shapes import labels_of
from ptotui.model.core.tiers import TIER_LABELS, Thresholds, median
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.present.chartdata import (
    HistoryPoint,
    integer_ticks,
    is_blocked,
    log_ticks,
    nice_ticks,
    positive,
    ratio_history,
    shape_label,
    tick_label,
    wants_log,
)
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from ptotui.app.context import Context
    from ptotui.app.screens.base import PtoScreen
    from ptotui.model.history.snapshots import History

RGB = tuple[int, int, int]
TABLE_ROWS = 40  # snapshots listed when the history is shown as a table

# Lines, markers and words drawn on the plot's canvas. Each has a contrast of at least
# 3:1 against the surface of both the dark and the light theme (tests/app/test_charts.py
# checks it against Textual's own theme colours): plotext's automatic colours are drawn
# as the terminal's default foreground, invisible on one of the two.
PALETTE: dict[str, RGB] = {
    "baseline": (40, 100, 230),
    "pto": (170, 60, 200),
    "high": (0, 140, 0),
    "mid": (200, 80, 0),
    "blocked": (220, 0, 0),
    "ratio": (40, 100, 230),
    "baseline_band": (0, 130, 170),
    "pto_band": (200, 50, 150),
    "mark": (160, 110, 0),  # a change point on the runs chart (amber: 3:1 on both themes)
}


# The badges' magenta (CORRECTNESS) and red (PTO-BLOCKED) come out as one colour in
# Textual's ANSI theme; stacked side by side in a bar they must differ.
TIER_RGB_OVERRIDES: dict[str, RGB] = {"correctness-gap": (170, 80, 230)}


def tier_rgb(tier: str, ansi_theme: TerminalTheme | None = None) -> RGB:
    """A tier's colour in the charts: its badge's background as the app draws it."""
    if tier in TIER_RGB_OVERRIDES:
        return TIER_RGB_OVERRIDES[tier]
    color = Style.parse(render.TIER_STYLES.get(tier, "on grey50")).bgcolor
    if color is None:
        return (128, 128, 128)
    triplet = color.get_truecolor(ansi_theme)
    return (triplet.red, triplet.green, triplet.blue)


def cells(text: str) -> str:
    """``text`` for plotext, which puts each character in one cell: a wide glyph (a Chinese
    character, two cells on the terminal) is followed by a zero-width space, so that plotext's
    count of cells is the terminal's and the frame's right border stays where it is drawn."""
    if cell_len(text) == len(text):
        return text
    return "".join(ch + "\u200b" * (cell_len(ch) - 1) for ch in text)


def floats(values: Iterable[int]) -> list[float]:
    return [float(v) for v in values]


def headroom(span: float, height: int, rows: float) -> float:
    """How far above ``span`` the axis must reach to leave ``rows`` rows free above it in
    a plot ``height`` rows high (frame and tick labels take three of them)."""
    inner = max(height - 3, rows + 1)
    return rows * span / (inner - rows)


def legend(title: str, items: list[tuple[str, str, RGB]], note: str, compact: bool) -> Text:
    """A chart's caption: its title, a coloured mark per series or line, a note;
    ``compact`` drops the title and the spacing, for a narrow terminal."""
    text = Text() if compact else Text(title + "  ", style="bold")
    for mark, label, rgb in items:
        text.append(mark, Style(color=f"rgb{rgb}"))
        text.append(label + " " if compact else f" {label}  ")
    if note:
        text.append(note, style="dim")
    return text


def plain_table(*columns: str) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, padding=(0, 1), header_style="bold")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right", no_wrap=True, overflow="ellipsis")
    return table


class Chart(PlotextPlot):
    """A plotext chart with a caption above it; narrower than ``MIN_WIDTH`` (or lower
    than ``MIN_HEIGHT``) it shows its numbers as a text table instead."""

    MIN_WIDTH: ClassVar[int] = 50
    MIN_HEIGHT: ClassVar[int] = 8

    DEFAULT_CSS = """
    Chart { height: 1fr; min-height: 10; }
    """

    @property
    def charted(self) -> bool:
        """True when the size allows a drawing, False when the text table is shown."""
        return self.size.width >= self.MIN_WIDTH and self.size.height >= self.MIN_HEIGHT

    def render(self) -> RenderableType:
        if not self.charted:
            return Group(self.caption(compact=True), self.table())
        caption = self.caption()
        if caption.cell_len > self.size.width:
            caption = self.caption(compact=True)
        width, height = self.size.width, self.size.height - len(caption.wrap(self.app.console, self.size.width))
        plt = self.plt
        plt.clear_figure()
        plt.plotsize(width, height)
        plt._set_size(width, height)  # what PlotextPlot.render does too: resizing needs both
        plt.theme(f"textual-auto-{self.app.theme}" if self.theme == "auto" else self.theme)
        self.draw(plt, width, height)
        return Group(caption, Text.from_ansi(plt.build(), no_wrap=True))

    def caption(self, compact: bool = False) -> Text:
        return Text()

    def language_changed(self) -> None:
        self.refresh()  # the caption and the table are built at each render

    def draw(self, plt: Plot, width: int, height: int) -> None:
        raise NotImplementedError

    def table(self) -> Table:
        raise NotImplementedError


# -- one kernel ------------------------------------------------------------------------


class ShapeChart(Chart):
    """Baseline ms and PTO ms side by side for every input shape, the ratio on each pair;
    a blocked side is marked ``×``, not drawn as zero."""

    log_scale: reactive[bool | None] = reactive(None)
    """Log axis on/off; None: log when the latencies differ by more than 10×."""

    def __init__(self, kernel: Kernel, id: str | None = None, shape_dirs: Sequence[str] = ()) -> None:
        super().__init__(id=id)
        self.kernel = kernel
        # one label per shape, as everywhere (the run directory's name for it, else a compact form)
        named = labels_of([(v.shape, v.params) for v in kernel.variants], shape_dirs)
        self.labels = [label or shape_label(v.shape) for label, v in zip(named, kernel.variants, strict=True)]

    def values(self) -> list[float]:
        both = (value for v in self.kernel.variants for value in (v.baseline_ms, v.pto_ms))
        return [value for value in map(positive, both) if value is not None]

    @property
    def log_axis(self) -> bool:
        return wants_log(self.values()) if self.log_scale is None else self.log_scale and bool(self.values())

    def caption(self, compact: bool = False) -> Text:
        items = [("■", _("baseline ms"), PALETTE["baseline"]), ("■", _("PTO ms"), PALETTE["pto"])]
        items.append(("×", _("blocked"), PALETTE["blocked"]))
        note = "% = Baseline/PTO" if not compact else "%=Baseline/PTO"
        if self.charted:
            note += (
                "  y: " + (_("log") if self.log_axis else _("linear")) + ("" if compact else " " + _("(y switches)"))
            )
        return legend(_("Latency per shape"), items, note, compact)

    def draw(self, plt: Plot, width: int, height: int) -> None:
        variants = self.kernel.variants
        values = self.values()
        log = self.log_axis
        if log:
            bottom = math.floor(math.log10(min(values)) - 1e-9)
            top = math.log10(max(values))
            ticks = log_ticks(10.0**bottom, 10.0 ** (top + 0.24 * (top - bottom)))
            plt.yticks([math.log10(t) for t in ticks], [tick_label(t) for t in ticks])
            scale: Callable[[float], float] = math.log10
        else:
            bottom, top = 0, max(values, default=1.0)
            ticks = nice_ticks(top * 1.24, max(2, min(6, height // 3)))
            plt.yticks(ticks, [tick_label(t) for t in ticks])
            scale = float
        room = max((top - bottom) * 0.12, headroom(top - bottom, height, 1.1)) or 1.0
        plt.ylim(bottom, top + 2 * room)
        for side, offset in (("baseline", -0.19), ("pto", 0.19)):
            xs, ys = [], []
            for index, variant in enumerate(variants, start=1):
                value = positive(getattr(variant, f"{side}_ms"))
                if value is not None:
                    xs.append(index + offset)
                    ys.append(scale(value))
                else:
                    mark = "×" if is_blocked(getattr(variant, f"{side}_status")) else "?"
                    mark += " " + _("blocked") if mark == "×" and width / max(len(variants), 1) >= 24 else ""
                    at = bottom + room / 3
                    plt.text(cells(mark), index + offset, at, color=PALETTE["blocked"], alignment="center")
            if xs:
                plt.bar(xs, ys, width=0.34, color=PALETTE[side], minimum=bottom)
        for index, variant in enumerate(variants, start=1):
            drawn = [scale(v) for v in (positive(variant.baseline_ms), positive(variant.pto_ms)) if v is not None]
            if variant.ratio_pct is not None and len(drawn) == 2:
                plt.text(pct(variant.ratio_pct), index, max(drawn) + room, alignment="center", color=PALETTE["ratio"])
        slot = (width - 8) // max(len(variants), 1) - 2  # a gap between labels (see FamilyTierChart)
        labels = list(self.labels)
        if any(cell_len(label) > slot for label in labels):
            labels = [str(i) for i in range(1, len(variants) + 1)]  # numbered, as in the table
        plt.xticks(floats(range(1, len(variants) + 1)), [cells(label) for label in labels])
        plt.xlim(0.4, len(variants) + 0.6)

    def table(self) -> Table:
        table = plain_table(_("shape"), _("baseline ms"), _("PTO ms"), _("ratio"))
        for variant, label in zip(self.kernel.variants, self.labels, strict=True):
            cells = [
                Text(_("blocked"), style="red") if is_blocked(status) else Text(ms(value))
                for value, status in (
                    (variant.baseline_ms, variant.baseline_status),
                    (variant.pto_ms, variant.pto_status),
                )
            ]
            table.add_row(Text(label), *cells, pct(variant.ratio_pct))
        return table


class HistoryChart(Chart):
    """The median Baseline/PTO ratio across the snapshots and now, with the tier thresholds."""

    MIN_WIDTH = 40

    def __init__(self, kernel: Kernel, history: History | None, thresholds: Thresholds, id: str | None = None) -> None:
        super().__init__(id=id)
        self.kernel = kernel
        self.history = history
        self.thresholds = thresholds

    def points(self) -> list[HistoryPoint]:
        return ratio_history(self.kernel, self.history)

    def caption(self, compact: bool = False) -> Text:
        t = self.thresholds
        items = [("●", _("median ratio"), PALETTE["ratio"])]
        items += [("─", f"HIGH ≥ {t.high:g}%", PALETTE["high"]), ("─", f"MID ≥ {t.mid:g}%", PALETTE["mid"])]
        items.append(("×", _("blocked"), PALETTE["blocked"]))
        return legend(_("Ratio history"), items, "", compact)

    def draw(self, plt: Plot, width: int, height: int) -> None:
        points = self.points()
        t = self.thresholds
        ratios = [p.ratio_pct for p in points if p.ratio_pct is not None and math.isfinite(p.ratio_pct)]
        top = max([*ratios, t.high, t.mid, 1.0]) * 1.1
        ticks = integer_ticks(top, max(2, min(6, height // 3)))
        # The thresholds are ticks too, so each line has its value beside it; a round tick
        # within a row and a half of one would crowd it and goes.
        row = ticks[-1] / max(height - 3, 1)
        lines = [v for v in (t.mid, t.high) if 0 <= v <= ticks[-1]]
        values = sorted({float(v) for v in ticks if all(abs(v - x) >= 1.5 * row for x in lines)} | set(lines))
        plt.yticks(values, [f"{v:g}%" for v in values])
        plt.ylim(0, ticks[-1])
        plt.hline(t.high, PALETTE["high"])
        plt.hline(t.mid, PALETTE["mid"])
        run: list[tuple[int, float]] = []
        for index, point in enumerate([*points, None], start=1):
            ratio = point.ratio_pct if point is not None else None
            if point is not None and ratio is not None and math.isfinite(ratio):
                run.append((index, ratio))
                continue
            if run:  # a line through each unbroken run of known ratios
                plt.plot([x for x, _y in run], [y for _x, y in run], color=PALETTE["ratio"], marker="·")
                plt.scatter([x for x, _y in run], [y for _x, y in run], color=PALETTE["ratio"], marker="●")
                run = []
            if point is not None:
                mark = "×" if point.blocked else "?"
                plt.text(mark, index, ticks[-1] * 0.04, color=PALETTE["blocked"], alignment="center")
        longest = max(cell_len(p.label) for p in points) + 2  # a gap between labels (see FamilyTierChart)
        every = max(1, math.ceil(len(points) * longest / max(width - 8, 1)))
        shown = [i for i in range(1, len(points) + 1) if (len(points) - i) % every == 0]
        plt.xticks(floats(shown), [cells(points[i - 1].label) for i in shown])  # 当前: two cells a glyph
        plt.xlim(0.5, len(points) + 0.5)

    def table(self) -> Table:
        table = plain_table(_("snapshot"), _("median ratio"), _("tier"))
        points = self.points()
        if len(points) > TABLE_ROWS:  # thousands of snapshots: the latest, and how many more
            earlier = _("… {n} earlier").format(n=len(points) - TABLE_ROWS)
            table.add_row(Text(earlier, style="dim"), "", "")
        for point in points[-TABLE_ROWS:]:
            ratio = (
                Text(_("blocked"), style="red") if point.blocked and point.ratio_pct is None else pct(point.ratio_pct)
            )
            table.add_row(point.label, ratio, TIER_LABELS.get(point.tier, point.tier))
        return table


class RunsChart(Chart):
    """Each side's latency across the kernel's bench runs (the median over shapes of a run's
    per-shape medians), with each side's noise band around the median of the runs shown: a run
    inside its band is noise; PTO above its band is what counts as a regression."""

    MIN_WIDTH = 40
    RUNS = 40  # the newest runs drawn

    def __init__(self, kernel: Kernel, runs: Sequence[Run], id: str | None = None) -> None:
        super().__init__(id=id)
        self.kernel = kernel
        self.runs = list(runs)[-self.RUNS :]
        self.bands: dict[str, Band] = {}  # read off the UI thread (KernelCharts), then drawn
        self.marks: list[str] = []  # the first run after each change point (the detail's worker)

    def set_marks(self, stamps: list[str]) -> None:
        """Mark these runs as the first after a change point: a line just before each."""
        self.marks = stamps
        self.refresh()

    def set_bands(self, bands: dict[str, Band]) -> None:
        self.bands = bands
        self.refresh()

    def _values(self, side: str) -> list[float | None]:
        return [positive(run.baseline_ms if side == "baseline" else run.pto_ms) for run in self.runs]

    def _centre(self, side: str) -> float | None:
        known = [v for v in self._values(side) if v is not None]
        return median(known) if known else None

    def caption(self, compact: bool = False) -> Text:
        items = [("■", _("baseline ms"), PALETTE["baseline"]), ("■", _("PTO ms"), PALETTE["pto"])]
        for side, label in (("baseline", _("baseline")), ("pto", "PTO")):
            band = self.bands.get(side)
            if band is not None:
                said = _("{side} band ±{pct}%").format(side=label, pct=f"{band.pct:.1f}")
                items.append(("┄", said, PALETTE[f"{side}_band"]))
        if any(run.started in self.marks for run in self.runs[1:]):
            items.append(("│", _("change point"), PALETTE["mark"]))
        count = len(self.runs)
        note = ngettext("{total} run", "{total} runs", count).format(total=count) if not compact else ""
        return legend(_("Latency per run"), items, note, compact)

    def draw(self, plt: Plot, width: int, height: int) -> None:
        values = [v for side in SIDES for v in self._values(side) if v is not None]
        bands = {side: self.bands[side] for side in SIDES if side in self.bands and self._centre(side) is not None}
        edges = [
            c * (1 + sign * band.pct / 100)
            for side, band in bands.items()
            if (c := self._centre(side))
            for sign in (-1, 1)
        ]
        top = max([*values, *edges, 0.001])
        ticks = nice_ticks(top * 1.15, max(2, min(6, height // 3)))
        plt.yticks(ticks, [tick_label(t) for t in ticks])
        plt.ylim(0, ticks[-1])
        for side, band in bands.items():
            centre = self._centre(side)
            if centre is not None:
                for sign in (-1, 1):
                    plt.hline(centre * (1 + sign * band.pct / 100), PALETTE[f"{side}_band"])
        for side in SIDES:
            line: list[tuple[int, float]] = []
            for index, value in enumerate([*self._values(side), None], start=1):
                if value is not None:
                    line.append((index, value))
                    continue
                if line:
                    xs, ys = [x for x, _y in line], [y for _x, y in line]
                    plt.plot(xs, ys, color=PALETTE[side], marker="·")
                    plt.scatter(xs, ys, color=PALETTE[side], marker="●")
                    line = []
                if index <= len(self.runs):
                    plt.text("×", index, ticks[-1] * 0.04, color=PALETTE["blocked"], alignment="center")
        starts = {run.started: index for index, run in enumerate(self.runs, start=1)}
        for stamp in self.marks:
            if stamp in starts and starts[stamp] > 1:
                plt.vline(starts[stamp] - 0.5, PALETTE["mark"])
        labels = [run.started[4:8] for run in self.runs]  # MMDD
        every = max(1, math.ceil(len(labels) * 6 / max(width - 8, 1)))
        shown = [i for i in range(1, len(labels) + 1) if (len(labels) - i) % every == 0]
        plt.xticks(floats(shown), [labels[i - 1] for i in shown])
        plt.xlim(0.5, len(labels) + 0.5)

    def table(self) -> Table:
        table = plain_table(_("run"), _("baseline ms"), _("PTO ms"), _("ratio"))
        for run in self.runs[-TABLE_ROWS:]:
            table.add_row(clean(run.started), ms(run.baseline_ms), ms(run.pto_ms), pct(run.ratio_pct))
        return table


class KernelCharts(VerticalScroll):
    """The detail screen's chart view: latency per shape above, ratio history below."""

    DEFAULT_CSS = """
    KernelCharts { height: 1fr; }
    KernelCharts > #charts-title { height: 1; }
    KernelCharts > Chart { min-height: 10; }
    """
    BINDINGS = [Binding("y", "toggle_log", N_("Log/linear"), id="charts.log")]

    def __init__(
        self,
        kernel: Kernel,
        history: History | None,
        thresholds: Thresholds,
        runs: Sequence[Run] = (),
        bands: Callable[[], dict[str, Band]] | None = None,
        shape_dirs: Sequence[str] = (),
    ) -> None:
        super().__init__(id="charts")
        self.kernel = kernel
        self.shape_dirs = shape_dirs
        self.history = history
        self.thresholds = thresholds
        self.runs = runs
        self._bands = bands  # read on a worker: it opens the kernel's runs

    def _title_parts(self) -> list[render.Part]:
        # One line, fitted to its width: a long name (10,000 characters) or one holding a
        # newline shortens, then the hint goes, then the short name; the badge stays.
        name = one_line(clean(self.kernel.name))
        return [
            render.Part(render.badge(self.kernel.tier), 0),
            render.Part(Text(" " + name, style="bold"), 3, Text(" " + one_line(name, 32), style="bold"), 1),
            render.Part(Text("   " + _("g: text  y: log/linear"), style="dim"), 2),
        ]

    def language_changed(self) -> None:  # the charts redraw themselves (Chart.language_changed)
        self.query_one("#charts-title", FittedLine).set_parts(self._title_parts())

    def compose(self) -> ComposeResult:
        title = FittedLine(id="charts-title")
        title.set_parts(self._title_parts())
        yield title
        yield ShapeChart(self.kernel, id="shape-chart", shape_dirs=self.shape_dirs)
        if self.runs:
            yield RunsChart(self.kernel, self.runs, id="runs-chart")
        yield HistoryChart(self.kernel, self.history, self.thresholds, id="history-chart")

    def on_mount(self) -> None:
        if self.runs and self._bands is not None:
            self._read_bands(self._bands)

    @thread_worker(N_("Reading the noise bands"), group="bands", exclusive=True)
    def _read_bands(self, read: Callable[[], dict[str, Band]]) -> None:
        bands = read()
        self.app.call_from_thread(self.query_one(RunsChart).set_bands, bands)

    def action_toggle_log(self) -> None:
        chart = self.query_one(ShapeChart)
        chart.log_scale = not chart.log_axis

    @classmethod
    def toggle(
        cls, screen: PtoScreen, kernel: Kernel, text_view: Widget, ctx: Context, shape_dirs: Sequence[str] = ()
    ) -> None:
        """Show the charts in place of ``text_view``, or the text again (``shape_dirs``: the
        kernel's run directory's shape sub-directories, which name its shapes)."""
        existing = screen.query(cls)
        if not existing:
            session = ctx.session
            bench = session.reports.bench_run if session.reports is not None else None
            runs = bench.runs_of(kernel.name) if bench is not None else []

            def bands() -> dict[str, Band]:
                from ptotui.model.bench.noisedata import bench_noise

                noise = bench_noise(session.location, [kernel], ctx.options.min_change)[0]
                return {side: noise.band(kernel.name, side) for side in SIDES}

            charts = cls(kernel, ctx.history, ctx.thresholds, runs, bands, shape_dirs)
            screen.mount(charts, after=text_view)
            text_view.display = False
            charts.focus()
            return
        charts = existing.first()
        charts.display = not charts.display
        text_view.display = not charts.display
        (charts if charts.display else text_view).focus()
