"""The reload pipeline, called directly: no threads, no watchdog, no app."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from ptotui.model.core.diff import regressed_kernels
from ptotui.model.live.pipeline import Shown, reload_reports, reuse_unchanged
from ptotui.model.live.source import StableSource
from ptotui.model.present.view import default_order
from ptotui.model.read.loader import load
from ptotui.model.read.readers import ParsedJson
from ptotui.model.types import Kernel
from tests.helpers import rewrite_kernels, scale_side


def _source() -> StableSource:
    return StableSource(delays=(0.0,), sleep=lambda _: None)


def _set_ratio(path, kernel: str, value: float) -> None:
    data = json.loads(path.read_text())
    for record in data["kernels"]:
        if record["name"] == kernel:
            for variant in record["variants"]:
                variant["baseline_over_pto_pct"] = value
    path.write_text(json.dumps(data, indent=2))


def test_first_reload_gives_everything_the_ui_needs(sample_location):
    reports, shown = reload_reports(sample_location, _source(), Shown())
    assert reports is not None and shown.reports is reports
    assert len(reports.kernels) == 15 and reports.warnings == []
    assert reports.changes is None  # nothing to compare with yet
    assert reports.ordered == default_order(reports.kernels)
    assert reports.snapshots == tuple(p.name for p in sample_location.snapshots())
    assert "kernel_state_matrix_20261101T080000Z.json" in reports.snapshots
    assert reports.kernels == load(sample_location).kernels  # the same model a plain load gives


def test_nothing_changed_gives_none_unless_forced(sample_location):
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    again, same = reload_reports(sample_location, source, shown)
    assert again is None and same.reports is shown.reports and same.digest == shown.digest
    forced, shown = reload_reports(sample_location, source, shown, force=True)
    assert forced is not None and forced is not first
    assert forced.changes == []
    assert all(new is old for new, old in zip(forced.kernels, first.kernels, strict=True))  # reused


def test_a_changed_kernel_is_new_and_diffed_the_rest_reused(sample_location):
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None
    _set_ratio(sample_location.reports / "regression_latest.json", "depthwise_conv1d_causal", 91.0)
    second, shown = reload_reports(sample_location, source, shown)
    assert second is not None and shown.reports is second
    old, new = first.by_name(), second.by_name()
    changed = [name for name in new if new[name] is not old.get(name)]
    assert changed == ["depthwise_conv1d_causal"]
    assert new["depthwise_conv1d_causal"].tier == "high"
    kinds = {(c.kernel, c.kind) for c in second.changes or []}
    assert ("depthwise_conv1d_causal", "ratio") in kinds and ("depthwise_conv1d_causal", "tier") in kinds
    assert second.ordered == default_order(second.kernels)


def test_a_deleted_reports_directory_keeps_the_last_good_data(sample_location, tmp_path):
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None
    backup = tmp_path / "backup"
    shutil.copytree(sample_location.reports, backup)
    shutil.rmtree(sample_location.reports)
    gone, shown = reload_reports(sample_location, source, shown)
    assert gone is not None and len(gone.kernels) == 15
    assert [w.message.split(";")[0] for w in gone.warnings] == ["directory is gone"]
    assert gone.changes == []
    shutil.copytree(backup, sample_location.reports)
    back, shown = reload_reports(sample_location, source, shown)
    assert back is not None and back.warnings == [] and len(back.kernels) == 15


def test_reuse_unchanged_counts_the_changed(sample_location):
    old = load(sample_location)
    new = load(sample_location)
    new.kernels[2].pto_reason = "something else"
    assert reuse_unchanged(old, new) == 1
    assert [a is b for a, b in zip(old.kernels, new.kernels, strict=True)].count(False) == 1


def test_json_that_vanishes_mid_session_reads_like_a_fresh_start(sample_location, tmp_path):
    """Issue 9: a moved-away JSON must not be shown from memory forever; the twins take over."""
    source = _source()
    _, shown = reload_reports(sample_location, source, Shown())
    json_path = sample_location.reports / "regression_latest.json"
    json_path.rename(tmp_path / "away.json")
    reports, shown = reload_reports(sample_location, source, shown)
    fresh = load(sample_location)  # what `ptotui` started now would show
    assert reports is not None
    assert str(json_path) not in reports.files_read
    assert reports.kernels == fresh.kernels
    assert [w.message.split(" at ")[0] for w in reports.warnings if w.file == str(json_path)] == ["disappeared"]
    # `r` (a forced reload) gives the same again, and the file coming back is read again.
    again, shown = reload_reports(sample_location, source, shown, force=True)
    assert again is not None and again.kernels == fresh.kernels
    (tmp_path / "away.json").rename(json_path)
    back, shown = reload_reports(sample_location, source, shown)
    assert back is not None and str(json_path) in back.files_read and back.warnings == []


def test_a_file_written_during_the_read_is_read_again_at_once(sample_location, monkeypatch):
    """A long write (one write() call for a big report) is caught in the act: the source looks
    again after a short pause instead of spending a retry and its whole delay on it."""
    from ptotui.model.live import source as source_module
    from ptotui.model.read import safefile

    path = sample_location.reports / "regression_latest.json"
    real_read, calls = safefile.read_bytes, []

    def read_while_written(target, *args, **kwargs):
        data = real_read(target, *args, **kwargs)
        calls.append(target)
        if target == path and len(calls) < 3:  # two reads see it change under them
            path.write_text(path.read_text() + " " * len(calls))
        return data

    slept: list[float] = []
    monkeypatch.setattr(safefile, "read_bytes", read_while_written)
    source = StableSource(delays=(5.0,), sleep=slept.append)
    warnings: list = []
    assert isinstance(source(path, warnings), ParsedJson) and warnings == []
    assert slept == [source_module.BUSY_DELAY, source_module.BUSY_DELAY]  # not the 5 s retry


def test_bytes_read_again_unchanged_are_the_same_source(sample_location):
    """A file rewritten with the same bytes is not decoded or parsed again, and what its
    decoding said (bad UTF-8) is said again."""
    path = sample_location.reports / "kernel_state_matrix_latest.json"
    path.write_bytes(path.read_bytes().replace(b'"wave4"', b'"wave4\xff"', 1))
    source = _source()
    first: list = []
    text = source(path, first)
    path.write_bytes(path.read_bytes())  # a rewrite that changes nothing
    again: list = []
    assert isinstance(text, ParsedJson) and source(path, again) is text
    assert [w.message for w in again] == [w.message for w in first] and first


def test_events_of_a_version_already_read_reload_nothing(sample_location):
    """The signatures kept after a load are those of the files as read: the events of a write
    that finished while the load ran (it read the final version) bring no second reload."""
    from ptotui.model.live.watcher import ReportWatcher

    path = sample_location.reports / "regression_latest.json"
    calls: list = []

    class WrittenAsTheLoadStarts(StableSource):
        def __call__(self, target, warnings):
            calls.append(target)
            if target == path and len(calls) == 1:  # lands after the load took its signatures
                _set_ratio(path, "depthwise_conv1d_causal", 91.0)
            return super().__call__(target, warnings)

    loads: list = []
    watcher = ReportWatcher(sample_location, loads.append)
    watcher.source = WrittenAsTheLoadStarts(delays=(0.0,), sleep=lambda _: None)
    watcher._reload(force=False, arm=False)
    assert len(loads) == 1 and loads[0].by_name()["depthwise_conv1d_causal"].tier == "high"
    read = len(calls)
    watcher._reload(force=False, arm=False)  # the trailing close event of that write
    assert len(calls) == read and len(loads) == 1  # nothing read again


def test_the_loader_calls_after_load_after_each_load_that_brought_reports(sample_location):
    """The CLI gives the C heap's free pages back there (ptotui.model.heap.Trimmer)."""
    from ptotui.model.live.watcher import ReportWatcher

    loads: list = []
    after: list[dict] = []
    watcher = ReportWatcher(sample_location, loads.append, runs=False, after_load=lambda **kwargs: after.append(kwargs))
    watcher._reload(force=True, arm=False)
    watcher._reload(force=False, arm=False)  # nothing changed: no load, nothing to give back
    assert len(loads) == 1 and after == [{}]


