"""The bench run as it happens: the running kernel, each finished kernel's new state, the summary winning."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from ptotui.model.bench.benchrun import BenchRun, apply_runs, durations, stall_after, status_parts
from ptotui.model.bench.record import stamp_seconds
from ptotui.model.bench.runs import RunsReader
from ptotui.model.live.pipeline import Shown, reload_reports
from ptotui.model.live.source import StableSource
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from tests import runtree
from tests.runtree import write_run

SUMMARY_AT = "20261126T074512Z"  # the samples' regression_latest.json


def status_line(bench: BenchRun | None, now: float) -> str:
    """The status bar's run text as one string (the bar draws status_parts piece by piece)."""
    return "".join(text for text, _, _ in status_parts(bench, now))


def _running_dir(bench: Path, family: str, name: str, stamp: str) -> Path:
    run_dir = bench / "results" / family / name / stamp
    (run_dir / "v0").mkdir(parents=True)  # compiling: artifacts, no report.json yet
    return run_dir


def test_a_run_newer_than_the_summary_gives_the_kernel_its_state(sample_location: Location) -> None:
    bench = sample_location.bench
    before = load(sample_location).by_name()["layernorm_gated"]
    write_run(bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, None)], pto_status="blocked")
    write_run(bench, "norm", "rmsnorm_residual_add", "20261120T031000Z", [(0.1, 0.9)])  # older: the summary's
    reader = RunsReader(bench)
    log = reader.read()
    reports = load(sample_location)
    kernels, bench_run = apply_runs(reports.kernels, reports.generated_at, log, reader.kernel_of, reports.gaps)
    by_name = {k.name: k for k in kernels}
    after = by_name["layernorm_gated"]
    assert after.from_run == "20261127T031000Z" and after.pto_status == "blocked" and after.tier == "pto-blocked"
    assert after.klass == before.klass and after.gap_ids == before.gap_ids  # the state matrix's facts stay
    assert by_name["rmsnorm_residual_add"] is reports.by_name()["rmsnorm_residual_add"]
    assert (bench_run.remeasured, bench_run.total, bench_run.since) == (1, len(kernels), "20261127T031000Z")


def test_the_running_line_says_how_long_what_past_runs_took_and_how_many_were_remeasured(
    sample_location: Location,
) -> None:
    bench = sample_location.bench
    # Two earlier runs of ring kernel took 10 and 11 min (the next run's start bounds each).
    write_run(bench, "norm", "layernorm_gated", "20261120T010000Z", [(0.1, 0.2)])
    write_run(bench, "norm", "rmsnorm_residual_add", "20261120T011000Z", [(0.1, 0.2)])
    write_run(bench, "norm", "layernorm_gated", "20261121T010000Z", [(0.1, 0.2)])
    write_run(bench, "norm", "rmsnorm_residual_add", "20261121T011100Z", [(0.1, 0.2)])
    write_run(bench, "softmax", "softmax_online_fused", "20261127T031000Z", [(0.1, 0.2)])
    _running_dir(bench, "norm", "layernorm_gated", "20261127T032000Z")
    reader = RunsReader(bench)
    log = reader.read()
    reports = load(sample_location)
    _, bench_run = apply_runs(reports.kernels, reports.generated_at, log, reader.kernel_of, reports.gaps)
    [running] = bench_run.running
    assert running.last_runs_s == (600.0, 660.0)
    now = stamp_seconds("20261127T032412Z")
    assert status_line(bench_run, now) == (
        f"running layernorm_gated 4m12s (last runs 10–11 min) · 1 of {len(reports.kernels)} re-measured since 03:10"
    )
    later = stamp_seconds("20261127T032000Z") + stall_after(running.last_runs_s) + 1
    assert status_line(bench_run, later).startswith("stalled layernorm_gated: no report.json after 22m01s")


def test_old_run_directories_without_report_are_not_running(sample_location: Location) -> None:
    bench = sample_location.bench
    _running_dir(bench, "norm", "layernorm_gated", "20261101T000000Z")  # before the summary: died long ago
    write_run(bench, "norm", "rmsnorm_residual_add", "20261127T010000Z", [(0.1, 0.2)])
    _running_dir(bench, "norm", "rmsnorm_residual_add", "20261126T235000Z")  # a later run of it finished
    reader = RunsReader(bench)
    reports = load(sample_location)
    _, bench_run = apply_runs(reports.kernels, reports.generated_at, reader.read(), reader.kernel_of, {})
    assert bench_run.running == ()


