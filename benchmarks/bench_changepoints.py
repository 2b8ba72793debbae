"""Change points (ptotui/model/changes/): their error rates, and the time and memory at scale.

1. **Error rates** on synthetic histories made from real report.json files (default: every
   one in ../shared/reference_reports with shapes that ran). Each report gives, per side and
   shape, a median and a noise: the shape's own spread in that report, (median − min) / median
   (median 2.8% over the reference snapshot's shapes, 0.4-15%). A history is ``--runs`` runs; in
   each, every shape's median is its report median x (1 + N(0, noise)), times the step from the
   step's run on; the run's figure is the median over its shapes, as the runs reader makes it.
   - steps of several sizes at a known run (uniform in the middle 80% of the history): the share
     found within one run of it, the share found exactly there, and the other change points found;
   - flat histories: the change points found (all false), per history and the share of
     histories with any.
3. **Live** (the same records): the Step column's first search, then runs landing one at a
   time, each searched for its kernel only (ptotui/model/changes/live.py), and what was told.
2. **Scale**: ``--kernels`` kernels x ``--runs`` runs as run records (a tenth with a step of
   5-50% on one side), every change point of every kernel's series, both sides, as
   :func:`ptotui.model.changes.points.collect` finds them on the loader thread: the time, and
   the memory the results hold (tracemalloc, a second pass); and, as it runs on a thread, how
   late another thread that wakes every 5 ms (the UI's keys) is woken.

Run: python benchmarks/bench_changepoints.py [--reports DIR] [--runs 50] [--trials 20]
[--kernels 10000] (note `uptime`'s load beside the figures: the machine is shared).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptotui.model.bench.record import Run  # noqa: E402
from ptotui.model.changes.edivisive import change_points  # noqa: E402
from ptotui.model.changes.points import Settings, collect  # noqa: E402

REFERENCE = ROOT.parent / "shared" / "reference_reports" / "pto-kernels-20260321" / "bench" / "generated"
STEPS = (0.03, 0.05, 0.10, 0.20, 0.50, -0.05, -0.20)
SIDES = ("pto", "baseline")


def shape_noise(reports: Path) -> list[tuple[str, list[tuple[float, float]]]]:
    """Per report and side: [(median ms, relative noise)] of its shapes that ran."""
    out = []
    for path in sorted(reports.glob("*/*/report.json")):
        report = json.loads(path.read_text(encoding="utf-8"))
        for side in SIDES:
            benchmark = report.get(side, {}).get("benchmark", {})
            if benchmark.get("status") != "ok":
                continue
            shapes = []
            for variant in benchmark.get("variant_reports") or []:
                timings = variant.get("timings_ms") or {}
                middle, low = timings.get("median"), timings.get("min")
                if isinstance(middle, int | float) and isinstance(low, int | float) and middle > 0:
                    shapes.append((float(middle), max(0.0, (middle - low) / middle)))
            if shapes:
                out.append((f"{path.parent.name}/{side}", shapes))
    return out


def history(shapes: list[tuple[float, float]], runs: int, step_at: int | None, step: float, rng: random.Random):
    series = []
    for run in range(runs):
        factor = 1.0 + (step if step_at is not None and run >= step_at else 0.0)
        series.append(statistics.median(ms * factor * (1.0 + rng.gauss(0.0, noise)) for ms, noise in shapes))
    return series


def error_rates(sources: list[tuple[str, list[tuple[float, float]]]], runs: int, trials: int) -> dict[str, Any]:
    rng = random.Random(20260321)  # noqa: S311 - reproducible noise, not a secret
    settings = Settings()
    find = lambda series: change_points(series, settings.window, settings.max_pvalue, settings.min_change_pct / 100)  # noqa: E731
    steps: dict[str, dict[str, float]] = {}
    for step in STEPS:
        near = exact = other = total = 0
        for _name, shapes in sources:
            for _ in range(trials):
                at = rng.randrange(runs // 10, runs - runs // 10)
                found = [split.index for split in find(history(shapes, runs, at, step, rng))]
                total += 1
                hit = [index for index in found if abs(index - at) <= 1]
                near += bool(hit)
                exact += at in found
                other += len(found) - (1 if hit else 0)
        steps[f"{step:+.0%}"] = {
            "found_within_one_run": near / total,
            "found_exactly": exact / total,
            "other_points_per_history": other / total,
            "histories": total,
        }
    false_points = with_any = flat = 0
    for _name, shapes in sources:
        for _ in range(trials * 2):
            found = find(history(shapes, runs, None, 0.0, rng))
            flat += 1
            false_points += len(found)
            with_any += bool(found)
    return {
        "steps": steps,
        "flat": {
            "histories": flat,
            "false_points_per_history": false_points / flat,
            "share_with_any": with_any / flat,
        },
    }


def scale_runs(kernels: int, runs: int) -> list[Run]:
    rng = random.Random(7)  # noqa: S311 - reproducible noise, not a secret
    out = []
    for number in range(kernels):
        name = f"kernel_{number:05d}"
        step_at = rng.randrange(5, runs - 5) if number % 10 == 0 else None
        step = rng.choice((0.05, 0.1, 0.2, 0.5, -0.1))
        stepped_side = rng.choice(SIDES)
        for run in range(runs):
            values = {}
            for side, base in (("pto", 0.2), ("baseline", 0.1)):
                factor = 1.0 + (step if step_at is not None and run >= step_at and side == stepped_side else 0.0)
                values[side] = base * factor * (1.0 + rng.gauss(0.0, 0.02))
            stamp = f"2026{(run // 28) + 1:02d}{run % 28 + 1:02d}T000000Z"
            out.append(
                Run(name, "fam", stamp, None, "ok", "ok", values["baseline"], values["pto"], None, None, None, None,
                    values["baseline"] / values["pto"] * 100, True, True,
                    f"/bench/results/fam/{name}/{stamp}/report.json")
            )  # fmt: skip
    return out


def _stalls(work: Any) -> tuple[float, list[float]]:
    """Run ``work`` on a thread (as the app's worker does) while this thread wakes every 5 ms,
    as the UI's event loop would for a key: the seconds it took, and how late each wake-up was."""
    import threading

    late: list[float] = []
    thread = threading.Thread(target=work)
    began = time.perf_counter()
    thread.start()
    while thread.is_alive():
        asked = time.perf_counter()
        time.sleep(0.005)
        late.append(time.perf_counter() - asked - 0.005)
    thread.join()
    return time.perf_counter() - began, late


def scale(kernels: int, runs: int) -> dict[str, Any]:
    records = scale_runs(kernels, runs)
    gc.collect()
    took, late = _stalls(lambda: collect(records))
    late.sort()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    found = collect(records)
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "kernels": kernels,
        "runs": kernels * runs,
        "seconds": round(took, 2),
        "other_thread_late_ms": {
            "median": round(1000 * statistics.median(late), 2),
            "p99": round(1000 * late[int(len(late) * 0.99)], 2),
            "max": round(1000 * late[-1], 2),
        },
        "change_points": len(found),
        "results_mb": round((held - before) / 2**20, 2),
        "peak_mb_while_computing": round((peak - before) / 2**20, 2),
    }


