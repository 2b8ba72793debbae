"""Where ptotui leans on Textual's private API, in one place (besides the driver,
ptotui/app/driver.py): when Textual changes, this package is what to read. The command
palette's override is in ``compat/palette.py``, imported when the palette first opens;
Textual's footer key in ``compat/footer.py``, imported with the footer (after the first frame);
the fleet view's table, whose cell updates keep the other cells' renders, in ``compat/table.py``
(its private members are checked by tests/app/test_fleet_table.py)."""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.app import App, ScreenStackError
from textual.geometry import Size
from textual.screen import Screen

__all__ = ["EarlyBreakpoints", "drop_empty_toast_holders", "installed_screens", "redraw_words"]


def drop_empty_toast_holders(app: App) -> None:
    """Textual 8's toast rack takes out a toast whose notification expired before the
    toast's own timer fired, but leaves the ToastHolder around it on the screen for
    good. With a regression toast on every reload (a bench run writing every few tenths
    of a second, a busy loop) that kept some 20 KB a reload; the growth is measured by
    benchmarks/bench_live.py --regressions (reloads that bring a regression). Runs after the rack's
    own update (both are queued with call_later, in this order)."""
    from textual.widgets._toast import Toast, ToastHolder

    try:
        holders = list(app.screen.query(ToastHolder))
    except ScreenStackError:  # no screen: the app is leaving
        return
    for holder in holders:
        if not holder.is_mounted or holder._pruning:
            continue  # not there yet (its toast is being mounted), or on its way out
        if not any(isinstance(child, Toast) and not child._pruning for child in holder.children):
            holder.remove()


def installed_screens(app: App) -> dict[str, Screen | Callable[[], Screen]]:
    """Textual's installed screens by name (``App._installed_screens``, which has no public getter)."""
    return app._installed_screens


def redraw_words(app: App) -> None:
    """The language changed: the help screens built in the old one are dropped (the next ``?``
    builds them anew), and each widget that draws words, then each screen, draws them again:
    those shown and those installed to be shown later (the overview, the detail)."""
    installed = installed_screens(app)
    for name in [n for n in installed if n.startswith("help-")]:
        if all(screen is not installed[name] for screen in app.screen_stack):
            app.uninstall_screen(name)
    for screen in dict.fromkeys([*app.screen_stack, *(s for s in installed.values() if isinstance(s, Screen))]):
        for node in [*screen.walk_children(), screen]:
            redraw = getattr(node, "language_changed", None)
            if redraw is not None:
                redraw()


class EarlyBreakpoints(Screen):
    """A screen whose breakpoint classes (-narrow, -wide) are set before its children mount, so
    they are styled and the first frame laid out with them: Textual sets them only on the
    screen's first Resize, which comes after its first frame and restyled it all."""

    async def _compose(self) -> None:
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
