"""The numbers behind the charts: per-shape latencies, ratio history, tiers per family,
ratio buckets and axis ticks. Plain Python, no Textual and no plotext."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from ptotui.model.history.snapshots import History

NO_FAMILY = "(none)"


def is_blocked(status: str | None) -> bool:
    return (status or "").strip().lower() == "blocked"


def positive(value: float | None) -> float | None:
    """A latency that can be drawn: finite and above zero, else None."""
    if value is None or not math.isfinite(value) or value <= 0:
        return None
    return value


def shape_label(shape: object) -> str:
    """A short label for an input shape: ``128×256`` from ``{"x": [128, 256], ...}``."""
    if isinstance(shape, dict) and shape:
        shape = shape.get("x", next(iter(shape.values())))
    if isinstance(shape, list | tuple):
        return "×".join(one_line(clean(v)) for v in shape) or "[]"
    return _("no shape") if shape is None else one_line(clean(shape))  # a blocked side records none


def wants_log(values: list[float]) -> bool:
    """A log axis when the drawn latencies differ by more than 10×."""
    drawn = [v for v in values if positive(v) is not None]
    return bool(drawn) and max(drawn) > 10 * min(drawn)


def integer_ticks(high: float, most: int = 6) -> list[int]:
    """Whole-number ticks from 0 to at least ``high`` at a 1-2-5 step, at most ``most`` steps."""
    top = max(1, math.ceil(high))
    step = 1
    for exponent in range(20):
        for multiple in (1, 2, 5):
            step = multiple * 10**exponent
            if math.ceil(top / step) <= most:
                return list(range(0, math.ceil(top / step) * step + 1, step))
    return [0, top]


def nice_ticks(high: float, most: int = 6) -> list[float]:
    """Ticks from 0 at a 1-2-5 step (0.05, 0.1, 0.2, ...) up to ``high``, at most ``most`` steps."""
    if not math.isfinite(high) or high <= 0:
        return [0.0, 1.0]
    step = 10.0 ** math.floor(math.log10(high / most))
    for multiple in (1, 2, 5, 10):
        if high / (step * multiple) <= most:
            step *= multiple
            break
    count = math.floor(high / step + 1e-9)
    return [round(i * step, 12) for i in range(count + 1)]


def log_ticks(low: float, high: float) -> list[float]:
    """Ticks at 1-2-5 multiples of powers of ten covering ``low``..``high`` (both > 0);
    only the powers of ten when they span more than two decades."""
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    multiples = (1,) if last - first > 2 else (1, 2, 5)
    ticks = [m * 10.0**e for e in range(first, last + 1) for m in multiples]
    return [t for t in ticks if low / 1.0001 <= t <= high * 1.0001] or [10.0**first]


def tick_label(value: float) -> str:
    """``0.05``, ``2``, ``10``: as few digits as the value needs."""
    return f"{value:g}"


@dataclass(frozen=True)
class HistoryPoint:
    """One snapshot (or the current reports) of a kernel's median ratio."""

    label: str
    ratio_pct: float | None
    blocked: bool
    tier: str


def stamp_labels(stamps: list[str]) -> list[str]:
    """``11-26`` from ``20261126T080000Z``; with the time when two fall on one day."""
    days = [f"{s[4:6]}-{s[6:8]}" if len(s) >= 8 and s[:8].isdigit() else s for s in stamps]
    if len(set(days)) == len(days):
        return days
    return [f"{d} {s[9:11]}:{s[11:13]}" if len(s) >= 13 and "T" in s else d for d, s in zip(days, stamps, strict=True)]


def ratio_history(kernel: Kernel, history: History | None) -> list[HistoryPoint]:
    """The kernel's median ratio in each snapshot it appears in, then in the current reports."""
    points: list[HistoryPoint] = []
    if history is not None:
        own = {p.stamp: p for p in history.kernels.get(kernel.name, [])}
        stamps = [s for s in history.stamps if s in own]
        for label, stamp in zip(stamp_labels(stamps), stamps, strict=True):
            p = own[stamp]
            blocked = is_blocked(p.baseline_status) or is_blocked(p.pto_status)
            points.append(HistoryPoint(label, p.ratio_median_pct, blocked, p.tier))
    blocked = is_blocked(kernel.baseline_status) or is_blocked(kernel.pto_status)
    points.append(HistoryPoint(_("now"), kernel.ratio_median_pct, blocked, kernel.tier))
    return points


def family_of(kernel: Kernel) -> str:
    return one_line(clean(kernel.family)) if kernel.family else NO_FAMILY


def tiers_by_family(kernels: list[Kernel]) -> dict[str, Counter[str]]:
    """Kernel counts per tier for each family, families by name."""
    out: dict[str, Counter[str]] = {}
    names: dict[str | None, str] = {}  # a family's name is cleaned once, not once per kernel
    for k in kernels:
        name = names.get(k.family)
        if name is None:
            name = names[k.family] = family_of(k)
        out.setdefault(name, Counter())[k.tier] += 1
    return dict(sorted(out.items(), key=lambda item: (item[0] == NO_FAMILY, item[0].lower())))


@dataclass(frozen=True)
class Bucket:
    """Median ratios from ``low`` up to (not including) ``high``; ``high`` None: no upper end."""

    low: int
    high: int | None
    count: int

    @property
    def label(self) -> str:
        return f"{self.low}+" if self.high is None else f"{self.low}–{self.high}%"

    def __contains__(self, ratio: object) -> bool:
        if not isinstance(ratio, int | float) or not math.isfinite(ratio):
            return False
        return ratio >= self.low and (self.high is None or ratio < self.high) or (self.low == 0 and ratio < 0)


def ratio_buckets(kernels: list[Kernel], width: int = 10, cap: int = 200) -> list[Bucket]:
    """Buckets of ``width`` pp from 0 to past the largest median ratio, the last one open
    from ``cap`` up. Kernels without a ratio (blocked) are in none."""
    ratios = [r for k in kernels if (r := k.ratio_median_pct) is not None and math.isfinite(r)]
    if not ratios:
        return []
    top = min(max(max(ratios), 0.0), float(cap))
    edges = list(range(0, int(top // width) * width + width + 1, width))
    if max(ratios) >= cap:
        edges = [e for e in edges if e <= cap]
    buckets = [Bucket(lo, hi, 0) for lo, hi in zip(edges, edges[1:], strict=False)]
    if max(ratios) >= cap:
        buckets = [b for b in buckets if b.low < cap] + [Bucket(cap, None, 0)]
    # One pass: each ratio is tried only in the bucket whose lower end is just below it
    # (a negative one in the first), so 10k kernels cost 10k look-ups, not 10k per bucket.
    lows = [b.low for b in buckets]
    counts = [0] * len(buckets)
    for r in ratios:
        index = max(bisect_right(lows, r) - 1, 0)
        if r in buckets[index]:
            counts[index] += 1
    return [Bucket(b.low, b.high, n) for b, n in zip(buckets, counts, strict=True)]