def test_durations_are_bounded_by_the_next_start() -> None:
    from ptotui.model.bench.record import Run

    def run(kernel: str, started: str, finished: str) -> Run:
        return Run(kernel, "f", started, finished, "ok", "ok", 1, 1, 1, 1, 1, 1, 100, True, True, kernel + started)

    checkout = "20270101T000000Z"  # a fresh checkout's time for every file
    runs = [run("a", "20261127T031000Z", checkout), run("b", "20261127T032100Z", "20261127T032500Z")]
    runs.append(run("c", "20261127T090000Z", checkout))  # the next day's bench run: a pause, not a duration
    runs.append(run("d", "20261128T090000Z", checkout))  # the last: nothing bounds it
    took = durations(runs)
    assert took == {runs[0].path: 660.0, runs[1].path: 240.0}


def _reload(location: Location, source: StableSource, shown: Shown, reader: RunsReader):
    reports, shown = reload_reports(location, source, shown, runs=reader, force=True)
    return reports, shown


def test_a_landed_run_is_a_change_and_a_regression_like_a_summary_rewrite(sample_location: Location) -> None:
    bench = sample_location.bench
    source, reader = StableSource(delays=(), sleep=lambda s: None), RunsReader(bench)
    first, shown = _reload(sample_location, source, Shown(), reader)
    assert first.bench_run is not None and not first.bench_run.active
    write_run(bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, None)], pto_status="blocked")
    second, shown = _reload(sample_location, source, shown, reader)
    assert second.by_name()["layernorm_gated"].from_run == "20261127T031000Z"
    regressions = [c for c in second.changes if c.kernel == "layernorm_gated"]
    assert any(c.regression and c.kind in ("tier", "pto_status") for c in regressions)


