"""The language ptotui speaks: chosen as people expect, switched and remembered (issue 22)."""

from __future__ import annotations

import shutil
import tomllib

import pytest

from ptotui.model import i18n
from ptotui.model.config import read_config, save_columns, save_lang
from ptotui.model.i18n import LANGS, choose_language, locale_language
from ptotui.model.location import Location
from tests.conftest import SAMPLES
from tests.helpers import build, loaded


@pytest.mark.parametrize(
    ("flag", "environ", "settings", "expected"),
    [
        (None, {}, None, "en"),  # nothing says: English
        ("en", {"PTOTUI_LANG": "zh", "LANG": "zh_CN.UTF-8"}, "zh", "en"),  # --lang first
        (None, {"PTOTUI_LANG": "zh", "LANG": "en_US.UTF-8"}, "en", "zh"),  # then $PTOTUI_LANG
        (None, {"PTOTUI_LANG": "fr", "LANG": "zh_CN.UTF-8"}, None, "zh"),  # not a code: passed over
        (None, {"LANG": "zh_CN.UTF-8"}, "en", "en"),  # then the settings file
        (None, {"LANG": "zh_CN.UTF-8"}, None, "zh"),  # then the locale
        (None, {"LANG": "zh_TW.UTF-8"}, None, "zh"),
        (None, {"LANG": "zh"}, None, "zh"),
        (None, {"LANG": "C.UTF-8"}, None, "en"),
        (None, {"LANG": "fr_FR.UTF-8"}, None, "en"),  # no French: English
        (None, {"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, None, "en"),  # LC_ALL before LANG
        (None, {"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, None, "zh"),  # LC_MESSAGES before LANG
        (None, {"LC_ALL": "", "LANG": "zh_CN.UTF-8"}, None, "zh"),  # an empty variable is not set
        (None, {"LANGUAGE": "zh_CN:en"}, None, "zh"),  # the last one asked, a list: its first
        (None, {"LANGUAGE": "en:zh_CN"}, None, "en"),
    ],
)
def test_the_language_is_the_flag_then_the_variable_then_the_settings_then_the_locale(
    flag, environ, settings, expected
):
    assert choose_language(flag, environ, settings) == expected


def test_no_locale_variable_says_nothing():
    assert locale_language({"HOME": "/root"}) is None
    assert locale_language({"LANG": "zh_CN.UTF-8"}) == "zh"


def test_set_language_takes_only_known_codes():
    i18n.set_language("zh")
    assert i18n.language() == "zh"
    i18n.set_language("fr")
    assert i18n.language() == "en"


def test_every_command_takes_lang_and_the_locale(tmp_path, monkeypatch):
    """The flags every command shares set the language in force before the command runs."""
    from ptotui.cli import Parser
    from ptotui.commands.common import UsageError, add_common_arguments, apply_common_arguments

    parser = Parser()
    add_common_arguments(parser)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    apply_common_arguments(parser.parse_args([]))
    assert i18n.language() == "zh"
    apply_common_arguments(parser.parse_args(["--lang", "en"]))
    assert i18n.language() == "en"
    config = tmp_path / "config.toml"
    config.write_text('lang = "en"\n')
    apply_common_arguments(parser.parse_args(["--config", str(config)]))
    assert i18n.language() == "en"
    monkeypatch.setenv("PTOTUI_LANG", "zh")
    apply_common_arguments(parser.parse_args(["--config", str(config)]))
    assert i18n.language() == "zh"
    with pytest.raises(UsageError, match="无效的选择"):  # said in the language in force, zh here
        parser.parse_args(["--lang", "fr"])


def test_save_lang_keeps_the_rest_of_the_file(tmp_path):
    path = tmp_path / "config.toml"
    save_columns(path, ("kernel", "tier"))
    save_lang(path, "zh")
    data = tomllib.loads(path.read_text())
    assert data["lang"] == "zh" and data["table"]["columns"] == ["kernel", "tier"]
    assert read_config(path)[0].lang == "zh"
    with pytest.raises(ValueError):
        save_lang(path, "fr")
    path.write_text("not = [toml")
    with pytest.raises(ValueError, match="left as it is"):
        save_lang(path, "en")
    assert path.read_text() == "not = [toml"


def test_save_lang_none_takes_lang_out_and_creates_nothing(tmp_path):
    path = tmp_path / "config.toml"
    save_lang(path, None)
    assert not path.exists()  # nothing pinned: no file made for it
    path.write_text('# my settings\nlang = "en"\n\n[table]\ncolumns = ["kernel", "tier"]  # mine\n')
    save_lang(path, None)
    text = path.read_text()
    assert "lang" not in tomllib.loads(text) and "# my settings" in text and "# mine" in text
    before = path.stat().st_mtime_ns
    save_lang(path, None)
    assert path.stat().st_mtime_ns == before  # nothing to take out: not written


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
        assert app.ctx.lang == "zh" and read_config(path)[0].lang is None  # what LANG gives: unpinned
    text = path.read_text()
    assert "lang" not in tomllib.loads(text) and "# mine" in text and 'sort = "ratio"' in text
    i18n.set_language("en")
    assert i18n.choose_language(None, {"LANG": "zh_CN.UTF-8"}, read_config(path)[0].lang) == "zh"


# -- the headless commands speak the chosen language; JSON and CSV stay neutral -------


def _cli(args: list[str], **env: str) -> str:
    import os
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "ptotui", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert result.returncode in (0, 1), result.stderr
    return result.stdout


def test_summary_follows_the_locale_and_lang_wins(sample_bench):
    chinese = _cli(["summary", str(sample_bench)], LANG="zh_CN.UTF-8")
    assert "按等级列出的算子" in chinese and "按层列出的阻塞" in chinese and "Kernels by tier" not in chinese
    assert "HIGH" in chinese and "PTO-BLOCKED" in chinese  # tier codes stay codes
    english = _cli(["summary", str(sample_bench), "--lang", "en"], LANG="zh_CN.UTF-8")
    assert "Kernels by tier" in english and "按等级" not in english
    assert "Kernels by tier" in _cli(["summary", str(sample_bench)])  # C.UTF-8 (conftest): English


def test_triage_md_and_diff_md_in_chinese_json_the_same_in_both(sample_bench, tmp_path):
    state = str(tmp_path / "triage.json")
    md = _cli(["triage", str(sample_bench), "--state", state, "--lang", "zh"])
    assert md.startswith("# 分诊：") and "| 算子 | 等级 | 层 |" in md
    as_json = [
        _cli(["triage", str(sample_bench), "--state", state, "--format", "json", "--lang", lang]) for lang in LANGS
    ]
    assert as_json[0] == as_json[1]
    reports = str(sample_bench / "reports")
    diff_md = _cli(["diff", reports, reports, "--lang", "zh"])
    assert "0 处变化，0 处回退。" in diff_md and "旧：" in diff_md
    diffs = [_cli(["diff", reports, reports, "--format", "json", "--lang", lang]) for lang in LANGS]
    assert diffs[0] == diffs[1]
    csv = [_cli(["export", str(sample_bench), "--format", "csv", "--lang", lang]) for lang in LANGS]
    assert csv[0] == csv[1]


# -- the app's words ---------------------------------------------------------------------


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
