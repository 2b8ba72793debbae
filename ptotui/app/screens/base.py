"""The screens' common base: a Screen with early breakpoints whose failed workers are said."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual import work
from textual.app import App
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from ptotui.app.compat import EarlyBreakpoints
from ptotui.model.control.wording import failure
from ptotui.model.i18n import _
from ptotui.model.text import clean

ResultType = TypeVar("ResultType")


def thread_worker(name: str, group: str, exclusive: bool = False) -> Callable[[Any], Any]:
    """Textual's ``@work`` for a thread worker of ours: named (the name is in the catalogue,
    :func:`warn_if_failed` says it), never ending the app, and described by its name. Without a
    description Textual makes one of ``repr()`` of every argument on the calling thread: the
    comparison with the snapshots takes the ReportSet, and at 10,000 kernels that repr took
    1.4 s of the UI thread on every load (a landed run on screen 1.8 s after its report.json)."""
    return work(thread=True, exclusive=exclusive, group=group, exit_on_error=False, name=name, description=name)


def warn_if_failed(app: App, event: Worker.StateChanged) -> None:
    """A screen's worker that raised says so, naming what failed, instead of vanishing: every
    worker runs with ``exit_on_error=False`` (the app must not die of one). Said through the
    App's one error path: the notice a failed job gives (ptotui.model.control.wording.failure)."""
    worker, error = event.worker, event.worker.error
    if event.state != WorkerState.ERROR or error is None:
        return
    from ptotui.app.messages import Effects

    what = _(worker.name) if worker.name else _("A {group} worker").format(group=worker.group)
    app.post_message(Effects([failure(what, error)]))


class PtoScreen(EarlyBreakpoints, Screen[ResultType]):
    """A screen of ptotui. Its ``self.app`` is Textual's App: what it shows comes in through its
    constructor (a Context), what the user asks for goes up as a message or ``run_action("app.…")``
    (tests/app/test_app_members.py)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A screen's worker failed: said as the app's are (state changes do not bubble)."""
        warn_if_failed(self.app, event)


def page(screen: Screen, text: str) -> None:
    """Suspend the app and pipe ``text`` (cleaned) into $PAGER (default ``less``): no temp file."""
    import os
    import subprocess

    from textual.app import SuspendNotSupported

    pager = os.environ.get("PAGER") or "less"
    data = clean(text).encode("utf-8", "replace")
    try:
        with screen.app.suspend():
            # $PAGER is the user's own command line (e.g. "less -R"), run as git and man run it.
            subprocess.run(pager, shell=True, input=data, check=False)  # noqa: S602 - the user's $PAGER
    except SuspendNotSupported:
        screen.notify(_("the pager needs a terminal"), severity="warning", markup=False)
    except OSError as exc:
        said = _("could not run {pager}: {why}").format(pager=pager, why=clean(exc))
        screen.notify(said, severity="error", markup=False)
