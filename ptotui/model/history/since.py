"""Regressions since the previous snapshot, and what the user had seen when ptotui closed.

Both answer "what changed that I have not looked at?" the way ``ptotui diff`` does:
the changes of a kernel are from the state it was last seen in to its state now
(first → now), never just the last step.

What was seen is kept per reports directory in the state directory (next to the
triage file), never in the reports directory: the generators own that one.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from ptotui.model import private
from ptotui.model.bench.columns import RunView
from ptotui.model.bench.record import Run, RunUnreadable, read_run
from ptotui.model.core.diff import Change, diff, direction_of, kernel_changes, reference_stamp, regressed_kernels
from ptotui.model.core.noise import FLOOR_PCT, Noise
from ptotui.model.core.tiers import Thresholds, classify
from ptotui.model.history.snapshots import BARS, History, Point
from ptotui.model.i18n import _, ngettext
from ptotui.model.location import STATE_FILES, Location
from ptotui.model.read import safefile
from ptotui.model.read.loader import load_file
from ptotui.model.text import clean, one_line
from ptotui.model.triage import fingerprint
from ptotui.model.types import NO_ITEMS, Kernel, ReadWarning, ReportSet, Variant, shared_if_empty

SCHEMA = "ptotui.seen/1"
SEEN_MAX_MB = 64  # what was seen of 10,000 kernels is ~2 MB
_FIELDS = ("tier", "klass", "baseline_status", "pto_status", "ratio_median_pct")


@dataclass(frozen=True)
class SinceSnapshot:
    """The current reports against the newest snapshot that differs from them: the one
    answer to "what regressed since the snapshot" that the header, the marks, ``C``,
    ``ptotui summary`` and ``ptotui diff SNAPSHOT TREE`` all give.

    ``snapshot`` is the snapshot as it was judged (its re-measured kernels carry their runs'
    latencies) and ``noise`` the bands the sides were held against: whatever compares a kernel
    with this snapshot again (the table's marks) compares with these two, so it cannot
    disagree with the count."""

    stamp: str | None
    snapshot: ReportSet | None
    changes: tuple[Change, ...]
    noise: Noise | None = None
    committed: bool = False  # the reference is a version committed to git, not a snapshot file

    def reference(self) -> str:
        """The reference in words: ``snapshot 20260314T170132Z`` or ``commit 20260316T062559Z``."""
        said = _("commit {stamp}") if self.committed else _("snapshot {stamp}")
        return said.format(stamp=one_line(clean(self.stamp or "")))

    @property
    def regressions(self) -> int:
        """Regressed kernels, each once: as ``ptotui diff`` counts them."""
        return len(self.regressed)

    @property
    def regressed(self) -> list[str]:
        """The regressed kernels, each once, in the order of the changes."""
        return regressed_kernels(self.changes)


# The kernel as its newest run at or before a stamp gave it (None: no such run, or unreadable).
RunsAt = Callable[[str, str], Kernel | None]


def since_snapshot(
    history: History,
    current: ReportSet,
    ratio_pp: float = 2.0,
    latest_state: ReportSet | None = None,
    noise: Noise | None = None,
    runs_at: RunsAt | None = None,
) -> SinceSnapshot:
    """Compare ``current`` with the newest snapshot whose content differs from it.

    A generator writes ``kernel_state_matrix_latest`` and a timestamped copy of it
    together, so the newest snapshot is often the current state itself: that one says
    nothing, and the one before it is the previous state. "Differs" compares like with
    like: a snapshot with ``latest_state`` (the latest state matrix read on its own),
    because the merged reports also carry the regression summary a snapshot lacks.
    Regressions come first, as in ``diff``.

    A state-matrix snapshot has ratio ranges only, so it cannot tell which side moved. With
    ``runs_at`` each kernel of the snapshot gets the per-shape latencies of its newest bench
    run at or before the snapshot (when that run's statuses are the snapshot's), and a ratio
    change is put down to the side that moved beyond its ``noise`` band, as ``diff`` does.
    """
    for stamp in reversed(history.reference_stamps()):
        snapshot = snapshot_at(history, stamp)
        if latest_state is not None and latest_state.kernels and not diff(snapshot, latest_state, ratio_pp):
            continue  # the current state matrix itself
        judged = against_snapshot(snapshot, stamp, current, ratio_pp, noise, runs_at)
        if judged.changes:
            ordered = sorted(judged.changes, key=lambda c: not c.regression)  # stable: kernel order kept
            return SinceSnapshot(stamp, judged.snapshot, tuple(ordered), noise, stamp in history.committed)
    return SinceSnapshot(None, None, (), noise)


def against_snapshot(
    snapshot: ReportSet,
    stamp: str,
    current: ReportSet,
    ratio_pp: float = 2.0,
    noise: Noise | None = None,
    runs_at: RunsAt | None = None,
) -> SinceSnapshot:
    """``current`` judged against one snapshot, in the kernel order of ``diff``: the
    re-measured kernels of the snapshot get their runs' latencies (``runs_at``), then each
    side's move is held against ``noise``. The dashboard's compare and ``ptotui diff
    SNAPSHOT TREE`` both come here."""
    measured = snapshot
    if runs_at is not None:  # the runs of the kernels measured again only: 10,000 kernels, few moved
        moved = _remeasured(snapshot, current)
        measured = with_runs(snapshot, stamp, runs_at, moved) if moved else snapshot
    return SinceSnapshot(stamp, measured, tuple(diff(measured, current, ratio_pp, noise)), noise)


def measure_since(
    location: Location,
    reports: ReportSet,
    history: History,
    thresholds: Thresholds,
    ratio_pp: float = 2.0,
    min_change: float = FLOOR_PCT,
    runs: RunView | Iterable[Run] | None = None,
    parsed_state: Callable[[Path], ParsedState | None] | None = None,
) -> SinceSnapshot:
    """What regressed since the newest differing snapshot, with every input the dashboard
    uses: the latest state matrix on its own, the runs (the snapshot's latencies, so a ratio's
    move is put down to the side that moved) and the bench tree's noise bands. The app's
    compare and ``ptotui summary`` both call this, so they cannot count differently.

    Without runs (``None`` or empty) the snapshot has ranges only and no band can matter:
    the old ratio rule judges, as ``diff`` does for a side without latencies."""
    if not history.stamps:  # no snapshot to compare with: nothing to read
        return SinceSnapshot(None, None, ())
    state = latest_state(location, thresholds, parsed_state)
    at = runs_at(runs) if runs else None
    noise = None
    if at is not None:
        from ptotui.model.bench.noisedata import bench_noise

        noise = bench_noise(location, reports.kernels, min_change)[0]
    return since_snapshot(history, reports, ratio_pp, state, noise, at)


def _remeasured(snapshot: ReportSet, current: ReportSet) -> set[str]:
    """The kernels whose ratio range or tier is not the snapshot's: the others were not measured
    again since (a move below --ratio-pp still counts when PTO's latency moved beyond its band)."""
    before = snapshot.by_name()
    return {
        k.name
        for k in current.kernels
        if (old := before.get(k.name)) is not None
        and (old.ratio_min_pct, old.ratio_max_pct, old.tier) != (k.ratio_min_pct, k.ratio_max_pct, k.tier)
    }


def with_runs(snapshot: ReportSet, stamp: str, runs_at: RunsAt, only: set[str] | None = None) -> ReportSet:
    """``snapshot`` with each kernel's latencies from its run at ``stamp`` (see since_snapshot);
    with ``only``, those kernels' alone."""
    kernels = []
    for kernel in snapshot.kernels:
        run = runs_at(kernel.name, stamp) if only is None or kernel.name in only else None
        if run is not None and (run.baseline_status, run.pto_status) == (kernel.baseline_status, kernel.pto_status):
            measured = Kernel(kernel.name, klass=kernel.klass, variants=run.variants)
            measured.baseline_status, measured.pto_status = kernel.baseline_status, kernel.pto_status
            classify(measured, {})  # the ratio's median over shapes, not a range's middle; each side's ms
            measured.tier, measured.blocker_layer = kernel.tier, kernel.blocker_layer  # the snapshot's
            kernel = measured
        kernels.append(kernel)
    return ReportSet(source=snapshot.source, generated_at=snapshot.generated_at, kernels=kernels)


def runs_at(runs: RunView | Iterable[Run]) -> RunsAt:
    """Look up a kernel's newest run at or before a stamp among ``runs`` (stamps sort as
    times); its report.json is read when first asked for, then kept while unchanged. A run
    directory whose report cannot be used is passed over for the one before it."""
    view = runs if isinstance(runs, RunView) else RunView.of_runs(runs)

    def at(name: str, stamp: str) -> Kernel | None:
        for path, family, started in view.at_or_before(name, stamp):
            try:
                changed = os.stat(path).st_mtime_ns
            except OSError:
                continue
            made = _run_kernel(path, family, name, started, changed)
            if made is not None:
                return made
        return None

    return at


@lru_cache(maxsize=4096)
def _run_kernel(path: str, family: str, name: str, started: str, changed: int) -> Kernel | None:
    """One run's kernel as the summary's rules make it; ``changed`` keys the cache, which serves
    the live latency of a landed run (each load re-judges against the snapshot's runs and reads
    only the runs that changed; benchmarks/bench_runs.py)."""
    try:
        return read_run(Path(path), family, name, started, keep_shapes=False)[1]
    except (OSError, ValueError, RunUnreadable, safefile.FileRefused):
        return None


def snapshot_at(history: History, stamp: str) -> ReportSet:
    """One snapshot rebuilt from the history's points: the facts ``diff`` compares.

    A snapshot is a state matrix, which says nothing per variant, so nothing is lost.
    """
    kernels = []
    for name, points in history.kernels.items():
        for point in reversed(points):  # oldest first, and the wanted one is usually last
            if point.stamp == stamp:
                kernels.append(_kernel_of_point(name, point))
                break
            if point.stamp < stamp:
                break
    return ReportSet(source=stamp, generated_at=stamp, kernels=kernels)


def _kernel_of_point(name: str, point: Point) -> Kernel:
    kernel = Kernel(name, klass=point.klass, baseline_status=point.baseline_status, pto_status=point.pto_status)
    kernel.tier = point.tier
    kernel.ratio_min_pct, kernel.ratio_max_pct = point.ratio_min_pct, point.ratio_max_pct
    kernel.ratio_median_pct = point.ratio_median_pct
    return kernel


def latest_state(
    location: Location, thresholds: Thresholds, parsed: Callable[[Path], ParsedState | None] | None = None
) -> ReportSet | None:
    """The latest state matrix read on its own (JSON preferred), to compare snapshots with.

    ``parsed``: what the live source parsed of a file (its kernels as the reader built them,
    and its stamp), so that the app does not read and parse a 10,000-kernel state matrix
    again on every load; the file is read when it has no such parse."""
    for name in STATE_FILES:
        path = location.reports / name
        try:
            there = stat.S_ISREG(os.stat(path).st_mode)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:  # not readable now (no permission, a symlink loop): what the live source kept
            there = False
        held = parsed(path) if parsed is not None else None
        if held is not None:
            kernels, generated_at = held
            made = [classify(kernel.copy(), {}, thresholds) for kernel in kernels]  # theirs stay unclassified
            return ReportSet(str(path), generated_at, made, {}, [], [str(path)])
        if there:
            return load_file(path, thresholds)
    return None


ParsedState = tuple[list[Kernel], "str | None"]  # a state matrix's kernels as its reader built them, its stamp


def changes_since(
    seen: Kernel | None, now: Kernel, ratio_pp: float = 2.0, noise: Noise | None = None, seen_at: str | None = None
) -> list[Change]:
    """What changed in one kernel since it was last seen (first → now), judged as ``diff``
    judges it with ``noise`` (the bands of the compare with the snapshot), against the runs at
    or before the state seen (``seen_at``: the stamp of the reports it was seen in)."""
    if seen is None:
        return [Change(now.name, "added", None, now.tier, 0, False)]
    if seen is now:
        return []
    return kernel_changes(seen, now, ratio_pp, noise, upto=reference_stamp(seen, seen_at))


# -- what the user had seen, kept between runs --------------------------------------


def seen_file(state_file: Path) -> Path:
    """Beside the triage file: the same per-user state directory."""
    return state_file.with_name("seen.json")


def state_of(kernel: Kernel) -> dict[str, Any]:
    """The facts ``diff`` compares, and nothing else (10k kernels stay a small file)."""
    out: dict[str, Any] = {field: getattr(kernel, field) for field in _FIELDS}
    out["pto_correct"] = kernel.pto_correct
    return out


class Remembered(Kernel):
    """A kernel as seen.json remembers it: the facts ``diff`` compares (:func:`state_of`), no more."""

    __slots__ = ()


def kernel_of(name: str, state: dict[str, Any]) -> Kernel:
    """A kernel with the remembered facts, enough for ``diff`` to compare with."""
    correct = state.get("pto_correct")
    kernel = Remembered(
        name,
        klass=_text(state.get("klass")),
        baseline_status=_text(state.get("baseline_status")),
        pto_status=_text(state.get("pto_status")),
        variants=[Variant(pto_correct=correct)] if isinstance(correct, bool) else NO_ITEMS,
    )
    kernel.tier = _text(state.get("tier")) or ""
    ratio = state.get("ratio_median_pct")
    kernel.ratio_median_pct = float(ratio) if isinstance(ratio, int | float) and not isinstance(ratio, bool) else None
    return kernel


def _text(value: object) -> str | None:
    """A remembered word, cleaned like report text: the file sits beside the triage file,
    which a team may share, and its words are shown in the changes pane."""
    return clean(value) if isinstance(value, str) else None


def _read_seen(path: Path) -> dict[str, Any] | None:
    """The whole file; None when there is none. Only a regular file of at most
    SEEN_MAX_MB is read (a FIFO there froze the app at start and at exit); raises
    OSError when it is not a regular file, ValueError when it is one that cannot be
    used (over the cap, not a JSON object): save_seen replaces that one."""
    try:
        raw = safefile.read_bytes(path, int(SEEN_MAX_MB * 1024 * 1024))
    except FileNotFoundError:
        return None
    except safefile.FileTooBig as exc:  # a regular file: unusable, not refused
        raise ValueError(exc.message) from None
    data = orjson.loads(raw)  # orjson refuses nesting past 1,024 levels: a ValueError, not a RecursionError
    if not isinstance(data, dict):
        raise ValueError(_("not a JSON object"))
    return data


def load_seen(
    path: Path, key: str, warnings: list[ReadWarning] | None = None, old: str | None = None
) -> dict[str, Kernel] | None:
    """The kernels as last seen in reports directory ``key`` (or, never saved under it, under
    its older key ``old``, which the next :func:`save_seen` moves from); None when never
    saved (or unreadable: then with a warning in ``warnings``)."""
    try:
        data = _read_seen(path)
    except (OSError, ValueError) as exc:
        if warnings is not None:
            said = _("ignored, what was seen starts afresh ({error})").format(error=one_line(clean(exc), 120))
            warnings.append(ReadWarning(str(path), said))
        return None
    if data is None:
        return None
    reports = data.get("reports", {})
    mine = reports.get(key) if isinstance(reports, dict) else None
    if mine is None and old is not None and isinstance(reports, dict):
        mine = reports.get(old)
    if not isinstance(reports, dict) or (mine is not None and not isinstance(mine, dict)):
        if warnings is not None:
            if not isinstance(reports, dict):
                said = _("ignored, what was seen starts afresh (its reports are not a JSON object)")
            else:
                said = _("ignored, what was seen starts afresh (this directory's entry is not a JSON object)")
            warnings.append(ReadWarning(str(path), said))
        return None
    if mine is None:
        return None
    kept = {}
    for name, state in mine.items():
        if isinstance(state, dict):
            name = clean(name)
            kept[name] = kernel_of(name, state)
    if len(kept) < len(mine) and warnings is not None:
        left = len(mine) - len(kept)
        said = ngettext("{n} entry is not an object; ignored", "{n} entries are not objects; ignored", left)
        warnings.append(ReadWarning(str(path), said.format(n=f"{left:,}")))
    return kept


def save_seen(path: Path, key: str, seen: dict[str, Kernel], old: str | None = None) -> None:
    """Write what was seen for ``key``, keeping the other directories' entries (the entry
    under the directory's older key ``old`` is dropped: ``seen`` started from it); atomic.
    Raises OSError, writing nothing, when the file there is not a regular file; one
    that cannot be used (not JSON, over SEEN_MAX_MB) is replaced."""
    try:
        data = _read_seen(path) or {}
    except ValueError:
        data = {}
    if not isinstance(data.get("reports"), dict):
        data = {}
    data["schema"] = SCHEMA
    data.setdefault("reports", {})[key] = {name: state_of(kernel) for name, kernel in seen.items()}
    if old is not None and old != key:
        data["reports"].pop(old, None)
    private.write_atomic(path, orjson.dumps(data))


class Seen:
    """Per kernel, the state the user last saw it in; a kernel's mark is first → now.

    Started from what was saved when ptotui last closed. Without a saved state, the
    first load counts as seen, provisionally: once the newest differing snapshot is
    known, those kernels are compared with it instead, so regressions since the
    previous snapshot are marked on a first run too.
    """

    def __init__(self, saved: dict[str, Kernel] | None, ratio_pp: float = 2.0) -> None:
        self.kernels: dict[str, Kernel] = dict(saved or {})
        self.ratio_pp = ratio_pp
        self._saved = saved is not None
        # What seen.json said of each kernel, until the snapshot is known: a kernel read back
        # may have been replaced by the kernel now (the same facts) before the compare came.
        self._remembered: dict[str, Kernel] = {n: k for n, k in (saved or {}).items() if type(k) is Remembered}
        self._started = False
        self._provisional: set[str] = set()
        self._cache: dict[str, tuple[Kernel | None, Kernel, list[Change]]] = {}
        self.noise: Noise | None = None  # the compare with the snapshot's bands, once it is known
        # The stamp of the reports each kernel was seen in: its bands come from the runs at or before it.
        self.seen_at: dict[str, str | None] = {}

    def start(self, kernels: Sequence[Kernel], at: str | None = None) -> None:
        """The first load with kernels: with nothing saved, everything in it counts as seen
        (for now). A load with none (a directory not written yet) starts nothing, or every
        kernel of the first real load would be marked new."""
        if self._started or not kernels:
            return
        self._started = True
        if not self._saved:
            for kernel in kernels:
                self.kernels[kernel.name] = kernel
                self.seen_at[kernel.name] = at
                self._provisional.add(kernel.name)

    def from_snapshot(self, since: SinceSnapshot) -> None:
        """The compare with the snapshot arrived: from now on a kernel is judged as it judged
        it, with its noise bands, and against its snapshot's kernel wherever that is what the
        user saw. That is every provisionally seen kernel (a first run marks what the snapshot
        says), and every kernel seen.json remembers in the snapshot's state: seen.json keeps
        the facts, not the runs' latencies, and without them a restart would judge by the ratio
        alone and mark other kernels than the header counts."""
        before, self.noise = self.noise, since.noise
        if before is None or since.noise is None or before.floor != since.noise.floor:
            # Judged with bands for the first time (or none, or another floor): judge again. A
            # later compare's bands differ only for kernels whose runs changed, and those are
            # new kernel objects, which the cache (by identity) judges again anyway: at 10,000
            # kernels clearing it on every load re-diffed them all on the UI thread.
            self._cache.clear()
        snapshot = since.snapshot
        if snapshot is None or not (self._provisional or self._remembered):
            return  # nothing to judge against yet, or every kernel moved to the snapshot already
        for kernel in snapshot.kernels:
            name = kernel.name
            said = self._remembered.get(name)
            if name in self._provisional or (said is not None and state_of(said) == state_of(kernel)):
                self.kernels[name] = kernel
                self.seen_at[name] = since.stamp
        self._provisional.clear()
        self._remembered.clear()

    def changes(self, kernel: Kernel) -> list[Change]:
        """The kernel's changes since it was last seen (cached: reloads keep unchanged objects).
        The cache serves the live latency at 10,000 kernels (the marks of every row are asked on
        the UI thread after each load; benchmarks/bench_scale.py, 1% rewritten)."""
        seen = self.kernels.get(kernel.name)
        cached = self._cache.get(kernel.name)
        if cached is not None and cached[0] is seen and cached[1] is kernel:
            return cached[2]
        changes = changes_since(seen, kernel, self.ratio_pp, self.noise, self.seen_at.get(kernel.name))
        if not changes and type(seen) is Remembered and state_of(seen) == state_of(kernel):
            # Remembered as it is now, to the last fact diff compares: the kernel itself stands
            # for what was seen (10,000 kernels read back from seen.json are not kept beside
            # the same 10,000). Not for a kernel seen in this session: diff compares its shapes too.
            self.kernels[kernel.name] = kernel
            self._cache.pop(kernel.name, None)
            return NO_ITEMS
        self._cache[kernel.name] = (seen, kernel, shared_if_empty(changes))
        return changes

    def marks(self, kernels: Sequence[Kernel]) -> dict[str, int]:
        """Kernel → net direction (+1, -1, 0) of its unseen changes; unchanged kernels are absent."""
        marks = {}
        for kernel in kernels:
            if self.kernels.get(kernel.name) is kernel:
                continue
            changes = self.changes(kernel)
            if changes:
                marks[kernel.name] = direction_of(changes)
        return marks

    def see(self, kernel: Kernel, at: str | None = None) -> None:
        self.kernels[kernel.name] = kernel
        self.seen_at[kernel.name] = at
        self._provisional.discard(kernel.name)
        self._remembered.pop(kernel.name, None)

    def see_all(self, kernels: Sequence[Kernel], at: str | None = None) -> None:
        for kernel in kernels:
            self.see(kernel, at)
        self._provisional.clear()
        self._remembered.clear()


def current_mark(kernel: Kernel) -> str:
    """The kernel now, as one more sparkline character: ``×`` blocked, ``·`` no ratio, else a bar."""
    if "blocked" in (kernel.pto_status, kernel.baseline_status):
        return "×"
    if kernel.ratio_median_pct is None:
        return "·"
    level = min(max(kernel.ratio_median_pct, 0.0), 100.0) / 100.0
    return BARS[min(int(level * len(BARS)), len(BARS) - 1)]


_WHY = {
    "tier": "tier",
    "baseline_status": "baseline status",
    "pto_status": "PTO status",
    "class": "class",
    "baseline_reason": "baseline reason",
    "pto_reason": "PTO reason",
    "gap_ids": "gap ids",
}


def triage_why(remembered: dict[str, Any], kernel: Kernel) -> str:
    """What differs between the blocker a triage entry remembers and the kernel now."""
    now = fingerprint(kernel)
    parts = []
    for key, label in _WHY.items():
        if remembered.get(key) != now.get(key):
            if key in ("tier", "baseline_status", "pto_status", "class"):
                parts.append(f"{label} {remembered.get(key) or 'n/a'} → {now.get(key) or 'n/a'}")
            else:
                parts.append(f"{label} changed")
    return "; ".join(parts) or "nothing recorded differs"
