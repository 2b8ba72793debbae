"""The language ptotui speaks: chosen as people expect, switched and remembered (issue 22)."""

from __future__ import annotations

import tomllib

import pytest

from ptotui.model import i18n
from ptotui.model.config import read_config
from ptotui.model.configsave import save_columns, save_lang
from ptotui.model.i18n import choose_language, locale_language


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


# -- the headless commands speak the chosen language; JSON and CSV stay neutral -------


# -- the app's words ---------------------------------------------------------------------
