"""How far one side's latency moves when nothing changed: a noise band per kernel and side.

A ratio is Baseline / PTO, so it falls when PTO slows *or* when the baseline speeds up. To
say which side moved, each side's latency change (shapes matched by shape, then the median
over the shapes) is held against that side's own noise band. The band is a test of the run
judged against the runs *before* it: it is taken from the measurements at or before the
reference (``upto``), never from the run being judged, so a slower run cannot widen its own
band. The first of these that there is enough of:

1. ``history``: the kernel's own runs at or before the reference (at least ``MIN_HISTORY``,
   the newest ``HISTORY_WINDOW``): the relative changes between consecutive runs, their
   robust spread ``1.4826 × MAD`` (the standard deviation of the difference of two runs,
   which is what a reference run and the judged run are), and the band is ``HISTORY_K``
   times it: a prediction interval for one more run of the same code. A code change between
   two runs is one large change among many small ones: the median absolute deviation
   ignores it. ``HISTORY_K`` is calibrated on the public pto-kernels history
   (``benchmarks/bench_noise.py``, docs/regressions.md): at most 1% of same-code runs called
   slower.
2. ``rounds``: the same code measured again (parity rounds): the largest change between any
   two rounds.
3. ``report``: the repeated measurements inside the reference's own run (per-shape min and
   median): ``REPORT_FACTOR`` × the median, over the shapes, of (median − min) / median; a
   tree without runs: those of the reports compared.
4. ``default``: ``DEFAULT_PCT``.

Never below the floor (``FLOOR_PCT``, ``--min-change``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ptotui.model.core.tiers import median

if TYPE_CHECKING:  # where runs ran matters once bands are read, after the first frame
    from ptotui.model.core.environment import Environment

FLOOR_PCT = 3.0
DEFAULT_PCT = 10.0
MIN_HISTORY = 5  # runs at or before the reference: 4 consecutive changes
HISTORY_WINDOW = 30
HISTORY_READ = 200  # runs read per kernel, so that a reference far back still has its window
HISTORY_K = 4.0  # calibrated: benchmarks/bench_noise.py --calibrate, docs/regressions.md
MAD_SD = 1.4826  # a normal distribution's standard deviation per median absolute deviation
REPORT_FACTOR = 5.0  # calibrated: bench_noise.py --calibrate (5% of same-code pairs called slower at 2.0)

# One measurement of one side of one kernel: median ms per shape (the shape's key).
Point = Mapping[str, float]


@dataclass(frozen=True)
class Band:
    """A side's noise band: a change within ``pct`` percent either way is noise."""

    pct: float
    source: str  # history, rounds, report, default
    points: int  # how many measurements it came from (0 for the default)

    def describe(self) -> str:
        if self.source == "default":
            return f"±{self.pct:.1f}% (default)"
        return f"±{self.pct:.1f}% ({self.source}, {self.points} points)"

    def as_dict(self) -> dict[str, Any]:
        return {"pct": round(self.pct, 3), "source": self.source, "points": self.points}


