"""Chinese on the command line: help, argparse's errors, summary, diff and triage; JSON stays English."""

from __future__ import annotations

import os
import subprocess
import sys


def _cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


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
