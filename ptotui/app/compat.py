"""Where ptotui leans on Textual's private API, in one place (besides the driver,
ptotui/app/driver.py): when Textual changes, this is the file to read."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App, ScreenStackError
from textual.screen import Screen


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
