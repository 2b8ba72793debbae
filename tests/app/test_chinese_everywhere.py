"""Under Chinese, the words that were still English are Chinese too (issue 22): the read
warnings, the toasts' "… and N more", the ``?`` rows of the tier keys and the charts' ``y``,
the detail's variants table and report.json labels, the settings warnings and the CLI's
usage and help. Codes (tier codes, flags, JSON keys) stay as they are."""

from __future__ import annotations

import os

import pytest

from ptotui.model.location import Location
from tests.conftest import SAMPLES
from tests.helpers import build, loaded, until

# -- the app's toasts and the long texts ----------------------------------------------


# -- ? and the detail --------------------------------------------------------------


async def test_help_rows_of_the_tier_keys_and_y_are_chinese():
    from ptotui.app.screens.help import HelpScreen

    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = dict(app.screen._rows())
        for key, tier in zip("1234567", ("HIGH", "MID", "SLOW", "BASELINE-BLOCKED", "CORRECTNESS"), strict=False):
            assert rows[key] == f"在显示的等级中加入或移除 {tier}", rows[key]
        assert not any("Toggle" in does or "{" in does for does in rows.values())
        await pilot.press("escape")
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "DetailScreen")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        extra = dict(app.screen._extra())
        assert extra["y"] == "图表上（g）：时延纵轴在对数和线性之间切换"


def test_the_variants_table_and_the_report_labels_are_chinese(zh):
    from pathlib import Path

    from rich.console import Console

    from ptotui.app.render import detail as detail_render
    from ptotui.model.read.loader import load
    from ptotui.model.triage import Status

    reports = load(Location(SAMPLES / "reports", SAMPLES))
    kernel = next(k for k in reports.kernels if k.variants and k.pto_reason)
    console = Console(width=160, record=True, color_system=None)
    console.print(detail_render.detail(kernel, Status(None, False, False), None, "zh", 160, height=48))
    text = console.export_text()
    for word in ("输入形状", "基线 ms", "比例", "PTO 原因"):
        assert word in text, word
    assert "shape" not in text and "PTO reason" not in text
    facts = {"baseline": {"timings_ms": {"min": 1.0}}, "pto": {}, "device": {"npu": "910B"}}
    report = (Path("/r/report.json"), "{}", facts, [])
    console = Console(width=160, record=True, color_system=None)
    console.print(detail_render.report_part(report, "zh", 160, Path("/r")))
    text = console.export_text()
    for word in ("文件", "基线计时 ms", "PTO 正确性", "设备"):
        assert word in text, word
    assert "timings" not in text and "device" not in text


# -- read warnings and the settings file ---------------------------------------------


# -- the command line: argparse's words, each flag's help, the errors --------------------


# -- Textual's own words: the palette's key in the footer, its placeholder, its system commands


async def test_the_palette_key_placeholder_and_textual_commands_are_chinese():
    from textual.command import CommandInput, CommandPalette
    from textual.widgets._footer import FooterKey

    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        keys = {k.description for k in app.main.query(FooterKey)}
        assert "命令面板" in keys and "palette" not in keys
        titles = {c.title for c in app.get_system_commands(app.main)}
        assert {"主题", "截图", "按键"} <= titles and not {"Theme", "Screenshot", "Keys"} & titles
        await pilot.press("ctrl+p")
        await until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert app.screen.query_one(CommandInput).placeholder == "搜索命令…"
        # A search that finds nothing: Textual's fixed sentence, in Chinese.
        await pilot.press(*"zzzqqq")
        from textual.command import CommandList

        def said() -> str:
            options = app.screen.query_one(CommandList).options
            return " ".join(str(o.prompt.renderable if hasattr(o.prompt, "renderable") else o.prompt) for o in options)

        await until(pilot, lambda: "未找到匹配项" in said())
        assert "No matches found" not in said()


