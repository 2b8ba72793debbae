"""Charts: the numbers behind them (model), what they draw (Pilot), and that plotext
stays off the start-up path."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter

import pytest
from rich.console import Console
from rich.style import Style
from rich.table import Table
from rich.text import Text

from ptotui.model.history.snapshots import History, Point
from ptotui.model.present.chartdata import (
    Bucket,
    integer_ticks,
    log_ticks,
    nice_ticks,
    ratio_buckets,
    ratio_history,
    shape_label,
    stamp_labels,
    tiers_by_family,
    wants_log,
)
from ptotui.model.types import Kernel
from tests.conftest import ROOT
from tests.helpers import build, loaded, names, until

# -- the numbers -----------------------------------------------------------------------


def test_shape_labels_are_short_and_literal():
    assert shape_label({"out": [128, 256], "x": [64, 256]}) == "64×256"  # the input, not the output
    assert shape_label({"output": [1, 128, 128], "weight": [128, 128]}) == "1×128×128"
    assert shape_label([4, 8]) == "4×8" and shape_label(None) == "no shape" and shape_label(7) == "7"
    assert "\x1b" not in shape_label({"x": ["\x1b]2;title\x07", 3]})


def test_log_axis_only_past_ten_times():
    assert not wants_log([0.1, 0.99]) and wants_log([0.1, 1.01])
    assert not wants_log([]) and not wants_log([0.0, float("nan"), 5.0])  # zero and NaN are not drawn


@pytest.mark.parametrize("high", [0, 0.4, 1, 3, 7, 18, 49, 123, 10_000])
def test_integer_ticks_are_whole_cover_the_range_and_are_few(high):
    ticks = integer_ticks(high, 6)
    assert all(isinstance(t, int) for t in ticks)
    assert ticks[0] == 0 and ticks[-1] >= high and len(ticks) <= 7
    assert len({b - a for a, b in zip(ticks, ticks[1:], strict=False)}) == 1


def test_value_ticks_use_1_2_5_steps():
    assert nice_ticks(2.37, 6) == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert log_ticks(0.08, 27.9) == [0.1, 1.0, 10.0]
    assert log_ticks(0.1, 2.5) == [0.1, 0.2, 0.5, 1.0, 2.0]


def test_ratio_buckets_count_every_kernel_with_a_ratio_once():
    ratios = [None, 0.0, 9.99, 10.0, 35.0, 69.9, 70.0, 250.0, 199.0]
    kernels = [Kernel(f"k{i}", ratio_median_pct=r) for i, r in enumerate(ratios)]
    buckets = ratio_buckets(kernels)
    assert buckets[0] == Bucket(0, 10, 2) and buckets[1] == Bucket(10, 20, 1)
    assert buckets[-1] == Bucket(200, None, 1) and buckets[-1].label == "200+"
    assert sum(b.count for b in buckets) == 8  # the one without a ratio is in none
    for kernel in kernels:
        homes = [b for b in buckets if kernel.ratio_median_pct in b]
        assert len(homes) == (kernel.ratio_median_pct is not None)
    assert ratio_buckets([Kernel("x")]) == []


def test_tiers_by_family_counts_and_names_the_missing_family():
    kernels = [Kernel("a", family="norm", tier="high"), Kernel("b", family="norm", tier="slow")]
    kernels += [Kernel("c", family="attention", tier="high"), Kernel("d", tier="pto-blocked")]
    families = tiers_by_family(kernels)
    assert list(families) == ["attention", "norm", "(none)"]
    assert families["norm"] == Counter({"high": 1, "slow": 1})


def test_ratio_history_is_the_snapshots_then_now_with_blocked_marked():
    stamps = ["20261101T080000Z", "20261115T080000Z", "20261126T080000Z"]
    points = [
        Point(stamps[0], None, "ok", "blocked", None, None, None, "pto-blocked"),
        Point(stamps[2], None, "ok", "ok", 40.0, 50.0, 45.0, "mid"),
    ]
    history = History(stamps, {"k": points}, [], [])
    kernel = Kernel("k", baseline_status="ok", pto_status="ok", ratio_median_pct=72.0, tier="high")
    got = ratio_history(kernel, history)
    assert [(p.label, p.ratio_pct, p.blocked) for p in got] == [
        ("11-01", None, True),
        ("11-26", 45.0, False),
        ("now", 72.0, False),
    ]
    assert len(ratio_history(kernel, None)) == 1


def test_stamp_labels_add_the_time_when_a_day_repeats():
    assert stamp_labels(["20260314T132819Z", "20260315T080000Z"]) == ["03-14", "03-15"]
    assert stamp_labels(["20260314T132819Z", "20260314T143312Z"]) == ["03-14 13:28", "03-14 14:33"]
    assert stamp_labels(["20260313T080000Z 1a2b3c4 bench: rerun", "20260314T080000Z"]) == ["03-13", "03-14"]  # git


def test_the_latency_axis_turns_logarithmic_past_ten_times():
    from ptotui.app.widgets.charts import ShapeChart
    from ptotui.model.types import Variant

    near = Kernel("k", variants=[Variant(baseline_ms=0.2, pto_ms=1.9)])
    far = Kernel("k", variants=[Variant(baseline_ms=0.2, pto_ms=2.1), Variant(baseline_status="blocked")])
    assert not ShapeChart(near).log_axis and ShapeChart(far).log_axis


def test_two_shapes_never_share_a_label_and_the_run_directory_names_them():
    """ffn at 8582eec: two of its three shapes have ``x`` 32×128, and both were labelled so."""
    from ptotui.app.widgets.charts import ShapeChart
    from ptotui.model.types import Variant
    from tests.model.test_shapes import FFN, FFN_DIRS

    ffn = Kernel("ffn", variants=[Variant(shape, params, pto_ms=0.4, baseline_ms=0.1) for shape, params in FFN])
    labels = ShapeChart(ffn).labels
    assert len(set(labels)) == 3
    assert ShapeChart(ffn, shape_dirs=FFN_DIRS).labels == [
        "t32_h128_i256_o128",
        "t64_h128_i256_o128",
        "t32_h128_i512_o128",
    ]
    assert [row[0] for row in _plain_rows(ShapeChart(ffn, shape_dirs=FFN_DIRS).table())] == labels_with(FFN_DIRS)


def labels_with(dirs: list[str]) -> list[str]:
    from ptotui.model.core.shapes import labels_of
    from tests.model.test_shapes import FFN

    return labels_of(FFN, dirs)


def _plain_rows(table: Table) -> list[list[str]]:
    columns = [[str(cell) for cell in column._cells] for column in table.columns]
    return [list(row) for row in zip(*columns, strict=True)]


# -- colours ---------------------------------------------------------------------------


def _luminance(rgb: tuple[int, int, int]) -> float:
    def channel(c: int) -> float:
        c8 = c / 255
        return c8 / 12.92 if c8 <= 0.03928 else ((c8 + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


@pytest.mark.parametrize("theme", ["textual-dark", "textual-light"])
def test_lines_and_marks_are_visible_on_the_dark_and_the_light_theme(theme):
    """3:1 (WCAG's minimum for graphics) against the surface the chart is drawn on,
    taken from Textual's own theme, not copied here."""
    from textual.color import Color
    from textual.theme import BUILTIN_THEMES

    from ptotui.app.widgets.charts import PALETTE

    surface = Color.parse(BUILTIN_THEMES[theme].to_color_system().generate()["surface"]).rgb
    for name, rgb in PALETTE.items():
        light, dark = sorted((_luminance(rgb), _luminance(surface)), reverse=True)
        assert (light + 0.05) / (dark + 0.05) >= 3.0, (name, theme)


@pytest.mark.parametrize("dark", [True, False])
def test_tier_colours_in_a_stacked_bar_are_told_apart(dark):
    from textual.app import App

    from ptotui.app.widgets.charts import tier_rgb
    from ptotui.model.core.tiers import TIERS

    theme = App().ansi_theme_dark if dark else App().ansi_theme_light
    colours = [tier_rgb(tier, theme) for tier in TIERS]
    for i, a in enumerate(colours):
        for b in colours[i + 1 :]:
            assert sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) ** 0.5 > 60, (a, b)