def test_only_kernels_whose_inputs_changed_are_merged_again(sample_location, monkeypatch):
    """The merge memo: a rewrite of one kernel classifies one kernel; a change to the
    state matrix or the gap board reaches the kernels it touches, and the kernels the
    parser caches are never changed by the merge."""
    from ptotui.model.read import loader

    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None
    classified: list[str] = []
    real_classify = loader.classify
    monkeypatch.setattr(loader, "classify", lambda k, *a: (classified.append(k.name), real_classify(k, *a))[1])

    _set_ratio(sample_location.reports / "regression_latest.json", "depthwise_conv1d_causal", 91.0)
    second, shown = reload_reports(sample_location, source, shown)
    assert second is not None and classified == ["depthwise_conv1d_causal"]
    assert second.kernels == load(sample_location).kernels  # what a fresh start reads

    state = sample_location.reports / "kernel_state_matrix_latest.json"
    data = json.loads(state.read_text())
    data["kernels"][0]["primary_class"] = "blocked by PTOAS lowering"
    state.write_text(json.dumps(data, indent=2))
    classified.clear()
    third, shown = reload_reports(sample_location, source, shown)
    assert third is not None and classified == [data["kernels"][0]["name"]]
    assert third.by_name()[data["kernels"][0]["name"]].klass == "blocked by PTOAS lowering"

    board = sample_location.gap_board
    board.write_text(board.read_text().replace("no segmented bitonic sort", "no segmented sort at all"))
    classified.clear()
    fourth, shown = reload_reports(sample_location, source, shown)
    assert fourth is not None and len(classified) == len(fourth.kernels)  # every kernel may cite a gap
    assert fourth.kernels == load(sample_location).kernels
    assert any("no segmented sort at all" in g.summary for k in fourth.kernels for g in k.gaps)

    parsed = [good.text.value["kernels"] for good in source.last_good.values() if isinstance(good.text, ParsedJson)]
    assert len(parsed) == 2 and all(type(item) is Kernel for items in parsed for item in items)
    for items in parsed:  # the kernels the readers put in the parse: as built, never merged into
        assert all(kernel.tier == "" and kernel.gaps == [] for kernel in items)


