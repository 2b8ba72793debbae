"""Regenerate screenshots/*.svg from the sample reports through the app factory.

Run from the repository root: python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import os
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
        if app.main.reports is not None and app.history is not None and app.session.since is not None:
            break
        await pilot.pause(0.05)
    await pilot.pause(0.2)
    app.clear_notifications()
    await pilot.pause()


async def shoot(name: str, size: tuple[int, int], steps, lang: str = "en") -> None:
    state = Path(tempfile.mkdtemp()) / "triage.json"
    location = Location(SAMPLES / "reports", SAMPLES)
    app = make_app(location, DashboardOptions(state=state, git=False, lang=lang), clock=lambda: 1_764_403_200.0)
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
    app.set_triage(app.main.reports.by_name()["paged_kv_gather"], "needs-upstream", note="driver ticket filed")
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


if __name__ == "__main__":
    asyncio.run(main())
