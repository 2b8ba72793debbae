"""Per-kernel history across the timestamped state-matrix snapshots."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ptotui.model.loader import load_file
from ptotui.model.location import Location
from ptotui.model.tiers import Thresholds
from ptotui.model.types import ReadWarning, ReportSet

BARS = "▁▂▃▄▅▆▇█"


@dataclass(frozen=True)
class Point:
    stamp: str
    klass: str | None
    baseline_status: str | None
    pto_status: str | None
    ratio_min_pct: float | None
    ratio_max_pct: float | None
    ratio_median_pct: float | None
    tier: str


@dataclass
class History:
    """Snapshots oldest first, and each kernel's points in that order."""

    stamps: list[str]
    kernels: dict[str, list[Point]]
    warnings: list[ReadWarning]
    snapshots: list[ReportSet]

    def sparkline(self, name: str, width: int = 12) -> str:
        """One character per snapshot: a bar for the median ratio, ``×`` blocked, space unknown."""
        points = {p.stamp: p for p in self.kernels.get(name, [])}
        chars = []
        for stamp in self.stamps[-width:]:
            point = points.get(stamp)
            if point is None:
                chars.append(" ")
            elif point.pto_status == "blocked" or point.baseline_status == "blocked":
                chars.append("×")
            elif point.ratio_median_pct is None:
                chars.append("·")
            else:
                level = min(max(point.ratio_median_pct, 0.0), 100.0) / 100.0
                chars.append(BARS[min(int(level * len(BARS)), len(BARS) - 1)])
        return "".join(chars)


def read_history(location: Location, thresholds: Thresholds = Thresholds()) -> History:
    """Read every snapshot (JSON preferred over its markdown twin). Slow-ish: call off the UI thread."""
    stamps: list[str] = []
    kernels: dict[str, list[Point]] = {}
    warnings: list[ReadWarning] = []
    snapshots: list[ReportSet] = []
    for path in location.snapshots():
        reports = load_file(path, thresholds)
        warnings.extend(reports.warnings)
        if not reports.kernels:
            continue
        stamp = _stamp(path)
        stamps.append(stamp)
        snapshots.append(reports)
        for k in reports.kernels:
            kernels.setdefault(k.name, []).append(
                Point(
                    stamp,
                    k.klass,
                    k.baseline_status,
                    k.pto_status,
                    k.ratio_min_pct,
                    k.ratio_max_pct,
                    k.ratio_median_pct,
                    k.tier,
                )
            )
    return History(stamps, kernels, warnings, snapshots)


def _stamp(path: Path) -> str:
    return path.stem.rsplit("_", 1)[-1]
