"""The run directories of a bench run: records, incremental reading, bad input, the generator's rules."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ptotui.model.bench import runs as runs_model
from ptotui.model.bench.record import kernel_of_report, summary_record
from ptotui.model.bench.runs import RunsReader, read_runs
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from tests import runtree
from tests.runtree import make_report, write_run

S1, S2, S3 = "20260401T010000Z", "20260401T011500Z", "20260401T013000Z"


def test_a_run_record_is_the_median_over_shapes_of_per_shape_medians(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.10, 0.20), (0.30, 0.40), (0.50, 1.00)])
    log = read_runs(bench)
    [run] = log.runs
    assert (run.kernel, run.family, run.started) == ("tile_softmax", "norm", S1)
    assert run.baseline_ms == pytest.approx(0.30) and run.pto_ms == pytest.approx(0.40)
    assert (run.baseline_min_ms, run.baseline_max_ms) == (pytest.approx(0.10), pytest.approx(0.50))
    assert (run.pto_min_ms, run.pto_max_ms) == (pytest.approx(0.20), pytest.approx(1.00))
    assert run.ratio_pct == pytest.approx(50.0)  # the per-shape ratios are 50%, 75% and 50%
    assert run.baseline_status == run.pto_status == "ok"
    assert run.baseline_correct is True and run.pto_correct is True
    assert run.finished is not None and len(run.finished) == 16
    assert run.path.endswith(f"results/norm/tile_softmax/{S1}/report.json")


def test_shapes_are_matched_by_variant_not_by_position(tmp_path: Path) -> None:
    report = make_report("tile_gather", "index", [(0.2, 0.4), (0.3, 0.3)])
    report["pto"]["benchmark"]["variant_reports"].reverse()
    kernel = kernel_of_report(report, "tile_gather", "index", "x/report.json")
    assert [v.ratio_pct for v in kernel.variants] == [pytest.approx(50.0), pytest.approx(100.0)]


def test_a_blocked_side_has_no_latency_and_no_ratio(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "mc", "ring_shuffle", S1, [(None, 0.5)], baseline_status="blocked")
    [run] = read_runs(bench).runs
    assert run.baseline_status == "blocked" and run.baseline_ms is None and run.ratio_pct is None
    assert run.pto_ms == pytest.approx(0.5)


def test_a_run_directory_without_report_is_pending(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)])
    (bench / "results" / "norm" / "tile_softmax" / S2 / "v0").mkdir(parents=True)
    log = read_runs(bench)
    assert [r.started for r in log.runs] == [S1]
    assert [(p.kernel, p.started) for p in log.pending] == [("tile_softmax", S2)]


def test_reading_again_reads_only_new_run_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = tmp_path / "bench"
    for index in range(5):
        write_run(bench, "norm", f"k{index}", S1, [(0.1, 0.2)])
    reader = RunsReader(bench)
    assert len(reader.read().landed) == 5
    reads: list[Path] = []
    real = runs_model.read_run
    monkeypatch.setattr(runs_model, "read_run", lambda path, *a, **k: (reads.append(path), real(path, *a, **k))[1])
    assert reader.read().landed == [] and reads == []
    run_dir = bench / "results" / "norm" / "k3" / S2
    run_dir.mkdir()
    log = reader.read()
    assert reads == [] and [(p.kernel, p.started) for p in log.pending] == [("k3", S2)]
    (run_dir / "report.json").write_text(json.dumps(make_report("k3", "norm", [(0.1, 0.25)])), encoding="utf-8")
    log = reader.read()
    assert reads == [str(run_dir / "report.json")]
    assert [(r.kernel, r.started) for r in log.landed] == [("k3", S2)] and log.pending == []
    assert len(log.runs) == 6


def test_a_half_written_report_is_named_then_read_once_complete(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    run_dir = bench / "results" / "norm" / "tile_softmax" / S1
    run_dir.mkdir(parents=True)
    text = json.dumps(make_report("tile_softmax", "norm", [(0.1, 0.2)]))
    (run_dir / "report.json").write_text(text[: len(text) // 2], encoding="utf-8")
    reader = RunsReader(bench)
    log = reader.read()
    assert log.runs == [] and log.pending == []
    [warning] = log.warnings
    assert warning.file.endswith("report.json") and "truncated" in warning.message
    assert reader.read().warnings == [warning]  # the same file: the same one warning, not read again
    (run_dir / "report.json").write_text(text, encoding="utf-8")
    log = reader.read()
    assert log.warnings == [] and [r.started for r in log.landed] == [S1]


def test_bad_entries_get_one_warning_each_and_the_rest_reads(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "good", S1, [(0.1, 0.2)])
    kernel = bench / "results" / "norm" / "odd"
    (kernel / "debug_probe").mkdir(parents=True)
    (kernel / S1).mkdir()
    os.mkfifo(kernel / S1 / "report.json")
    (kernel / S2).mkdir()
    (kernel / S2 / "report.json").symlink_to("/dev/zero")
    (kernel / S3).symlink_to(bench / "results" / "norm" / "good" / S1)
    (kernel / "20260401T014500Z").mkdir()
    (kernel / "20260401T014500Z" / "report.json").write_text("[1, 2]", encoding="utf-8")
    (bench / "results" / "linked").symlink_to(bench / "results" / "norm")
    log = read_runs(bench)
    assert [r.kernel for r in log.runs] == ["good"]
    by_file = {Path(w.file).relative_to(bench / "results").as_posix(): w.message for w in log.warnings}
    assert set(by_file) == {
        "linked",
        "norm/odd",
        f"norm/odd/{S1}/report.json",
        f"norm/odd/{S2}/report.json",
        f"norm/odd/{S3}",
        "norm/odd/20260401T014500Z/report.json",
    }
    assert "FIFO" in by_file[f"norm/odd/{S1}/report.json"]
    assert "symlink" in by_file[f"norm/odd/{S2}/report.json"] and "symlink" in by_file[f"norm/odd/{S3}"]
    assert "expected a JSON object" in by_file["norm/odd/20260401T014500Z/report.json"]
    assert "YYYYMMDDTHHMMSSZ" in by_file["norm/odd"] and "debug_probe" in by_file["norm/odd"]


def test_an_oversized_report_and_an_unreadable_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = tmp_path / "bench"
    big = write_run(bench, "norm", "big", S1, [(0.1, 0.2)])
    write_run(bench, "norm", "small", S1, [(0.1, 0.2)])
    locked = bench / "results" / "mc" / "locked"
    locked.mkdir(parents=True)
    real_scandir = os.scandir

    def scandir(path):  # root reads any directory: refuse this one as a locked one would be
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(runs_model.os, "scandir", scandir)
    small = (bench / "results" / "norm" / "small" / S1 / "report.json").stat().st_size
    from ptotui.model.read import safefile

    monkeypatch.setattr(safefile, "_max_bytes", small)  # the cap --max-file-mb sets
    big.write_text(big.read_text() + " " * 64, encoding="utf-8")
    log = RunsReader(bench, generated=False).read()
    assert [r.kernel for r in log.runs] == ["small"]
    messages = {Path(w.file).name if w.file.endswith("json") else w.file: w.message for w in log.warnings}
    assert "cap" in messages["report.json"]
    assert "Permission denied" in messages[str(locked)]


def test_a_kernel_only_generated_holds_is_a_run_too(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)])
    write_run(bench, "norm", "tile_softmax", S2, [(0.1, 0.25)])
    write_run(bench, "norm", "tile_norm", S3, [(0.1, 0.4)])
    import shutil

    shutil.rmtree(bench / "results" / "norm" / "tile_norm")  # results not kept: generated still has the latest
    log = read_runs(bench)
    assert [(r.kernel, r.started) for r in log.runs] == [("tile_softmax", S1), ("tile_softmax", S2), ("tile_norm", S3)]
    assert "/generated/norm/tile_norm/" in log.runs[-1].path


# -- against the real summary generator ------------------------------------------------------


def _by_shape(kernel) -> dict[str, tuple]:
    return {
        json.dumps(v.shape, sort_keys=True): (
            v.baseline_status,
            v.pto_status,
            v.baseline_ms,
            v.pto_ms,
            None if v.ratio_pct is None else round(v.ratio_pct, 9),
            v.baseline_correct,
            v.pto_correct,
        )
        for v in kernel.variants
    }


def _agree(root: Path, kernels: list[tuple[str, str]]) -> int:
    """Run the generator on ``root`` and compare each kernel it writes with the one its run gives."""
    runtree.run_generator(root)
    location = Location(root / "bench" / "reports", root / "bench")
    summary = load(location).by_name()
    checked = 0
    for family, name in kernels:
        path = root / "bench" / "generated" / family / name / "report.json"
        mine = kernel_of_report(json.loads(path.read_text()), name, family, str(path))
        theirs = summary[name]
        assert (mine.baseline_status, mine.pto_status) == (theirs.baseline_status, theirs.pto_status), name
        assert _by_shape(mine) == _by_shape(theirs), name
        assert mine.baseline_correct == theirs.baseline_correct and mine.pto_correct == theirs.pto_correct, name
        checked += 1
    return checked


def test_runs_give_what_the_real_generator_writes_for_invented_runs(tmp_path: Path) -> None:
    root = runtree.generator_root(tmp_path / "repo")
    bench = root / "bench"
    kernels = [("norm", "tile_softmax"), ("mc", "ring_shuffle"), ("index", "tile_gather"), ("norm", "wrong_sum")]
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2), (0.3, 0.3)])
    write_run(bench, "mc", "ring_shuffle", S1, [(None, 0.5)], baseline_status="blocked")
    write_run(bench, "index", "tile_gather", S1, [], pto_status="blocked", pto_reason="[ERROR] no lowering")
    write_run(bench, "norm", "wrong_sum", S1, [(0.1, 0.1)], pto_passes=False)
    runtree.specs(root, kernels)
    assert _agree(root, kernels) == 4


def test_runs_give_what_the_real_generator_writes_on_the_real_tree(tmp_path: Path) -> None:
    root = runtree.generator_root(tmp_path / "repo")
    runtree.extract(root, "bench/regression_kernels.yaml", "bench/specs", ":(glob)bench/generated/**/report.json")
    specs = [line[2:].strip() for line in (root / "bench" / "regression_kernels.yaml").read_text().splitlines()]
    import yaml

    kernels = []
    for spec in specs:
        data = yaml.safe_load((root / spec).read_text())
        kernels.append((data["family"], data["name"]))
    assert _agree(root, kernels) == len(kernels) >= 40


def test_the_real_tree_has_405_runs_in_results(tmp_path: Path) -> None:
    bench = runtree.extract(tmp_path, ":(glob)bench/results/**/report.json") / "bench"
    log = RunsReader(bench).read()
    assert len(log.runs) == 405
    counts: dict[str, int] = {}
    for run in log.runs:
        counts[run.kernel] = counts.get(run.kernel, 0) + 1
    assert (counts["grouped_matmul"], counts["apply_rotary_pos_emb"], counts["ffn"]) == (59, 43, 41)
    assert counts["flash_attention_score"] == 38


def test_summary_record_never_raises_on_wrong_shapes() -> None:
    for report in ({}, {"baseline": []}, {"baseline": {"benchmark": {"variant_reports": [1, None, {"variant": [1]}]}}}):
        record = summary_record(report, "k", None, "p")
        assert record["variants"]


# -- the history behind the newest runs, and how it is held ------------------------------------

STAMPS = [f"202604{day:02d}T010000Z" for day in range(1, 6)]


def _five_runs(bench: Path, kernels: tuple[str, ...] = ("k0", "k1")) -> None:
    for name in kernels:
        for number, stamp in enumerate(STAMPS):
            write_run(bench, "norm", name, stamp, [(0.1, 0.2 + number / 100)])


def test_the_dashboard_holds_past_runs_figures_as_4_byte_floats_and_the_kernel_as_read(tmp_path: Path) -> None:
    """Half the memory of the history: what a chart shows (7 digits); `ptotui runs` is exact."""
    import struct

    bench = tmp_path / "bench"
    _five_runs(bench, ("k0",))
    exact = RunsReader(bench, generated=False).read().runs.of("k0")
    lean = RunsReader(bench, generated=False, precise=False)
    held = lean.read().runs.of("k0")
    assert [r.pto_ms for r in exact] == [0.2 + n / 100 for n in range(5)]
    assert [r.pto_ms for r in held] == [struct.unpack("f", struct.pack("f", r.pto_ms))[0] for r in exact]
    assert [r.pto_ms for r in held] == pytest.approx([r.pto_ms for r in exact], rel=1e-7)
    kernel = lean.kernel_of(held[-1])
    assert kernel is not None and kernel.variants[0].pto_ms == 0.2 + 4 / 100  # the newest run's kernel: as read


def test_the_newest_run_of_each_kernel_first_then_the_history_a_budget_at_a_time(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _five_runs(bench)
    ticks = iter(range(1000))
    reader = RunsReader(bench, generated=False, monotonic=lambda: float(next(ticks)))
    log = reader.read(history=False)
    assert [(r.kernel, r.started) for r in log.runs] == [("k0", STAMPS[-1]), ("k1", STAMPS[-1])]
    assert not log.complete and not reader.complete
    live, version = reader.live(), reader.version
    assert reader.read_history(2.5) is False  # the clock moves one a look: about two files
    assert 2 < len(live) < 10 and len(log.runs) == 2  # the live view shows them; a read's own view does not move
    assert reader.read_history(None) is True and reader.complete
    assert [r.started for r in live.of("k0")] == STAMPS and len(live) == 10
    again = reader.read(history=False)
    assert reader.version == version + 1 and again.complete and len(again.runs) == 10  # completing it is a change
    assert again.landed == []  # the history is no landing


@pytest.mark.slow
def test_a_read_holds_runs_as_columns_not_one_object_each(tmp_path: Path) -> None:
    import gc

    from ptotui.model.bench.record import Run

    def alive() -> int:
        gc.collect()
        return sum(isinstance(o, Run) for o in gc.get_objects())

    bench = tmp_path / "bench"
    _five_runs(bench, tuple(f"k{i}" for i in range(10)))
    before = alive()
    reader = RunsReader(bench, generated=False)
    log = reader.read()
    assert len(log.runs) == 50
    del log
    assert alive() == before  # made when asked for, not kept
    assert len(reader.live().of("k3")) == 5


def test_the_kernel_of_a_newest_run_older_than_the_summary_is_read_again_when_asked(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _five_runs(bench, ("k0",))
    write_run(bench, "norm", "k1", "20260501T010000Z", [(0.1, 0.5)])
    reader = RunsReader(bench, generated=False)
    reader.keep_after = "20260420T000000Z"  # the summary's stamp: k0's runs are all older
    newest = reader.read().runs.newest()
    assert set(reader._by_path) == {newest["k1"].path}  # only the run newer than the summary is kept
    kernel = reader.kernel_of(newest["k0"])
    assert kernel is not None and kernel.name == "k0" and kernel.variants[0].pto_ms == pytest.approx(0.24)
    assert reader.kernel_of(reader.live().of("k0")[0]) is None  # not a newest run


def test_kernels_read_before_the_summary_stamp_was_known_are_let_go_once_it_is(tmp_path: Path) -> None:
    """The loader reads the runs once before the first load that has them: each kernel's
    newest run is kept then (no stamp yet); the summary's stamp lets go of those not newer."""
    bench = tmp_path / "bench"
    _five_runs(bench, ("k0",))
    write_run(bench, "norm", "k1", "20260501T010000Z", [(0.1, 0.5)])
    reader = RunsReader(bench, generated=False)
    newest = reader.read().runs.newest()
    assert set(reader._by_path) == {newest["k0"].path, newest["k1"].path}
    reader.keep_after = "20260420T000000Z"
    assert set(reader._by_path) == {newest["k1"].path}
    kernel = reader.kernel_of(newest["k0"])  # asked for again: read from its report.json
    assert kernel is not None and kernel.variants[0].pto_ms == pytest.approx(0.24)
    assert reader.kernel_of(newest["k1"]) is reader.kernel_of(newest["k1"])  # the kept one, not read again


