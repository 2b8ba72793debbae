"""What ``R``, ``L`` and ``q`` mean for re-runs, without Textual: each returns the effects
(:mod:`ptotui.model.rerun.effects`) that ``ptotui/app/rerun.py`` carries out. It refuses where
re-runs are off, offers to stop a kernel queued or running already, asks before starting and
before quitting while runs are under way, and says how each run ended. It reads the queue and
never changes it: the queue's changes are effects too."""

from __future__ import annotations

import signal
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.bench.benchrun import BenchRun
from ptotui.model.control.effects import Effect, Job, Notice, Severity
from ptotui.model.control.wording import Said
from ptotui.model.i18n import N_, _
from ptotui.model.rerun import words
from ptotui.model.rerun.command import CommandError, RerunCommand, Runner, command_for, spec_of, tree_root
from ptotui.model.rerun.effects import Cancel, Changed, Confirm, Enqueue, Exit, KillAll, RerunEffect, Show, StopAll
from ptotui.model.rerun.output import log_dir
from ptotui.model.rerun.queue import Event, FailedRun, RerunJob, RerunQueue, load_failed, save_failed
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from ptotui.model.options import DashboardOptions


class RerunController:
    """The re-runs of one dashboard: its queue (read here, changed by the adapter) and what each
    key and each of the queue's events means."""

    def __init__(
        self,
        queue: RerunQueue,
        runner: Runner,
        options: DashboardOptions,
        state_file: Path,
        bench: Callable[[], Path],
        reload: Callable[[], list[Effect]],
    ) -> None:
        self.queue = queue
        self.runner = runner
        self.options = options
        self.failed_file = log_dir(state_file) / "failed.json"
        self._bench = bench  # the reports' bench/ directory as it is now: the tree's root is above it
        self._reload = reload  # the dashboard's reload: a run's report.json, or its left-behind run dir, at once
        self.quitting = False

    def opened(self) -> list[RerunEffect]:
        """Made: the failed run directories remembered, or one warning when their file cannot be used."""
        self.queue.failed, unread = load_failed(self.failed_file)
        return [] if unread is None else [_notice(unread, "warning", timeout=15)]

    # -- asking ------------------------------------------------------------------------

    def refusal(self) -> str | None:
        """Why ``R`` starts nothing here, or None."""
        if self.options.read_only:
            return _("Read-only: re-runs are off here (--read-only).")
        if not self.options.runs:
            return _("Re-runs are off here (--no-runs: ptotui serve without --allow-runs).")
        return None

    def request(self, kernels: list[Kernel]) -> list[RerunEffect]:
        """``R`` on these kernels: one question for those not queued or running already; on
        one kernel that is, the offer to stop it."""
        refused = self.refusal()
        if refused is not None:
            return [_notice(refused, "warning")]
        if len(kernels) == 1 and (job := self.queue.job_of(kernels[0].name)) is not None:
            return [self._offer_cancel(job)]
        root = tree_root(self._bench())
        ready: list[tuple[Kernel, RerunCommand]] = []
        problems: list[str] = []
        for kernel in kernels:
            if self.queue.job_of(kernel.name) is not None:
                continue  # queued or running already
            try:
                ready.append((kernel, command_for(self.runner, kernel, root, spec_of(kernel, root))))
            except CommandError as exc:
                problems.append(str(exc))
        effects: list[RerunEffect] = []
        if problems:
            more = len(problems) - 1
            said = problems[0] + (" " + _("(and {n} more without a command)").format(n=more) if more else "")
            effects.append(_notice(said, "warning" if ready else "error"))
        if not ready:
            if not problems:  # every one of them is queued or running already
                effects.append(
                    _notice(_("Those kernels are queued or running already (R on one of them: stop it)."), timeout=5)
                )
            return effects
        first = ready[0][1]
        runs = tuple((kernel.name, kernel.family or "", command) for kernel, command in ready)
        question = words.confirm_text([k.name for k, _c in ready], first.shown())
        keys = _("enter: run · esc: do not")

        def start(yes: bool) -> list[RerunEffect]:
            return [Enqueue(runs)] if yes else []

        return [*effects, Confirm(_("Re-run"), question, first.shown(), keys, start, words.runs_in(str(first.cwd)))]

    def _offer_cancel(self, job: RerunJob) -> Confirm:
        keys = _("enter: stop · esc: keep")

        def stop(yes: bool) -> list[RerunEffect]:
            return [Cancel(job)] if yes else []

        return Confirm(_("Stop re-run"), words.cancel_text(job), job.command.shown(), keys, stop)

    def show_output(self) -> list[RerunEffect]:
        """``L``: the running re-run's output (the first, with several), else the last one's."""
        running = self.queue.running
        job = running[0] if running else self.queue.last
        if job is None:
            return [_notice(_("No re-run yet: R on a kernel starts one."), timeout=5)]
        return [Show(job)]

    # -- what happened -------------------------------------------------------------------

    def happened(self, event: Event) -> list[RerunEffect]:
        """A run started, wrote output, ended, or was dropped from the queue (on the UI thread)."""
        effects: list[RerunEffect] = []
        if event.kind == "finished":
            said, severity = words.notice(event.job)
            if said:
                effects.append(_notice(said, severity, timeout=15 if severity == "error" else 8))  # type: ignore[arg-type]
            if event.job.outcome is not None and not event.job.outcome.ok:
                effects.extend(self._save_failed(list(self.queue.failed)))
            effects.extend(self._reload())
            if self.quitting and not self.queue.active:
                effects.append(Exit())
        return [*effects, Changed(event)]

    def _save_failed(self, failed: list[FailedRun]) -> list[RerunEffect]:
        """Written on a worker, as every file the dashboard keeps (a failure is one notice)."""
        if self.options.read_only:
            return []
        path = self.failed_file

        def write() -> None:
            try:
                save_failed(path, failed)
            except OSError as exc:
                raise Said(_("Failed re-runs not remembered: {why}").format(why=exc)) from None

        return [Job(N_("Saving the failed re-runs"), write, None, "reruns")]

    # -- quitting --------------------------------------------------------------------------

    def quit(self) -> list[RerunEffect]:
        """``q``: quit at once when no run is queued or running; else ask first (confirmed: they
        are stopped, and the app quits once the last has ended). A second ``q`` while they stop
        kills them and quits at once."""
        if not self.queue.active:
            return [Exit()]
        if self.quitting:
            return [KillAll(), Exit()]
        question = words.quit_text(len(self.queue.running), len(self.queue.queued))
        return [Confirm(_("Quit"), question, "", _("enter: stop them and quit · esc: stay"), self._stop_and_quit)]

    def _stop_and_quit(self, yes: bool) -> list[RerunEffect]:
        if not yes:
            return []
        self.quitting = True
        said = _notice(_("Stopping the re-runs, then quitting (q again: at once)."), timeout=20)
        # Those running stay in the queue until they have ended: then happened() quits.
        return [StopAll(), said] if self.queue.running else [StopAll(), said, Exit()]

    def leaving(self) -> list[RerunEffect]:
        """The app is leaving without having asked (a signal, the terminal gone): the queue is
        dropped and every runner gets SIGTERM now. It runs in a session of its own, so the
        terminal's SIGHUP does not reach it, and the app will not be there to escalate."""
        return [StopAll(), KillAll(signal.SIGTERM)]

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


def _notice(text: str, severity: Severity = "information", timeout: float = 10) -> Notice:
    return Notice(text, _("Re-run"), severity, timeout)
