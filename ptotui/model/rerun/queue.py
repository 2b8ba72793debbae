"""The re-run queue: kernels waiting, the runs under way (``parallel`` at once, default one:
one device), and each finished run's outcome.

Thread-safe: the UI adds and cancels; the processes' threads report output and exits, and a
freed slot starts the next kernel from there. Every change is told to ``on_event`` (on
whichever thread made it): the App posts it on as a message.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ptotui.model import private
from ptotui.model.bench.record import stamp_of_time, stamp_seconds
from ptotui.model.i18n import _
from ptotui.model.read.safefile import read_bytes
from ptotui.model.rerun.command import RerunCommand
from ptotui.model.rerun.output import LOG_BYTES, OutputRing, Throttle, open_log, prune_logs
from ptotui.model.rerun.process import STOP_TIMES, RunnerProcess, StopTimes
from ptotui.model.text import clean, one_line

QUEUED, RUNNING, DONE = "queued", "running", "done"
FAILED_KEPT = 200  # failed run directories remembered (failed.json), newest kept
FAILED_FILE_BYTES = 1 << 20  # failed.json holds 200 entries: far less than this


@dataclass(frozen=True)
class Outcome:
    """How a run ended: the exit status, its last stderr line, the run directory it made (if
    any) and whether a report.json came of it. ``ok``: exit 0 with a report.json."""

    code: int
    last_err: str | None
    run_dir: Path | None
    report: bool
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        return self.code == 0 and self.report

    def status(self) -> str:
        """``exit 3``, ``killed by SIGTERM`` or ``no report.json`` (exit 0 without one)."""
        if self.code < 0:
            try:
                name = signal.Signals(-self.code).name
            except ValueError:
                name = str(-self.code)
            return _("killed by {signal}").format(signal=name)
        if self.code == 0 and not self.report:
            return _("no report.json")
        return _("exit {code}").format(code=self.code)


@dataclass(eq=False)
class RerunJob:
    """One kernel's re-run, from queued to done."""

    kernel: str
    family: str
    command: RerunCommand
    state: str = QUEUED
    started_s: float | None = None  # wall clock
    ended_s: float | None = None  # wall clock
    ring: OutputRing = field(default_factory=OutputRing)
    log_path: Path | None = None
    process: RunnerProcess | None = None
    outcome: Outcome | None = None
    error: str | None = None  # could not be started (OSError), said in one line

    @property
    def stopping(self) -> bool:
        return self.process is not None and self.process.stopping


@dataclass(frozen=True)
class Event:
    """``kind``: ``started``, ``output``, ``finished`` (``job.outcome`` or ``job.error`` set) or ``dropped``;
    the UI adds ``queued`` and ``stopping`` for its own redraws."""

    kind: str
    job: RerunJob


@dataclass(frozen=True)
class FailedRun:
    """A run directory a failed re-run left behind: shown as failed, never as running."""

    family: str
    kernel: str
    started: str
    status: str
    last_err: str | None