def test_a_generated_copy_replaced_by_rmtree_and_copytree_never_flashes_the_kernel_as_gone(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", "20261127T031000Z", [(0.1, 0.2)])
    shutil.rmtree(bench / "results")  # only generated/ holds it
    reader = RunsReader(bench, monotonic=lambda: 100.0)
    assert [r.kernel for r in reader.read().runs] == ["tile_softmax"]
    shutil.rmtree(bench / "generated" / "norm" / "tile_softmax")  # the runner's rm -rf, before its copy
    assert [r.kernel for r in reader.read().runs] == ["tile_softmax"]


# -- the summary rewritten afterwards wins, and agrees -----------------------------------------


def test_the_rewritten_summary_agrees_with_what_the_runs_showed(tmp_path: Path) -> None:
    root = runtree.generator_root(tmp_path / "repo")
    bench = root / "bench"
    kernels = [("norm", "tile_softmax"), ("mc", "ring_shuffle"), ("index", "tile_gather")]
    runtree.specs(root, kernels)
    for family, name in kernels:  # the last bench run, and its summary
        write_run(bench, family, name, "20261120T010000Z", [(0.1, 0.2), (0.2, 0.3)])
    runtree.run_generator(root)
    data = json.loads((bench / "reports" / "regression_latest.json").read_text())
    data["generated_at"] = "20261120T020000Z"  # the generator stamps now; the runs below are later
    (bench / "reports" / "regression_latest.json").write_text(json.dumps(data))
    (bench / "reports" / "regression_latest.md").unlink()
    location = Location(bench / "reports", bench)
    source, reader = StableSource(delays=(), sleep=lambda s: None), RunsReader(bench)
    _, shown = _reload(location, source, Shown(), reader)
    write_run(bench, "norm", "tile_softmax", "20261127T031000Z", [(0.1, 0.4), (0.25, 0.3)])
    write_run(bench, "mc", "ring_shuffle", "20261127T032000Z", [(None, 0.5)], baseline_status="blocked")
    write_run(bench, "index", "tile_gather", "20261127T033000Z", [], pto_status="blocked", pto_reason="no lowering")
    during, shown = _reload(location, source, shown, reader)
    assert all(k.from_run for k in during.kernels)
    runtree.run_generator(root)
    after, shown = _reload(location, source, shown, reader)
    assert all(k.from_run is None for k in after.kernels)
    for kernel in after.kernels:
        run = during.by_name()[kernel.name]
        facts = ("baseline_status", "pto_status", "tier", "ratio_median_pct", "baseline_ms", "pto_ms", "pto_correct")
        assert {f: getattr(run, f) for f in facts} == pytest.approx({f: getattr(kernel, f) for f in facts}), kernel.name
        assert [(v.shape, v.ratio_pct) for v in run.variants] == [(v.shape, v.ratio_pct) for v in kernel.variants]
    assert after.changes == []  # nothing moved: only the mark goes


# -- on screen --------------------------------------------------------------------------------


def test_the_rescan_finds_a_new_run_directory_without_any_watch_on_it(sample_location: Location) -> None:
    """A run directory is made inside a kernel's directory, which nothing watches (--poll here):
    the rescan alone must bring the running kernel (it read the change, then skipped the reload)."""
    import threading

    from ptotui.model.live.watcher import ReportWatcher

    seen = threading.Event()
    loads = []

    def on_load(reports) -> None:
        loads.append(reports)
        if reports.bench_run is not None and reports.bench_run.running:
            seen.set()

    watcher = ReportWatcher(sample_location, on_load, poll=True, rescan=0.05)
    watcher.start()
    try:
        first = threading.Event()
        watcher_loaded = lambda: bool(loads)  # noqa: E731
        while not watcher_loaded():
            first.wait(0.02)
        _running_dir(sample_location.bench, "norm", "layernorm_gated", "20261127T032000Z")
        assert seen.wait(10), "the running kernel never came"
    finally:
        watcher.stop()


def test_a_run_that_lands_while_the_history_is_read_is_shown_before_the_history_ends(
    sample_location: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ptotui.model.live import watcher as live
    from ptotui.model.live.watcher import ReportWatcher

    monkeypatch.setattr(live, "HISTORY_SLICE_S", 0.0)  # a file a slice
    bench = sample_location.bench
    for day in range(1, 9):  # a history behind the newest run
        write_run(bench, "norm", "rmsnorm_residual_add", f"202611{day:02d}T031000Z", [(0.1, 0.9)])
    loads = []
    watcher = ReportWatcher(sample_location, loads.append, rescan=60.0)  # the loader's turns, taken here one by one
    watcher._reload(force=True, arm=False)  # noqa: SLF001 - the first rows, without the runs
    watcher._runs_ready = True  # noqa: SLF001 - as after the first frame
    watcher.mark_dirty()
    watcher._step()  # noqa: SLF001 - the load with the runs: each kernel's newest
    assert watcher.runs is not None and not watcher.runs.complete
    assert len(loads[-1].bench_run.runs.of("rmsnorm_residual_add")) == 1
    for _ in range(3):  # the first turn after a load may be the rescan's; then one file of the history
        watcher._step()  # noqa: SLF001
        history = len(loads[-1].bench_run.runs.of("rmsnorm_residual_add"))  # the live view
        if history > 1:
            break
    write_run(bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, None)], pto_status="blocked")
    watcher.mark_dirty()  # the family directory's event
    count = len(loads)
    watcher._step()  # noqa: SLF001 - the next turn loads it, before any more of the history
    assert len(loads) == count + 1 and loads[-1].by_name()["layernorm_gated"].from_run == "20261127T031000Z"
    assert not watcher.runs.complete and len(loads[-1].bench_run.runs.of("rmsnorm_residual_add")) == history == 2
    for _ in range(20):
        if watcher.runs.complete:
            break
        watcher._step()  # noqa: SLF001
    assert watcher.runs.complete and len(loads) == count + 1  # the history read: it asks for one load
    watcher._step()  # noqa: SLF001
    assert len(loads) == count + 2 and len(loads[-1].bench_run.runs.of("rmsnorm_residual_add")) == 8


