"""The bench run as it happens: what runs now, and each finished kernel's new state at once.

The summary generators run only after the whole bench run, so for the hour a run takes the
summary says nothing new. The run directories do (:mod:`ptotui.model.bench.runs`):

- a run directory newer than the summary without ``report.json`` is a kernel running now; one
  that never gets its report.json (the runner died) is *stalled* after a time derived from that
  kernel's past runs;
- a kernel whose newest run started after the summary was written is shown as that run gives
  it, by the summary's own rules (statuses, per-shape ratios from per-shape medians matched by
  shape, correctness), marked with the run's stamp (``Kernel.from_run``); class, scalar hot path
  and gaps stay from the last state matrix. Once the summary is rewritten it is newer than the
  run, and it wins.

Nothing here looks at a clock: the UI gives :meth:`Running.elapsed` its own "now".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ptotui.model.bench.columns import RunLog, RunView
from ptotui.model.bench.record import Pending, Run, stamp_seconds
from ptotui.model.core.tiers import Thresholds, classify
from ptotui.model.i18n import _, ngettext
from ptotui.model.text import clean, one_line
from ptotui.model.types import Gap, Kernel

NO_HISTORY_STALL_S = 3600.0
# With no usable file time, a run took until the next run's start only when that came this soon:
# a longer pause is the end of that bench run, not a kernel taking hours.
SESSION_GAP_S = 7200.0  # a kernel with no past run: stalled after an hour without report.json
RUN_FIELDS = (
    "baseline_status",
    "pto_status",
    "baseline_reason",
    "pto_reason",
    "limitations",
    "variants",
)


@dataclass(frozen=True)
class Running:
    """A run directory of the current bench run without its report.json yet."""

    kernel: str
    family: str
    started: str
    started_s: float
    last_runs_s: tuple[float, ...]  # what its previous runs took, oldest first (at most 3)
    stall_after_s: float
    path: str

    def elapsed(self, now: float) -> float:
        return max(now - self.started_s, 0.0)

    def stalled(self, now: float) -> bool:
        return self.elapsed(now) > self.stall_after_s


@dataclass(frozen=True)
class BenchRun:
    """Where the current bench run is: what runs, how many kernels it re-measured so far."""

    running: tuple[Running, ...]
    remeasured: int  # kernels of the table whose newest run is newer than the summary
    total: int
    since: str | None  # the stamp of the first run newer than the summary
    summary_at: str | None
    # Every run, oldest first: the runs reader's live view (the history behind each kernel's
    # newest run fills in after the first load with the runs).
    runs: RunView = field(default_factory=lambda: RunView.of_runs(()), repr=False, compare=False)
    newest: str | None = None  # the stamp of the last run newer than the summary
    no_summary: bool = False  # there is no summary yet: every kernel is its newest run's
    # The runs this read found that the reader's read before it had not: none on the first read
    # (every run is new then), so what landed since the dashboard started, kernel by kernel.
    landed: tuple[Run, ...] = field(default=(), repr=False, compare=False)

    def under_way(self, now: float) -> bool:
        """Whether a bench run is going on: a kernel runs, or the last run newer than the summary
        started at most :data:`SESSION_GAP_S` before ``now``. Measured from the runs' own stamps:
        a run of months ago (a fallback to an older summary) is never under way."""
        if self.running:
            return True
        newest = stamp_seconds(self.newest) if self.newest else None
        return newest is not None and now - newest <= SESSION_GAP_S

    def runs_of(self, kernel: str) -> list[Run]:
        """The kernel's runs, oldest first."""
        return self.runs.of(kernel)

    @property
    def active(self) -> bool:
        return bool(self.running) or self.remeasured > 0


