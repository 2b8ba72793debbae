"""``NO_COLOR``: no colour reaches the terminal, and every signal is still told by a glyph,
bold or reverse (issue 40 item 13: ``blocked`` and ``▼`` were grey 237 on 235)."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from textual.geometry import Region
from textual.widget import Widget

from ptotui.model.location import Location
from tests.helpers import build, loaded, rewrite_kernels, scale_side, until

NO_COLOUR = (None, "default")


def _segments(widget: Widget) -> list[Segment]:
    """What ``widget`` sends to the terminal, the app's filters applied (as the compositor has it)."""
    region = Region(0, 0, widget.size.width, widget.size.height)
    return [segment for strip in widget.render_lines(region) for segment in strip]


def _colour(segment: Segment) -> str | None:
    style = segment.style
    if style is None:
        return None
    for colour in (style.color, style.bgcolor):
        if colour is not None and colour.name not in NO_COLOUR:
            return f"{segment.text!r}: {colour.name}"
    return None


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_no_color_keeps_every_signal_by_glyph_bold_or_reverse(
    sample_location: Location, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int]
) -> None:
    rewrite_kernels(sample_location.reports, {"layernorm_gated": scale_side("pto", 3.0)})  # one regression
    monkeypatch.setenv("NO_COLOR", "1")
    app = build(sample_location)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None and app.session.since.regressions == 1)
        await pilot.pause()
        screen = app.main
        segments = [s for widget in screen.query("*") if widget.display and widget.size.area for s in _segments(widget)]
        assert not [c for c in map(_colour, segments) if c], "a colour under NO_COLOR"

        def styled(text: str) -> list[Segment]:
            found = [s for s in segments if s.style is not None and s.text.strip() == text.strip()]
            assert found, f"{text!r} not on screen"
            return found

        assert all(s.style and s.style.bold for s in styled("blocked"))
        for mark in ("▼", "▲", "●"):
            assert all(s.style and s.style.bold for s in styled(mark)), mark
        for badge in (" HIGH ", " BBLK ", " PBLK ", " BOTH "):
            assert all(s.style and s.style.reverse for s in styled(badge)), badge
        assert all(s.style and s.style.bold for s in styled("1 regression since snapshot 20261115T080000Z"))
        # The cursor's row: reverse, as a coloured bar would be lost.
        table = screen.query_one("KernelTable")
        cursor_row = table.cursor_row - int(table.scroll_y) + 1  # under the header
        row = table.render_lines(Region(0, cursor_row, table.size.width, 1))[0]
        assert all(s.style and s.style.reverse for s in row if s.text.strip())
