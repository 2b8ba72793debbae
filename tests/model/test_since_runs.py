"""Regressions since a state-matrix snapshot, told by the side that moved from the bench runs.

A state-matrix snapshot has ratio ranges only; the runs at or before its stamp give it the
per-shape latencies, so a ratio that fell because the baseline got faster is not counted.
"""

from __future__ import annotations

from pathlib import Path

from ptotui.model.bench.record import read_run
from ptotui.model.bench.runs import read_runs
from ptotui.model.core.diff import baseline_kernels, regressed_kernels
from ptotui.model.core.noise import no_noise
from ptotui.model.core.tiers import Thresholds, classify
from ptotui.model.history.since import runs_at, since_snapshot
from ptotui.model.history.snapshots import History, Point
from ptotui.model.types import Kernel, ReportSet
from tests import runtree
from tests.runtree import write_run

SNAPSHOT = "20261110T120000Z"
SHAPES_BEFORE = [(1.0, 2.0), (2.0, 4.0), (4.0, 8.0)]  # 50% on every shape


def _point(stamp: str, low: float, high: float) -> Point:
    return Point(
        stamp=stamp,
        tier="mid",
        ratio_min_pct=low,
        ratio_max_pct=high,
        ratio_median_pct=(low + high) / 2,
        baseline_status="ok",
        pto_status="ok",
        klass="tile-first",
    )


def _current(bench: Path, name: str) -> Kernel:
    """The kernel as the summary now gives it: the newest run's report, by the summary's rules."""
    run = read_runs(bench)
    newest = [r for r in run.runs if r.kernel == name][-1]
    kernel = read_run(Path(newest.path), "norm", name, newest.started)[1]
    return classify(kernel, {}, Thresholds())


def _tree(tmp_path: Path, after: list[tuple[float | None, float | None]]) -> tuple[History, ReportSet, Path]:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "rmsnorm_tiled", "20261110T110000Z", SHAPES_BEFORE)  # what the snapshot showed
    write_run(bench, "norm", "rmsnorm_tiled", "20261120T110000Z", after)
    history = History([SNAPSHOT], {"rmsnorm_tiled": [_point(SNAPSHOT, 50.0, 50.0)]}, [], [])
    current = ReportSet(source="now", generated_at="20261121T000000Z", kernels=[_current(bench, "rmsnorm_tiled")])
    return history, current, bench


def test_a_baseline_speed_up_since_the_snapshot_is_shown_not_counted(tmp_path: Path) -> None:
    # The baseline 40% faster, PTO unchanged: the ratio falls from 50% to 30%, a tier lost.
    history, current, bench = _tree(tmp_path, [(0.6, 2.0), (1.2, 4.0), (2.4, 8.0)])
    plain = since_snapshot(history, current, noise=no_noise())
    assert regressed_kernels(plain.changes) == ["rmsnorm_tiled"]  # ranges only: the old rule, cause unknown
    assert {c.cause for c in plain.changes if c.kind in ("ratio", "tier")} == {"unknown"}
    since = since_snapshot(history, current, noise=no_noise(), runs_at=runs_at(read_runs(bench).runs))
    assert since.regressions == 0 and regressed_kernels(since.changes) == []
    assert baseline_kernels(since.changes) == ["rmsnorm_tiled"]
    ratio = next(c for c in since.changes if c.kind in ("ratio", "tier"))
    assert ratio.cause == "baseline-faster"


def test_a_pto_slowdown_since_the_snapshot_is_counted(tmp_path: Path) -> None:
    history, current, bench = _tree(tmp_path, [(1.0, 3.0), (2.0, 6.0), (4.0, 12.0)])  # PTO 50% slower
    since = since_snapshot(history, current, noise=no_noise(), runs_at=runs_at(read_runs(bench).runs))
    assert since.regressions == 1
    assert {c.cause for c in since.changes if c.kind in ("ratio", "tier")} == {"pto-slower"}


def test_a_run_whose_statuses_are_not_the_snapshots_leaves_it_ranges_only(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "rmsnorm_tiled", "20261110T110000Z", SHAPES_BEFORE, pto_status="blocked")
    lookup = runs_at(read_runs(bench).runs)
    history = History([SNAPSHOT], {"rmsnorm_tiled": [_point(SNAPSHOT, 50.0, 50.0)]}, [], [])
    current = Kernel("rmsnorm_tiled", baseline_status="ok", pto_status="ok")
    current.tier, current.ratio_min_pct, current.ratio_max_pct, current.ratio_median_pct = "slow", 20.0, 20.0, 20.0
    since = since_snapshot(history, ReportSet(source="now", kernels=[current]), runs_at=lookup)
    assert {c.cause for c in since.changes if c.kind in ("ratio", "tier")} == {"unknown"}
    assert lookup("rmsnorm_tiled", "20261101T000000Z") is None  # no run that early


def test_real_tree_since_the_snapshot_counts_what_pto_did(tmp_path: Path) -> None:
    """8582eec: 13 "regressions" since 20260314T170132Z by the ranges, 5 by the side that moved."""
    from ptotui.model.bench.noisedata import bench_noise
    from ptotui.model.history.since import latest_state
    from ptotui.model.history.snapshots import read_history
    from ptotui.model.location import Location
    from ptotui.model.read.loader import load

    # The runs' code (.cpp, .pto, .so: 85 MB of the tree's 130) plays no part in the verdict.
    code = [f":(exclude,glob)bench/**/*.{kind}" for kind in ("cpp", "pto", "so")]
    root = runtree.extract(tmp_path / "real", "bench", *code)
    bench = root / "bench"
    location, thresholds = Location(bench / "reports", bench), Thresholds()
    reports = load(location, thresholds)
    history, state = read_history(location, thresholds), latest_state(location, thresholds)
    ranges = since_snapshot(history, reports, latest_state=state)
    assert ranges.stamp == "20260314T170132Z" and ranges.regressions == 13
    noise = bench_noise(location, reports.kernels)[0]
    since = since_snapshot(history, reports, latest_state=state, noise=noise, runs_at=runs_at(read_runs(bench).runs))
    regressed = set(regressed_kernels(since.changes))
    assert {"moe_compute_expert_tokens", "moe_init_routing", "ring_attention_update"} <= regressed
    assert not regressed & {"grouped_matmul", "moe_token_unpermute_grad", "interleave_rope"}
    assert {"grouped_matmul", "moe_token_unpermute_grad"} <= set(baseline_kernels(since.changes))
    assert len(regressed) < ranges.regressions
