"""The headless commands speak the chosen language; JSON and CSV stay neutral."""

from __future__ import annotations

import pytest

from ptotui.model import i18n
from ptotui.model.i18n import LANGS


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


@pytest.mark.slow
def test_summary_follows_the_locale_and_lang_wins(sample_bench):
    chinese = _cli(["summary", str(sample_bench)], LANG="zh_CN.UTF-8")
    assert "按等级列出的算子" in chinese and "按层列出的阻塞" in chinese and "Kernels by tier" not in chinese
    assert "HIGH" in chinese and "PTO-BLOCKED" in chinese  # tier codes stay codes
    english = _cli(["summary", str(sample_bench), "--lang", "en"], LANG="zh_CN.UTF-8")
    assert "Kernels by tier" in english and "按等级" not in english
    assert "Kernels by tier" in _cli(["summary", str(sample_bench)])  # C.UTF-8 (conftest): English


@pytest.mark.slow
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
