"""Snapshot tests of every chart at 160×48 and 80×24, and of the text tables that replace
them when the terminal is too narrow (pytest-textual-snapshot, on the bundled samples)."""

from __future__ import annotations

import pytest

from tests.app.test_snapshots import app, settled, stable_environment  # noqa: F401 - the autouse fixture
from tests.helpers import until

SIZES = [(160, 48), (80, 24)]


def detail_charts(kernel: str, theme: str | None = None):
    async def ready(pilot):
        await settled(pilot)
        if theme:
            pilot.app.theme = theme
        pilot.app.main.open_detail(kernel)
        await pilot.pause()
        await pilot.press("g")
        await until(pilot, lambda: bool(pilot.app.screen.query("HistoryChart")))
        await pilot.pause()

    return ready


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_detail_charts(snap_compare, size):
    """Per-shape latency (three shapes) and the ratio history over three snapshots and now."""
    assert snap_compare(app(), terminal_size=size, run_before=detail_charts("chunked_cross_entropy"))


def test_detail_charts_blocked_light_theme(snap_compare):
    """A blocked baseline marked, not drawn as zero; the threshold lines on the light theme."""
    ready = detail_charts("paged_kv_gather", theme="textual-light")
    assert snap_compare(app(), terminal_size=(160, 48), run_before=ready)


def test_detail_charts_too_narrow_are_tables(snap_compare):
    assert snap_compare(app(), terminal_size=(46, 30), run_before=detail_charts("selective_scan_fwd"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_overview(snap_compare, size):
    """Tiers per family (stacked) and the histogram of median ratios, a bar picked."""

    async def ready(pilot):
        await settled(pilot)
        await pilot.press("G")
        await until(pilot, lambda: bool(pilot.app.screen.query("RatioHistogram")))
        await pilot.press("right", "right")
        await pilot.pause()

    assert snap_compare(app(), terminal_size=size, run_before=ready)
