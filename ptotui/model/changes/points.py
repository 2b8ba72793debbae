"""When a kernel's speed changed for good: change points over its runs, per side and shape.

A kernel's series is, per side, its runs where that side is ok, in start order, each run's
value the median over shapes of the per-shape medians (the run log's ``baseline_ms`` /
``pto_ms``, as ``ptotui runs`` lists them); a shape's series is that shape's own median in
the runs where the shape's side is ok. :mod:`.edivisive` finds the change points. Each is
described by the run before and the run after it (stamps and run directories), the medians
of the two segments it separates (from the change point before it to the one after), the
change in percent of their means (what the t-test compares, and what Otava reports), the
test's p-value and the runs on each side.

A point needs :data:`MIN_AFTER` runs on its newer side to be a change point *for good*: the
newest one with fewer is *pending* (a possible step: a blip of one run or a step that has
only begun), and one with fewer before the next point is a blip, dropped (the points around
it tested again). A shape's points carry its label (:mod:`ptotui.model.core.shapes`); a
variant with no shape is the kernel's series, and a kernel of one shape has no shape series.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ptotui.model.bench.record import Run, RunUnreadable, read_run, stamp_seconds
from ptotui.model.changes import artifacts as artifacts_of
from ptotui.model.changes.edivisive import MAX_PVALUE, WINDOW, Split, change_points, merge
from ptotui.model.core import shapes as shape_labels
from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.core.tiers import median
from ptotui.model.i18n import N_, _
from ptotui.model.read import safefile
from ptotui.model.text import clean
from ptotui.model.types import Kernel, ReadWarning

SCHEMA = "ptotui.changes/1"
MIN_AFTER = 3  # runs on a point's newer side for it to be a change point for good
SIDES = ("pto", "baseline")
CAUSES = {
    ("pto", True): N_("PTO slower"),
    ("pto", False): N_("PTO faster"),
    ("baseline", True): N_("baseline slower"),
    ("baseline", False): N_("baseline faster"),
}


@dataclass(frozen=True, slots=True)
class Settings:
    """What counts as a change point: the t-test's largest p, the window, the least change."""

    max_pvalue: float = MAX_PVALUE
    window: int = WINDOW
    min_change_pct: float = FLOOR_PCT


@dataclass(frozen=True, slots=True)
class ChangePoint:
    """One change point of one kernel's side (``shape`` None: the kernel's series).

    ``before``/``after``: the stamps of the last run before it and the first run after it;
    ``before_dir``/``after_dir``: their run directories. ``artifacts``: the code files that
    differ between them, once :func:`with_artifacts` has compared them (None before).
    ``label``: the shape's (:mod:`ptotui.model.core.shapes`); ``pending``: fewer than
    :data:`MIN_AFTER` runs after it yet, the newest point of its series."""

    kernel: str
    family: str | None
    side: str
    shape: str | None
    before: str
    after: str
    before_ms: float
    after_ms: float
    change_pct: float
    pvalue: float
    runs_before: int
    runs_after: int
    before_dir: str
    after_dir: str
    artifacts: tuple[artifacts_of.Artifact, ...] | None = None
    label: str | None = None
    pending: bool = False
    # What differs between where the runs either side of it ran: (field, before, after). A step
    # there is put down to the environment (a toolkit upgrade), not to the code.
    environment: tuple[tuple[str, str, str], ...] = ()

    @property
    def slower(self) -> bool:
        return self.after_ms > self.before_ms

    def cause(self) -> str:
        """In words, translated: PTO slower, PTO faster, baseline slower, baseline faster; or
        the environment's change (``environment: toolkit 8.5.0 → 9.0.0``)."""
        if self.environment:
            from ptotui.model.core.environment import describe

            return _("environment: {what}").format(what=describe(list(self.environment)))
        return _(CAUSES[(self.side, self.slower)])

    def as_dict(self) -> dict[str, Any]:
        """The ``ptotui.changes/1`` fields (the same in every language)."""
        return {
            "kernel": self.kernel,
            "family": self.family,
            "side": self.side,
            "shape": self.shape,
            "label": self.label,
            "before": self.before,
            "after": self.after,
            "before_ms": self.before_ms,
            "after_ms": self.after_ms,
            "change_pct": round(self.change_pct, 3),
            "pvalue": self.pvalue,
            "runs_before": self.runs_before,
            "runs_after": self.runs_after,
            "pending": self.pending,
            "environment": [{"field": f, "before": old, "after": new} for f, old, new in self.environment],
            "artifacts": [a.as_dict() for a in self.artifacts or ()],
        }


def run_dir(run: Run) -> str:
    """The directory a run's report.json is in."""
    return os.path.dirname(run.path)


def settled(values: Sequence[float], found: list[Split], settings: Settings) -> list[Split]:
    """``found`` without its blips: a point followed by fewer than :data:`MIN_AFTER` runs
    before the next one is dropped (the shortest first) and the points tested again, as the
    search's merge does (the newest point may keep fewer: it is pending)."""
    while True:
        blips = [at for at, split in enumerate(found[:-1]) if split.after < MIN_AFTER]
        if not blips:
            return found
        drop = min(blips, key=lambda at: found[at].after)
        cuts = [split.index for at, split in enumerate(found) if at != drop]
        found = merge(np.asarray(values, dtype=np.float64), cuts, settings.max_pvalue, settings.min_change_pct / 100.0)


