"""Textual's Footer, without rebuilding its keys when they have not changed."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer


class StableFooter(Footer):
    """A Footer that recomposes only when the keys it shows change.

    Textual's Footer removes and mounts all its key widgets again at every change
    of bindings, focus or screen: four times when a screen opens, each with a
    full layout pass. The keys shown are the same each time, so all but the
    first of those rebuilds is skipped.

    ``eager``: the keys are built with the footer, so they are in the screen's first
    frame. Textual's Footer waits for the screen's first bindings signal, which comes
    after that frame, and then needs a frame of its own.
    """

    def __init__(self, eager: bool = False) -> None:
        super().__init__()
        self._shown: tuple | None = None
        if eager:
            self.set_reactive(Footer._bindings_ready, True)

    def _keys(self) -> tuple:
        return tuple(
            (binding.key, binding.description, binding.action, enabled, tooltip)
            for _, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show
        )

    def compose(self) -> ComposeResult:
        if self._bindings_ready:
            self._shown = self._keys()
        return super().compose()

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and not screen.is_current:
            return  # not on view: its keys are looked at again when its screen comes back
        if self.is_attached and screen is self.screen and self.app.app_focus:
            keys = self._keys()
            if keys == self._shown:  # already shown, or a rebuild with these keys is on its way
                return
            self._shown = keys
        super().bindings_changed(screen)
