"""Under Chinese, the words that were still English are Chinese too (issue 22): the read
warnings, the toasts' "… and N more", the ``?`` rows of the tier keys and the charts' ``y``,
the detail's variants table and report.json labels, the settings warnings and the CLI's
usage and help. Codes (tier codes, flags, JSON keys) stay as they are."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ptotui.model import i18n
from ptotui.model.location import Location
from tests.conftest import SAMPLES
from tests.helpers import build, loaded, until


@pytest.fixture
def zh() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def _cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# -- the app's toasts and the long texts ----------------------------------------------


def test_names_says_how_many_more_in_chinese(zh):
    from ptotui.model.control.wording import names as _names

    said = _names([f"k{i}" for i in range(9)])
    assert said == "k0, k1, k2, k3, k4, k5，另有 3 个" and "more" not in said


def test_names_in_english_as_before():
    from ptotui.model.control.wording import names as _names

    assert _names([f"k{i}" for i in range(8)]) == "k0, k1, k2, k3, k4, k5 and 2 more"
    assert _names(["a", "b"]) == "a, b"


def test_the_more_characters_line_is_chinese(zh):
    from ptotui.model.read.longtext import clip

    assert clip("x" * 5000, 2, 10).note() == "… 另有 4,980 个字符"
    assert clip("a\n" * 500, 2, 10).note() == "… 另有 499 行"


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

    from ptotui.app import detail_render
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


def test_a_torn_report_is_warned_about_in_chinese(zh, tmp_path):
    import shutil

    from ptotui.model.read.loader import load

    bench = tmp_path / "bench"
    shutil.copytree(SAMPLES, bench)
    report = bench / "reports" / "regression_latest.json"
    report.write_text(report.read_text()[:200])
    said = [str(w) for w in load(Location(bench / "reports", bench)).warnings]
    assert any("regression_latest.json" in w and "JSON 提前结束（文件被截断或仍在写入）" in w for w in said), said
    assert not any("truncated" in w for w in said)


def test_a_torn_markdown_table_is_said_once_in_chinese(zh):
    from ptotui.model.read.readers import read_regression_md

    text = "| kernel | baseline | pto | baseline / pto |\n|---|---|---|---|\n| a | ok | ok | 90% |\n| b | ok"
    _parsed, warnings = read_regression_md(text, "r.md")
    assert [w.message for w in warnings] == ["该行被截断（文件被截断？）"]  # not a second "does not end" warning


def test_settings_warnings_are_chinese(zh, tmp_path):
    from ptotui.model.config import read_config

    path = tmp_path / "config.toml"
    path.write_text('[table]\nsort = "nope"\n[keys]\n"main.nope" = "f5"\n"main.reload" = 3\n')
    warning = read_config(path)[1]
    assert warning is not None and warning.startswith("设置文件 ")
    assert "table.sort 不是" in warning and "keys.main.reload 不是按键或按键列表" in warning
    assert "未知的按键绑定 id main.nope" in warning and "（这些项使用默认值）" in warning
    assert "is not" not in warning and "unknown" not in warning


def _run(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ptotui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )


def test_the_settings_warning_follows_the_language_the_file_chooses(sample_bench, tmp_path):
    """The file is read to learn its ``lang``: its warning is then said in that language."""
    path = tmp_path / "config.toml"
    path.write_text('lang = "zh"\n[table]\nreverse = 3\n')
    done = _run(["summary", str(sample_bench), "--config", str(path)])
    assert "ptotui：警告：设置文件 " in done.stderr and "table.reverse 不是 true 或 false" in done.stderr
    done = _run(["summary", str(sample_bench), "--config", str(path), "--lang", "en"])
    assert "table.reverse is not true or false" in done.stderr


# -- the command line: argparse's words, each flag's help, the errors --------------------


def test_summary_help_is_chinese_under_the_locale_and_english_with_lang_en():
    done = _run(["summary", "--help"], LANG="zh_CN.UTF-8")
    assert done.returncode == 0
    out = done.stdout
    for words in (
        "用法：ptotui summary",
        "按等级列出的算子和按层列出的阻塞",
        "位置参数",
        "选项",
        "显示此帮助信息并退出",
    ):
        assert words in out, words
    assert "HIGH 等级的比例下限（默认 70）" in out and "不读取大于此值的报告文件（默认 512）" in out
    assert "--lang {en,zh}" in out and "--max-file-mb MB" in out  # flags stay flags
    for english in ("usage:", "options", "show this help", "ratio of the high tier"):
        assert english not in out, english
    english = _run(["summary", "--help", "--lang", "en"], LANG="zh_CN.UTF-8").stdout
    assert english.startswith("usage: ptotui summary") and "show this help message and exit" in english
    assert "ratio of the high tier (default 70)" in english and "用法" not in english


def test_the_dashboard_help_fits_the_terminal_in_cells():
    from ptotui.commands.argwords import _cells

    out = _run(["--help"], LANG="zh_CN.UTF-8", COLUMNS="60").stdout
    assert "PTO 算子基准报告的实时看板。" in out and "无界面命令：" in out
    assert all(_cells(line) <= 60 for line in out.splitlines()), max(out.splitlines(), key=_cells)


def test_argparse_errors_are_chinese():
    said = _run(["summary", "--bogus"], LANG="zh_CN.UTF-8")
    assert said.returncode == 2 and said.stderr.strip() == "ptotui：错误：无法识别的参数：--bogus"
    said = _run(["summary", "--lang", "fr"], LANG="zh_CN.UTF-8")
    assert said.stderr.strip() == "ptotui：错误：参数 --lang：无效的选择：'fr'（可选 'en', 'zh'）"
    said = _run(["diff"], PTOTUI_LANG="zh")
    assert said.stderr.strip() == "ptotui：错误：缺少必需的参数：old, new"
    said = _run(["summary", "--high", "x"], LANG="zh_CN.UTF-8")
    assert said.stderr.strip() == "ptotui：错误：参数 --high：不是数：'x'"
    english = _run(["summary", "--lang", "fr"], LANG="C.UTF-8")
    assert english.stderr.strip() == "ptotui: error: argument --lang: invalid choice: 'fr' (choose from 'en', 'zh')"


def test_wrap_cells_breaks_chinese_by_cells():
    from ptotui.commands.argwords import _cells, wrap_cells

    lines = wrap_cells("默认依次取 $PTOTUI_LANG、设置文件、locale：LANG=zh_CN.UTF-8 即 zh", 20)
    assert all(_cells(line) <= 20 for line in lines) and "".join(lines).replace(" ", "").startswith("默认依次取")


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


def test_summary_since_line_and_diff_rule_are_chinese(sample_bench):
    out = _run(["summary", str(sample_bench), "--lang", "zh"]).stdout
    assert "Since snapshot" not in out and "regression(s)" not in out
    reports = str(sample_bench / "reports")
    md = _run(["diff", reports, reports, "--lang", "zh"]).stdout
    assert "规则：PTO 变慢超出其噪声带" in md and "个算子只有基线变动（不计入）。" in md
    assert "Rule:" not in md and "kernel(s)" not in md


def test_a_usage_error_of_a_command_is_chinese(tmp_path):
    said = _run(["log", str(tmp_path), "-n", "-1", "--lang", "zh"])
    assert said.returncode == 2 and said.stderr.strip() == "ptotui：错误：-n 必须是 0（全部）或更大"


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


def test_the_triage_markdown_says_its_states_in_chinese(sample_bench, tmp_path):
    said = _run(["triage", str(sample_bench), "--state", str(tmp_path / "t.json"), "--lang", "zh"])
    assert said.returncode == 0 and "| 未分诊 |" in said.stdout
    assert "untriaged" not in said.stdout, said.stdout


def test_json_warnings_are_english_whatever_the_language(sample_bench, tmp_path):
    """JSON is the same in every language: its warnings[].message too."""
    (sample_bench / "reports" / "kernel_state_matrix_latest.json").write_text('{"kernels": [', encoding="utf-8")
    english = _run(["diff", str(sample_bench), str(sample_bench), "--format", "json", "--lang", "en"])
    chinese = _run(["diff", str(sample_bench), str(sample_bench), "--format", "json", "--lang", "zh"])
    assert english.returncode == chinese.returncode == 0, chinese.stderr
    assert english.stdout == chinese.stdout and '"warnings": []' not in chinese.stdout
    assert not _cjk(chinese.stdout)
    export = _run(["export", str(sample_bench), "--lang", "zh"])
    assert export.returncode == 0 and not _cjk(export.stdout) and '"warnings": []' not in export.stdout


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