class _ByKernel:
    """A kernel's runs by name, as the runs reader's view gives them (``of``, ``newest``)."""

    def __init__(self, records: list[Run]) -> None:
        self.runs: dict[str, list[Run]] = {}
        for run in records:
            self.runs.setdefault(run.kernel, []).append(run)

    def of(self, kernel: str) -> list[Run]:
        return self.runs.get(kernel, [])

    def newest(self) -> dict[str, Run]:
        return {name: runs[-1] for name, runs in self.runs.items()}


def live(kernels: int, runs: int, landings: int = 20) -> dict[str, Any]:
    """The dashboard's live search (ptotui/model/changes/live.py) at scale: the Step column's
    first search of every kernel, then ``landings`` runs landing one at a time on different
    kernels (each a PTO step of +30% from its run on, so some become significant): the time of
    each landing's search (that kernel only), and of the Step column's search after it."""
    from ptotui.model.changes.live import Steps

    records = scale_runs(kernels, runs)
    source = _ByKernel(records)
    steps = Steps()
    began = time.perf_counter()
    steps.newest(source)
    first = time.perf_counter() - began
    landed_ms, column_ms, told = [], [], 0
    for number in range(landings):
        name = f"kernel_{(number * 37 + 1) % kernels:05d}"
        held = source.runs[name]
        last = held[-1]
        stamp = f"2027{number // 28 + 1:02d}{number % 28 + 1:02d}T000000Z"
        pto = (last.pto_ms or 0.2) * 1.3
        path = f"/bench/results/fam/{name}/{stamp}/report.json"
        ratio = (last.baseline_ms or 0.1) / pto * 100
        new = Run(
            name, "fam", stamp, None, "ok", "ok", last.baseline_ms, pto, None, None, None, None, ratio, True, True, path
        )
        held.append(new)
        began = time.perf_counter()
        told += len(steps.landed(source, [new]))
        landed_ms.append(1000 * (time.perf_counter() - began))
        if number < 3:  # the column's search after a landing: every kernel's runs compared, one searched
            began = time.perf_counter()
            steps.newest(source)
            column_ms.append(1000 * (time.perf_counter() - began))
    landed_ms.sort()
    return {
        "kernels": kernels,
        "runs": kernels * runs,
        "step_column_first_search_s": round(first, 2),
        "landing_search_ms": {"median": round(statistics.median(landed_ms), 2), "max": round(landed_ms[-1], 2)},
        "step_column_after_a_landing_s": round(statistics.median(column_ms) / 1000, 2),
        "landings": landings,
        "told": told,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=Path, default=REFERENCE, help="a bench/generated directory")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--trials", type=int, default=20, help="histories per report, side and step size (0: none)")
    parser.add_argument("--kernels", type=int, default=10_000)
    args = parser.parse_args()
    sources = shape_noise(args.reports)
    if not sources:
        sys.exit(f"no report.json with shapes that ran under {args.reports}")
    noises = sorted(noise for _name, shapes in sources for _ms, noise in shapes)
    result = {
        "load": os.getloadavg()[0],
        "reports_sides": len(sources),
        "shape_noise_median_pct": round(100 * statistics.median(noises), 2),
        "error_rates": error_rates(sources, args.runs, args.trials) if args.trials else None,
        "scale": scale(args.kernels, args.runs) if args.kernels else None,
        "live": live(args.kernels, args.runs) if args.kernels else None,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
