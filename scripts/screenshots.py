"""Regenerate screenshots/*.svg from the sample reports through the app factory.

Run from the repository root: python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptotui.app.factory import make_app  # noqa: E402
from ptotui.model.location import Location  # noqa: E402
from ptotui.model.options import DashboardOptions  # noqa: E402

SAMPLES = ROOT / "sample_reports" / "bench"
OUT = ROOT / "screenshots"


async def _settle(pilot) -> None:
    app = pilot.app
    for _ in range(200):
        if app.main.reports is not None and app.session.history is not None and app.session.since is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)
    app.clear_notifications()
    await pilot.pause()


async def shoot(
    name: str, size: tuple[int, int], steps, lang: str = "en", bench: Path = SAMPLES, clock: float = 1_764_403_200.0
) -> None:
    state = Path(tempfile.mkdtemp()) / "triage.json"
    location = Location(bench / "reports", bench)
    app = make_app(location, DashboardOptions(state=state, git=False, lang=lang), clock=lambda: clock)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        await steps(pilot)
        await pilot.pause(0.3)
        app.save_screenshot(str(OUT / f"{name}.svg"))
        print(f"wrote screenshots/{name}.svg")


async def main_screen(pilot) -> None:
    pilot.app.main.query_one("KernelTable").focus_kernel("chunked_cross_entropy")


async def detail(pilot) -> None:
    app = pilot.app
    kernel = app.main.reports.by_name()["paged_kv_gather"]
    app.run_effects(app.controller.triage(kernel, "needs-upstream", "driver ticket filed"))  # as t then a note do
    await pilot.pause(0.3)
    app.main.open_detail("paged_kv_gather")


async def blockers(pilot) -> None:
    main = pilot.app.main
    main.query_one("KernelTable").focus_kernel("fp8_blockwise_quant")
    await pilot.press("i", "n", *"waiting on the lowering fix", "enter")
    await pilot.press("tab")
    await pilot.pause(0.2)
    await pilot.press("down", "down")


async def by_gap(pilot) -> None:
    await pilot.press("g")
    await pilot.pause(0.2)
    await pilot.press("down")


async def charts(pilot) -> None:
    pilot.app.main.open_detail("chunked_cross_entropy")
    await pilot.pause()
    await pilot.press("g")


async def overview(pilot) -> None:
    await pilot.press("G")
    await pilot.pause()
    await pilot.press("right", "right", "right")


async def narrow(pilot) -> None:
    await pilot.press("down", "down")


# -- a bench run in progress: the samples plus run directories in the runner's format ----------


def _run_report(record: dict, stamp: str, pto_factor: float) -> dict:
    """A run's report.json (the runner's fields) with the medians of the sample summary's record."""
    sides = {}
    for side, factor in (("baseline", 1.0), ("pto", pto_factor)):
        variants = []
        for variant in record["variants"]:
            median = variant.get(f"{side}_median_ms")
            if median is None:
                continue
            median *= factor
            variants.append(
                {
                    "variant": variant.get("variant") or {"shape": variant.get("shape_summary")},
                    "shape_summary": variant.get("shape_summary"),
                    "timings_ms": {"min": median * 0.98, "median": median, "max": median * 1.3},
                    "correctness": {"max_abs_diff": 0.0},
                }
            )
        benchmark = {
            "status": record[f"{side}_status"],
            "reason": record.get(f"{side}_reason"),
            "variant_reports": variants,
            "correctness": {"atol": 1e-3, "rtol": 1e-3, "max_abs_diff": 0.0, "passes": True},
        }
        sides[side] = {"benchmark": benchmark}
    path = f"/home/bench/pto-kernels/bench/results/{record['family']}/{record['name']}/{stamp}"
    return {"name": record["name"], "family": record["family"], "artifacts_dir": path, "report_path": path, **sides}


def bench_run_tree() -> tuple[Path, float]:
    """A copy of the samples with a bench run under way: five kernels re-measured since 03:10
    (one slower on PTO's side), one compiling for 4m12s; the screenshot's clock."""
    from ptotui.model.bench.record import stamp_of_time, stamp_seconds

    bench = Path(tempfile.mkdtemp()) / "bench"
    shutil.copytree(SAMPLES, bench)
    records = {r["name"]: r for r in json.loads((bench / "reports" / "regression_latest.json").read_text())["kernels"]}

    def run(name: str, stamp: str, took: float, pto_factor: float = 1.0) -> None:
        record = records[name]
        run_dir = bench / "results" / record["family"] / name / stamp
        run_dir.mkdir(parents=True)
        report = run_dir / "report.json"
        report.write_text(json.dumps(_run_report(record, stamp, pto_factor), indent=2))
        finished = stamp_seconds(stamp) + took
        os.utime(report, (finished, finished))

    start = stamp_seconds("20261127T031000Z")
    for day, took in (("20261120", 600.0), ("20261124", 660.0)):  # the running kernel's past runs
        run("layernorm_gated", f"{day}T031000Z", took)
    order = ["softmax_online_fused", "rmsnorm_residual_add", "chunked_cross_entropy", "depthwise_conv1d_causal"]
    at = start
    for index, name in enumerate(order):
        run(name, stamp_of_time(at), 300.0, pto_factor=1.45 if index == 1 else 0.97)
        at += 300.0
    running = bench / "results" / "norm" / "layernorm_gated" / stamp_of_time(at) / "compile"
    running.mkdir(parents=True)
    return bench, at + 252.0


async def bench_running(pilot) -> None:
    pilot.app.main.query_one("KernelTable").focus_kernel("rmsnorm_residual_add")


async def main() -> None:
    os.chdir(ROOT)
    os.environ["TZ"] = "UTC"
    time.tzset()
    OUT.mkdir(exist_ok=True)
    await shoot("main", (140, 36), main_screen)
    await shoot("detail", (120, 48), detail)
    await shoot("blockers", (140, 36), blockers)
    await shoot("blockers-by-gap", (140, 36), by_gap)
    await shoot("main-80x24", (80, 24), narrow)
    await shoot("charts", (120, 40), charts)
    await shoot("overview", (120, 40), overview)
    await shoot("main-zh", (140, 36), main_screen, lang="zh")  # README.zh-CN.md
    bench, clock = bench_run_tree()
    await shoot("bench-run", (140, 36), bench_running, bench=bench, clock=clock)
    shutil.rmtree(bench.parent)


if __name__ == "__main__":
    asyncio.run(main())
