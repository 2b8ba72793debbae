"""The detail screen at 80×24: its footer keys are whole, the report path keeps its file
name, and ``h`` is offered only when it does something (issue 11: nothing is cut mid-word,
nothing wraps back to column 0; the content itself is tests/app/test_detail_render.py's)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from ptotui.app.render import detail as detail_render
from ptotui.app.render.detail_parts import HISTORY_LINES
from ptotui.app.screens.detail import DetailScreen
from ptotui.app.widgets.footer import StableFooter
from tests.app.test_detail_limits import open_detail, rendered_lines
from tests.helpers import build, until

SMALL = (80, 24)


def _footer_fits(screen: DetailScreen, width: int) -> list[str]:
    keys = list(screen.query_one(StableFooter).query(FooterKey))
    assert keys
    palette = [key for key in keys if key.has_class("-command-palette")]
    others = [key for key in keys if not key.has_class("-command-palette")]
    limit = palette[0].region.x if palette else width
    assert all(key.region.width > 0 for key in keys)
    assert max(key.region.right for key in others) <= limit, [(k.description, k.region) for k in keys]
    assert all(key.region.right <= width for key in keys)
    return [key.description for key in keys]


async def test_the_detail_footer_shows_only_whole_keys_at_80_columns(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: len(screen.query(FooterKey)) > 0)
        await pilot.pause()
        shown = _footer_fits(screen, SMALL[0])
        assert "Back" in shown and "Help" in shown and "Charts" in shown
        await pilot.press("g")  # the charts add "y Log/linear"
        await until(pilot, lambda: "Log/linear" in [k.description for k in screen.query(FooterKey)])
        await pilot.pause()
        shown = _footer_fits(screen, SMALL[0])
        assert "Back" in shown and "Help" in shown


async def test_the_detail_footer_shows_every_key_when_wide(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: len(screen.query(FooterKey)) > 0)
        await pilot.pause()
        shown = _footer_fits(screen, 160)
        assert {"Back", "中文/English", "Full text", "Charts", "Help", "palette"} <= set(shown)


async def test_h_is_offered_only_when_it_changes_the_history(sample_location, monkeypatch):
    app = build(sample_location, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: app.session.history is not None)
        points = len(app.session.history.kernels.get(screen.kernel.name, []))
        assert 0 < points <= HISTORY_LINES
        screen.redraw()
        lines = rendered_lines(app)
        assert any(f"{points} snapshots, then now" in line for line in lines)
        assert not any("h: fewer" in line or "h: all" in line for line in lines)
        assert screen.check_action("toggle_full_history", ()) is False
        monkeypatch.setattr(detail_render, "HISTORY_LINES", points - 1)
        assert screen.check_action("toggle_full_history", ()) is True
        screen.redraw()
        assert any("h: all" in line for line in rendered_lines(app))


async def test_the_report_path_keeps_its_file_name_at_80_columns(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await open_detail(pilot)
        lines = rendered_lines(app)
        at = next(i for i, line in enumerate(lines) if line.startswith("file "))
        assert len(str(sample_location.generated)) > 60  # long enough to need cutting at 80 columns
        assert lines[at].rstrip().endswith("/report.json"), lines[at]
        assert "…/" in lines[at]
