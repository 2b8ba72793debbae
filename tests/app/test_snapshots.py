"""A few snapshot tests of the main views (pytest-textual-snapshot)."""

from __future__ import annotations

import time

import pytest

from ptotui.model.location import Location
from tests.conftest import ROOT, SAMPLES
from tests.helpers import build, hide_blocker_pane, loaded, until


async def settled(pilot):
    """Rows loaded, history read and compared, start-up toast gone: a screen that is the same every run."""
    await loaded(pilot, 15)
    await until(pilot, lambda: pilot.app.session.history is not None and pilot.app.session.since is not None)
    await pilot.pause()
    pilot.app.clear_notifications()
    await pilot.pause()


@pytest.fixture(autouse=True)
def stable_environment(monkeypatch):
    monkeypatch.chdir(ROOT)  # paths show relative to the working directory
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def app():
    return build(Location(SAMPLES / "reports", SAMPLES))


def test_main_screen(snap_compare):
    async def ready(pilot):
        await settled(pilot)

    assert snap_compare(app(), terminal_size=(120, 36), run_before=ready)


def test_main_screen_80x24(snap_compare):
    async def ready(pilot):
        await settled(pilot)

    assert snap_compare(app(), terminal_size=(80, 24), run_before=ready)


def test_blocker_pane_80x24(snap_compare):
    async def ready(pilot):
        await settled(pilot)
        await pilot.press("b", "down", "down")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(80, 24), run_before=ready)


def test_detail_screen(snap_compare):
    async def ready(pilot):
        await settled(pilot)
        pilot.app.main.open_detail("paged_kv_gather")
        await until(pilot, lambda: getattr(pilot.app.screen, "report", None) is not None)  # read off the UI thread
        await pilot.pause()

    assert snap_compare(app(), terminal_size=(120, 40), run_before=ready)


# The table at the sizes people run it in (invented data: the reference reports are not
# copied into the project, so the same sizes are checked on them in test_table_layout).
SIZES = [(80, 24, True), (100, 30, True), (120, 40, True), (160, 48, True), (160, 48, False), (200, 60, True)]


@pytest.mark.parametrize(
    ("width", "height", "pane"), SIZES, ids=[f"{w}x{h}{'' if p else '-nopane'}" for w, h, p in SIZES]
)
def test_table_at_size(snap_compare, width, height, pane):
    async def ready(pilot):
        await settled(pilot)
        if not pane:
            await hide_blocker_pane(pilot)
            await pilot.pause()

    assert snap_compare(app(), terminal_size=(width, height), run_before=ready)
