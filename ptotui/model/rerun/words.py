"""What the UI says about re-runs: the status line, the notices, the confirmation, and the bench
run's ``running`` entries with the re-runs' own taken out.

Pure functions of the queue's state and a "now": unit-tested without a terminal.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import replace

from ptotui.model.bench.benchrun import BenchRun, _elapsed
from ptotui.model.bench.record import stamp_seconds
from ptotui.model.i18n import _, ngettext
from ptotui.model.rerun.queue import RerunJob, RerunQueue
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel


def _name(kernel: str) -> str:
    return one_line(clean(kernel), 60)


def status_parts(running: list[RerunJob], queued: int, now: float) -> list[tuple[str, str, int]]:
    """``re-running <kernel> 1m02s · 2 queued`` as the bench-run line's (text, short, rank)
    pieces; empty when nothing runs or waits."""
    parts: list[tuple[str, str, int]] = []
    for job in running:
        elapsed = _elapsed(max(now - (job.started_s or now), 0.0))
        if job.stopping:
            text = _("stopping {kernel} {elapsed}").format(kernel=_name(job.kernel), elapsed=elapsed)
        else:
            text = _("re-running {kernel} {elapsed}").format(kernel=_name(job.kernel), elapsed=elapsed)
        parts.append((text, text, 0))
    if queued:
        text = ngettext("{n} queued", "{n} queued", queued).format(n=queued)
        parts.append((text, text, 0))
    return parts


def notice(job: RerunJob) -> tuple[str, str]:
    """The notice of a finished run and its severity: ``re-run of <kernel> failed: exit 3 —
    <its last line on stderr>``; a run that was stopped, or that worked, says so."""
    outcome = job.outcome
    name = _name(job.kernel)
    if job.error is not None:
        return _("re-run of {kernel} could not start: {why}").format(kernel=name, why=job.error), "error"
    if outcome is None:
        return "", "information"
    if outcome.ok:
        return _("re-run of {kernel} done: report.json written").format(kernel=name), "information"
    last = one_line(clean(outcome.last_err or ""), 200)
    if outcome.cancelled:
        said = _("re-run of {kernel} stopped ({status})").format(kernel=name, status=outcome.status())
        return said, "warning"
    said = _("re-run of {kernel} failed: {status}").format(kernel=name, status=outcome.status())
    return (f"{said} — {last}" if last else said), "error"


def failed_marks(failures: Mapping[str, RerunJob], kernels: Iterable[Kernel], now: float) -> dict[str, str]:
    """``re-run failed 14:02`` (``03-13 14:02`` on another day) by kernel name, for the kernels
    whose last re-run failed, until a run of the kernel newer than that failure lands (its
    ``from_run`` stamp; a failed re-run's own run directory has no report.json to show)."""
    if not failures:
        return {}
    marks: dict[str, str] = {}
    today = time.localtime(now)[:3]
    for kernel in kernels:
        job = failures.get(kernel.name)
        if job is None or job.ended_s is None:
            continue
        landed = stamp_seconds(kernel.from_run) if kernel.from_run else None
        if landed is not None and landed >= job.ended_s:
            continue  # a run newer than the failure is what the row shows now
        ended = time.localtime(job.ended_s)
        at = time.strftime("%H:%M" if ended[:3] == today else "%m-%d %H:%M", ended)
        marks[kernel.name] = _("re-run failed {time}").format(time=at)
    return marks


def confirm_text(kernels: list[str], command: str, more: int = 0) -> str:
    """The confirmation's question, above the command shown whole (and where it runs: :func:`runs_in`)."""
    if len(kernels) == 1:
        return _("Re-run {kernel}? It runs:").format(kernel=_name(kernels[0]))
    names = ", ".join(_name(k) for k in kernels[:6])
    if len(kernels) > 6:
        names += " " + ngettext("and {n} more", "and {n} more", len(kernels) - 6).format(n=len(kernels) - 6)
    said = ngettext(
        "Re-run {n} kernel ({names})? The first runs:", "Re-run {n} kernels ({names})? The first runs:", len(kernels)
    )
    return said.format(n=len(kernels), names=names)


def runs_in(cwd: str) -> str:
    """Under the command in the confirmation: the directory the runner runs in."""
    return _("in {directory}").format(directory=one_line(clean(cwd), 300))


def cancel_text(job: RerunJob) -> str:
    name = _name(job.kernel)
    if job.state == "queued":
        return _("{kernel} is queued for a re-run. Drop it from the queue?").format(kernel=name)
    return _("{kernel} is being re-run. Stop it (SIGINT, then SIGTERM after 10 s, SIGKILL after 20 s)?").format(
        kernel=name
    )


def quit_text(running: int, queued: int) -> str:
    runs = ngettext("{n} re-run is running", "{n} re-runs are running", running).format(n=running)
    waits = ngettext("{n} is queued", "{n} are queued", queued).format(n=queued)
    shown = runs if not queued else f"{runs}, {waits}" if running else waits
    ask = ngettext("{runs}. Stop it and quit?", "{runs}. Stop them and quit?", running + queued)
    return ask.format(runs=shown)


def without_reruns(bench: BenchRun | None, queue: RerunQueue | None) -> BenchRun | None:
    """The bench run without the run directories of the re-runs: one running now is said by
    the re-run line (not twice), and one a failed re-run left behind is failed, not running
    or stalled."""
    if bench is None or queue is None or not bench.running:
        return bench
    ours = {(j.family, j.kernel) for j in queue.running}
    kept = tuple(
        run
        for run in bench.running
        if (run.family, run.kernel) not in ours and not queue.is_failed(run.family, run.kernel, run.started)
    )
    return bench if len(kept) == len(bench.running) else replace(bench, running=kept)