class RerunQueue:
    """Kernels to re-run, ``parallel`` at a time."""

    def __init__(
        self,
        log_dir: Path | None,
        on_event: Callable[[Event], None],
        parallel: int = 1,
        stop_times: StopTimes = STOP_TIMES,
        clock: Callable[[], float] = time.time,
        log_bytes: int = LOG_BYTES,
    ) -> None:
        self.log_dir = log_dir
        self.log_bytes = log_bytes  # each log's cap: its tail is kept
        self.parallel = max(parallel, 1)
        self.stop_times = stop_times
        self.clock = clock
        self._on_event = on_event
        self._lock = threading.RLock()
        self.jobs: list[RerunJob] = []  # queued and running, in order
        self.last: RerunJob | None = None  # the newest started (what L shows once it is done)
        self.failed: list[FailedRun] = []
        # Each kernel's last re-run when it failed (not when it was stopped): the main table
        # says so until the next re-run of it ends or a newer run of it lands.
        self.failures: dict[str, RerunJob] = {}

    # -- what the UI asks --------------------------------------------------------------

    def job_of(self, kernel: str) -> RerunJob | None:
        with self._lock:
            return next((j for j in self.jobs if j.kernel == kernel), None)

    @property
    def running(self) -> list[RerunJob]:
        with self._lock:
            return [j for j in self.jobs if j.state == RUNNING]

    @property
    def queued(self) -> list[RerunJob]:
        with self._lock:
            return [j for j in self.jobs if j.state == QUEUED]

    @property
    def active(self) -> bool:
        return bool(self.jobs)

    def add(self, kernel: str, family: str, command: RerunCommand) -> RerunJob | None:
        """Queue a kernel (None when it is queued or running already); it starts when a slot is free."""
        with self._lock:
            if self.job_of(kernel) is not None:
                return None
            job = RerunJob(kernel, family, command)
            self.jobs.append(job)
        self._start_next()
        return job

    def cancel(self, kernel: str) -> bool:
        """Drop a queued kernel, or stop a running one (SIGINT, then SIGTERM, SIGKILL)."""
        with self._lock:
            job = self.job_of(kernel)
            if job is None:
                return False
            if job.state == QUEUED:
                self.jobs.remove(job)
                dropped = True
            else:
                dropped = False
        if dropped:
            self._on_event(Event("dropped", job))
        elif job.process is not None:
            job.process.stop()
        return True

    def stop_all(self) -> list[RerunJob]:
        """Drop every queued kernel and stop every running one; the running ones, to wait for."""
        with self._lock:
            queued = [j for j in self.jobs if j.state == QUEUED]
            for job in queued:
                self.jobs.remove(job)
            running = [j for j in self.jobs if j.state == RUNNING]
        for job in running:
            if job.process is not None:
                job.process.stop()
        return running

    def kill_all(self, signum: int = signal.SIGKILL) -> None:
        """``signum`` to every running runner's group, at once: SIGKILL for a second ``q``
        while they stop; SIGTERM when ptotui is leaving without waiting (a signal ended it)."""
        for job in self.running:
            if job.process is not None:
                job.process.kill(signum)

    # -- running -------------------------------------------------------------------------

    def _start_next(self) -> None:
        while True:
            with self._lock:
                if len(self.running) >= self.parallel:
                    return
                job = next((j for j in self.jobs if j.state == QUEUED), None)
                if job is None:
                    return
                job.state = RUNNING
                job.started_s = self.clock()
                self.last = job
            self._start(job)

    def _start(self, job: RerunJob) -> None:
        log = None
        if self.log_dir is not None:
            try:
                prune_logs(self.log_dir, keep=19)  # with this one: the last 20
                stamp = stamp_of_time(job.started_s or 0.0)
                job.log_path, log = open_log(self.log_dir, stamp, job.kernel, self.log_bytes)
            except OSError:
                log = None  # no log file: the output is still on screen
        throttle = Throttle(lambda: self._on_event(Event("output", job)))
        process = RunnerProcess(
            job.command,
            job.ring,
            log,
            throttle.poke,
            lambda code: self._exited(job, code, throttle),
            self.stop_times,
        )
        job.process = process
        try:
            process.start()
        except OSError as exc:
            if log is not None:
                log.close()
            job.error = one_line(clean(f"{job.command.argv[0]}: {exc.strerror or exc}"), 300)
            self._finish(job, Outcome(127, job.error, None, False))
            return
        self._on_event(Event("started", job))

    def _exited(self, job: RerunJob, code: int, throttle: Throttle) -> None:
        throttle.cancel()
        root = job.command.cwd  # the tree's root: where the runner writes bench/results
        run_dir = find_run_dir(root, job.family, job.kernel, job.started_s or 0.0)
        report = has_report(root, job.family, job.kernel, run_dir, job.started_s or 0.0)
        stopping = job.process is not None and job.process.stopping
        self._finish(job, Outcome(code, job.ring.last_err, run_dir, report, cancelled=stopping))

    def _finish(self, job: RerunJob, outcome: Outcome) -> None:
        with self._lock:
            job.outcome = outcome
            job.state = DONE
            job.ended_s = self.clock()
            if outcome.ok or outcome.cancelled:
                self.failures.pop(job.kernel, None)
            else:
                self.failures[job.kernel] = job
            if job in self.jobs:
                self.jobs.remove(job)
            if not outcome.ok and outcome.run_dir is not None and not outcome.report:
                started = outcome.run_dir.name
                self.failed.append(FailedRun(job.family, job.kernel, started, outcome.status(), outcome.last_err))
                del self.failed[:-FAILED_KEPT]
        self._on_event(Event("finished", job))
        self._start_next()

    # -- failed run directories, kept across starts ----------------------------------------

    def failed_of(self, family: str | None, kernel: str) -> list[FailedRun]:
        with self._lock:
            return [f for f in self.failed if f.kernel == kernel and (family is None or f.family == family)]

    def is_failed(self, family: str, kernel: str, started: str) -> bool:
        with self._lock:
            return any(f.family == family and f.kernel == kernel and f.started == started for f in self.failed)


def find_run_dir(root: Path, family: str, kernel: str, started_s: float) -> Path | None:
    """The newest run directory ``results/<family>/<kernel>/<stamp>`` the runner made since
    ``started_s`` (its stamp is taken after it starts; a second's slack for the clock's
    rounding), or None."""
    if not family:
        return None
    directory = root / "bench" / "results" / family / kernel
    since = stamp_of_time(started_s - 1.0)
    try:
        names = [n for n in os.listdir(directory) if stamp_seconds(n) is not None and n >= since]
    except OSError:
        return None
    for name in sorted(names, reverse=True):
        if (directory / name).is_dir():
            return directory / name
    return None


def has_report(root: Path, family: str, kernel: str, run_dir: Path | None, started_s: float) -> bool:
    """A report.json in the new run directory, or one written since ``started_s`` in
    ``generated/<family>/<kernel>/`` (a runner that only writes there)."""
    if run_dir is not None and (run_dir / "report.json").is_file():
        return True
    if not family:
        return False
    try:
        return (root / "bench" / "generated" / family / kernel / "report.json").stat().st_mtime >= started_s - 1.0
    except OSError:
        return False


def load_failed(path: Path) -> tuple[list[FailedRun], str | None]:
    """The failed run directories remembered in ``path``, and the one warning (naming the
    file) when it is there and cannot be used: none are remembered then, and the next failed
    re-run writes it anew. A missing file is no warning (no re-run has failed yet)."""
    try:
        data = json.loads(read_bytes(path, FAILED_FILE_BYTES))
        items = data["failed"] if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise ValueError(_("no list of failed runs in it"))
        return [
            FailedRun(str(i["family"]), str(i["kernel"]), str(i["started"]), str(i["status"]), i.get("last_err"))
            for i in items
            if isinstance(i, dict)
        ][-FAILED_KEPT:], None
    except FileNotFoundError:
        return [], None
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        why = one_line(clean(str(exc) or type(exc).__name__))
        return [], _("Failed re-runs not read from {path}: {why}").format(path=path, why=why)


def save_failed(path: Path, failed: list[FailedRun]) -> None:
    """Write ``failed`` to ``path`` atomically (OSError when it cannot be)."""
    items = [asdict(f) for f in failed[-FAILED_KEPT:]]
    text = json.dumps({"schema": "ptotui.reruns/1", "failed": items}, indent=1) + "\n"
    private.write_atomic(path, text.encode("utf-8"))  # 0600: its commands and reasons name private paths
