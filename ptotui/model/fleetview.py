"""What the fleet view decides, without a terminal: which host columns show and in what order,
which host is the reference, which hosts are stale, where hosts disagree, what a cell compares,
what the header says about the fetch.

The app (``ptotui/app/screens/fleet.py``) only draws what these give it.

- **Columns.** The hosts in the order the user left them (new hosts at the end, by name); a host
  can be hidden; one host can be pinned as the reference: its column comes first and every other
  host's cell is compared with it. The choice is kept in the settings file's ``[fleet]``
  (:class:`SettingsKeeper`) and read back at the next start.
- **Stale.** A host is stale when it has not published for longer than :data:`STALE_FACTOR` times
  its usual interval, the median gap between its last :data:`PUBLISH_GAPS` + 1 publishes, and at
  least :data:`STALE_FLOOR_S`. With fewer than three publishes there is no usual interval yet: the
  host is never called stale.
- **Comparisons.** Ratios (baseline / PTO, measured on one host at one moment) compare across
  hosts; PTO milliseconds only between hosts of one environment (:mod:`ptotui.model.core.environment`):
  for a host of another environment than the reference the cell says so instead of a difference.
- **Disagreement.** A kernel is marked where the shown hosts differ in tier or in a status.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.config import MAX_FLEET_HOSTS, FleetSettings
from ptotui.model.fleet import Cell, Fleet, Host, Row, disagree
from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line

if TYPE_CHECKING:
    from ptotui.model.bench.record import Run
    from ptotui.model.changes.points import ChangePoint

STALE_FACTOR = 3.0
STALE_FLOOR_S = 15 * 60
PUBLISH_GAPS = 10


def usual_interval(publishes: Sequence[int]) -> float | None:
    """The median gap between the host's newest publishes (newest first); None with fewer
    than three publishes."""
    times = sorted(publishes[: PUBLISH_GAPS + 1], reverse=True)
    if len(times) < 3:
        return None
    return float(statistics.median(a - b for a, b in zip(times, times[1:], strict=False)))


def stale_after(host: Host) -> float | None:
    """Seconds of silence after which the host is stale (None: it cannot be told yet)."""
    usual = usual_interval(host.publishes)
    return None if usual is None else max(STALE_FACTOR * usual, STALE_FLOOR_S)


def is_stale(host: Host, now: float) -> bool:
    limit = stale_after(host)
    return limit is not None and now - host.published_at > limit


def age(seconds: float) -> str:
    """``45s``, ``12m``, ``3h``, ``4d``."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


@dataclass
class Columns:
    """The host columns: their order, the hidden ones, the reference (pinned, shown first).

    Every host known is remembered, present or not (those the settings file names, one whose
    branch went away): a host that is not in the fleet now is passed over, and has its place,
    its hidden column or its pin again when it comes back."""

    order: list[str] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)
    pinned: str | None = None
    present: set[str] = field(default_factory=set)

    @classmethod
    def from_settings(cls, saved: FleetSettings) -> Columns:
        """The columns as the settings file's ``[fleet]`` left them (no host present yet)."""
        hidden = set(saved.hidden) - {saved.reference}  # the reference is shown
        return cls(list(saved.order), hidden, saved.reference)

    def settings(self) -> FleetSettings:
        """What ``[fleet]`` keeps: the order unless it is by name (the default: a host added later
        takes its place by name), the hidden hosts in that order, the pin; at most
        :data:`MAX_FLEET_HOSTS` names each, the absent ones left out first (the last first)."""
        order = list(self.order)
        excess = len(order) - MAX_FLEET_HOSTS
        if excess > 0:
            absent = [index for index, name in enumerate(order) if name not in self.present]
            dropped = set(absent[-excess:])
            order = [name for index, name in enumerate(order) if index not in dropped]
        hidden = [name for name in order if name in self.hidden]
        hidden += sorted(self.hidden - set(order))
        return FleetSettings(
            () if order == sorted(order) else tuple(order), tuple(hidden[:MAX_FLEET_HOSTS]), self.pinned
        )

    @property
    def reference(self) -> str | None:
        """The pinned host, while it is in the fleet."""
        return self.pinned if self.pinned in self.present else None

    def follow(self, names: Iterable[str]) -> None:
        """The hosts now in the fleet: the known ones keep their place, new ones come last
        (by name). Hosts hidden all (as a settings file can leave them): the first shows."""
        present = list(names)
        self.present = set(present)
        known = set(self.order)
        self.order += sorted({name for name in present if name not in known})
        if present and not self.visible():
            self.hidden.discard(next(name for name in self.order if name in self.present))

    def visible(self) -> list[str]:
        reference = self.reference
        shown = [name for name in self.order if name in self.present and name not in self.hidden and name != reference]
        return ([reference] if reference is not None else []) + shown

    def hide(self, name: str) -> bool:
        """Hide a host's column; never the last one shown. A hidden reference is unpinned."""
        if name not in self.present or name in self.hidden or len(self.visible()) <= 1:
            return False
        self.hidden.add(name)
        if self.pinned == name:
            self.pinned = None
        return True

    def show_all(self) -> bool:
        """Every host of the fleet shown again (an absent host stays as it was)."""
        had = bool(self.hidden & self.present)
        self.hidden -= self.present
        return had

    def move(self, name: str, step: int) -> bool:
        """Move a shown column one place left (-1) or right (+1) among the shown ones; the
        reference stays first."""
        shown = self.visible()
        if name not in shown or name == self.reference:
            return False
        at = shown.index(name)
        to = at + step
        if to < 0 or to >= len(shown) or shown[to] == self.reference:
            return False
        other = shown[to]
        i, j = self.order.index(name), self.order.index(other)
        self.order[i], self.order[j] = self.order[j], self.order[i]
        return True

    def pin(self, name: str) -> bool:
        """Make ``name`` the reference (again on the reference: no reference). True: now pinned."""
        if self.pinned == name:
            self.pinned = None
            return False
        self.pinned = name
        self.hidden.discard(name)
        return True


