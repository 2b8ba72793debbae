"""The App's side of re-runs (``R``, ``L``): asks, starts, tells, and stops them on quit.

The decisions are in :mod:`ptotui.model.rerun`; this module turns the queue's events (posted
from its threads) into notices, redraws and screens. The App makes one :class:`Reruns` after
the first frame, or at the first ``R``, ``L`` or ``q`` before it (not on the way to the first
rows: tests/cli/test_startup_imports.py), and the Context hands it to the screens that show
re-runs (the main screen's status line, the detail's runs).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from textual.signal import Signal

from ptotui.app.messages import RerunEvent
from ptotui.model.bench.benchrun import BenchRun
from ptotui.model.control.effects import Job as EffectJob
from ptotui.model.control.wording import Said
from ptotui.model.i18n import N_, _
from ptotui.model.rerun import words
from ptotui.model.rerun.command import Command, CommandError, Runner, command_for, spec_of, tree_root
from ptotui.model.rerun.output import log_dir
from ptotui.model.rerun.process import STOP_TIMES, StopTimes
from ptotui.model.rerun.queue import Event, FailedRun, Job, RerunQueue, load_failed, save_failed
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from ptotui.app.app import PtoTuiApp


class Reruns:
    """The queue of one app, and what its screens draw from it."""

    def __init__(self, app: PtoTuiApp, changed: Signal[Event | None], stop_times: StopTimes = STOP_TIMES) -> None:
        self.app = app
        self.options = options = app.controller.options
        self.runner = Runner.of(options.settings.runner, options.runner)
        self.state_file = app.controller.state_file
        self.queue = RerunQueue(
            log_dir(self.state_file),
            self._from_thread,
            parallel=self.runner.parallel,
            stop_times=stop_times,
        )  # on the wall clock, not the app's: a run's start is compared with its files' times
        self.queue.failed, unread = load_failed(self._failed_file)
        if unread is not None:
            self._notify(unread, "warning", timeout=15)
        # Published on the UI thread after each event (None once, when made): the screens that
        # show re-runs redraw.
        self.changed = changed
        self.quitting = False

    @property
    def _failed_file(self) -> Path:
        return log_dir(self.state_file) / "failed.json"

    def _from_thread(self, event: Event) -> None:
        self.app.post_message(RerunEvent(event))

    # -- asking ------------------------------------------------------------------------

    def refusal(self) -> str | None:
        """Why ``R`` starts nothing here, or None."""
        options = self.options
        if options.read_only:
            return _("Read-only: re-runs are off here (--read-only).")
        if not options.runs:
            return _("Re-runs are off here (--no-runs: ptotui serve without --allow-runs).")
        return None

    def request(self, kernels: list[Kernel]) -> None:
        refused = self.refusal()
        if refused is not None:
            self._notify(refused, "warning")
            return
        if len(kernels) == 1 and self.queue.job_of(kernels[0].name) is not None:
            self._offer_cancel(self.queue.job_of(kernels[0].name))
            return
        root = tree_root(self.app.session.location.bench)
        ready: list[tuple[Kernel, Command]] = []
        problems: list[str] = []
        for kernel in kernels:
            if self.queue.job_of(kernel.name) is not None:
                continue  # queued or running already
            try:
                ready.append((kernel, command_for(self.runner, kernel, root, spec_of(kernel, root))))
            except CommandError as exc:
                problems.append(str(exc))
        if problems:
            more = len(problems) - 1
            said = problems[0] + (" " + _("(and {n} more without a command)").format(n=more) if more else "")
            self._notify(said, "warning" if ready else "error")
        if not ready:
            if not problems:  # every one of them is queued or running already
                self._notify(_("Those kernels are queued or running already (R on one of them: stop it)."), timeout=5)
            return
        question = words.confirm_text([k.name for k, _c in ready], ready[0][1].shown())

        def run(yes: bool | None) -> None:
            if not yes:
                return
            for kernel, command in ready:
                job = self.queue.add(kernel.name, kernel.family or "", command)
                if job is not None:
                    self.changed.publish(Event("queued", job))

        where = words.runs_in(str(ready[0][1].cwd))
        self._confirm(_("Re-run"), question, ready[0][1].shown(), _("enter: run · esc: do not"), run, where)

    def _offer_cancel(self, job: Job | None) -> None:
        if job is None:
            return

        def cancel(yes: bool | None) -> None:
            if yes:
                self.queue.cancel(job.kernel)
                self.changed.publish(Event("stopping", job))

        self._confirm(
            _("Stop re-run"), words.cancel_text(job), job.command.shown(), _("enter: stop · esc: keep"), cancel
        )

    def _confirm(
        self,
        title: str,
        question: str,
        command: str,
        keys: str,
        done: Callable[[bool | None], None],
        where: str = "",
    ) -> None:
        from ptotui.app.screens.confirm import ConfirmScreen

        self.app.push_screen(ConfirmScreen(title, question, command, keys, where), done)

    def _notify(self, text: str, severity: str = "information", timeout: float = 10) -> None:
        self.app.notify(text, title=_("Re-run"), severity=severity, markup=False, timeout=timeout)  # type: ignore[arg-type]

    # -- what happened -------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        """On the UI thread: a run started, wrote output, ended, or was dropped from the queue."""
        if event.kind == "finished":
            said, severity = words.notice(event.job)
            if said:
                self._notify(said, severity, timeout=15 if severity == "error" else 8)
            if event.job.outcome is not None and not event.job.outcome.ok:
                self._save_failed(list(self.queue.failed))
            self.app.run_effects(self.app.controller.reload())  # its report.json, or its left-behind run dir, at once
            if self.quitting and not self.queue.active:
                self.app.exit()
        self.changed.publish(event)

    def _save_failed(self, failed: list[FailedRun]) -> None:
        """Written on a worker, as every file the dashboard keeps (a failure is one notice)."""
        if self.options.read_only:
            return
        path = self._failed_file

        def write() -> None:
            try:
                save_failed(path, failed)
            except OSError as exc:
                raise Said(_("Failed re-runs not remembered: {why}").format(why=exc)) from None

        self.app.run_effects([EffectJob(N_("Saving the failed re-runs"), write, None, "reruns")])

    # -- what the screens draw --------------------------------------------------------------

    def bench(self, bench: BenchRun | None) -> BenchRun | None:
        """The bench run without the re-runs' own run directories (ptotui.model.rerun.words)."""
        return words.without_reruns(bench, self.queue)

    def status_parts(self) -> list[tuple[str, str, int]]:
        return words.status_parts(self.queue.running, len(self.queue.queued), self.queue.clock())

    def failed_marks(self, kernels: list[Kernel]) -> dict[str, str]:
        """``re-run failed 14:02`` by kernel name, for the rows whose last re-run failed."""
        return words.failed_marks(self.queue.failures, kernels, self.queue.clock())

    def failed_of(self, kernel: Kernel) -> list[FailedRun]:
        return self.queue.failed_of(kernel.family, kernel.name)

    def show_output(self) -> None:
        """``L``: the running re-run's output (the first, with several), else the last one's."""
        running = self.queue.running
        job = running[0] if running else self.queue.last
        if job is None:
            self._notify(_("No re-run yet: R on a kernel starts one."), timeout=5)
            return
        from ptotui.app.screens.rerun_output import RerunOutputScreen

        self.app.push_screen(RerunOutputScreen(job, self.changed))

    # -- quitting --------------------------------------------------------------------------

    def ask_before_quit(self) -> bool:
        """True when quitting waits: runs are queued or running, so the user is asked first
        (confirmed: they are stopped, and the app quits once the last has ended). A second
        ``q`` while they stop quits at once."""
        if not self.queue.active:
            return False
        if self.quitting:
            self.queue.kill_all()
            return False

        def stop(yes: bool | None) -> None:
            if yes:
                self.quitting = True
                self.queue.stop_all()
                self._notify(_("Stopping the re-runs, then quitting (q again: at once)."), timeout=20)
                if not self.queue.active:
                    self.app.exit()

        question = words.quit_text(len(self.queue.running), len(self.queue.queued))
        self._confirm(_("Quit"), question, "", _("enter: stop them and quit · esc: stay"), stop)
        return True

    def stop_all(self) -> None:
        """The app is leaving without having asked (a signal, the terminal gone): the queue is
        dropped and every runner gets SIGTERM now. It runs in a session of its own, so the
        terminal's SIGHUP does not reach it, and the app will not be there to escalate."""
        self.queue.stop_all()
        self.queue.kill_all(signal.SIGTERM)
