"""The fleet view in a terminal (ptotui/app/fleet_app.py), driven with Pilot: hosts published to
a bare remote (tests/cli/test_fleet.py's Team), the view on a clone of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from ptotui.app.factory import make_fleet_app
from ptotui.app.fleet_app import FleetApp
from ptotui.app.screens.fleet_detail import FleetDetailScreen, FleetHelpScreen, FleetTextScreen
from tests.cli.test_fleet import Team
from tests.helpers import until
from tests.model.test_publish import git
from tests.model.test_verdict import STEADY, WOBBLE, land

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
NEVER = 3600.0  # no timer fetch during a test: each waits on the reads it causes


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def table(app: FleetApp) -> DataTable:
    return app.fleet_screen.query_one("#fleet-table", DataTable)


def columns(app: FleetApp) -> list[str]:
    return [str(column.key.value) for column in table(app).columns.values()]


def cell(app: FleetApp, kernel: str, host: str) -> str:
    value = table(app).get_cell(kernel, host)
    return value.plain if isinstance(value, Text) else str(value)


def text_of(app: FleetApp, widget: str) -> str:
    rendered = app.fleet_screen.query_one(widget, Static).render()
    return str(rendered)


def rendered(widget: Static, width: int) -> str:
    """What a Static holding any Rich renderable shows, as text."""
    import io

    from rich.console import Console

    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(widget.content)
    return console.export_text()


async def fetched(pilot, app: FleetApp, reads: int = 2) -> None:
    """The first read (no fetch) and the first fetch are in."""
    await until(pilot, lambda: app.reads >= reads and not app.reading_now)


async def test_the_view_shows_every_host_and_the_keys_change_its_columns(tmp_path: Path) -> None:
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        assert columns(app) == ["≠", "kernel", "host-a", "host-b", "host-c"]
        assert cell(app, STEADY, "host-a").split()[0] == "MID"
        hosts = text_of(app, "#fleet-hosts")
        assert all(name in hosts for name in ("host-a", "host-b", "host-c"))
        assert "3 bench hosts" in text_of(app, "#fleet-status")
        await pilot.press("j")  # as in the dashboard's tables
        assert table(app).cursor_coordinate.row == 1
        await pilot.press("k")
        assert table(app).cursor_coordinate.row == 0
        await pilot.press("right", "right")  # from the kernel onto host-b's column
        await pilot.press("greater_than_sign")
        assert columns(app)[2:] == ["host-a", "host-c", "host-b"]
        await pilot.press("p")
        assert columns(app)[2:] == ["host-b", "host-a", "host-c"]
        assert "pp" in cell(app, STEADY, "host-a") and "pp" not in cell(app, STEADY, "host-b")
        assert "reference ★ host-b" in text_of(app, "#fleet-status")
        await pilot.press("right", "x")
        assert columns(app)[2:] == ["host-b", "host-c"]
        await pilot.press("a")
        assert columns(app)[2:] == ["host-b", "host-a", "host-c"]
        await pilot.press("question_mark")
        assert isinstance(app.screen, FleetHelpScreen)
        await pilot.press("escape")
        await pilot.press("enter")
        assert isinstance(app.screen, FleetDetailScreen)
        detail = app.screen
        await until(pilot, lambda: detail.items is not None)
        assert [item.host.name for item in detail.items or []] == ["host-b", "host-a", "host-c"]
        await pilot.press("escape")
        await pilot.press("q")
    assert app.return_code == 0


async def test_a_publish_appears_on_its_hosts_column_at_the_next_fetch(tmp_path: Path) -> None:
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        before = {h: cell(app, STEADY, h) for h in ("host-a", "host-b", "host-c")}
        assert not any(text.startswith("▼") for text in before.values())
        land(team.benches["host-b"], WOBBLE[-1] * 1.2)
        team.publish("host-b")
        await pilot.press("r")
        await fetched(pilot, app, 3)
        assert cell(app, STEADY, "host-b").startswith("▼")
        assert {h: cell(app, STEADY, h) for h in ("host-a", "host-c")} == {h: before[h] for h in ("host-a", "host-c")}


async def test_a_publish_on_the_pinned_reference_redraws_every_compared_column(tmp_path: Path) -> None:
    """After a read only the moved hosts' cells are made again, unless the moved host is the
    reference: then every other column's difference to it changes too."""
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        await pilot.press("right")  # onto host-a's column
        await pilot.press("p")
        await until(pilot, lambda: "pp" in cell(app, STEADY, "host-b"))
        before = {h: cell(app, STEADY, h) for h in ("host-b", "host-c")}
        land(team.benches["host-a"], WOBBLE[-1] * 1.5)
        team.publish("host-a")
        written: list[set[str]] = []  # the host columns of each write into the table
        real = table(app).update_cells

        def update_cells(updates, **kwargs):
            updates = list(updates)
            written.append({str(column) for _row, column, _value in updates} - {"≠"})
            real(updates, **kwargs)

        table(app).update_cells = update_cells  # type: ignore[method-assign]
        drawn = app.fleet_screen.redraws
        await pilot.press("r")
        await fetched(pilot, app, 3)
        await until(pilot, lambda: app.fleet_screen.redraws > drawn)  # its last column drawn
        # One column a frame, so that a key waits for one column's cells, not every column's.
        assert all(len(columns) <= 1 for columns in written)
        assert set().union(*written) == {"host-a", "host-b", "host-c"}
        after = {h: cell(app, STEADY, h) for h in ("host-b", "host-c")}
        assert after["host-b"] != before["host-b"] and after["host-c"] != before["host-c"]
        assert after["host-b"].split()[:2] == before["host-b"].split()[:2]  # their own tier and ratio: as before