def test_the_loader_looks_at_the_run_directories_once_a_turn(
    sample_location: Location, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ptotui.model.live.watcher import ReportWatcher

    loads = []
    watcher = ReportWatcher(sample_location, loads.append, rescan=0.0)  # every turn is the rescan's
    watcher._reload(force=True, arm=False)  # noqa: SLF001 - the first rows
    watcher._runs_ready = True  # noqa: SLF001
    watcher.mark_dirty()
    watcher._step()  # noqa: SLF001 - the load with the runs
    reads = []
    assert watcher.runs is not None
    real = watcher.runs.read
    monkeypatch.setattr(watcher.runs, "read", lambda *a, **k: (reads.append(1), real(*a, **k))[1])
    write_run(sample_location.bench, "norm", "layernorm_gated", "20261127T031000Z", [(0.1, 0.2)])
    count = len(loads)
    for _ in range(3):  # the first turn may read the history instead
        watcher._step()  # noqa: SLF001
        if len(loads) > count:
            break
    assert len(loads) == count + 1 and loads[-1].by_name()["layernorm_gated"].from_run == "20261127T031000Z"
    assert len(reads) == 1  # the rescan's look, used by the load it started (was three: 10,000 directories each)


def test_a_future_run_stamp_is_no_longer_new_once_the_summary_was_written_after_its_report(
    sample_location: Location,
) -> None:
    bench = sample_location.bench
    summary_s = stamp_seconds(SUMMARY_AT)
    future = write_run(bench, "norm", "layernorm_gated", "20991231T000000Z", [(0.1, None)], pto_status="blocked")
    os.utime(future, (summary_s - 60, summary_s - 60))  # its report.json was written before the summary
    landed = write_run(bench, "softmax", "softmax_online_fused", "20261127T031000Z", [(0.1, 0.2)])
    os.utime(landed, (summary_s + 7200, summary_s + 7200))  # after the summary: new
    reader = RunsReader(bench, generated=False)
    reports = load(sample_location)
    kernels, bench_run = apply_runs(reports.kernels, reports.generated_at, reader.read(), reader.kernel_of, {})
    by_name = {k.name: k for k in kernels}
    assert by_name["layernorm_gated"].from_run is None and by_name["layernorm_gated"].pto_status != "blocked"
    assert by_name["softmax_online_fused"].from_run == "20261127T031000Z"
    assert (bench_run.remeasured, bench_run.since) == (1, "20261127T031000Z")


def _remeasured(sample_location: Location, stamps: list[str]):
    bench = sample_location.bench
    for stamp, (family, name) in zip(
        stamps,
        [("norm", "layernorm_gated"), ("softmax", "softmax_online_fused"), ("norm", "rmsnorm_residual_add")],
        strict=False,
    ):
        write_run(bench, family, name, stamp, [(0.1, 0.2)])
    reader = RunsReader(bench, generated=False)
    reports = load(sample_location)
    return apply_runs(reports.kernels, reports.generated_at, reader.read(), reader.kernel_of, {})[1]


def test_runs_of_one_evening_after_the_summary_say_the_time_only(sample_location: Location) -> None:
    bench_run = _remeasured(sample_location, ["20261126T081000Z", "20261126T083000Z"])
    line = status_line(bench_run, stamp_seconds("20261126T084000Z"))
    assert line == f"2 of {bench_run.total} re-measured since 08:10"


def test_runs_days_after_the_summary_say_their_dates_and_are_not_under_way(sample_location: Location) -> None:
    # The summary of 2026-11-26 07:45, runs from that day to nine days later (a fallback to an older
    # summary): not one bench run, and months later nothing of it runs.
    bench_run = _remeasured(sample_location, ["20261126T081000Z", "20261201T100000Z", "20261205T024000Z"])
    months_later = status_line(bench_run, stamp_seconds("20270310T120000Z"))
    assert "re-measured since" not in months_later and "08:10" not in months_later
    assert months_later == f"3 of {bench_run.total} from runs newer than the summary, 2026-11-26 to 2026-12-05"
    # Right after the last of them (a run may still follow): re-measured, but with the date.
    soon = status_line(bench_run, stamp_seconds("20261205T030000Z"))
    assert soon == f"3 of {bench_run.total} re-measured since 2026-11-26 08:10"


def test_a_finished_bench_run_long_ago_is_not_under_way(sample_location: Location) -> None:
    bench_run = _remeasured(sample_location, ["20261126T081000Z", "20261126T083000Z"])
    line = status_line(bench_run, stamp_seconds("20261126T083000Z") + 30 * 86400)
    assert line == f"2 of {bench_run.total} from runs newer than the summary, 2026-11-26"


def test_with_no_summary_yet_the_kernels_come_from_their_newest_runs(tmp_path: Path) -> None:
    """Issue 33 (2): bench/results and no bench/reports (the first bench run on a new host)."""
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", "20261120T010000Z", [(0.1, 0.9)])
    write_run(bench, "norm", "tile_softmax", "20261120T020000Z", [(0.2, 0.2), (0.3, 0.4)])  # the newest
    write_run(bench, "mc", "ring_shuffle", "20261120T011000Z", [(None, 0.5)], baseline_status="blocked")
    write_run(bench, "index", "tile_gather", "20261120T012000Z", [], pto_status="blocked", pto_reason="no lowering")
    location = Location(bench / "reports", bench)
    reader = RunsReader(bench)
    reports = load(location)
    assert reports.kernels == []
    kernels, bench_run = apply_runs(reports.kernels, reports.generated_at, reader.read(), reader.kernel_of, {})
    by_name = {k.name: k for k in kernels}
    assert sorted(by_name) == ["ring_shuffle", "tile_gather", "tile_softmax"]
    assert by_name["tile_softmax"].from_run == "20261120T020000Z" and by_name["tile_softmax"].tier == "high"
    assert by_name["tile_softmax"].ratio_median_pct == pytest.approx(87.5)
    assert by_name["ring_shuffle"].tier == "baseline-blocked" and by_name["tile_gather"].tier == "pto-blocked"
    assert bench_run.no_summary and (bench_run.remeasured, bench_run.total) == (3, 3)
    line = status_line(bench_run, stamp_seconds("20261120T021000Z"))
    assert line == "3 kernels from their runs (no summary yet) since 01:10"
    later = status_line(bench_run, stamp_seconds("20270101T000000Z"))
    assert later == "3 kernels from their runs (no summary yet), 2026-11-20"


def test_a_tree_with_runs_and_no_reports_resolves_to_its_bench_directory(tmp_path: Path) -> None:
    from ptotui.model.location import locate

    bench = tmp_path / "checkout" / "bench"
    write_run(bench, "norm", "tile_softmax", "20261120T010000Z", [(0.1, 0.2)])
    for path in (tmp_path / "checkout", bench):
        assert locate(path) == Location(bench / "reports", bench)
    assert locate(None, cwd=tmp_path / "checkout") == Location(bench / "reports", bench)


# -- issue 40: a run stamped in the future ------------------------------------------------

NOW = stamp_seconds("20261127T040000Z")  # the tests' own "now": an hour after the real run below


@pytest.mark.parametrize("future_copied_last", [False, True], ids=["real-run-copied-last", "future-copied-last"])
def test_a_run_stamped_in_the_future_is_warned_and_never_the_newest(
    sample_location: Location, future_copied_last: bool
) -> None:
    """Issue 40: a run stamped 20991231T235959Z (PTO ok) beside a real later run with PTO blocked:
    the row stayed ``MID ·run ok`` and line 2 said ``since 23:59``."""
    bench = sample_location.bench
    runs = [
        ("20991231T235959Z", {}),
        ("20261127T031000Z", {"pto_status": "blocked"}),
    ]
    for stamp, kwargs in reversed(runs) if future_copied_last else runs:  # the last one is in generated/
        write_run(bench, "norm", "layernorm_gated", stamp, [(0.1, None)], **kwargs)
    reader = RunsReader(bench, clock=lambda: NOW)
    log = reader.read()
    reports = load(sample_location)
    kernels, bench_run = apply_runs(reports.kernels, reports.generated_at, log, reader.kernel_of, reports.gaps)
    kernel = {k.name: k for k in kernels}["layernorm_gated"]
    assert (kernel.from_run, kernel.pto_status) == ("20261127T031000Z", "blocked")
    assert bench_run is not None and bench_run.since == "20261127T031000Z"
    assert "20991231T235959Z" not in {run.started for run in log.runs}
    future = [w for w in log.warnings if "20991231T235959Z" in w.message or "20991231T235959Z" in w.file]
    assert len(future) == 1 and "more than a day after this machine's clock" in future[0].message
    assert future[0].file.endswith("layernorm_gated") or future[0].file.endswith("report.json")
    assert reader.read().warnings == log.warnings  # the same one warning at the next read, not a second


def test_a_stamp_within_a_day_of_the_clock_is_a_run_and_a_later_clock_takes_the_future_one(
    sample_location: Location,
) -> None:
    bench = sample_location.bench
    write_run(bench, "norm", "layernorm_gated", "20261128T030000Z", [(0.1, None)], pto_status="blocked")
    now = [NOW]
    reader = RunsReader(bench, clock=lambda: now[0])
    assert [r.started for r in reader.read().runs.of("layernorm_gated")] == ["20261128T030000Z"]  # 23 h ahead
    write_run(bench, "norm", "layernorm_gated", "20261201T000000Z", [(0.1, None)])
    assert [r.started for r in reader.read().runs.of("layernorm_gated")] == ["20261128T030000Z"]
    now[0] = stamp_seconds("20261130T010000Z")  # the clock caught up: the directory is listed again
    assert [r.started for r in reader.read().runs.of("layernorm_gated")][-1] == "20261201T000000Z"


def test_a_generated_copy_of_a_future_run_whose_directory_is_gone_is_warned_and_not_a_run(
    sample_location: Location,
) -> None:
    bench = sample_location.bench
    write_run(bench, "norm", "layernorm_gated", "20991231T235959Z", [(0.1, None)])
    shutil.rmtree(bench / "results" / "norm" / "layernorm_gated" / "20991231T235959Z")
    log = RunsReader(bench, clock=lambda: NOW).read()
    assert not list(log.runs.of("layernorm_gated"))
    (warning,) = [w for w in log.warnings if "20991231T235959Z" in w.message]
    assert warning.file.endswith("generated/norm/layernorm_gated/report.json")