@dataclass(frozen=True)
class Compared:
    """A cell held against the reference host's cell of the same kernel."""

    ratio_pp: float | None  # percentage points, this host minus the reference
    ms_pct: float | None  # PTO ms, percent of the reference's; None when not comparable
    other_environment: bool  # the hosts ran in different environments: ms not compared
    differs: bool  # tier or a status differs from the reference


def compare(cell: Cell, reference: Cell | None, same_environment: bool) -> Compared | None:
    if reference is None:
        return None
    ratio = None
    if cell.ratio_median_pct is not None and reference.ratio_median_pct is not None:
        ratio = cell.ratio_median_pct - reference.ratio_median_pct
    ms = None
    if same_environment and cell.pto_ms is not None and reference.pto_ms:
        ms = (cell.pto_ms / reference.pto_ms - 1.0) * 100.0
    differs = disagree([cell, reference])
    return Compared(ratio, ms, not same_environment, differs)


@dataclass
class FetchState:
    """The fetches: when one last worked, and the last failure (when it was after that)."""

    ok_at: float | None = None
    failed_at: float | None = None
    reason: str | None = None

    def record(self, reason: str | None, at: float) -> None:
        if reason is None:
            self.ok_at, self.failed_at, self.reason = at, None, None
        else:
            self.failed_at, self.reason = at, reason

    def words(self, local: bool = True) -> str | None:
        """``fetch failed 14:05 (reason)``, one line; None when the last fetch worked."""
        if self.failed_at is None:
            return None
        clock = time.localtime(self.failed_at) if local else time.gmtime(self.failed_at)
        reason = " ".join((self.reason or "").split())[:160]
        return _("fetch failed {time} ({reason})").format(time=time.strftime("%H:%M", clock), reason=reason)


@dataclass
class FleetView:
    """The fleet as the view shows it: the newest reading, the columns, the fetches."""

    fleet: Fleet | None = None
    columns: Columns = field(default_factory=Columns)
    fetches: FetchState = field(default_factory=FetchState)
    problem: str | None = None  # why nothing can be shown (no host branch): one line
    settings_warning: str | None = None  # what was wrong with the settings file (one line, naming it)

    def take(self, fleet: Fleet, problem: str | None = None) -> None:
        self.fleet = fleet
        self.problem = problem
        self.columns.follow(host.name for host in fleet.hosts)

    @property
    def hosts(self) -> dict[str, Host]:
        return {host.name: host for host in self.fleet.hosts} if self.fleet is not None else {}

    def shown(self) -> list[Host]:
        hosts = self.hosts
        return [hosts[name] for name in self.columns.visible() if name in hosts]

    def reference(self) -> Host | None:
        return self.hosts.get(self.columns.reference or "")

    def same_environment(self, host: Host, other: Host) -> bool:
        return host.group == other.group

    def ms_comparable(self, host: Host) -> bool:
        """Whether the host's PTO ms can be read against the others shown: the reference's
        environment when one is pinned, else the environment most hosts share."""
        reference = self.reference()
        if reference is not None:
            return self.same_environment(host, reference)
        return host.group == 0

    def rows(self) -> list[Row]:
        return list(self.fleet.rows) if self.fleet is not None else []

    def disagrees(self, row: Row) -> bool:
        """The shown hosts that have the kernel differ in tier or a status."""
        return disagree([row.cells[name] for name in self.columns.visible() if name in row.cells])

    def compared(self, row: Row, host: Host) -> Compared | None:
        reference = self.reference()
        if reference is None or reference.name == host.name or host.name not in row.cells:
            return None
        return compare(row.cells[host.name], row.cells.get(reference.name), self.same_environment(host, reference))

    def environments_note(self) -> str | None:
        """One line when PTO ms of some shown hosts are not compared: which, and against what."""
        shown = self.shown()
        reference = self.reference()
        others = [host.name for host in shown if not self.ms_comparable(host)]
        if not others:
            return None
        if reference is not None:
            said = _("PTO ms of {hosts}: another environment than {reference}, not compared (ratios are)")
            return said.format(hosts=", ".join(others), reference=reference.name)
        main = ", ".join(host.name for host in shown if host.group == 0) or _("the others")
        said = _("≠env: another environment than {hosts}; ratios compare across hosts, its PTO ms do not")
        return said.format(hosts=main)


