"""An open detail screen follows its kernel: a rewritten summary or a landed run is on it
within one published update, and a kernel that left the reports is said to be gone (it kept
the kernel it was opened with until ``esc`` ``enter``)."""

from __future__ import annotations

import json

from ptotui.app.screens.detail import DetailScreen
from tests.app.test_detail_limits import KERNEL, SIZE, open_detail, rendered_lines
from tests.helpers import build, rewrite_kernels, scale_side, until


async def test_an_open_detail_shows_its_rewritten_kernel_and_says_when_it_is_gone(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        before = app.session.reports.by_name()[KERNEL]
        slower = {round(v.pto_ms * 3, 4) for v in before.variants if v.pto_ms}
        rewrite_kernels(sample_location.reports, {KERNEL: scale_side("pto", 3.0)})
        await until(pilot, lambda: screen.kernel is not before)
        assert screen.kernel is app.session.reports.by_name()[KERNEL]
        assert {round(v.pto_ms, 4) for v in screen.kernel.variants if v.pto_ms} == slower
        assert isinstance(app.screen, DetailScreen) and not screen.gone

        reports = sample_location.reports
        for name in ("regression_latest.json", "kernel_state_matrix_latest.json"):  # gone from every latest file
            data = json.loads((reports / name).read_text())
            data["kernels"] = [k for k in data["kernels"] if k["name"] != KERNEL]
            (reports / name).write_text(json.dumps(data))
        for name in ("regression_latest.csv", "kernel_state_matrix_latest.md", "regression_latest.md"):
            path = reports / name
            if path.exists():
                path.write_text("".join(x for x in path.read_text().splitlines(True) if KERNEL not in x))
        await until(pilot, lambda: screen.gone)
        assert any("no longer in the reports" in line for line in rendered_lines(app))
