"""One line of ranked parts, fitted to its own width each time it is drawn."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from ptotui.app.render import Part, fit_parts


class FittedLine(Widget):
    """The main screen's header and the overview's hint: the parts are kept, and fitted (render.fit_parts) to the
    width the line has when it is drawn. A width that changes under it (the command
    palette's keys panel docking beside it, a resize) is fitted again without anyone
    having to redraw it; fitting at update time kept the old width until the next one."""

    DEFAULT_CSS = """
    FittedLine {
        height: 1;
    }
    """

    def __init__(self, *, id: str | None = None) -> None:  # noqa: A002 - Textual's own name
        super().__init__(id=id)
        self._parts: list[Part] = []

    def set_parts(self, parts: list[Part]) -> None:
        if parts != self._parts:
            self._parts = parts
            self.refresh()

    def render(self) -> Text:
        return fit_parts(self._parts, self.size.width)