def test_a_long_write_is_watched_by_stat_and_read_once_it_holds_still(sample_location, monkeypatch):
    """While a file keeps changing the source only stats it; it reads it once more when a
    step passes with no change (not the whole file every 20 ms of a long write)."""
    from ptotui.model.live import source as source_module
    from ptotui.model.read import safefile

    path = sample_location.reports / "regression_latest.json"
    text = path.read_text()
    real_read, reads = safefile.read_bytes, []

    def read(target, *args, **kwargs):
        reads.append(target)
        data = real_read(target, *args, **kwargs)
        if len(reads) == 1:
            path.write_text(text + " ")  # the write goes on under the first read
        return data

    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) <= 2:
            path.write_text(text + " " * (len(slept) + 1))  # ... and for two more steps

    monkeypatch.setattr(safefile, "read_bytes", read)
    source = StableSource(delays=(5.0,), sleep=sleep)
    assert isinstance(source(path, []), ParsedJson)
    assert reads == [path, path] and slept == [source_module.BUSY_DELAY] * 3


def test_a_baseline_speed_up_on_reload_is_shown_and_a_pto_slowdown_counts(sample_location):
    source = _source()
    _, shown = reload_reports(sample_location, source, Shown())
    rewrite_kernels(sample_location.reports, {"topk_router_softmax": scale_side("baseline", 0.6)})
    faster, shown = reload_reports(sample_location, source, shown)
    assert faster is not None and faster.changes is not None
    [ratio] = [c for c in faster.changes if c.kind == "ratio"]
    assert ratio.cause == "baseline-faster" and not ratio.regression
    assert regressed_kernels(faster.changes) == []
    rewrite_kernels(sample_location.reports, {"topk_router_softmax": scale_side("pto", 1.3)})
    slower, shown = reload_reports(sample_location, source, shown)
    assert slower is not None and slower.changes is not None
    assert regressed_kernels(slower.changes) == ["topk_router_softmax"]
    assert next(c for c in slower.changes if c.kind == "ratio").cause == "pto-slower"


def _unreadable(monkeypatch, directory) -> None:
    """``directory`` as after ``chmod 000`` for a user other than root (the tests run as root in
    CI, where chmod stops nothing): it can be stat'ed, not listed, and nothing in it looked at."""
    import errno
    import os

    inside = str(directory)

    def refused(path) -> bool:
        text = os.fsdecode(path) if isinstance(path, str | bytes | os.PathLike) else ""
        return text.startswith(inside + os.sep)

    def wrap(real, also_itself: bool):
        def call(path, *args, **kwargs):
            if refused(path) or (also_itself and os.fsdecode(path) == inside):
                raise PermissionError(errno.EACCES, "Permission denied", os.fsdecode(path))
            return real(path, *args, **kwargs)

        return call

    monkeypatch.setattr(os, "stat", wrap(os.stat, False))
    monkeypatch.setattr(os, "open", wrap(os.open, True))
    monkeypatch.setattr(os, "scandir", wrap(os.scandir, True))


def _loop_in_place_of(path) -> None:
    """``path`` replaced by a symlink loop (a -> b -> a): every look at it fails with ELOOP, as root too."""
    loop_a, loop_b = path.with_name(path.name + ".loop_a"), path.with_name(path.name + ".loop_b")
    loop_a.symlink_to(loop_b.name)
    loop_b.symlink_to(loop_a.name)
    path.symlink_to(loop_a.name)