def _changes(
    points: Sequence[tuple[Run, float]], side: str, shape: str | None, settings: Settings, label: str | None = None
) -> list[ChangePoint]:
    values = [value for _run, value in points]
    found = change_points(values, settings.window, settings.max_pvalue, settings.min_change_pct / 100.0)
    found = settled(values, found, settings)
    edges = [0, *(split.index for split in found), len(values)]
    out: list[ChangePoint] = []
    for at, split in enumerate(found):
        low, index, high = edges[at], edges[at + 1], edges[at + 2]
        before_ms, after_ms = median(values[low:index]), median(values[index:high])
        last, first = points[index - 1][0], points[index][0]
        out.append(
            ChangePoint(
                kernel=first.kernel,
                family=first.family,
                side=side,
                shape=shape,
                before=last.started,
                after=first.started,
                before_ms=before_ms,
                after_ms=after_ms,
                change_pct=(split.mean_after / split.mean_before - 1.0) * 100.0,
                pvalue=split.pvalue,
                runs_before=index - low,
                runs_after=high - index,
                before_dir=run_dir(last),
                after_dir=run_dir(first),
                label=label,
                pending=high - index < MIN_AFTER,
                environment=_environment_change(last, first),
            )
        )
    return out


def _environment_change(before: Run, after: Run) -> tuple[tuple[str, str, str], ...]:
    """What differs between where two runs ran (only what both name)."""
    if before.environment == after.environment:
        return ()
    from ptotui.model.core.environment import differences, of_text

    return tuple(differences(of_text(before.environment), of_text(after.environment)))


def kernel_changes(
    runs: Iterable[Run], settings: Settings = Settings(), sides: Sequence[str] = SIDES
) -> list[ChangePoint]:
    """The change points of one kernel's series (its runs, any order), per side."""
    ordered = sorted(runs, key=_started)
    return [change for side in sides for change in _changes(series(ordered, side), side, None, settings)]


def series(runs: Iterable[Run], side: str) -> list[tuple[Run, float]]:
    """A side's series: each of ``runs`` where that side is ok, with its ms. (One list
    comprehension per side, no call per run: 500,000 runs go through here at 10,000 kernels x
    50, and a call per run was a sixth of the time.)"""
    if side == "pto":
        return [(r, v) for r in runs if r.pto_status == "ok" and (v := r.pto_ms) is not None and v > 0]
    return [(r, v) for r in runs if r.baseline_status == "ok" and (v := r.baseline_ms) is not None and v > 0]


def _started(run: Run) -> str:
    return run.started


# -- per shape -----------------------------------------------------------------------------

ShapeReader = Callable[[Run], Kernel | None]


def read_shapes(run: Run, warnings: list[ReadWarning] | None = None) -> Kernel | None:
    """The kernel a run's report.json gives, its shapes with it (the runs reader's rules)."""
    try:
        return read_run(run.path, run.family or "", run.kernel, run.started)[1]
    except (OSError, RunUnreadable, safefile.FileRefused) as exc:
        if warnings is not None:
            said = exc.message if isinstance(exc, safefile.FileRefused) else clean(exc)
            warnings.append(ReadWarning(run.path, said))
        return None


def shape_text(shape_json: str | None, params_json: str | None, shared: bool) -> str:
    """A shape as the reports write it (its shape summary's JSON); its parameters' when two
    shapes of the kernel share one summary."""
    if shared or shape_json is None:
        return params_json or shape_json or "null"
    return shape_json


@dataclass
class ShapeSeries:
    """Each shape's series of one kernel, per side, by shape key; each shape's text (as the
    reports write it) and label."""

    series: dict[str, dict[str, list[tuple[Run, float]]]]  # side -> key -> (run, ms)
    texts: dict[str, str]
    labels: dict[str, str]


def shape_series(runs: Iterable[Run], read: ShapeReader, sides: Sequence[str] = SIDES) -> ShapeSeries:
    """Each shape's series per side: its median in the runs where it is ok (each run's
    report read once, its directory's shape sub-directories listed for the labels). A variant
    with no shape is not a shape; a kernel with one shape has none: its series is the kernel's."""
    series: dict[str, dict[str, list[tuple[Run, float]]]] = {side: {} for side in sides}
    texts: dict[str, str] = {}
    labeller = shape_labels.Labeller()
    for run in sorted(runs, key=_started):
        kernel = read(run)
        if kernel is None:
            continue
        pairs = [(variant.shape, variant.params) for variant in kernel.variants]
        labeller.add(pairs, shape_labels.shape_dirs(run_dir(run)))
        summaries = [v.shape_json for v in kernel.variants]
        for variant, (shape, params) in zip(kernel.variants, pairs, strict=True):
            if shape_labels.is_empty(shape, params):
                continue
            key = shape_labels.key(shape, params)
            if key not in texts:
                shared = summaries.count(variant.shape_json) > 1
                texts[key] = shape_text(variant.shape_json, variant.params_json, shared)
            for side in sides:
                value = variant.pto_ms if side == "pto" else variant.baseline_ms
                status = variant.pto_status if side == "pto" else variant.baseline_status
                if status == "ok" and value is not None and value > 0:
                    series[side].setdefault(key, []).append((run, value))
    if len(texts) < 2:
        return ShapeSeries({side: {} for side in sides}, texts, labeller.labels())
    return ShapeSeries(series, texts, labeller.labels())


