"""A bench run as the dashboard shows it: the running kernel, the run marks, a landed run's
notice (the model's side is tests/model/test_benchrun.py)."""

from __future__ import annotations

import json
from pathlib import Path

from ptotui.model.bench.record import stamp_seconds
from ptotui.model.location import Location
from tests import runtree
from tests.helpers import build, cell_text, loaded, table, until
from tests.model.test_benchrun import _running_dir
from tests.runtree import write_run


async def test_the_main_screen_shows_the_running_kernel_and_marks_a_finished_one(sample_location: Location) -> None:
    bench = sample_location.bench
    write_run(bench, "softmax", "softmax_online_fused", "20261127T031000Z", [(0.1, None)], pto_status="blocked")
    _running_dir(bench, "norm", "layernorm_gated", "20261127T032000Z")
    app = build(sample_location, clock=lambda: stamp_seconds("20261127T032412Z"))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        line = app.main.query_one("#benchrun")
        await until(pilot, lambda: "running layernorm_gated 4m12s" in str(line.render()))
        assert "1 of 15 re-measured since 03:10" in str(line.render())
        assert cell_text(app, "softmax_online_fused", "kernel").endswith("·run")
        assert cell_text(app, "softmax_online_fused", "pto").strip() == "blocked"
        (bench / "results" / "norm" / "layernorm_gated" / "20261127T032000Z" / "report.json").write_text(
            json.dumps(runtree.make_report("layernorm_gated", "norm", [(0.1, 0.5)], run_dir="20261127T032000Z"))
        )
        await until(pilot, lambda: cell_text(app, "layernorm_gated", "kernel").endswith("·run"), timeout=10)
        await until(pilot, lambda: "running" not in str(line.render()))
        assert "2 of 15 re-measured since 03:10" in str(line.render())
        assert cell_text(app, "softmax_online_fused", "kernel") == "softmax_online_fused ·run"


def test_the_run_mark_is_added_to_a_new_cell_not_to_the_shared_one() -> None:
    from ptotui.app.widgets.table_columns import RowContext, _name
    from ptotui.model.types import Kernel

    kernel = Kernel(name="tile_softmax", from_run="20261127T031000Z")
    assert _name(kernel, RowContext()).plain == _name(kernel, RowContext()).plain == "tile_softmax ·run"
    assert _name(Kernel(name="tile_softmax"), RowContext()).plain == "tile_softmax"


async def test_a_landed_run_that_blocks_pto_notifies_rings_and_runs_the_hook(
    sample_location: Location, tmp_path: Path
) -> None:
    out = tmp_path / "hook.json"
    app = build(sample_location, on_regression=f"cat > {out}")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        write_run(
            sample_location.bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, None)], pto_status="blocked"
        )
        await until(pilot, lambda: out.exists() and out.read_text().endswith("\n"), timeout=10)
        payload = json.loads(out.read_text())
        assert {c["kernel"] for c in payload["changes"]} == {"layernorm_gated"} and payload["regressions"] >= 1
        assert rings == [1]
        assert app.session.marks.get("layernorm_gated") == -1


async def test_runs_already_there_at_start_are_the_starting_state_not_a_regression(sample_location: Location) -> None:
    write_run(sample_location.bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, None)], pto_status="blocked")
    app = build(sample_location)
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.main.reports.by_name()["layernorm_gated"].from_run is not None)
        await pilot.pause(0.3)
        assert rings == []  # (its Δ mark against the last snapshot is another matter: it did get worse)
        assert not [c for c in app.main.reports.changes or [] if c.kernel == "layernorm_gated"]


async def test_the_dashboard_of_a_tree_with_runs_and_no_summary_shows_the_runs(tmp_path: Path) -> None:
    from ptotui.model.location import locate

    bench = tmp_path / "checkout" / "bench"
    write_run(bench, "norm", "tile_softmax", "20261120T010000Z", [(0.2, 0.2), (0.3, 0.4)])
    write_run(bench, "mc", "ring_shuffle", "20261120T011000Z", [(None, 0.5)], baseline_status="blocked")
    app = build(locate(tmp_path / "checkout"), clock=lambda: stamp_seconds("20261120T012000Z"))
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.main.reports is not None and len(app.main.reports.kernels) == 2)
        await until(pilot, lambda: table(app).row_count == 2)
        assert cell_text(app, "tile_softmax", "kernel") == "tile_softmax ·run"
        assert cell_text(app, "tile_softmax", "tier").strip() == "HIGH"
        assert cell_text(app, "ring_shuffle", "tier").strip() == "BASELINE-BLOCKED"
        header = str(app.main.query_one("#header").render())
        assert "no summary yet" in header and "gen n/a" not in header
        # The bench-run line is drawn on the refresh after the rows (a race the suite lost under load).
        await until(pilot, lambda: bool(str(app.main.query_one("#benchrun").render())))
        line = str(app.main.query_one("#benchrun").render())
        assert "2 kernels from their runs (no summary yet) since 01:00" in line