def test_a_view_finds_the_run_at_a_stamp_and_the_next_start(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _five_runs(bench, ("k0",))
    (bench / "results" / "norm" / "k1" / "20260402T120000Z").mkdir(parents=True)  # running: no report.json
    view = RunsReader(bench, generated=False).read().runs
    assert [started for _p, _f, started in view.at_or_before("k0", "20260403T000000Z")] == STAMPS[1::-1]
    assert view.at_or_before("k0", "not a stamp") == [] and view.at_or_before("nobody", STAMPS[-1]) == []
    assert view.next_start(STAMPS[1]) == "20260402T120000Z"  # a directory without report.json started then
    assert view.next_start(STAMPS[-1]) is None
    assert view == list(view) and view[-1].started == STAMPS[-1] and view[0:2] == list(view)[0:2]


def test_runs_only_generated_holds_come_in_time_order_with_the_rest(tmp_path: Path) -> None:
    import shutil

    bench = tmp_path / "bench"
    write_run(bench, "norm", "a_late", S3, [(0.1, 0.2)])
    write_run(bench, "norm", "b_early", S1, [(0.1, 0.2)])
    shutil.rmtree(bench / "results")  # only generated/ holds them, listed a_late first
    write_run(bench, "norm", "c_middle", S2, [(0.1, 0.2)])
    assert [r.kernel for r in read_runs(bench).runs] == ["b_early", "c_middle", "a_late"]


def test_a_look_with_nothing_new_reads_no_report_and_lists_no_family_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = tmp_path / "bench"
    _five_runs(bench)
    reader = RunsReader(bench, generated=False)
    reader.read()
    listed: list[str] = []
    reads: list[str] = []
    real_subdirs, real_read = runs_model.subdirs, runs_model.read_run
    monkeypatch.setattr(runs_model, "subdirs", lambda path, *a: (listed.append(str(path)), real_subdirs(path, *a))[1])
    monkeypatch.setattr(
        runs_model, "read_run", lambda path, *a, **k: (reads.append(str(path)), real_read(path, *a, **k))[1]
    )
    reader.read()
    assert listed == [str(bench / "results")] and reads == []  # the family directory did not change
    write_run(bench, "norm", "k2", STAMPS[0], [(0.1, 0.2)])  # a new kernel directory in that family
    log = reader.read()
    assert str(bench / "results" / "norm") in listed and [r.kernel for r in log.landed] == ["k2"]


def test_the_reader_lets_go_of_the_columns_the_history_replaced(tmp_path: Path) -> None:
    import gc

    from ptotui.model.bench.columns import Block

    def blocks() -> int:
        gc.collect()
        return sum(isinstance(o, Block) for o in gc.get_objects())

    bench = tmp_path / "bench"
    _five_runs(bench, tuple(f"k{i}" for i in range(4)))
    before = blocks()
    reader = RunsReader(bench, generated=False)
    reader.read(history=False)
    reader.read_history(None)  # each block copied to fill in its history
    assert blocks() - before == 4  # the ones the first read published are not kept besides


def test_newest_after_a_stamp_gives_only_the_kernels_measured_since(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    _five_runs(bench, ("k0",))
    write_run(bench, "norm", "k1", "20260501T010000Z", [(0.1, 0.5)])
    view = RunsReader(bench, generated=False).read().runs
    assert set(view.newest()) == {"k0", "k1"} and view.newest()["k0"].started == STAMPS[-1]
    assert list(view.newest(after="20260420T000000Z")) == ["k1"]  # a Run made for k1 alone
    assert set(view.newest(after="not a stamp")) == {"k0", "k1"}


def test_a_blocks_status_codes_are_two_bytes_until_one_passes_65535() -> None:
    """Two bytes a status (a tree has a handful of distinct ones); a tree with more still reads right."""
    from ptotui.model.bench.columns import Block
    from ptotui.model.bench.record import Run

    block = Block("norm", "k", "f")
    block.relist([20260401120000, 20260402120000])
    run = Run(
        "k",
        "norm",
        "20260401T120000Z",
        "20260401T121500Z",
        "ok",
        "ok",
        1.0,
        2.0,
        1.0,
        1.0,
        2.0,
        2.0,
        50.0,
        True,
        True,
        "p",
    )
    block.set_run(0, run, 7, (1, 2))
    assert block.statuses.typecode == "H"
    block.set_run(1, run, 8, (1, 70_000))
    statuses = [f"s{n}" for n in range(70_001)]
    assert block.statuses.typecode == "I" and block.run(0, "/r", statuses).pto_status == "s2"
    assert block.run(1, "/r", statuses).pto_status == "s70000"
    assert block.run(0, "/r", statuses).finished == "20260401T121500Z"  # epoch seconds, back to the stamp
    assert block.copy().statuses == block.statuses


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("hello not json", "invalid JSON"),
        ('{"a":1} trailing', "invalid JSON"),
        ('{"a":1}}', "invalid JSON"),
        ('{"name": "tile_x", "pto": {"benchm', "JSON ends early"),
        ('{"name": "tile_x", "pto": {"benchmark": {"status": "o', "JSON ends early"),
        ('{"name": "tile_x", "ratio": 12', "JSON ends early"),
        ('{"name": "tile_x", "ok": tr', "JSON ends early"),
        ('{"name": "tile_x", "ok": [1, 2,\n  ', "JSON ends early"),
        ("", "file is empty"),
    ],
)
def test_not_json_is_told_apart_from_a_torn_file(text: str, said: str) -> None:
    from ptotui.model.bench import record

    with pytest.raises(record.RunUnreadable) as caught:
        record.parse_report(text.encode(), "report.json")
    assert str(caught.value).startswith(said)


def test_a_run_stamp_that_is_no_real_time_is_warned_and_skipped(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)])
    write_run(bench, "norm", "tile_softmax", "20261399T999999Z", [(0.1, 0.9)])  # its generated/ copy too
    log = read_runs(bench)
    assert [(r.kernel, r.started) for r in log.runs] == [("tile_softmax", S1)]
    [warning] = log.warnings
    assert warning.file == str(bench / "results" / "norm" / "tile_softmax")
    assert "20261399T999999Z" in warning.message and "not a real time" in warning.message
    assert runs_model.stamp_seconds("20261399T999999Z") is None
    assert runs_model.stamp_seconds("20240229T235959Z") is not None  # a leap day is a real one