class SettingsKeeper:
    """The host columns kept in the settings file's ``[fleet]``: a change is staged on the UI
    thread and written off it (the newest staged wins, one write at a time), or at exit when a
    write has not taken it yet. Without a settings file (tests, embedding) nothing is written."""

    def __init__(self, path: Path | None, saved: FleetSettings) -> None:
        self.path = path
        self.written = saved  # what the file holds, as far as this process knows
        self._staged: FleetSettings | None = None
        self._staging = threading.Lock()  # held for a swap only: the UI thread never waits on a write
        self._writing = threading.Lock()

    def stage(self, settings: FleetSettings) -> bool:
        """True when :meth:`write` has something to do (then call it off the UI thread)."""
        if self.path is None:
            return False
        with self._staging:
            self._staged = settings
        return True

    def write(self) -> None:
        """Write what is staged, unless the file holds it already. OSError, ValueError (a file
        ptotui cannot update, left as it is): the next change tries again."""
        with self._writing:
            with self._staging:
                staged, self._staged = self._staged, None
            if staged is None or staged == self.written or self.path is None:
                return
            from ptotui.model.configsave import save_fleet

            save_fleet(self.path, staged)
            self.written = staged


# -- a kernel on every host, for the detail ----------------------------------------------------

RUNS_SHOWN = 8  # the newest runs of each host listed in the detail


@dataclass
class HostKernel:
    """One kernel on one host, for the detail: its cell, its runs (oldest first), its change
    points (for good, and pending), what could not be read."""

    host: Host
    cell: Cell | None
    runs: list[Run] = field(default_factory=list)
    changes: list[ChangePoint] = field(default_factory=list)
    pending: list[ChangePoint] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def kernel_runs(root: Path, kernel: str, warnings: list[str]) -> list[Run]:
    """The kernel's runs in a host's tree written out (``bench/results/<family>/<kernel>/<stamp>``)."""
    from ptotui.model.bench.record import RunUnreadable, read_run, stamp_seconds

    runs: list[Run] = []
    results = root / "bench" / "results"
    try:
        families = sorted(entry.name for entry in results.iterdir() if entry.is_dir())
    except OSError:
        return runs
    for family in families:
        kernel_dir = results / family / kernel
        if not kernel_dir.is_dir():
            continue
        for stamp in sorted(entry.name for entry in kernel_dir.iterdir() if entry.is_dir()):
            if stamp_seconds(stamp) is None:
                continue
            report = kernel_dir / stamp / "report.json"
            if not report.is_file():
                continue
            try:
                run, _made = read_run(str(report), family, kernel, stamp, keep_shapes=False)
            except (OSError, RunUnreadable) as exc:
                warnings.append(f"{family}/{kernel}/{stamp}: {one_line(clean(exc), 200)}")
                continue
            runs.append(run)
    runs.sort(key=lambda run: run.started)
    return runs


def kernel_on_hosts(hosts: Iterable[Host], kernel: str) -> list[HostKernel]:
    """The kernel on each host (in the order given): its cell, runs and change points, read from
    each host's tree written out. Reads files: off the UI thread."""
    from ptotui.model.changes.points import collect

    out = []
    for host in hosts:
        item = HostKernel(host, host.cells.get(kernel))
        if host.root is not None:
            item.runs = kernel_runs(Path(host.root), kernel, item.warnings)
            every = collect(item.runs, kernel)
            item.changes = [c for c in every if not c.pending]
            item.pending = [c for c in every if c.pending]
        out.append(item)
    return out
