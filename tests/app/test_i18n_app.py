"""The language in the dashboard: l switches every screen, and the locale's language unpins it."""

from __future__ import annotations

import shutil
import tomllib

from ptotui.model import i18n
from ptotui.model.config import read_config
from ptotui.model.location import Location
from tests.conftest import SAMPLES
from tests.helpers import build, loaded, until


async def test_l_switches_the_whole_app_and_is_remembered(tmp_path):
    path = tmp_path / "config.toml"
    config, _warning = read_config(path)
    app = build(Location(SAMPLES / "reports", SAMPLES), config=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        assert app.ctx.lang == "en"
        await pilot.press("l")  # on the main screen, not only on the detail
        assert app.ctx.lang == "zh" and i18n.language() == "zh"
        assert read_config(path)[0].lang == "zh"
        await pilot.press("enter")
        await pilot.press("l")
        # Back to what the locale gives (LANG=C.UTF-8): not pinned, so a later LANG=zh_CN holds.
        assert app.ctx.lang == "en" and read_config(path)[0].lang is None
        assert "lang" not in tomllib.loads(path.read_text())


async def test_l_back_to_the_locale_language_unpins_it(tmp_path, monkeypatch):
    """Issue 40 (16): ``l`` twice wrote ``lang = "en"``, and LANG=zh_CN.UTF-8 was ignored after."""
    path = tmp_path / "config.toml"
    path.write_text('# mine\nlang = "en"  # pinned by hand\n\n[table]\nsort = "ratio"\n')
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    config, _warning = read_config(path)
    app = build(Location(SAMPLES / "reports", SAMPLES), config=config)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        assert app.ctx.lang == "en"  # the file's lang wins over the locale
        await pilot.press("l")
        assert app.ctx.lang == "zh"
        # what LANG gives: unpinned (written on a worker: waited for, as the next start reads it)
        await until(pilot, lambda: read_config(path)[0].lang is None)
    text = path.read_text()
    assert "lang" not in tomllib.loads(text) and "# mine" in text and 'sort = "ratio"' in text
    i18n.set_language("en")
    assert i18n.choose_language(None, {"LANG": "zh_CN.UTF-8"}, read_config(path)[0].lang) == "zh"


def _shown(app) -> str:
    """The screen's text, as the terminal shows it (the screenshot without its markup)."""
    import html
    import re

    svg = app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg[svg.index("<g") :])).replace("\xa0", " ")


async def test_main_screen_pane_help_and_chooser_in_chinese(tmp_path):
    app = build(Location(SAMPLES / "reports", SAMPLES), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        shot = _shown(app)
        for words in ("未分诊", "PTO 一侧", "按层列出的阻塞"):
            assert words in shot, words
        assert "untriaged" not in shot and "Blockers by layer" not in shot
        await pilot.press("question_mark")
        await pilot.pause()
        shot = _shown(app)
        assert "按键" in shot and "作用" in shot and "总览" in shot
        from ptotui.app.screens.help import intro

        assert "窄表格显示简写等级：BBLK 基线阻塞 · CORR 正确性" in intro(app.ctx.thresholds)
        await pilot.press("escape")
        await pilot.press("l")  # English again, the whole main screen
        await pilot.pause()
        shot = _shown(app)
        assert "untriaged" in shot and "Blockers by layer" in shot and "未分诊" not in shot


async def test_pane_entries_fit_in_cells_with_chinese_text(tmp_path):
    """A reason in Chinese takes two cells a character: the pane cuts it by cells, so no
    entry runs past the pane (cut by characters, it wrapped under nothing)."""
    from rich.cells import cell_len

    from ptotui.app.widgets.blocker_pane import BlockerPane

    bench = tmp_path / "bench"
    shutil.copytree(SAMPLES, bench)
    for name in ("regression_latest.json", "kernel_state_matrix_latest.json"):
        report = bench / "reports" / name
        report.write_text(
            report.read_text().replace('"pto_reason": "', '"pto_reason": "' + "降级失败，缺少尾部处理" * 20)
        )
    app = build(Location(bench / "reports", bench), lang="zh")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        pane = app.main.query_one(BlockerPane)
        width = pane.scrollable_content_region.width
        lines = [line for option in pane._options for line in option.prompt.plain.splitlines()]
        assert any("降级失败" in line for line in lines)
        assert all(cell_len(line) <= width for line in lines), max(lines, key=cell_len)
