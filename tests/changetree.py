"""Run histories with a step in them, for the change point tests.

Each run's report.json is a real-format one (ours from :mod:`tests.runtree`, or one from
../shared/reference_reports) with its per-shape timings scaled; beside it, invented code files.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.runtree import make_report

Code = Callable[[int], dict[str, str | bytes]]


def stamp(index: int, day: int = 10) -> str:
    """The index-th run's stamp: one run every 10 minutes from 2026-03-<day> 00:00."""
    minutes = index * 10
    return f"202603{day + minutes // 1440:02d}T{minutes % 1440 // 60:02d}{minutes % 60:02d}00Z"


def scaled(report: dict[str, Any], pto: float, baseline: float) -> dict[str, Any]:
    """The report with each side's timings (per shape and the side's own) times a factor."""
    out = copy.deepcopy(report)
    for side, factor in (("pto", pto), ("baseline", baseline)):
        benchmark = out.get(side, {}).get("benchmark", {})
        for holder in [benchmark, *benchmark.get("variant_reports", [])]:
            timings = holder.get("timings_ms")
            if isinstance(timings, dict):
                holder["timings_ms"] = {k: v * factor if isinstance(v, int | float) else v for k, v in timings.items()}
    return out


def invented(shapes: int = 2) -> dict[str, Any]:
    return make_report("tile_add", "demo", [(0.1 * (n + 1), 0.2 * (n + 1)) for n in range(shapes)])


def write_history(
    bench: Path,
    family: str,
    kernel: str,
    pto: list[float],
    baseline: list[float] | None = None,
    base: dict[str, Any] | None = None,
    code: Code | None = None,
    first: int = 0,
) -> list[str]:
    """One run per factor of ``pto`` (and ``baseline``): the base report scaled, with the code
    files ``code(index)`` gives (relative path: text or bytes); the first one is run number
    ``first`` (its stamp, ``stamp(first)``). Returns the stamps."""
    report = base if base is not None else invented()
    stamps = []
    for index, factor in enumerate(pto, start=first):
        run_stamp = stamp(index)
        run_dir = bench / "results" / family / kernel / run_stamp
        run_dir.mkdir(parents=True)
        made = scaled(report, factor, baseline[index - first] if baseline else 1.0)
        made["name"], made["family"] = kernel, family
        (run_dir / "report.json").write_text(json.dumps(made), encoding="utf-8")
        for relative, content in (code(index) if code else {}).items():
            target = run_dir / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        stamps.append(run_stamp)
    return stamps


def noisy(count: int, step_at: int | None, step: float, noise: float, seed: int) -> list[float]:
    """Factors around 1 with a relative Gaussian noise, times (1 + step) from ``step_at`` on."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible noise, not a secret
    return [
        (1.0 + (step if step_at is not None and i >= step_at else 0.0)) * (1.0 + rng.gauss(0.0, noise))
        for i in range(count)
    ]


def pto_code(index: int, split_at: int) -> dict[str, str | bytes]:
    """Invented code: one kernel.pto before ``split_at``, two stages from it on."""
    if index < split_at:
        return {
            "kernel.pto": "func @tile_add(%a: f32) {\n  add\n  store\n}\n",
            "kernel.so": b"\x7fELF\0\0one",
            "demo_tile_add_benchmark.json": "{}",
        }
    return {
        "stage1/kernel.pto": "func @tile_add_1(%a: f16) {\n  add\n}\n",
        "stage2/kernel.pto": "func @tile_add_2(%a: f16) {\n  store\n}\n",
        "stage1/kernel.so": b"\x7fELF\0\0two",
        "demo_tile_add_benchmark.json": '{"x": 1}',
    }