async def test_a_failed_fetch_keeps_the_data_and_says_so_in_one_line(tmp_path: Path) -> None:
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(80, 24)) as pilot:
        await fetched(pilot, app)
        team.remote.rename(tmp_path / "moved.git")
        await pilot.press("r")
        await fetched(pilot, app, 3)
        status = text_of(app, "#fleet-status")
        assert "fetch failed " in status and "\n" not in status
        assert table(app).row_count == 2 and columns(app)[2:] == ["host-a", "host-b", "host-c"]


async def test_no_host_branch_is_one_line_and_the_view_waits_for_one(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    app = make_fleet_app(clone, "origin", NEVER)
    async with app.run_test(size=(80, 24)) as pilot:
        await fetched(pilot, app)
        assert text_of(app, "#fleet-hosts") == "no host branches ptotui/hosts/* on origin yet"
        assert table(app).row_count == 0
        await pilot.press("enter", "x", "p")  # nothing to act on: nothing breaks


async def test_hostile_files_on_a_branch_are_warnings_not_tracebacks(tmp_path: Path) -> None:
    team = Team(tmp_path)
    report = team.benches["host-a"] / "reports" / "regression_latest.json"
    report.write_text('{"generated_at": "x", "kernels": [{"name": "\\u001b]2;owned\\u0007[/]bad"')  # torn
    team.publish("host-a")
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(120, 40)) as pilot:
        await fetched(pilot, app)
        assert "warning" in text_of(app, "#fleet-status")
        await pilot.press("w")
        assert isinstance(app.screen, FleetTextScreen)
        await pilot.press("escape")
        assert "\x1b" not in text_of(app, "#fleet-hosts")


@pytest.mark.usefixtures("zh")
async def test_the_footer_speaks_the_users_language_and_keeps_whole_keys_at_80_columns(tmp_path: Path) -> None:
    from ptotui.app.compat.footer import FooterKey

    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    async with app.run_test(size=(80, 24)) as pilot:
        await fetched(pilot, app)
        keys = [str(key.description) for key in app.fleet_screen.query(FooterKey)]
        assert "隐藏主机" in keys and "帮助" in keys  # (Textual's Footer showed the English words)
        assert "Hide host" not in keys


# -- the host columns kept in the settings file -----------------------------------------------


async def test_hidden_order_and_reference_are_kept_for_the_next_session(tmp_path: Path) -> None:
    import tomllib

    from ptotui.model.config import read_config

    team = Team(tmp_path)
    path = tmp_path / "config" / "config.toml"
    settings, warning = read_config(path)
    app = make_fleet_app(team.clone, "origin", NEVER, settings=settings, settings_warning=warning)
    async with app.run_test(size=(120, 40)) as pilot:
        await fetched(pilot, app)
        await pilot.press("right", "right", "p")  # host-b pinned: first
        await pilot.press("right", "greater_than_sign")  # host-a right of host-c
        await pilot.press("left", "x")  # host-c hidden
        assert columns(app)[2:] == ["host-b", "host-a"]
        await until(pilot, lambda: app.saves >= 3)
    assert tomllib.loads(path.read_text())["fleet"] == {
        "order": ["host-c", "host-b", "host-a"],
        "hidden": ["host-c"],
        "reference": "host-b",
    }
    again, warning = read_config(path)
    assert warning is None
    second = make_fleet_app(team.clone, "origin", NEVER, settings=again)
    async with second.run_test(size=(120, 40)) as pilot:
        await fetched(pilot, second)
        assert columns(second)[2:] == ["host-b", "host-a"]
        assert "reference ★ host-b" in text_of(second, "#fleet-status")
        assert "host-c (hidden)" in text_of(second, "#fleet-hosts")
        await pilot.press("a")  # just before q: written on the way out if no worker took it yet
    assert "hidden" not in tomllib.loads(path.read_text())["fleet"]


