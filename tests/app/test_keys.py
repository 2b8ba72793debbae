"""Binding ids: the command palette made from the bindings, and keys remapped from the settings file."""

from __future__ import annotations

from pathlib import Path

from textual.binding import Binding

from ptotui.app.app import PtoTuiApp
from ptotui.app.keys import PaletteCommand, commands
from ptotui.app.screens.confirm import ConfirmScreen
from ptotui.app.screens.detail import DetailScreen
from ptotui.app.screens.help import HelpScreen
from ptotui.app.screens.main.columns import ColumnsScreen
from ptotui.app.screens.main.screen import MainScreen
from ptotui.app.screens.note import NoteScreen
from ptotui.app.screens.notices import NoticesScreen
from ptotui.app.screens.overview import OverviewScreen
from ptotui.app.screens.rerun_output import RerunOutputScreen
from ptotui.app.screens.rundiff import RunDiffScreen
from ptotui.app.screens.warnings import WarningsScreen
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.charts import KernelCharts
from ptotui.app.widgets.kernel_table import KernelTable
from ptotui.app.widgets.overview_charts import BarChart
from ptotui.model import i18n
from ptotui.model.config import KEY_IDS, Config, read_config
from ptotui.model.core.tiers import TIERS
from tests.helpers import build, build_with_settings, loaded, table, until

OWNERS = (PtoTuiApp, MainScreen, KernelTable, DetailScreen, KernelCharts, OverviewScreen, BarChart, ColumnsScreen)
OWNERS += (BlockerPane, HelpScreen, NoteScreen, WarningsScreen, RunDiffScreen, ConfirmScreen, RerunOutputScreen)
OWNERS += (NoticesScreen,)


def ids() -> list[str]:
    return [b.id for owner in OWNERS for b in owner.BINDINGS if isinstance(b, Binding) and b.id]


def test_every_binding_of_ours_has_a_unique_id_the_settings_file_knows():
    found = ids()
    assert len(found) == len(set(found))
    assert set(found) == set(KEY_IDS)
    assert all(isinstance(b, Binding) and b.id for owner in OWNERS for b in owner.BINDINGS)
    assert all(
        binding.split(".")[0]
        in {
            "app",
            "main",
            "table",
            "detail",
            "charts",
            "overview",
            "columns",
            "pane",
            "help",
            "note",
            "warnings",
            "notices",
            "rundiff",
            "confirm",
            "output",
        }
        for binding in found
    )


def test_the_palette_entries_are_the_bindings_that_are_commands():
    entries = [c for owner in (PtoTuiApp, MainScreen) for c in commands(owner.BINDINGS)]
    titles = [c.entry()[0] for c in entries]
    assert len(titles) == len(set(titles)) == 19 + len(TIERS)
    assert {"Reload reports", "Show keys", "Only differing kernels", "Overview", "Copy the kernel's name"} <= set(
        titles
    )
    assert all(isinstance(c, PaletteCommand) and c.help and c.id for c in entries)


def test_the_palette_entries_are_in_the_language_shown():
    by_id = {c.id: c for owner in (PtoTuiApp, MainScreen) for c in commands(owner.BINDINGS)}
    assert by_id["main.tier-pto-blocked"].entry() == ("Only PTO-BLOCKED", "Filter to the pto-blocked tier")
    i18n.set_language("zh")
    assert by_id["main.reload"].entry() == ("重新加载报告", "立即重新读取报告")
    assert by_id["main.tier-pto-blocked"].entry() == ("只看 PTO-BLOCKED", "只显示 pto-blocked 等级")