# -- on screen ---------------------------------------------------------------------------


def lines(renderable, width: int) -> list[str]:
    console = Console(width=width, record=True, color_system=None, legacy_windows=False)
    console.print(renderable)
    return console.export_text().rstrip("\n").splitlines()


def render_of(chart) -> list[str]:
    return lines(chart.render(), chart.size.width)


async def open_overview(pilot) -> None:
    """``G``, then wait until both charts are mounted and drawn once."""
    app = pilot.app
    await pilot.press("G")
    await until(pilot, lambda: bool(app.screen.query("FamilyTierChart")) and bool(app.screen.query("RatioHistogram")))
    await pilot.pause()


async def open_charts(pilot, kernel: str) -> None:
    app = pilot.app
    await loaded(pilot, 15)
    await until(pilot, lambda: app.session.history is not None)
    app.main.open_detail(kernel)
    await pilot.pause()
    await pilot.press("g")
    await until(pilot, lambda: bool(app.screen.query("ShapeChart")) and app.screen.query_one("ShapeChart").size.width)


async def test_detail_charts_per_shape_with_ratio_blocked_sides_and_log_switch(sample_location):
    from ptotui.app.widgets.charts import KernelCharts, ShapeChart

    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_charts(pilot, "selective_scan_fwd")
        chart = app.screen.query_one(ShapeChart)
        assert chart.charted and not app.screen.query_one("#detail-scroll").display
        text = "\n".join(render_of(chart))
        for label in ("64×256", "64×128", "128×512", "12.4%", "15.1%", "14.0%"):  # shapes and ratios
            assert label in text
        assert not chart.log_axis  # 0.23..1.9 ms: within 10×
        await pilot.press("y")
        assert chart.log_axis and "y: log" in "\n".join(render_of(chart))
        await pilot.press("g")  # back to the text
        assert not app.screen.query_one(KernelCharts).display and app.screen.query_one("#detail-scroll").display
        await pilot.press("g")
        await until(pilot, lambda: app.screen.query_one(KernelCharts).display)
        await pilot.press("escape")  # esc on the charts: the text again, still in the detail
        await until(pilot, lambda: app.screen.query_one("#detail-scroll").display)
        assert not app.screen.query_one(KernelCharts).display and app.screen is not app.main
        await pilot.press("escape")
        app.main.open_detail("paged_kv_gather")  # baseline blocked: a mark, not a bar of zero
        await pilot.pause()
        await pilot.press("g")
        await pilot.pause()
        chart = app.screen.query_one(ShapeChart)
        plot = render_of(chart)
        assert any("│" in line and "× blocked" in line for line in plot[1:])  # inside the frame
        assert "%" not in "\n".join(plot[1:])  # no ratio without a baseline