async def test_the_overview_footer_and_the_charts_title_follow_the_language():
    from textual.widgets._footer import FooterKey

    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("G")
        await until(pilot, lambda: type(app.screen).__name__ == "OverviewScreen")
        await until(pilot, lambda: bool(app.screen.query(FooterKey)))
        keys = {k.description for k in app.screen.query(FooterKey)}
        assert {"返回", "命令面板"} <= keys and not {"Back", "palette"} & keys, keys
        await pilot.press("escape")
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "DetailScreen")
        await pilot.press("g")
        await until(pilot, lambda: bool(app.screen.query("#charts-title")))
        title = app.screen.query_one("#charts-title")  # a FittedLine: the name shortens first
        assert "g：文本  y：对数/线性" in str(title.render())
        await pilot.press("l")
        await pilot.pause()
        assert "g: text  y: log/linear" in str(title.render())


async def test_a_blocked_side_in_the_shape_chart_is_marked_in_the_language_shown():
    from ptotui.app.widgets.charts import ShapeChart
    from tests.app.test_charts import render_of

    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        app.main.open_detail("paged_kv_gather")  # baseline blocked: a mark inside the frame
        await until(pilot, lambda: type(app.screen).__name__ == "DetailScreen")
        await pilot.press("g")
        await until(pilot, lambda: bool(app.screen.query(ShapeChart)) and app.screen.query_one(ShapeChart).charted)
        plot = [line.replace("\u200b", "") for line in render_of(app.screen.query_one(ShapeChart))]
        assert any("│" in line and "× 阻塞" in line for line in plot[1:]), plot
        assert not any("blocked" in line for line in plot[1:])


# -- issue 33 item 7 -----------------------------------------------------------------


async def test_the_headers_sort_words_are_chinese():
    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        header = app.main.query_one("#header")
        await until(pilot, lambda: "按 " in str(header.render()))
        said = str(header.render())
        assert "按 等级,比例" in said and "tier" not in said and "ratio" not in said, said
        await pilot.press("s")  # the next sort column
        await pilot.pause()
        assert not any(code in str(header.render()) for code in ("pto_ms", "kernel", "by ")), str(header.render())


async def test_the_chinese_help_at_80x24_wraps_its_rows_and_cuts_none():
    """Issue 33 item 5: a Chinese row has no spaces to wrap at, and Rich cut it with …."""
    from rich.console import Console

    from ptotui.app.screens.help import HelpScreen
    from ptotui.app.widgets.rendered import RenderedStatic

    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        await pilot.pause()
        width = app.screen.query_one(RenderedStatic).content_size.width
        assert 40 < width < 80
        console = Console(width=width, record=True, file=open(os.devnull, "w"))  # noqa: SIM115
        console.print(app.screen._table())
        drawn = console.export_text()
        assert "…" not in drawn, drawn
        flat = "".join(line.partition("│")[2].strip() for line in drawn.splitlines())
        for _keys, does in (*app.screen._rows(), *app.screen._extra()):
            assert does.replace(" ", "") in flat.replace(" ", ""), does


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_the_shape_chart_of_a_blocked_side_keeps_its_right_border_and_says_no_null(lang):
    """Issue 33 item 6: ``× 阻塞`` took two cells a glyph where plotext counted one, pushing the
    frame's right border off its line; a variant without a shape was labelled ``null``."""
    from rich.cells import cell_len

    from ptotui.app.widgets.charts import ShapeChart
    from tests.app.test_charts import render_of

    app = build(Location(SAMPLES / "reports", SAMPLES), lang=lang)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        app.main.open_detail("paged_kv_gather")  # baseline blocked, its one variant without a shape
        await until(pilot, lambda: type(app.screen).__name__ == "DetailScreen")
        await pilot.press("g")
        await until(pilot, lambda: bool(app.screen.query(ShapeChart)) and app.screen.query_one(ShapeChart).charted)
        chart = app.screen.query_one(ShapeChart)
        plot = [line.replace("\u200b", "") for line in render_of(chart)]  # zero width: no cell
        framed = [line for line in plot if "┤" in line or line.lstrip().startswith("│")]
        marked = next(line for line in framed if "×" in line)
        assert ("阻塞" if lang == "zh" else "blocked") in marked
        assert all(
            line.rstrip().endswith("│") and cell_len(line.rstrip()) == cell_len(framed[0].rstrip()) for line in framed
        ), "\n".join(framed)
        assert not any("null" in line for line in plot), plot[-3:]
        # no shape summary: named by its variant's parameters, as its change points are (issue 39)
        assert "cols 128 · dtype float16 · rows 256 · seed 0" in plot[-1], plot[-1]
