"""The settings file: read as untrusted input, written atomically, used by the CLI."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from ptotui.model.config import (
    DEFAULT_COLUMNS,
    MAX_BYTES,
    MAX_FLEET_HOSTS,
    Config,
    FleetSettings,
    default_path,
    normal_columns,
    read_config,
)
from ptotui.model.configsave import save_columns, save_fleet, save_lang, save_theme


def test_default_path_follows_xdg_config_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_path() == tmp_path / "ptotui" / "config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # the spec says: ignore a relative value
    assert default_path() == Path.home() / ".config" / "ptotui" / "config.toml"


def test_saved_settings_read_back_the_same(tmp_path):
    path = tmp_path / "deep" / "config.toml"
    save_columns(path, ("kernel", "tier", "gaps"))
    save_lang(path, "zh")
    save_theme(path, "nord")
    again, warning = read_config(path)
    assert warning is None and again.path == path
    assert (again.columns, again.lang, again.theme) == (("kernel", "tier", "gaps"), "zh", "nord")
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]  # no temporary file left behind


def test_missing_file_is_the_defaults_without_a_word(tmp_path):
    config, warning = read_config(tmp_path / "none.toml")
    assert warning is None and config == Config()


def _one_warning(path: Path) -> str:
    config, warning = read_config(path)
    assert config == Config(), config
    assert warning is not None and str(path) in warning
    assert "\x1b" not in warning and "\n" not in warning
    return warning


def test_bad_files_give_one_warning_and_the_defaults(tmp_path):
    cases = {
        "not-toml.toml": b"[table\ncolumns = \x1b]2;TITLE\x07",
        "binary.toml": b"\xff\xfe\x00garbage",
        "huge.toml": b"# " + b"x" * (MAX_BYTES + 10) + b"\n",
        "deep.toml": b"a = " + b"[" * 50_000 + b"]" * 50_000,
    }
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        _one_warning(tmp_path / name)
    assert "not a regular file" in _one_warning(tmp_path)  # a directory


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "config.toml"
    os.mkfifo(fifo)
    assert "not a regular file" in _one_warning(fifo)


def test_wrong_values_fall_back_one_by_one(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        'lang = "fr"\ntheme = "no theme"\n'
        '[table]\ncolumns = ["gaps", "nope\\u001b[31m", "gaps", "tier"]\nsort = 3\nreverse = "yes"\n'
        "[thresholds]\nhigh = 1e999\nmid = 20\n"
    )
    config, warning = read_config(path)
    assert config.columns == ("kernel", "gaps", "tier")  # unknown and repeated names dropped, kernel kept
    assert config.sort is None and config.reverse is False and config.lang is None and config.theme is None
    assert config.high is None and config.mid == 20.0
    assert warning is not None and "\x1b" not in warning
    for word in ("unknown column", "table.sort", "table.reverse", "thresholds.high", "lang", "theme"):
        assert word in warning


def test_mid_above_high_is_refused(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[thresholds]\nhigh = 20\nmid = 50\n")
    config, warning = read_config(path)
    assert config.high is None and config.mid is None and warning and "mid is not below" in warning


def test_normal_columns():
    assert normal_columns(["tier", "gaps"]) == ("tier", "kernel", "gaps")
    assert normal_columns(DEFAULT_COLUMNS) == DEFAULT_COLUMNS


def test_saving_columns_keeps_the_rest_of_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '# mine\nlang = "zh"\nfuture = {nested = {"odd key" = [1, 2.5, true, "s\\"q"]}}\n'
        '[table]\nsort = "gaps"\ncolumns = ["tier"]\n[thresholds]\nhigh = 80\n'
    )
    save_columns(path, ("kernel", "gaps", "tier"))
    data = tomllib.loads(path.read_text())
    assert data["table"] == {"sort": "gaps", "columns": ["kernel", "gaps", "tier"]}
    assert data["lang"] == "zh" and data["thresholds"] == {"high": 80}
    assert data["future"] == {"nested": {"odd key": [1, 2.5, True, 's"q']}}
    config, warning = read_config(path)
    assert warning is None and config.columns == ("kernel", "gaps", "tier") and config.high == 80.0


def test_saving_the_default_columns_takes_them_out(tmp_path):
    """Issue 40 (16): closing the column chooser wrote the whole default list, so a column
    added to the defaults later never showed for that user."""
    path = tmp_path / "config.toml"
    save_columns(path, DEFAULT_COLUMNS)
    assert not path.exists()  # nothing changed away from the default: no file made for it
    save_columns(path, ("kernel", "tier"))
    save_columns(path, tuple(reversed(DEFAULT_COLUMNS[:2])) + DEFAULT_COLUMNS[2:])  # kernel first: not the default
    assert read_config(path)[0].columns is not None
    save_columns(path, DEFAULT_COLUMNS)
    assert "table" not in tomllib.loads(path.read_text())  # the [table] made for the columns alone goes too
    assert read_config(path)[0].columns is None
    path.write_text('# mine\n[table]  # my table\nsort = "gaps"\ncolumns = ["tier"]  # was\n')
    save_columns(path, DEFAULT_COLUMNS)
    text = path.read_text()
    assert tomllib.loads(text) == {"table": {"sort": "gaps"}} and "# mine" in text and "# my table" in text
    path.write_text("[table]\n# keep this note\ncolumns = []\n")
    save_columns(path, None)
    assert "# keep this note" in path.read_text() and tomllib.loads(path.read_text()) == {"table": {}}


def test_saving_never_overwrites_a_file_it_cannot_read(tmp_path):
    path = tmp_path / "config.toml"
    for text in ("[table\n", "table = 3\n"):
        path.write_text(text)
        with pytest.raises(ValueError):
            save_columns(path, ("kernel",))
        assert path.read_text() == text
    # A date the settings do not use is kept as written (tomlkit writes what it read).
    path.write_text("when = 1979-05-27T07:32:00Z\n")
    save_columns(path, ("kernel",))
    assert path.read_text().startswith("when = 1979-05-27T07:32:00Z\n")
    save_columns(tmp_path / "new" / "config.toml", ("kernel", "tier"))
    assert read_config(tmp_path / "new" / "config.toml")[0].columns == ("kernel", "tier")


def test_dev_zero_as_the_settings_file_is_refused_without_reading_it(tmp_path):
    import threading

    link = tmp_path / "config.toml"
    link.symlink_to("/dev/zero")
    out: list[str] = []
    worker = threading.Thread(target=lambda: out.append(_one_warning(link)), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive() and "character device" in out[0]


@pytest.mark.parametrize(
    ("save", "saved"),
    [
        (lambda p: save_columns(p, ("kernel", "tier")), {"columns": ("kernel", "tier"), "lang": "en"}),
        (lambda p: save_lang(p, "zh"), {"columns": ("tier", "kernel", "pto"), "lang": "zh"}),  # kernel: never hidden
    ],
    ids=["columns", "lang"],
)
def test_saving_keeps_a_hand_edited_file_its_comments_symlink_and_mode(tmp_path, save, saved):
    """Issue 24: closing the column chooser (or ``l``) replaced a symlinked settings file by a
    plain file (the target left unchanged), dropped its comments and made a 644 file 600."""
    target = tmp_path / "dotfiles" / "ptotui.toml"
    target.parent.mkdir()
    original = (
        "# my settings, kept in git\n"
        'lang = "en"  # English at work\n'
        "\n"
        "[table]\n"
        "# the columns I want\n"
        'columns = ["tier", "pto"]\n'
        'sort = "gaps"\n'
        "\n"
        "[thresholds]\n"
        "high = 80  # our bar\n"
    )
    target.write_text(original)
    target.chmod(0o644)
    link = tmp_path / "config" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(target)
    save(link)
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert (target.stat().st_mode & 0o777) == 0o644
    text = target.read_text()
    for comment in ("# my settings, kept in git", "# English at work", "# the columns I want", "# our bar"):
        assert comment in text
    assert text.index("[table]") < text.index("[thresholds]")  # the layout as it was
    assert sorted(p.name for p in target.parent.iterdir()) == ["ptotui.toml"]  # no temporary file left
    assert sorted(p.name for p in link.parent.iterdir()) == ["config.toml"]
    config, warning = read_config(link)
    assert warning is None and config.high == 80.0 and config.sort == "gaps"
    assert {"columns": config.columns, "lang": config.lang} == saved


def test_the_theme_is_saved_as_a_top_level_key_and_the_default_taken_out(tmp_path):
    """Issue 40 (19): the theme picked in the palette was not kept between sessions."""
    path = tmp_path / "config.toml"
    save_theme(path, None)
    assert not path.exists()  # the default theme: nothing to keep, no file made
    path.write_text('# mine\nlang = "zh"\n\n[table]\ncolumns = ["tier", "kernel"]\n')
    save_theme(path, "nord")
    config, warning = read_config(path)
    assert warning is None and config.theme == "nord" and config.lang == "zh"
    assert config.columns == ("tier", "kernel") and "# mine" in path.read_text()
    save_theme(path, None)
    assert read_config(path)[0].theme is None and "theme" not in path.read_text()
    with pytest.raises(ValueError):
        save_theme(path, 'x"\n[keys]')


# -- [fleet]: the fleet view's host columns ---------------------------------------------------


def test_the_fleet_columns_are_saved_and_read_back_keeping_the_rest_of_the_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# mine\nlang = "zh"\n\n[table]  # my table\ncolumns = ["tier", "kernel"]\n')
    chosen = FleetSettings(order=("host-c", "host-a", "host-b"), hidden=("host-b",), reference="host-c")
    save_fleet(path, chosen)
    config, warning = read_config(path)
    assert warning is None and config.fleet == chosen
    assert config.lang == "zh" and config.columns == ("tier", "kernel")
    text = path.read_text()
    assert "# mine" in text and "# my table" in text
    save_fleet(path, FleetSettings(hidden=("host-b",)))  # the order by name, no reference: those keys go
    assert tomllib.loads(path.read_text())["fleet"] == {"hidden": ["host-b"]}
    save_fleet(path, FleetSettings())
    assert "fleet" not in tomllib.loads(path.read_text())  # the [fleet] made for them alone goes too
    assert "# my table" in path.read_text()


def test_nothing_to_keep_of_the_fleet_makes_no_file_and_a_noted_fleet_table_stays(tmp_path):
    path = tmp_path / "config.toml"
    save_fleet(path, FleetSettings())
    assert not path.exists()
    path.write_text('[fleet]  # the bench room\norder = ["b", "a"]\n')
    save_fleet(path, FleetSettings())
    assert "# the bench room" in path.read_text() and tomllib.loads(path.read_text()) == {"fleet": {}}


def test_a_malformed_fleet_table_is_one_warning_naming_the_file_and_the_defaults(tmp_path):
    path = tmp_path / "config.toml"
    for text, words in (
        ("fleet = 3\n", ["[fleet] is not a table"]),
        (
            '[fleet]\norder = ["a", 1]\nhidden = "b"\nreference = "x\\u001b]2;owned\\u0007"\n',
            ["fleet.order", "fleet.hidden", "fleet.reference"],
        ),
        ('[fleet]\nhidden = ["' + "h" * 300 + '"]\n', ["fleet.hidden"]),
        ("[fleet]\norder = [" + ", ".join(f'"h{i}"' for i in range(MAX_FLEET_HOSTS + 1)) + "]\n", ["fleet.order"]),
        ('lang = "zh"\n[fleet]\norder = [[], {}]\n', ["fleet.order"]),
    ):
        path.write_text(text)
        config, warning = read_config(path)
        assert config.fleet == FleetSettings(), text
        assert warning is not None and str(path) in warning and "\n" not in warning and "\x1b" not in warning
        for word in words:
            assert word in warning, (word, warning)


def test_the_good_keys_of_a_fleet_table_are_used_beside_a_bad_one(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[fleet]\norder = ["b", "a", "b"]\nhidden = 7\nreference = "b"\n')
    config, warning = read_config(path)
    assert config.fleet == FleetSettings(order=("b", "a"), reference="b")  # a name repeated counts once
    assert warning is not None and "fleet.hidden" in warning


def test_saving_the_fleet_never_overwrites_a_file_it_cannot_update(tmp_path):
    path = tmp_path / "config.toml"
    for text in ("[fleet\n", "fleet = 3\n"):
        path.write_text(text)
        with pytest.raises(ValueError):
            save_fleet(path, FleetSettings(hidden=("a",)))
        assert path.read_text() == text


def test_a_name_that_could_not_be_read_back_is_not_written(tmp_path):
    path = tmp_path / "config.toml"
    save_fleet(path, FleetSettings(order=("b", "\x1b[2J", "a"), hidden=("h" * 300,), reference="\x07"))
    config, warning = read_config(path)
    assert warning is None and config.fleet == FleetSettings(order=("b", "a"))