async def test_saved_names_of_hosts_not_here_are_passed_over_without_a_word(tmp_path: Path) -> None:
    from ptotui.model.config import read_config

    team = Team(tmp_path)
    path = tmp_path / "config.toml"
    path.write_text('[fleet]\norder = ["gone-host", "host-c"]\nhidden = ["gone-host"]\nreference = "also-gone"\n')
    settings, warning = read_config(path)
    assert warning is None
    app = make_fleet_app(team.clone, "origin", NEVER, settings=settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await fetched(pilot, app)
        assert columns(app)[2:] == ["host-c", "host-a", "host-b"]  # the new hosts after the saved one
        assert "warning" not in text_of(app, "#fleet-status") and "reference" not in text_of(app, "#fleet-status")
        assert not app._notifications


async def test_a_malformed_fleet_table_is_one_warning_naming_the_file_never_a_traceback(tmp_path: Path) -> None:
    from ptotui.model.config import read_config

    team = Team(tmp_path)
    path = tmp_path / "config.toml"
    path.write_text('[fleet]\norder = "host-c"\nhidden = [1, 2]\nreference = ["host-b"]\n')
    settings, warning = read_config(path)
    assert warning is not None and str(path) in warning
    app = make_fleet_app(team.clone, "origin", NEVER, settings=settings, settings_warning=warning)
    async with app.run_test(size=(80, 24)) as pilot:
        await fetched(pilot, app)
        assert columns(app)[2:] == ["host-a", "host-b", "host-c"]
        assert "1 warning (w)" in text_of(app, "#fleet-status")
        assert [n.message for n in app._notifications] == [warning]
        await pilot.press("w")
        assert isinstance(app.screen, FleetTextScreen)
        assert str(path) in str(app.screen.query_one(Static).render())
        await pilot.press("escape")
        await pilot.press("right", "x")  # a change is still written over the bad keys
        await until(pilot, lambda: app.saves >= 1)
    again, warning = read_config(path)
    assert again.fleet.hidden == ("host-a",) and warning is None


# -- the header at 80 columns, and every host in full ----------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_header_fits_80_columns_and_i_shows_each_hosts_whole_environment(tmp_path: Path, lang) -> None:
    from rich.cells import cell_len

    from ptotui.app.screens.fleet_detail import FleetHostsScreen
    from ptotui.model import i18n

    team = Team(tmp_path, toolkit_c="8.5.0")
    i18n.set_language(lang)
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await fetched(pilot, app)
            wide = text_of(app, "#fleet-hosts").splitlines()
            assert "warmup 20" in wide[2] or "预热次数 20" in wide[2]  # host-c's whole environment fits
            await pilot.resize_terminal(80, 24)
            await until(pilot, lambda: text_of(app, "#fleet-hosts") != "\n".join(wide))
            lines = text_of(app, "#fleet-hosts").splitlines()
            assert len(lines) == 3 and all(cell_len(line) <= 80 and "…" not in line for line in lines), lines
            assert [line.split()[0] for line in lines] == ["host-a", "host-b", "host-c"]
            assert "8.5.0" in lines[2] and "ascend910b" in lines[2] and "warmup" not in lines[2]
            await pilot.press("i")
            assert isinstance(app.screen, FleetHostsScreen)
            shown = rendered(app.screen.query_one(Static), 80)
            assert ("warmup 20" in shown or "预热次数 20" in shown) and "dav-2201" in shown
            await pilot.press("i")
            assert app.screen is app.fleet_screen
    finally:
        i18n.set_language("en")


async def test_the_kernel_names_stay_when_the_hosts_scroll_sideways_at_80_columns(tmp_path: Path) -> None:
    team = Team(tmp_path, toolkit_c="8.5.0")
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    async with app.run_test(size=(80, 24)) as pilot:
        await fetched(pilot, app)
        await pilot.press("right", "p", "right", "right")  # host-a pinned; onto the last host's column
        await pilot.pause()
        assert table(app).scroll_x > 0
        first = table(app).render_line(1).text  # (line 0: the column labels)
        assert first.split()[0] == STEADY, first


async def test_more_hosts_than_a_third_of_the_screen_are_counted_on_one_line(tmp_path: Path) -> None:
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER, clock=lambda: 1e9)
    async with app.run_test(size=(80, 8)) as pilot:
        await fetched(pilot, app)
        lines = text_of(app, "#fleet-hosts").splitlines()
        assert len(lines) == 2 and lines[0].split()[0] == "host-a"
        assert lines[1] == "+2 more hosts (i: every host)"
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: len(text_of(app, "#fleet-hosts").splitlines()) == 3)


async def test_a_read_while_columns_are_pending_draws_them_first(tmp_path: Path) -> None:
    """The columns a read still has to draw (one a frame) are written before a newer read's,
    from the view as it is then: every cell ends as the view says, none left as it was."""
    team = Team(tmp_path)
    app = make_fleet_app(team.clone, "origin", NEVER)
    async with app.run_test(size=(160, 48)) as pilot:
        await fetched(pilot, app)
        await pilot.press("right", "p")  # host-a pinned: a read of it redraws every column
        screen = app.fleet_screen
        drawn = screen.redraws
        screen._draw_table(moved=["host-a"])
        screen._draw_table(moved=["host-a"])  # before any frame: the first's columns are pending
        await until(pilot, lambda: screen.redraws > drawn + 1)
        for row in screen.view.rows():
            for host in screen.view.shown():
                assert cell(app, row.name, host.name) == screen._cell(row, host).plain