def durations(runs: list[Run], ordered: RunView | None = None) -> dict[str, float]:
    """What each of ``runs`` took, by path: until its report.json was written, and never past
    the next run directory's start among ``ordered`` (every run; default ``runs``): the
    runner works one kernel at a time, and a fresh checkout gives every file the checkout's
    time, so the next start is then the only bound. A run that took longer than
    :data:`SESSION_GAP_S` by these bounds is left out: that is a pause after it (the end of
    a bench run), not what it took."""
    if ordered is None:
        ordered = RunView.of_runs(runs)
    out: dict[str, float] = {}
    for run in runs:
        start = stamp_seconds(run.started)
        if start is None:
            continue
        bounds = []
        finished = stamp_seconds(run.finished) if run.finished else None
        if finished is not None and finished >= start:
            bounds.append(finished - start)
        after = ordered.next_start(run.started)
        following = stamp_seconds(after) if after is not None else None
        if following is not None:
            bounds.append(following - start)
        if bounds and min(bounds) <= SESSION_GAP_S:  # longer: a pause after it, not what it took
            out[run.path] = min(bounds)
    return out


def unlikely_finishes(ordered: RunView) -> set[str]:
    """The paths of the runs whose ``finished`` (their report.json's modification time) cannot
    be when they ended: a time later than the next run directory's start (the runner works one
    kernel at a time) or earlier than its own, and a time several runs share when one of them is
    such a time or when every run has it. A fresh checkout gives every file the checkout's time:
    that is then every run's "finished", the last run's too, and none of them is its end."""
    out: set[str] = set()
    sharing: dict[str, list[str]] = {}
    count = 0
    for run in ordered:
        count += 1
        if run.finished is None:
            continue
        sharing.setdefault(run.finished, []).append(run.path)
        start, finished = stamp_seconds(run.started), stamp_seconds(run.finished)
        after = ordered.next_start(run.started)
        following = stamp_seconds(after) if after is not None else None
        if finished is None or start is None:
            continue
        if finished < start or (following is not None and finished > following):
            out.add(run.path)
    for paths in sharing.values():
        if len(paths) > 1 and (len(paths) == count or not out.isdisjoint(paths)):
            out.update(paths)
    return out


def stall_after(last_runs_s: tuple[float, ...]) -> float:
    """Twice the longest past run, and at least ten minutes past it."""
    if not last_runs_s:
        return NO_HISTORY_STALL_S
    longest = max(last_runs_s)
    return max(2 * longest, longest + 600.0)


def _newer(stamp: str, summary_at: str | None) -> bool:
    return summary_at is None or stamp > summary_at


def newer_than_summary(run: Run, summary_at: str | None) -> bool:
    """Whether the summary stamped ``summary_at`` does not hold ``run`` yet: the run started
    after it, and its report.json was not written before it. A run directory stamped in the
    future (``20991231T000000Z``: a host clock set wrong) whose report.json predates the summary
    is in that summary; compared with the summary's own stamp, never with a clock."""
    if summary_at is None:
        return True
    return run.started > summary_at and (run.finished is None or run.finished > summary_at)


def summary_stamp(text: str | None) -> str | None:
    """The summary's ``generated_at`` as a comparable stamp (None when it is not one)."""
    return text if text and stamp_seconds(text) is not None else None


def apply_runs(
    kernels: list[Kernel],
    generated_at: str | None,
    log: RunLog,
    kernel_of: Callable[[Run], Kernel | None],
    gaps: dict[str, Gap],
    thresholds: Thresholds = Thresholds(),
    history: RunView | None = None,
) -> tuple[list[Kernel], BenchRun]:
    """``kernels`` with each one whose newest run is newer than the summary as that run gives it.

    ``kernel_of``: the kernel a run's report.json gives (the runs reader's :meth:`kernel_of`).
    Kernels not re-measured are the very objects given. A summary with no usable stamp is
    taken as older than every run only when there is no summary at all (no kernels).
    ``history``: the runs the BenchRun hands on (default ``log.runs``): the reader's live view.
    """
    history = log.runs if history is None else history
    summary_at = summary_stamp(generated_at)
    if summary_at is None and kernels:
        return kernels, _landed(BenchRun((), 0, len(kernels), None, generated_at, history), log)
    if not kernels:
        out, bench = _from_runs(log, kernel_of, gaps, thresholds, history)
        return out, _landed(bench, log)
    newest = log.runs.newest(after=summary_at)  # only those newer than the summary change a row
    out = []
    remeasured = 0
    since: str | None = None
    last: str | None = None
    for kernel in kernels:
        run = newest.get(kernel.name)
        if run is None or not newer_than_summary(run, summary_at):
            out.append(kernel)
            continue
        made = kernel_of(run)
        if made is None:
            out.append(kernel)
            continue
        remeasured += 1
        since = run.started if since is None or run.started < since else since
        last = run.started if last is None or run.started > last else last
        twin = kernel.copy()
        for name in RUN_FIELDS:
            setattr(twin, name, getattr(made, name))
        twin.from_run = run.started
        out.append(classify(twin, gaps, thresholds))
    running = _running(log, summary_at)
    return out, _landed(BenchRun(running, remeasured, len(kernels), since, generated_at, history, newest=last), log)