def test_a_symlink_loop_in_place_of_the_summary_keeps_the_last_good_data(sample_location, tmp_path):
    """Issue 40 (9): it was called "disappeared" and the older markdown twin was shown instead."""
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None
    json_path = sample_location.reports / "regression_latest.json"
    json_path.rename(tmp_path / "away.json")
    _loop_in_place_of(json_path)
    looped, shown = reload_reports(sample_location, source, shown)
    assert looped is not None and looped.kernels == first.kernels and looped.changes == []
    said = [w.message for w in looped.warnings]
    assert len(said) == 1 and looped.warnings[0].file == str(json_path)
    assert said[0].startswith("not readable: Too many levels of symbolic links; showing last good data from")
    json_path.unlink()
    (tmp_path / "away.json").rename(json_path)
    back, shown = reload_reports(sample_location, source, shown)
    assert back is not None and back.warnings == [] and back.kernels == first.kernels


def test_a_symlink_loop_in_place_of_the_reports_directory_keeps_the_last_good_data(sample_location, tmp_path):
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None
    sample_location.reports.rename(tmp_path / "away")
    _loop_in_place_of(sample_location.reports)
    looped, shown = reload_reports(sample_location, source, shown)
    assert looped is not None and looped.kernels == first.kernels and looped.changes == []
    assert looped.snapshots == first.snapshots
    assert [(w.file, w.message.split(";")[0]) for w in looped.warnings] == [
        (str(sample_location.reports), "not readable: Too many levels of symbolic links")
    ]


def test_an_unreadable_reports_directory_keeps_the_last_good_data(sample_location, monkeypatch):
    """Issue 40 (9): chmod 000 on the reports directory dropped the last good data for the
    runs-only view with "disappeared" for each file."""
    from ptotui.model.bench.runs import RunsReader

    source, runs = _source(), RunsReader(sample_location.bench)
    _, shown = reload_reports(sample_location, source, Shown())
    first, shown = reload_reports(sample_location, source, shown, force=True, runs=runs)
    assert first is not None and first.bench_run is not None and not first.bench_run.no_summary
    with monkeypatch.context() as patched:
        _unreadable(patched, sample_location.reports)
        refused, shown = reload_reports(sample_location, source, shown, runs=runs)
        assert refused is not None and refused.kernels == first.kernels and refused.changes == []
        assert refused.snapshots == first.snapshots
        assert refused.bench_run is first.bench_run  # not the runs-only view; the compare does not wait
        assert [(w.file, w.message.split(";")[0]) for w in refused.warnings] == [
            (str(sample_location.reports), "not readable: Permission denied")
        ]
        again, shown = reload_reports(sample_location, source, shown, runs=runs)
        assert again is None  # nothing new to say while it stays so
    back, shown = reload_reports(sample_location, source, shown, runs=runs)
    assert back is not None and back.warnings == [] and back.kernels == first.kernels


def test_an_unreadable_reports_directory_at_start_is_one_warning(sample_location, monkeypatch):
    _unreadable(monkeypatch, sample_location.reports)
    reports, _shown = reload_reports(sample_location, _source(), Shown())
    assert reports is not None and reports.kernels == []
    assert [(w.file, w.message) for w in reports.warnings] == [
        (str(sample_location.reports), "not readable: Permission denied")
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 directory")
def test_a_chmod_000_reports_directory_keeps_the_last_good_data(sample_location):
    source = _source()
    first, shown = reload_reports(sample_location, source, Shown())
    sample_location.reports.chmod(0)
    try:
        refused, shown = reload_reports(sample_location, source, shown)
    finally:
        sample_location.reports.chmod(0o755)
    assert refused is not None and first is not None and refused.kernels == first.kernels
    assert [w.message.split(";")[0] for w in refused.warnings] == ["not readable: Permission denied"]


def test_what_the_app_asks_of_an_unreadable_directory_raises_nothing(sample_location, monkeypatch):
    """The raw PermissionError notices: the rescan's look for reports, the compare's state matrix."""
    from ptotui.model.core.tiers import Thresholds
    from ptotui.model.history.since import latest_state
    from ptotui.model.location import looks_like_reports

    source = _source()
    reload_reports(sample_location, source, Shown())
    _unreadable(monkeypatch, sample_location.reports)
    assert looks_like_reports(sample_location)  # there, only not readable: not a reason to look elsewhere
    assert latest_state(sample_location, Thresholds()) is None
    kept = latest_state(sample_location, Thresholds(), source.parsed_state)
    assert kept is not None and len(kept.kernels) == 15
