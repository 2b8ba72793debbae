"""The App's side of re-runs (``R``, ``L``): carries out what the re-run controller decides.

The decisions are in :class:`ptotui.model.rerun.controller.RerunController`; this module makes
the queue (its events, posted from its threads, come back as messages), asks the questions,
shows the output, changes the queue, and hands the dashboard's own effects to the App. The App
makes one :class:`Reruns` after the first frame, or at the first ``R``, ``L`` or ``q`` before it
(not on the way to the first rows: tests/cli/test_startup_imports.py); the screens draw from its
controller, which the Context hands them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual.app import App
from textual.signal import Signal

from ptotui.app.messages import RerunEvent
from ptotui.model.rerun.command import Runner
from ptotui.model.rerun.controller import RerunController
from ptotui.model.rerun.effects import Cancel, Changed, Confirm, Enqueue, Exit, KillAll, RerunEffect, Show, StopAll
from ptotui.model.rerun.output import log_dir
from ptotui.model.rerun.process import STOP_TIMES, StopTimes
from ptotui.model.rerun.queue import Event, RerunQueue

if TYPE_CHECKING:
    from ptotui.model.control.controller import Controller
    from ptotui.model.control.effects import Effect


class Reruns:
    """The queue of one app and its controller; :meth:`run` carries out the controller's effects."""

    def __init__(
        self,
        app: App,
        changed: Signal[Event | None],
        run_effects: Callable[[Iterable[Effect]], None],
        dashboard: Controller,
        stop_times: StopTimes = STOP_TIMES,
    ) -> None:
        self.app = app  # Textual's API only: post_message, push_screen, exit
        # Published on the UI thread after each event (None once, when made): the screens that
        # show re-runs redraw.
        self.changed = changed
        self._run_effects = run_effects  # the dashboard's effects: notices, jobs, a reload's
        options, session = dashboard.options, dashboard.session
        runner = Runner.of(options.settings.runner, options.runner)
        queue = RerunQueue(
            log_dir(dashboard.state_file),
            self._from_thread,
            parallel=runner.parallel,
            stop_times=stop_times,
        )  # on the wall clock, not the app's: a run's start is compared with its files' times
        bench = lambda: session.location.bench  # noqa: E731 - where the reports are now
        self.controller = RerunController(queue, runner, options, dashboard.state_file, bench, dashboard.reload)
        self.run(self.controller.opened())

    def _from_thread(self, event: Event) -> None:
        self.app.post_message(RerunEvent(event))

    def run(self, effects: Iterable[RerunEffect]) -> None:
        """Do what the controller decided, in order."""
        queue = self.controller.queue
        for effect in effects:
            if isinstance(effect, Confirm):
                self._confirm(effect)
            elif isinstance(effect, Show):
                from ptotui.app.screens.rerun_output import RerunOutputScreen

                self.app.push_screen(RerunOutputScreen(effect.job, self.changed))
            elif isinstance(effect, Changed):
                self.changed.publish(effect.event)
            elif isinstance(effect, Enqueue):
                for kernel, family, command in effect.runs:
                    job = queue.add(kernel, family, command)
                    if job is not None:  # (not when it was queued meanwhile)
                        self.changed.publish(Event("queued", job))
            elif isinstance(effect, Cancel):
                queue.cancel(effect.job.kernel)
                self.changed.publish(Event("stopping", effect.job))
            elif isinstance(effect, StopAll):
                queue.stop_all()
            elif isinstance(effect, KillAll):
                queue.kill_all(effect.signum)
            elif isinstance(effect, Exit):
                self.app.exit()
            else:
                self._run_effects([effect])

    def _confirm(self, ask: Confirm) -> None:
        from ptotui.app.screens.confirm import ConfirmScreen

        screen = ConfirmScreen(ask.title, ask.question, ask.command, ask.keys, ask.where)
        self.app.push_screen(screen, lambda yes: self.run(ask.answer(bool(yes))))