def _landed(bench: BenchRun, log: RunLog) -> BenchRun:
    """``bench`` with the runs this read found new (none from the first read: every run is)."""
    if log.landed and log.landed is not log.runs:
        return replace(bench, landed=tuple(log.landed))
    return bench


def _from_runs(
    log: RunLog,
    kernel_of: Callable[[Run], Kernel | None],
    gaps: dict[str, Gap],
    thresholds: Thresholds,
    history: RunView,
) -> tuple[list[Kernel], BenchRun]:
    """No summary yet (a new bench host before the generators ran): each kernel as its newest
    run gives it, by the generator's rules, marked with the run's stamp; by name."""
    out = []
    for _name, run in sorted(log.runs.newest().items()):
        made = kernel_of(run)
        if made is None:
            continue
        twin = made.copy()
        twin.from_run = run.started
        out.append(classify(twin, gaps, thresholds))
    stamps = [k.from_run for k in out if k.from_run]
    since, last = (min(stamps), max(stamps)) if stamps else (None, None)
    running = _running(log, None)
    bench = BenchRun(running, len(out), len(out), since, None, history, newest=last, no_summary=True)
    return out, bench


def _running(log: RunLog, summary_at: str | None) -> tuple[Running, ...]:
    current = [p for p in _latest_pending(log.pending) if _newer(p.started, summary_at)]
    if not current:
        return ()
    by_kernel: dict[tuple[str | None, str], list[Run]] = {}
    for name in {p.kernel for p in current}:
        for run in log.runs.of(name):
            by_kernel.setdefault((run.family, run.kernel), []).append(run)
    # What the pending kernels' last runs took: bounded by the next start of any run.
    took = durations([r for runs in by_kernel.values() for r in runs[-3:]], log.runs)
    newest_started: dict[tuple[str | None, str], str] = {key: runs[-1].started for key, runs in by_kernel.items()}
    out = []
    for pending in current:
        key = (pending.family, pending.kernel)
        start = stamp_seconds(pending.started)
        if start is None or not _newer(pending.started, summary_at):
            continue
        if newest_started.get(key, "") > pending.started:
            continue  # a later run of the kernel finished: this one was left behind
        past = tuple(took[r.path] for r in by_kernel.get(key, [])[-3:] if r.path in took)
        out.append(
            Running(pending.kernel, pending.family, pending.started, start, past, stall_after(past), pending.path)
        )
    return tuple(out)


def _latest_pending(pending: list[Pending]) -> list[Pending]:
    latest: dict[tuple[str, str], Pending] = {}
    for item in pending:  # oldest first
        latest[(item.family, item.kernel)] = item
    return sorted(latest.values(), key=lambda p: p.started)


