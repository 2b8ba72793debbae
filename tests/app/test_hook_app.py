"""Quitting the dashboard stops a hanging hook and its children."""

from __future__ import annotations

from tests.helpers import build, every_variant, loaded, rewrite_kernels, until
from tests.model.test_hook import alive, hanging, pids, wait_for


async def test_quitting_stops_a_hanging_hook_and_its_children(sample_location, tmp_path):
    command, out = hanging(tmp_path)
    app = build(sample_location, on_regression=command)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        rewrite_kernels(sample_location.reports, {"topk_router_softmax": every_variant(baseline_over_pto_pct=5.0)})
        await until(pilot, lambda: len(pids(out)) == 2)
        await pilot.press("q")
    for pid in pids(out):
        wait_for(lambda pid=pid: not alive(pid), f"{pid} outlived ptotui")
