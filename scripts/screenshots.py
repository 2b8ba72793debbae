"""Regenerate screenshots/*.svg from the sample reports through the app factory.

The fleet view's (fleet.svg) is of three invented bench hosts: copies of the samples, each with a
few runs in an environment of its own, published by ``ptotui publish`` into a bare repository in a
temporary directory, and viewed from a clone of it (needs git).

Run from the repository root: python scripts/screenshots.py [NAME ...] (default: every one)
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ptotui.app.factory import make_app, make_fleet_app  # noqa: E402
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


# -- many bench hosts: three invented hosts published to one repository -----------------------

FLEET_CLOCK = 1_795_788_000  # 2026-11-27T14:00:00Z: the screenshot's "now"
# name, toolkit, PTO's factor on its runs, when its four publishes were (minutes before the clock,
# the newest last), the kernel measured at each publish and PTO's factor on that run (None: the host's)
FLEET_HOSTS = (
    ("910b-a", "9.0.0-beta.1", 0.98, (192, 132, 72, 12), {}),
    ("910b-b", "9.0.0-beta.1", 1.0, (600, 540, 480, 420), {"rmsnorm_residual_add": 1.45}),  # stale, slower
    ("910b-c", "8.5.0.alpha002", 1.02, (213, 153, 93, 33), {}),  # another toolkit
)
FLEET_KERNELS = ("softmax_online_fused", "rmsnorm_residual_add", "chunked_cross_entropy", "depthwise_conv1d_causal")


def _git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)  # noqa: S603, S607


def fleet_repo() -> tuple[Path, Path]:
    """A bare repository holding three hosts' branches, each published four times an hour apart
    (one more run each time), and a viewer's clone of it: (the temporary root, the clone)."""
    from ptotui.model.bench.record import stamp_of_time
    from ptotui.model.location import locate
    from ptotui.model.publish import publish

    root = Path(tempfile.mkdtemp(prefix="ptotui-fleet-"))
    remote = root / "team.git"
    _git("init", "-q", "--bare", str(remote), cwd=root)
    records = {
        r["name"]: r for r in json.loads((SAMPLES / "reports" / "regression_latest.json").read_text())["kernels"]
    }
    for name, toolkit, factor, minutes, slower in FLEET_HOSTS:
        bench = root / name / "bench"
        shutil.copytree(SAMPLES, bench)
        repository = root / f"{name}.git"
        _git("init", "-q", "--bare", str(repository), cwd=root)
        for kernel, before in zip(FLEET_KERNELS, minutes, strict=True):
            published = FLEET_CLOCK - before * 60
            record = records[kernel]
            stamp = stamp_of_time(published - 1800)
            report = _run_report(record, stamp, slower.get(kernel, factor))
            report["device"] = {
                "soc": "ascend910b",
                "npu_arch": "dav-2201",
                "pto_arch": "a3",
                "toolkit_version": toolkit,
            }
            report["bench"] = {"warmup": 20, "repeat": 100, "statistic": "median"}
            run_dir = bench / "results" / record["family"] / kernel / stamp
            run_dir.mkdir(parents=True)
            (run_dir / "report.json").write_text(json.dumps(report, indent=2))
            os.environ["GIT_COMMITTER_DATE"] = f"@{published} +0000"  # the publish's time, as git records it
            try:
                done = publish(locate(bench), repository, name, str(remote))
            finally:
                del os.environ["GIT_COMMITTER_DATE"]
            if not done.pushed:
                raise SystemExit(f"publish {name}: {done.push_error}")
    clone = root / "viewer"
    _git("clone", "-q", str(remote), str(clone), cwd=root)
    return root, clone


async def shoot_fleet(shots: list[tuple[str, tuple[int, int]]]) -> None:
    """The fleet view of :func:`fleet_repo`'s hosts at each size: 910b-a pinned as the reference,
    the cursor on the kernel that regressed on 910b-b."""
    root, clone = fleet_repo()
    try:
        for name, size in shots:
            app = make_fleet_app(clone, "origin", 3600.0, cache=root / "state", clock=lambda: float(FLEET_CLOCK))
            async with app.run_test(size=size) as pilot:
                for _ in range(600):
                    if app.reads >= 2 and not app.reading_now:
                        break
                    await pilot.pause(0.05)
                await pilot.press("right", "p", "right")  # 910b-a pinned; the cursor on 910b-b's column
                table = app.fleet_screen.table
                table.move_cursor(row=table.get_row_index("rmsnorm_residual_add"))
                await pilot.pause(0.3)
                app.save_screenshot(str(OUT / f"{name}.svg"))
                print(f"wrote screenshots/{name}.svg")
    finally:
        shutil.rmtree(root)


async def main(only: list[str]) -> None:
    os.chdir(ROOT)
    os.environ["TZ"] = "UTC"
    time.tzset()
    OUT.mkdir(exist_ok=True)

    def wanted(name: str) -> bool:
        return not only or name in only

    for name, size, steps, lang in (
        ("main", (140, 36), main_screen, "en"),
        ("detail", (120, 48), detail, "en"),
        ("blockers", (140, 36), blockers, "en"),
        ("blockers-by-gap", (140, 36), by_gap, "en"),
        ("main-80x24", (80, 24), narrow, "en"),
        ("charts", (120, 40), charts, "en"),
        ("overview", (120, 40), overview, "en"),
        ("main-zh", (140, 36), main_screen, "zh"),  # README.zh-CN.md
    ):
        if wanted(name):
            await shoot(name, size, steps, lang=lang)
    if wanted("bench-run"):
        bench, clock = bench_run_tree()
        await shoot("bench-run", (140, 36), bench_running, bench=bench, clock=clock)
        shutil.rmtree(bench.parent)
    fleet = [(name, size) for name, size in (("fleet", (140, 24)), ("fleet-80x24", (80, 24))) if wanted(name)]
    if fleet:
        await shoot_fleet(fleet)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