def shape_changes(
    runs: Sequence[Run], read: ShapeReader, settings: Settings = Settings(), sides: Sequence[str] = SIDES
) -> list[ChangePoint]:
    """The change points of each shape's own series, per side."""
    found = shape_series(runs, read, sides)
    out: list[ChangePoint] = []
    for side in sides:
        for key, points in found.series[side].items():
            out.extend(_changes(points, side, found.texts[key], settings, found.labels.get(key)))
    return out


# -- every kernel, and what changed in the code ---------------------------------------------


def by_kernel(runs: Iterable[Run]) -> dict[tuple[str, str | None], list[Run]]:
    out: dict[tuple[str, str | None], list[Run]] = {}
    for run in runs:
        out.setdefault((run.kernel, run.family), []).append(run)
    return out


def with_artifacts(change: ChangePoint, notes: list[ReadWarning] | None = None) -> ChangePoint:
    """The change with the code files that differ between its two run directories."""
    diff = artifacts_of.compare(change.before_dir, change.after_dir)
    if notes is not None:
        notes.extend(diff.notes)
    return replace(change, artifacts=diff.files)


@dataclass(frozen=True, slots=True)
class Listed:
    """A change point as the detail lists it, with the shapes' points that repeat it (the
    same side and first run after, under the kernel's point): counted, not listed apart."""

    change: ChangePoint
    repeats: tuple[ChangePoint, ...] = ()


def for_detail(changes: Iterable[ChangePoint]) -> tuple[list[Listed], list[Listed]]:
    """(the change points for good, the pending ones), each PTO's before the baseline's, the
    kernel's series before its shapes, newest first; a shape's point at the kernel's point
    (same side, same run after) folded under it."""
    every = list(changes)
    kernel_at = {(c.side, c.after, c.pending) for c in every if c.shape is None}
    listed: dict[tuple[str, str, bool], list[ChangePoint]] = {}
    alone: list[Listed] = []
    for change in every:
        if change.shape is None:
            listed.setdefault((change.side, change.after, change.pending), []).insert(0, change)
        elif (change.side, change.after, change.pending) in kernel_at:
            listed.setdefault((change.side, change.after, change.pending), []).append(change)
        else:
            alone.append(Listed(change))
    out = [Listed(held[0], tuple(held[1:])) for held in listed.values()] + alone

    def order(item: Listed) -> tuple[bool, bool, str, str]:
        c = item.change
        return (c.side != "pto", c.shape is not None, _negated(c.after), c.label or c.shape or "")

    out.sort(key=order)
    return [i for i in out if not i.change.pending], [i for i in out if i.change.pending]


def _negated(stamp: str) -> str:
    """A stamp that sorts newest first in an ascending sort (digits 9 - d)."""
    return stamp.translate(str.maketrans("0123456789", "9876543210"))


def age_days(change: ChangePoint, now_seconds: float) -> int | None:
    """Whole days from the first run after the change to ``now_seconds``."""
    at = stamp_seconds(change.after)
    return None if at is None else max(0, int((now_seconds - at) // 86400))


def step_text(change: ChangePoint | None, now_seconds: float) -> str:
    """The Step column's text: ``+9% 3d``, the newest PTO step and its age."""
    if change is None:
        return ""
    days = age_days(change, now_seconds)
    age = _("{n}d").format(n=days) if days is not None else ""
    return f"{change.change_pct:+.0f}% {age}".strip()


def newest_pto_step(changes: Iterable[ChangePoint]) -> ChangePoint | None:
    """The newest change point of the kernel's own PTO series."""
    own = [c for c in changes if c.side == "pto" and c.shape is None and not c.pending]
    return max(own, key=lambda c: c.after) if own else None


def collect(
    runs: Iterable[Run],
    kernel: str | None = None,
    sides: Sequence[str] = SIDES,
    shapes: bool = False,
    settings: Settings = Settings(),
    read: ShapeReader = read_shapes,
) -> list[ChangePoint]:
    """Every kernel's change points (``kernel``: that one's only), oldest first: its series
    per side and, with ``shapes``, each shape's too (their report.json files read again)."""
    out: list[ChangePoint] = []
    for held in by_kernel(run for run in runs if kernel is None or run.kernel == kernel).values():
        out.extend(kernel_changes(held, settings, sides))
        if shapes:
            out.extend(shape_changes(held, read, settings, sides))
    out.sort(key=lambda c: (c.after, c.kernel, c.family or "", c.side, c.shape is not None, c.shape or ""))
    return out
