"""A Static that renders its Rich content once per width, not once per layout pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.style import Style as RichStyle
from textual.strip import Strip
from textual.visual import RichVisual
from textual.widgets import Static

if TYPE_CHECKING:
    from textual.css.styles import RulesMap
    from textual.style import Style
    from textual.visual import RenderOptions


class _CachedRichVisual(RichVisual):
    """Textual renders a Rich renderable once to measure its height and again to draw it,
    at every layout pass (a screen opening makes several). With tables in it that is
    most of the cost of a key: here each width and style is rendered once."""

    def __init__(self, widget: Static, renderable: RenderableType) -> None:
        super().__init__(widget, renderable)
        self._strips: dict[tuple[int, RichStyle], list[Strip]] = {}

    def _rendered(self, width: int, style: Style, options: RenderOptions | None) -> list[Strip]:
        key = (width, style.rich_style)
        strips = self._strips.get(key)
        if strips is None:
            if len(self._strips) > 8:
                self._strips.clear()
            strips = self._strips[key] = super().render_strips(width, None, style, options)  # type: ignore[arg-type]
        return strips

    def get_height(self, rules: RulesMap, width: int) -> int:
        return len(self._rendered(width, self._widget.visual_style, None))

    def render_strips(self, width: int, height: int | None, style: Style, options: RenderOptions) -> list[Strip]:
        strips = self._rendered(width, style, options)
        return strips if height is None else strips[:height]


class RenderedStatic(Static):
    """A Static for one large Rich renderable (tables, long texts) that changes rarely."""

    def show(self, renderable: RenderableType) -> None:
        self.marks = {}  # drawn anew: the search marks again what it finds in it
        self.update(_CachedRichVisual(self, renderable))

    # The search's marks (``/`` on the detail and the code diff, ptotui/app/widgets/search.py):
    # content line -> (first cell, end cell, the current match); drawn over the rendered lines.
    marks: dict[int, list[tuple[int, int, bool]]] = {}

    def plain_lines(self) -> list[str]:
        """The content's lines as drawn, without the marks: what the search looks in."""
        return [Static.render_line(self, y).text for y in range(self.size.height)]

    def set_marks(self, marks: dict[int, list[tuple[int, int, bool]]]) -> None:
        if marks or self.marks:
            self.marks = marks
            self.refresh()

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        for start, end, current in self.marks.get(y, ()):
            style = _CURRENT if current else _MATCH
            strip = Strip.join([strip.crop(0, start), strip.crop(start, end).apply_style(style), strip.crop(end)])
        return strip


_MATCH = RichStyle(color="black", bgcolor="yellow")  # every match
_CURRENT = RichStyle(reverse=True, bold=True, underline=True)  # the one jumped to: told apart without colour too
