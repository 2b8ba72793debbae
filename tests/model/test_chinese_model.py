"""Chinese in the model's words: cut names, torn reports, the settings file's warnings."""

from __future__ import annotations

from ptotui.model.location import Location
from tests.conftest import SAMPLES


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
