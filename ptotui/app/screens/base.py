"""The screens' common base: a Screen whose ``app`` is typed as ours."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events, getters, work
from textual.app import App
from textual.geometry import Size
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line

if TYPE_CHECKING:
    from ptotui.app.app import PtoTuiApp

ResultType = TypeVar("ResultType")


def thread_worker(name: str, group: str, exclusive: bool = False) -> Callable[[Any], Any]:
    """Textual's ``@work`` for a thread worker of ours: named (the name is in the catalogue,
    :func:`warn_if_failed` says it), never ending the app, and described by its name. Without a
    description Textual makes one of ``repr()`` of every argument on the calling thread: the
    comparison with the snapshots takes the ReportSet, and at 10,000 kernels that repr took
    1.4 s of the UI thread on every load (a landed run on screen 1.8 s after its report.json)."""
    return work(thread=True, exclusive=exclusive, group=group, exit_on_error=False, name=name, description=name)


def warn_if_failed(app: App, event: Worker.StateChanged) -> None:
    """A worker that raised says so, naming what failed, instead of vanishing: every worker
    runs with ``exit_on_error=False`` (the app must not die of one), and without this the
    error went nowhere. The app's and the screens' workers both come here."""
    if event.state != WorkerState.ERROR:
        return
    worker = event.worker
    what = _(worker.name) if worker.name else _("A {group} worker").format(group=worker.group)
    error = worker.error
    detail = one_line(clean(f"{type(error).__name__}: {error}"), 300)
    said = _("{what} failed: {detail}").format(what=what, detail=detail)
    app.notify(said, title=_("Error"), severity="warning", markup=False, timeout=10)


class PtoScreen(Screen[ResultType]):
    """A screen of ptotui: ``self.app`` is a PtoTuiApp, so its state is typed."""

    if TYPE_CHECKING:  # as Textual types its own ``app``; a runtime import would be circular
        app = getters.app(PtoTuiApp)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A screen's worker failed: said as the app's are (state changes do not bubble)."""
        warn_if_failed(self.app, event)

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
