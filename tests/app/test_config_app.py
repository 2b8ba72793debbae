"""The settings file in the dashboard: its warning shown once, the theme picked kept for the next session."""

from __future__ import annotations

from ptotui.model.config import read_config


async def test_dashboard_shows_the_settings_warning_once(tmp_path):
    from ptotui.model.location import Location
    from tests.conftest import SAMPLES
    from tests.helpers import build, loaded, until

    path = tmp_path / "c.toml"
    path.write_text("[table]\ncolumns = 7\nsort = 'pto_ms'\n")
    config, warning = read_config(path)
    app = build(Location(SAMPLES / "reports", SAMPLES), settings=config, settings_warning=warning)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: warning in [n.message for n in app._notifications])
        await pilot.pause(0.3)  # a second copy would have arrived by now
        notes = [n.message for n in app._notifications]
        # Other notices (the snapshot comparison's) may come and go; this one is shown once.
        assert notes.count(warning) == 1 and "table.columns" in warning
        assert app.main.sort_column == "pto_ms"  # the rest of the file still counts


async def test_the_theme_picked_is_the_next_sessions_and_an_unknown_one_is_said(sample_location, tmp_path):
    """Issue 40 (19): a theme chosen in the command palette (which sets the app's theme) was
    lost at the next start."""
    from tests.helpers import build_with_settings, loaded, until

    path = tmp_path / "config.toml"
    app = build_with_settings(sample_location, tmp_path, '# mine\ntheme = "textual-light"\n')
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot, 15)
        assert app.theme == "textual-light"  # the file's theme, from the first frame
        app.theme = "nord"
        await until(pilot, lambda: read_config(path)[0].theme == "nord")
        app.theme = "textual-dark"  # the default: taken out of the file
        await until(pilot, lambda: read_config(path)[0].theme is None)
    assert path.read_text().startswith("# mine")
    app = build_with_settings(sample_location, tmp_path, 'theme = "gone-theme"\n')
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot, 15)
        assert app.theme == "textual-dark"
        await until(pilot, lambda: any("gone-theme" in str(n.message) for n in app._notifications))
    assert read_config(path)[0].theme == "gone-theme"  # not written over: the user's choice stays
