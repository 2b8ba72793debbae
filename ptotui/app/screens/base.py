"""The screens' common base: a Screen whose ``app`` is typed as ours."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import events, getters
from textual.screen import Screen

if TYPE_CHECKING:
    from ptotui.app.app import PtoTuiApp

ResultType = TypeVar("ResultType")


class PtoScreen(Screen[ResultType]):
    """A screen of ptotui: ``self.app`` is a PtoTuiApp, so its state is typed."""

    if TYPE_CHECKING:  # as Textual types its own ``app``; a runtime import would be circular
        app = getters.app(PtoTuiApp)

    async def _on_resize(self, event: events.Resize) -> None:
        """A screen's first layout sends it a Resize to the size it was just laid out
        at, and Textual lays it out and draws it again, with every screen beneath it.
        That pass changes nothing, unless the screen's classes follow its size
        (breakpoints): only a size the screen is not laid out at goes on to Textual."""
        if event.size == self._compositor.size and not self._breakpoints():
            event.prevent_default()  # Textual calls Screen._on_resize after this one otherwise

    def _breakpoints(self) -> bool:
        app = self.app
        horizontal = app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None else self.HORIZONTAL_BREAKPOINTS
        vertical = app.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is None else self.VERTICAL_BREAKPOINTS
        return bool(horizontal or vertical)