def shape_key(params: Any, shape: Any) -> str:
    """What matches a shape across reports: its variant parameters, else its shape summary."""
    try:
        return json.dumps(params if params is not None else shape, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(params if params is not None else shape)


def change_pct(old: Point, new: Point) -> float | None:
    """The median over the shapes both have of new / old − 1, in percent; None when none match."""
    changes = [
        (new[key] / value - 1.0) * 100.0
        for key, value in old.items()
        if value is not None and value > 0 and new.get(key) is not None and new[key] > 0
    ]
    return median(changes) if changes else None


def _quantile(ordered: list[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _mad_sd(values: Sequence[float]) -> float:
    """A robust standard deviation: 1.4826 × the median absolute deviation from the median."""
    middle = median(list(values))
    return MAD_SD * median([abs(v - middle) for v in values])


def history_band(points: Sequence[Point]) -> Band | None:
    """From a kernel's own runs before the one judged (oldest first); None with fewer than
    MIN_HISTORY of them. The newest HISTORY_WINDOW are used."""
    recent = list(points)[-HISTORY_WINDOW:]
    changes = [c for c in (change_pct(a, b) for a, b in zip(recent, recent[1:], strict=False)) if c is not None]
    if len(changes) + 1 < MIN_HISTORY:
        return None
    return Band(HISTORY_K * _mad_sd(changes), "history", len(changes) + 1)


def rounds_band(rounds: Sequence[Point]) -> Band | None:
    """From rounds of the same code; None with fewer than two."""
    changes = [abs(c) for i, a in enumerate(rounds) for b in rounds[i + 1 :] if (c := change_pct(a, b)) is not None]
    if not changes:
        return None
    return Band(max(changes), "rounds", len(rounds))


def report_band(spreads: Sequence[Sequence[tuple[float, float]]]) -> Band | None:
    """From the (min, median) per shape of the reports compared: REPORT_FACTOR × the median,
    over every shape of every report, of (median − min) / median."""
    relative = [(mid - low) / mid * 100.0 for report in spreads for low, mid in report if mid > 0 and 0 < low <= mid]
    if not relative:
        return None
    return Band(REPORT_FACTOR * median(relative), "report", len(relative))


@dataclass
class SideNoise:
    """What one side of one kernel offers to measure its noise by."""

    history: list[dict[str, float]]  # run medians per shape, oldest first
    rounds: list[dict[str, float]]
    spreads: list[list[tuple[float, float]]]  # per report: (min, median) per shape
    stamps: list[str] = field(default_factory=list)  # each history point's run stamp (empty: not known)
    run_spreads: list[list[tuple[float, float]]] = field(default_factory=list)  # each run's (min, median) per shape
    environments: list[Environment] = field(default_factory=list)  # where each run ran (core/environment.py)

    def _kept(self, upto: str | None) -> list[int]:
        """The runs at or before ``upto`` (a run stamp) of the reference run's environment:
        runs of another environment are never pooled into its band."""
        if len(self.stamps) != len(self.history):
            return list(range(len(self.history)))
        kept = [i for i, stamp in enumerate(self.stamps) if upto is None or stamp <= upto]
        if not kept or len(self.environments) != len(self.stamps):
            return kept
        from ptotui.model.core.environment import compatible

        reference = self.environments[kept[-1]]
        return [i for i in kept if compatible(self.environments[i], reference)]

    def before(self, upto: str | None) -> list[dict[str, float]]:
        """The runs a judged run may be held against: at or before ``upto``, of the reference's
        environment. Without ``upto`` or stamps, every run (of the newest run's environment)."""
        return [self.history[i] for i in self._kept(upto)]

    def environment_at(self, stamp: str | None) -> Environment | None:
        """Where the newest run at or before ``stamp`` (any run, without it) ran; None: no such run."""
        if not self.environments or len(self.environments) != len(self.stamps):
            return None
        kept = [i for i, s in enumerate(self.stamps) if stamp is None or s <= stamp]
        return self.environments[kept[-1]] if kept else None

    def reference_spread(self, upto: str | None) -> list[list[tuple[float, float]]]:
        """The repeated measurements of the reference's own run (the newest at or before
        ``upto``); without runs with stamps, those of the reports compared."""
        if upto is None or len(self.run_spreads) != len(self.stamps) or not self.stamps:
            return self.spreads
        kept = [self.run_spreads[i] for i in self._kept(upto)]
        return kept[-1:] if kept and kept[-1] else self.spreads

    def band(self, floor: float = FLOOR_PCT, upto: str | None = None) -> Band:
        found = history_band(self.before(upto)) or rounds_band(self.rounds) or report_band(self.reference_spread(upto))
        band = found or Band(DEFAULT_PCT, "default", 0)
        return band if band.pct >= floor else Band(floor, band.source, band.points)


def empty_side() -> SideNoise:
    return SideNoise([], [], [])


@dataclass
class Noise:
    """The measurements a comparison has to hand, per kernel and side ("pto", "baseline").

    ``loader`` reads a kernel's on first asking: a diff asks only for the kernels whose
    latency moved by more than the floor, or whose ratio or tier moved."""

    kernels: dict[str, dict[str, SideNoise]]
    floor: float = FLOOR_PCT
    loader: Callable[[str], dict[str, SideNoise]] | None = None

    def side(self, kernel: str, side: str) -> SideNoise:
        sides = self.kernels.get(kernel)
        if sides is None and self.loader is not None:
            sides = self.kernels[kernel] = self.loader(kernel)
        return (sides or {}).get(side) or empty_side()

    def environment_change(self, kernel: str, upto: str | None, judged_at: str | None) -> list[tuple[str, str, str]]:
        """What differs between where the reference's run (the newest at or before ``upto``) and
        the judged run (the newest at or before ``judged_at``) ran: (field, old, new); empty when
        nothing both name differs, or either is not known."""
        if upto is None:
            return []
        from ptotui.model.core.environment import differences

        for side in ("pto", "baseline"):  # a side that did not run has no point for that run
            noise = self.side(kernel, side)
            old, new = noise.environment_at(upto), noise.environment_at(judged_at)
            if old is not None and new is not None:
                return differences(old, new)
        return []

    def floor_band(self) -> Band:
        """What a change within the floor is held against without reading anything."""
        return Band(self.floor, "floor", 0)

    def band(self, kernel: str, side: str, upto: str | None = None) -> Band:
        """The band of ``kernel``'s ``side`` from the runs at or before ``upto`` (the reference's
        stamp: the run judged and those after it never count)."""
        return self.side(kernel, side).band(self.floor, upto)


def no_noise(floor: float = FLOOR_PCT) -> Noise:
    """No repeated measurements: every band is the default (or the floor, if higher)."""
    return Noise({}, floor)
