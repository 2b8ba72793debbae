"""The screens' common base: a Screen whose ``app`` is typed as ours."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual import events, getters
from textual.geometry import Size
from textual.screen import Screen

if TYPE_CHECKING:
    from ptotui.app.app import PtoTuiApp

ResultType = TypeVar("ResultType")


class PtoScreen(Screen[ResultType]):
    """A screen of ptotui: ``self.app`` is a PtoTuiApp, so its state is typed."""

    if TYPE_CHECKING:  # as Textual types its own ``app``; a runtime import would be circular
        app = getters.app(PtoTuiApp)

    async def _compose(self) -> None:
        # The breakpoint classes (-narrow, -wide) before the children mount, so they are
        # styled and the first frame laid out with them: Textual sets them only on the
        # screen's first Resize, which comes after its first frame and restyled it all.
        self._set_breakpoint_classes(self.app.size)
        await super()._compose()

    async def _on_resize(self, event: events.Resize) -> None:
        """A screen's first layout sends it a Resize to the size it was just laid out
        at, and Textual lays it out and draws it again, with every screen beneath it.
        That pass changes nothing when the screen's breakpoint classes are already the
        ones for that size: only a new size, or new classes, go on to Textual."""
        classes = self._breakpoint_classes(event.size)
        if event.size == self._compositor.size and all(self.has_class(name) == on for name, on in classes.items()):
            event.prevent_default()  # Textual calls Screen._on_resize after this one otherwise

    def _breakpoints(self) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        app = self.app
        horizontal = app.HORIZONTAL_BREAKPOINTS if self.HORIZONTAL_BREAKPOINTS is None else self.HORIZONTAL_BREAKPOINTS
        vertical = app.VERTICAL_BREAKPOINTS if self.VERTICAL_BREAKPOINTS is None else self.VERTICAL_BREAKPOINTS
        return list(horizontal or []), list(vertical or [])

    def _breakpoint_classes(self, size: Size) -> dict[str, bool]:
        """Each breakpoint class and whether Textual would set it at ``size``."""
        horizontal, vertical = self._breakpoints()
        on = self._get_breakpoint_classes(size.width, horizontal) | self._get_breakpoint_classes(size.height, vertical)
        return {name: name in on for _, name in horizontal + vertical}

    def _set_breakpoint_classes(self, size: Size) -> None:
        classes = self._breakpoint_classes(size)
        if classes:
            self.update_classes(classes, animate=False)