def _minutes(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"


def _elapsed(seconds: float) -> str:
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def last_runs_text(running: Running) -> str:
    """``last runs 10–11 min``, ``last run 40 s``, or ``no earlier run``."""
    past = running.last_runs_s
    if not past:
        return _("no earlier run")
    low, high = _minutes(min(past)), _minutes(max(past))
    if low == high:
        span = low
    elif low.endswith(" min") and high.endswith(" min"):
        span = f"{low[:-4]}–{high}"
    else:
        span = f"{low}–{high}"
    return ngettext("last run {span}", "last runs {span}", len(past)).format(span=span)


def status_parts(bench: BenchRun | None, now: float) -> list[tuple[str, str, int]]:
    """The pieces of the status line as (text, shorter text, rank): rank 0 is kept longest on a
    narrow screen. Empty when no bench run is under way (nothing running, nothing newer than
    the summary)."""
    if bench is None or not bench.active:
        return []
    parts = []
    for run in bench.running:
        name = one_line(clean(run.kernel), 60)  # a directory name: untrusted
        elapsed = _elapsed(run.elapsed(now))
        if run.stalled(now):
            short = _("stalled {kernel}: no report.json after {elapsed}").format(kernel=name, elapsed=elapsed)
            why = _("{last}; the runner may have stopped").format(last=last_runs_text(run))
            parts.append((f"{short} ({why})", short, 0))
        else:
            short = _("running {kernel} {elapsed}").format(kernel=name, elapsed=elapsed)
            parts.append((f"{short} ({last_runs_text(run)})", short, 0))
    if bench.remeasured:
        parts.append(_remeasured_part(bench, now))
    return [(("" if i == 0 else " · ") + t, ("" if i == 0 else " · ") + s, r) for i, (t, s, r) in enumerate(parts)]


def _day(stamp: str) -> str:
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]}"


def _remeasured_part(bench: BenchRun, now: float) -> tuple[str, str, int]:
    """``23 of 50 re-measured since 03:10`` while a bench run is under way (with the date when
    its runs are not all of one day); once none is, the days of the runs newer than the summary:
    ``50 of 50 from runs newer than the summary, 2026-03-12 to 2026-03-21``."""
    n, total = bench.remeasured, bench.total
    since, newest = bench.since, bench.newest or bench.since
    if bench.no_summary:
        return _from_runs_part(bench, now)
    if since is None or newest is None:
        text = _("{n} of {total} re-measured").format(n=n, total=total)
        return text, _("{n}/{total} re-measured").format(n=n, total=total), 1
    if not bench.under_way(now):
        first, last = _day(since), _day(newest)
        days = first if first == last else _("{first} to {last}").format(first=first, last=last)
        text = _("{n} of {total} from runs newer than the summary, {days}").format(n=n, total=total, days=days)
        return text, _("{n}/{total} from newer runs").format(n=n, total=total), 1
    at = f"{since[9:11]}:{since[11:13]}"
    if _day(since) != _day(newest):
        at = f"{_day(since)} {at}"
    text = _("{n} of {total} re-measured since {at}").format(n=n, total=total, at=at)
    return text, _("{n}/{total} re-measured").format(n=n, total=total), 1


def _from_runs_part(bench: BenchRun, now: float) -> tuple[str, str, int]:
    """``12 kernels from their runs (no summary yet) since 03:10``; once no bench run is under
    way, with the days of the runs instead of the time."""
    n, since, newest = bench.remeasured, bench.since, bench.newest or bench.since
    said = ngettext(
        "{n} kernel from its run (no summary yet)", "{n} kernels from their runs (no summary yet)", n
    ).format(n=n)
    short = _("{n} from runs").format(n=n)
    if since is None or newest is None:
        return said, short, 1
    if not bench.under_way(now):
        first, last = _day(since), _day(newest)
        days = first if first == last else _("{first} to {last}").format(first=first, last=last)
        return _("{what}, {days}").format(what=said, days=days), short, 1
    at = f"{since[9:11]}:{since[11:13]}"
    if _day(since) != _day(newest):
        at = f"{_day(since)} {at}"
    return _("{what} since {at}").format(what=said, at=at), short, 1


BARS = "▁▂▃▄▅▆▇█"


def latency_spark(values: list[float | None]) -> str:
    """One bar per run, scaled from the lowest to the highest latency (``·``: that side did not run)."""
    known = [v for v in values if v is not None]
    if not known:
        return "·" * len(values)
    low, high = min(known), max(known)
    span = high - low
    out = []
    for value in values:
        if value is None:
            out.append("·")
        else:
            level = 0.0 if span <= 0 else (value - low) / span
            out.append(BARS[min(int(level * len(BARS)), len(BARS) - 1)])
    return "".join(out)