async def test_history_chart_draws_the_apps_thresholds_at_their_values(sample_location):
    from ptotui.app.widgets.charts import PALETTE, HistoryChart

    app = build(sample_location, high=75.0, mid=35.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_charts(pilot, "chunked_cross_entropy")
        chart = app.screen.query_one(HistoryChart)
        rendered = chart.render()
        plot = lines(rendered, chart.size.width)
        assert "HIGH ≥ 75%" in plot[0] and "MID ≥ 35%" in plot[0]
        rich_lines = Text("\n").join([t for t in rendered.renderables if isinstance(t, Text)]).split("\n")
        for value, colour in (("75%", PALETTE["high"]), ("35%", PALETTE["mid"])):
            row = next(i for i, line in enumerate(plot) if line.startswith(value.rjust(4)))
            coloured = [
                rich_lines[row].plain[span.start : span.end]
                for span in rich_lines[row].spans
                if isinstance(span.style, Style) and span.style.color and span.style.color.triplet == colour
            ]
            assert any(set(s) == {"─"} and len(s) > 20 for s in coloured), (value, coloured)
        assert plot[-1].split() == ["11-01", "11-15", "11-26", "now"]  # one labelled tick per snapshot


async def test_too_narrow_for_a_chart_shows_the_same_numbers_as_a_table(sample_location):
    from ptotui.app.widgets.charts import HistoryChart, ShapeChart

    app = build(sample_location)
    async with app.run_test(size=(46, 30)) as pilot:
        await open_charts(pilot, "block_sparse_flash_decode")
        shape, history = app.screen.query_one(ShapeChart), app.screen.query_one(HistoryChart)
        assert not shape.charted and history.charted  # 46 columns: under 50, over 40
        assert any(isinstance(r, Table) for r in shape.render().renderables)
        text = "\n".join(render_of(shape))
        assert "256×256" in text and "0.2088" in text and "blocked" in text


async def test_overview_enter_on_a_bar_filters_the_table(sample_location):
    from ptotui.app.screens.overview import OverviewScreen
    from ptotui.app.widgets.overview_charts import FamilyTierChart, RatioHistogram

    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        app.main.query_one("BlockerPane").focus()  # a pick still reaches the table from the pane
        await pilot.pause()
        await pilot.press("G")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        families = app.screen.query_one(FamilyTierChart)
        assert app.focused is families and families.bars()[0] == "attention"
        await pilot.press("right", "right", "right")  # attention, cache, comm, conv
        assert "conv: 2 kernels" in str(app.screen.query_one("#overview-hint").render())
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main)
        assert set(names(app)) == {"depthwise_conv1d_causal", "grouped_conv2d_nhwc"}
        assert "only family conv" in str(app.main.query_one("#header").render())
        await pilot.press("escape")
        assert len(names(app)) == 15
        await pilot.press("G")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        await pilot.press("tab")
        histogram = app.screen.query_one(RatioHistogram)
        assert app.focused is histogram
        await pilot.press("right", "right")  # 0–10%, 10–20%, 20–30%
        bucket = histogram.buckets()[2]
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main)
        shown = [app.main.reports.by_name()[n] for n in names(app)]
        assert len(shown) == bucket.count == 2
        assert all(20 <= k.ratio_median_pct < 30 for k in shown)


