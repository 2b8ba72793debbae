"""DashboardOptions: the dashboard's flags, declared once, read back and written out the same."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ptotui.cli import build_parser
from ptotui.model.config import LANGS, Config
from ptotui.model.core.tiers import Thresholds
from ptotui.model.options import COMMON, DASHBOARD, FLAGS, DashboardOptions, choose_lang

words = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), min_size=1, max_size=12)
# A value argparse would take for a flag: not one that starts like a flag.
values = words.filter(lambda w: not w.startswith("-"))
numbers = st.floats(min_value=0.5, max_value=100, allow_nan=False)
options = st.builds(
    DashboardOptions,
    path=st.none() | values,
    filter=st.just("") | values,
    lang=st.none() | st.sampled_from(LANGS),
    poll=st.booleans(),
    git=st.booleans(),
    compare=st.lists(values, max_size=3).map(tuple),
    state=st.none() | values.map(Path),
    read_only=st.booleans(),
    ratio_pp=numbers,
    bell=st.booleans(),
    on_regression=st.none() | values,
    high=st.none() | numbers,
    mid=st.none() | numbers,
    config=st.none() | values.map(Path),
    max_file_mb=numbers,
)


def parse(argv: list[str]) -> DashboardOptions:
    return DashboardOptions.from_args(build_parser(None).parse_args(argv))


@given(options)
def test_to_argv_reads_back_as_the_same_options(chosen: DashboardOptions) -> None:
    assert parse(chosen.to_argv()) == chosen


def test_no_flags_are_the_defaults_and_write_out_as_nothing() -> None:
    assert parse([]) == DashboardOptions()
    assert DashboardOptions().to_argv() == []


def test_every_flag_is_on_the_dashboards_parser_once() -> None:
    parser = build_parser(None)
    declared = [s for action in parser._actions for s in action.option_strings]
    for flag in FLAGS:
        assert declared.count(flag.flag) == 1, flag.flag
    assert {f.field for f in FLAGS} == set(DASHBOARD) | set(COMMON)


def test_serve_takes_the_dashboard_flags_but_the_hook() -> None:
    declared = set(build_parser("serve")._option_string_actions)
    kept = {f.flag for f in FLAGS if f.field not in ("on_regression", "runs", "publish", "publish_host")}
    assert kept <= declared
    assert "--on-regression" not in declared and "--publish" not in declared  # every tab would run it
    assert "--no-runs" not in declared and "--allow-runs" in declared  # serve: runs off unless allowed


def test_absolute_makes_path_and_files_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    made = DashboardOptions(path="reports", state=Path("~/t.json"), config=Path("c.toml"), filter="x").absolute()
    assert made.path == str(tmp_path / "reports")
    assert made.state == tmp_path / "home" / "t.json"
    assert made.config == tmp_path / "c.toml"
    assert made.filter == "x"


def test_thresholds_flags_then_settings_then_defaults() -> None:
    settings = Config(high=80.0, mid=40.0)
    assert DashboardOptions().thresholds == Thresholds(70.0, 30.0)
    assert DashboardOptions(settings=settings).thresholds == Thresholds(80.0, 40.0)
    assert DashboardOptions(high=90.0, settings=settings).thresholds == Thresholds(90.0, 40.0)
    with pytest.raises(ValueError, match="--mid"):
        _ = DashboardOptions(mid=85.0, settings=settings).thresholds


def test_language_flag_then_environment_then_settings_then_english() -> None:
    zh = Config(lang="zh")
    assert choose_lang(None, Config(), {}) == "en"
    assert choose_lang(None, zh, {}) == "zh"
    assert choose_lang(None, Config(lang="en"), {"PTOTUI_LANG": "zh"}) == "zh"
    assert choose_lang(None, zh, {"PTOTUI_LANG": "klingon"}) == "zh"  # not a language: ignored
    assert choose_lang("en", zh, {"PTOTUI_LANG": "zh"}) == "en"


def test_from_args_reads_the_settings_file_as_read() -> None:
    args = build_parser(None).parse_args(["--high", "75"])
    args.settings, args.config_warning = Config(mid=20.0), "config.toml: bad"
    chosen = DashboardOptions.from_args(args)
    assert chosen.thresholds == Thresholds(75.0, 20.0) and chosen.settings_warning == "config.toml: bad"


def test_a_namespace_without_a_flag_keeps_its_default() -> None:
    chosen = DashboardOptions.from_args(argparse.Namespace(path=None, ratio_pp=None, no_git=True))
    assert chosen == DashboardOptions(git=False)


def test_an_empty_file_flag_is_not_given() -> None:
    assert parse(["--state", "", "--config", ""]) == DashboardOptions()