async def test_the_palette_runs_each_binding_and_shows_its_key(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        palette = {c.title: c for c in app.get_system_commands(app.main)}
        assert "Only differing kernels" not in palette  # no --compare source
        assert palette["Reload reports"].help == "Read the reports again now (r)"
        assert palette["Overview"].help.endswith("(G)") and palette["Show keys"].help.endswith("(?)")
        assert palette["Only PTO-BLOCKED"].help == "Filter to the pto-blocked tier (6)"
        palette["Only untriaged blockers"].callback()
        await until(pilot, lambda: app.main.filters.untriaged)
        palette["Overview"].callback()
        await until(pilot, lambda: type(app.screen).__name__ == "OverviewScreen")


async def test_a_key_remapped_in_the_settings_file_does_the_action_everywhere(sample_location, tmp_path):
    settings = '[keys]\nmain.reload = "f5"\n"main.overview" = ["ctrl+o", "O"]\n[keys.table]\ndown = "j,n"\n'
    app = build_with_settings(sample_location, tmp_path, settings)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        t = table(app)
        await pilot.press("n")  # table.down, remapped to j and n (n was the note's)
        assert t.cursor_row == 1
        await pilot.press("j")
        assert t.cursor_row == 2
        await pilot.press("f5")
        await until(pilot, lambda: any(n.message == "Reloading…" for n in app._notifications))
        palette = {c.title: c for c in app.get_system_commands(app.main)}
        assert palette["Reload reports"].help == "Read the reports again now (f5)"
        assert palette["Overview"].help.endswith("(^o)")
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        rows = dict(app.screen._rows())
        assert rows["f5"] == "Reload" and rows["^o, O"] == "Overview"
        extra = dict(app.screen._extra())  # the table's keys, written in HELP_EXTRA, as remapped
        moves = "move the cursor of the table, the blocker pane or the changes pane"
        assert extra["↑ k j n pgup pgdn home end"] == moves
        assert "← →" in extra and "enter" in extra  # not remapped: as written
        await pilot.press("escape")
        await pilot.press("O")
        await until(pilot, lambda: type(app.screen).__name__ == "OverviewScreen")


def test_keys_read_from_the_settings_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[keys]\nmain.reload = "F5"\n"main.sort" = ["s", "Ctrl+S"]\napp.help = "?"\nmain.overview = "O"\n'
        '[keys.detail]\nback = "backspace"\n'
    )
    config, warning = read_config(path)
    assert warning is None
    want = {
        "main.reload": "f5",
        "main.sort": "s,ctrl+S",
        "app.help": "?",
        "main.overview": "O",
        "detail.back": "backspace",
    }
    assert dict(config.keys) == want


def test_a_bad_keys_entry_is_one_warning_naming_the_file_and_the_rest_is_kept(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '[table]\nsort = "ratio"\n[keys]\nmain.reload = "f5"\nmain.nope = "x"\nmain.note = 3\n'
        'main.changes = "a b"\nmain.blockers = ""\nmain.sort = []\n'
    )
    config, warning = read_config(path)
    assert warning is not None and str(path) in warning and "defaults" in warning
    for word in ("main.nope", "keys.main.note", "keys.main.changes", "keys.main.blockers", "keys.main.sort"):
        assert word in warning, word
    assert dict(config.keys) == {"main.reload": "f5"} and config.sort == "ratio"
    path.write_text('keys = "f5"\n')
    config, warning = read_config(path)
    assert config == Config() and warning is not None and "[keys] is not a table" in warning


def test_the_keys_page_lists_every_binding_id():
    page = (Path(__file__).resolve().parents[2] / "docs" / "keys-and-configuration.md").read_text(encoding="utf-8")
    assert [i for i in KEY_IDS if f"`{i}`" not in page] == []


async def test_j_and_k_move_in_the_column_chooser_as_down_and_up(sample_location):
    """Issue 40 (19): ``j``/``k`` did nothing in the column chooser, though they move the table,
    the panes and ``less``."""
    from textual.widgets import OptionList

    app = build(sample_location)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ColumnsScreen))
        options = app.screen.query_one(OptionList)
        await until(pilot, lambda: options.highlighted == 0)
        before = app.screen.shown
        await pilot.press("j", "j", "j")
        await until(pilot, lambda: options.highlighted == 3)
        await pilot.press("k")
        await until(pilot, lambda: options.highlighted == 2)
        await pilot.press("down", "up", "up")
        await until(pilot, lambda: options.highlighted == 1)
        assert isinstance(app.screen, ColumnsScreen) and app.screen.shown == before  # moved, nothing toggled