async def test_overview_a_click_selects_a_bar_and_a_second_click_picks_it(sample_location):
    from ptotui.app.widgets.overview_charts import FamilyTierChart

    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await open_overview(pilot)
        chart = app.screen.query_one(FamilyTierChart)
        bars = chart.bars()
        index = bars.index("norm")
        left = chart._plot_left
        x = left + int((chart.size.width - left - 1) * (index + 0.5) / len(bars))
        await pilot.click(chart, offset=(x, chart.size.height // 2))
        assert chart.selected == index and app.screen is not app.main
        await pilot.click(chart, offset=(x, chart.size.height // 2))
        await until(pilot, lambda: app.screen is app.main)
        assert set(names(app)) == {"layernorm_gated", "rmsnorm_residual_add"}


async def test_overview_axes_have_whole_number_ticks(sample_location):
    from ptotui.app.widgets.overview_charts import FamilyTierChart, RatioHistogram

    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await open_overview(pilot)
        for chart in (app.screen.query_one(FamilyTierChart), app.screen.query_one(RatioHistogram)):
            assert chart.charted
            plot = render_of(chart)
            y_ticks = [line.split("┤")[0].strip() for line in plot if "┤" in line]
            assert y_ticks and all(t.isdigit() for t in y_ticks), y_ticks
            assert not re.search(r"\d\.\d", plot[-1]), plot[-1]  # the x labels


def test_start_up_does_not_import_plotext_and_the_first_chart_does():
    script = """
import asyncio, sys
from ptotui.app.factory import make_app
from ptotui.model.location import Location
from tests.conftest import SAMPLES

async def main():
    app = make_app(Location(SAMPLES / "reports", SAMPLES))
    async with app.run_test(size=(120, 36)) as pilot:
        while app.main.reports is None:
            await pilot.pause(0.05)
        app.main.open_detail("selective_scan_fwd")
        await pilot.pause()
        before = "plotext" in sys.modules or "textual_plotext" in sys.modules
        await pilot.press("g")
        await pilot.pause()
        print(before, "plotext" in sys.modules and "textual_plotext" in sys.modules)

asyncio.run(main())
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.stdout.split() == ["False", "True"], result.stderr[-2000:]


@pytest.mark.reference
@pytest.mark.timeout(900)  # 50 details and 100 charts: over 120 s on a machine loaded 5x over
async def test_every_reference_kernel_charts_without_a_fallback(reference_bench):
    """Real data: every kernel's two charts draw (no exception, no table at 160 columns)."""
    from ptotui.app.widgets.charts import HistoryChart, ShapeChart

    app = build(reference_bench.parent)
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.main.reports is not None and app.session.history is not None)
        kernels = app.main.reports.kernels
        for kernel in kernels:
            app.main.open_detail(kernel.name)
            await pilot.pause()
            await pilot.press("g")
            await until(pilot, lambda: bool(app.screen.query(HistoryChart)))
            await pilot.pause()
            shape, history = app.screen.query_one(ShapeChart), app.screen.query_one(HistoryChart)
            assert shape.charted and history.charted
            assert "┤" in "\n".join(render_of(shape)) and "┤" in "\n".join(render_of(history))
            await pilot.press("escape")
        assert len(kernels) == 50


async def test_runs_chart_draws_each_sides_latency_across_runs_with_its_noise_band(sample_location):
    from ptotui.app.widgets.charts import RunsChart
    from tests.runtree import write_run

    bench = sample_location.bench
    pto = [0.50, 0.51, 0.49, 0.50, 0.52, 0.50, 0.75]  # the last run PTO 50% slower
    for day, value in enumerate(pto, start=10):
        write_run(bench, "norm", "layernorm_gated", f"202611{day:02d}T031000Z", [(0.2, value), (0.4, value * 2)])
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await open_charts(pilot, "layernorm_gated")
        await until(pilot, lambda: bool(app.screen.query(RunsChart)))
        chart = app.screen.query_one(RunsChart)
        assert len(chart.runs) == len(pto)
        await until(pilot, lambda: set(chart.bands) == {"pto", "baseline"})  # read on a worker
        await pilot.pause()
        caption = render_of(chart)[0]
        assert "Latency per run" in caption and "PTO band ±" in caption and "7 runs" in caption
        # The band comes from the kernel's own runs (history), not a default.
        assert chart.bands["pto"].source == "history"
        plot = "\n".join(render_of(chart)[1:])
        assert "1110" in plot and "1116" in plot  # the runs' days along the x axis


@pytest.mark.parametrize("name", ["x" * 10_000, "two\nlines_of_a_name"], ids=["long", "newline"])
async def test_a_long_or_multi_line_name_keeps_the_chart_title_and_the_detail_title_one_line(sample_location, name):
    """Issue 24: a 10,000-character name hid the chart title's badge and its hint; a name with
    a newline split the detail title."""
    from ptotui.app import render
    from ptotui.app.widgets.fitted_line import FittedLine

    for file in ("regression_latest.json", "kernel_state_matrix_latest.json"):
        path = sample_location.reports / file
        path.write_text(path.read_text().replace('"selective_scan_fwd"', json.dumps(name)))
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        kernel = app.main.reports.by_name()[name]
        app.main.open_detail(name)
        await pilot.pause()
        detail = app.screen
        first = detail.build("en").renderables[0].renderables[0]  # the main part's title line
        assert "\n" not in first.plain and first.cell_len <= 80
        assert first.plain.startswith(render.badge(kernel.tier).plain)
        await pilot.press("g")
        await until(pilot, lambda: bool(app.screen.query("ShapeChart")))
        await pilot.pause()
        title = app.screen.query_one("#charts-title", FittedLine)
        shown = str(title.render())
        assert "\n" not in shown and "g: text" in shown and len(shown) <= title.size.width
