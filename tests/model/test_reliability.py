"""Reliability: torn writes under load, a reports tree nothing may touch, unreadable files, huge reasons."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ptotui.model.live.pipeline import Shown, reload_reports
from ptotui.model.live.source import StableSource
from ptotui.model.read import safefile
from ptotui.model.read.loader import load
from tests.helpers import PATIENCE


def test_permission_denied_names_the_file_and_the_rest_loads(sample_location, monkeypatch):
    denied = sample_location.reports / "kernel_state_matrix_latest.json"
    real = safefile.read_bytes

    def read_bytes(path: Path, max_bytes: int | None = None) -> bytes:
        if path == denied:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, max_bytes)

    monkeypatch.setattr(safefile, "read_bytes", read_bytes)
    for source in (None, StableSource(delays=(0.0,))):
        reports = load(sample_location) if source is None else load(sample_location, source=source)
        assert len(reports.kernels) == 15
        assert any(w.file == str(denied) and "Permission denied" in w.message for w in reports.warnings)
        # The markdown twin of the state matrix filled in the classes.
        assert reports.by_name()["block_sparse_flash_decode"].klass == "blocked by PTOAS lowering"


def test_live_source_reuses_unchanged_kernels_and_still_reads_right(sample_location):
    """The parser memo and kernel cache give exactly what a fresh read gives."""
    from ptotui.model.read import readers as readers_module

    source = StableSource(delays=(0.0,))
    first = load(sample_location, source=source)
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    data["kernels"][3]["variants"][0]["baseline_over_pto_pct"] = 12.5
    data["kernels"][5]["baseline_reason"] = "changed"
    path.write_text(json.dumps(data, indent=2))
    built = []
    original = readers_module._regression_kernel
    readers_module._regression_kernel = lambda record: built.append(record["name"]) or original(record)
    try:
        second = load(sample_location, source=source)
    finally:
        readers_module._regression_kernel = original
    assert sorted(built) == sorted([data["kernels"][3]["name"], data["kernels"][5]["name"]])
    plain = load(sample_location)
    assert second.kernels == plain.kernels  # dataclass equality, field by field
    assert second.kernels != first.kernels
    again = load(sample_location, source=source)
    assert again.kernels == plain.kernels and all(
        a is not b for a, b in zip(again.kernels, second.kernels, strict=True)
    )


def test_a_write_before_the_watch_is_armed_is_still_loaded(sample_location):
    """The app arms the file watch only after its first frame; a rewrite in between must not be lost."""
    import threading

    from ptotui.model.live.watcher import ReportWatcher

    loads = []
    arrived = threading.Condition()

    def on_load(reports) -> None:
        with arrived:
            loads.append(reports)
            arrived.notify_all()

    watcher = ReportWatcher(sample_location, on_load, quiet=0.01, rescan=60, wait_for_ui=True)
    watcher.start()
    try:
        with arrived:
            assert arrived.wait_for(lambda: loads, PATIENCE)
        path = sample_location.reports / "regression_latest.json"
        data = json.loads(path.read_text())
        data["kernels"][0]["name"] = "renamed_before_the_watch"
        path.write_text(json.dumps(data))
        watcher.first_frame_shown()
        with arrived:
            assert arrived.wait_for(lambda: len(loads) >= 2, PATIENCE)
        assert len(loads) == 2
        assert "renamed_before_the_watch" in loads[-1].by_name()
    finally:
        watcher.stop()


def _rename_in_json(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text().replace(f'"{old}"', f'"{new}"'))


def _twins_rewritten_after(path: Path) -> None:
    """The generator writes the markdown and CSV after the JSON: their files are newer than it
    (of the same generated_at, the newer file wins, issue 33)."""
    later = path.stat().st_mtime_ns + 10**9
    for twin in path.parent.glob(path.stem + ".*"):
        if twin != path:
            os.utime(twin, ns=(later, later))


@pytest.mark.parametrize("name", ["regression_latest.json", "kernel_state_matrix_latest.json"])
@pytest.mark.parametrize("invalid", ["[" * 2_000 + "]" * 2_000, '{"kernels": [', ""], ids=["deep", "cut", "empty"])
def test_a_json_that_stays_invalid_falls_back_to_its_twins_like_a_fresh_start(sample_location, name, invalid):
    """It used to show the JSON's last good data ("torn write?") for ever, unlike a fresh start."""
    path = sample_location.reports / name
    _rename_in_json(path, "softmax_online_fused", "only_in_the_json")
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None and "only_in_the_json" in first.by_name()
    path.write_text(invalid)
    _twins_rewritten_after(path)
    reports, shown = reload_reports(sample_location, source, shown)
    fresh = load(sample_location)
    assert reports is not None and reports.kernels == fresh.kernels
    assert "only_in_the_json" not in reports.by_name() and "softmax_online_fused" in reports.by_name()
    assert not any("last good" in w.message for w in reports.warnings if w.file == str(path))
    assert [str(w) for w in reports.warnings if w.file == str(path)] == [
        str(w) for w in fresh.warnings if w.file == str(path)
    ]
    assert any(w.file == str(path) for w in reports.warnings)


def _regress_with_a_newer_stamp(path: Path, kernel: str, stamp: str | None) -> str:
    """A generator's new run: ``kernel`` blocked and, unless ``stamp`` is None (the generator run
    again on the same stamp), a newer ``generated_at``; the JSON text written."""
    data = json.loads(path.read_text())
    if stamp is not None:
        data["generated_at"] = stamp
    for entry in data["kernels"]:
        if entry["name"] == kernel:
            for variant in entry["variants"]:
                variant.update(pto_status="blocked", pto_reason="lowering failed")
    text = json.dumps(data)
    path.write_text(text)
    return text


def test_a_json_torn_after_a_newer_run_keeps_its_last_good_data_not_the_older_twins(sample_location):
    """Issue 24: truncating a regressed JSON showed the markdown twin (older data) as current."""
    path = sample_location.reports / "regression_latest.json"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None and first.by_name()["topk_router_softmax"].tier != "blocked"
    text = _regress_with_a_newer_stamp(path, "topk_router_softmax", "20261127T080000Z")
    regressed, shown = reload_reports(sample_location, source, shown)
    assert regressed is not None and regressed.by_name()["topk_router_softmax"].pto_status == "blocked"
    path.write_text(text[:300])  # torn, and it stays so
    torn, shown = reload_reports(sample_location, source, shown)
    assert torn is not None  # the warning is new
    assert torn.by_name()["topk_router_softmax"].pto_status == "blocked"
    assert torn.generated_at == "20261127T080000Z"
    assert any(w.file == str(path) and "last good" in w.message for w in torn.warnings)
    path.write_text(text)  # the generator finishes the write
    again, shown = reload_reports(sample_location, source, shown)
    assert again is not None and again.changes == []
    assert not any(w.file == str(path) for w in again.warnings)


def test_a_json_torn_for_good_gives_way_to_twins_not_older_than_it(sample_location):
    """The twins rewritten by a newer run than the JSON's last good text are read instead of it."""
    path = sample_location.reports / "regression_latest.json"
    md = sample_location.reports / "regression_latest.md"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    _, shown = reload_reports(sample_location, source, Shown())
    text = _regress_with_a_newer_stamp(path, "topk_router_softmax", "20261127T080000Z")
    _, shown = reload_reports(sample_location, source, shown)
    path.write_text(text[:300])
    md.write_text(md.read_text().replace("20261126T074512Z", "20261128T080000Z"))
    reports, shown = reload_reports(sample_location, source, shown)
    assert reports is not None and reports.generated_at == "20261128T080000Z"
    assert reports.by_name()["topk_router_softmax"].pto_status != "blocked"
    assert not any("last good" in w.message for w in reports.warnings)


def test_a_torn_json_keeps_its_content_over_an_older_markdown_twin_of_the_same_stamp(sample_location):
    """Issue 33 (3): a JSON rewritten with the same generated_at, then torn, brought back the
    markdown's older content. Equal stamps: the newer file by modification time wins."""
    path = sample_location.reports / "regression_latest.json"
    md = sample_location.reports / "regression_latest.md"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None and first.by_name()["topk_router_softmax"].pto_status != "blocked"
    older = md.stat().st_mtime_ns
    text = _regress_with_a_newer_stamp(path, "topk_router_softmax", None)
    os.utime(path, ns=(older + 10**9, older + 10**9))  # the JSON is newer than its markdown twin
    rewritten, shown = reload_reports(sample_location, source, shown)
    assert rewritten is not None and rewritten.by_name()["topk_router_softmax"].pto_status == "blocked"
    count = len(rewritten.kernels)
    path.write_text(text[:300])  # torn, and it stays so
    torn, shown = reload_reports(sample_location, source, shown)
    assert torn is not None  # (the warning is new)
    assert torn.by_name()["topk_router_softmax"].pto_status == "blocked" and len(torn.kernels) == count
    assert torn.generated_at == rewritten.generated_at
    assert any(w.file == str(path) and "last good" in w.message for w in torn.warnings)
    # The markdown rewritten after the JSON's last good version (still the same stamp): newer, whole: it wins.
    md.write_text(md.read_text())
    os.utime(md, ns=(older + 2 * 10**9, older + 2 * 10**9))
    later, shown = reload_reports(sample_location, source, shown)
    assert later is not None and later.by_name()["topk_router_softmax"].pto_status != "blocked"
    assert not any("last good" in w.message for w in later.warnings)


def _turn_bad(path: Path, how: str, monkeypatch) -> None:
    """The JSON at ``path`` made of no use the ways the hunt found (issue 40, 10)."""
    path.unlink()
    if how == "fifo":
        os.mkfifo(path)
    elif how == "device":
        path.symlink_to("/dev/null")
    elif how == "directory":
        path.mkdir()
    elif how == "huge":  # over the cap, which every other file is under
        others = [p for p in path.parent.parent.rglob("*") if p.is_file() and p != path]
        cap = max(p.stat().st_size for p in others)
        monkeypatch.setattr(safefile, "_max_bytes", cap)
        path.write_text(json.dumps({"kernels": []}) + " " * cap)
    else:
        path.write_text(json.dumps({"generated_at": "20261128T080000Z", "kernels": "not a list"}))


BAD_WAYS = ["fifo", "device", "directory", "huge", "wrong-shaped"]


@pytest.mark.parametrize("how", BAD_WAYS)
def test_a_json_of_no_use_keeps_its_last_good_data_over_the_older_twins(sample_location, monkeypatch, how):
    """Issue 40 (10): a JSON turned FIFO, device, directory, huge or wrong-shaped made the
    older markdown twin current (5 -> 12 regressions, a toast announcing one), unlike a torn JSON."""
    path = sample_location.reports / "regression_latest.json"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    _, shown = reload_reports(sample_location, source, Shown())
    _regress_with_a_newer_stamp(path, "topk_router_softmax", "20261127T080000Z")
    regressed, shown = reload_reports(sample_location, source, shown)
    assert regressed is not None and regressed.by_name()["topk_router_softmax"].pto_status == "blocked"
    _turn_bad(path, how, monkeypatch)
    bad, shown = reload_reports(sample_location, source, shown)
    assert bad is not None and bad.changes == []  # nothing to announce
    assert bad.kernels == regressed.kernels and bad.generated_at == "20261127T080000Z"
    assert any(w.file == str(path) and "last good" in w.message for w in bad.warnings)
    again, shown = reload_reports(sample_location, source, shown, force=True)
    assert again is not None and again.kernels == regressed.kernels and again.changes == []


@pytest.mark.parametrize("how", ["fifo", "wrong-shaped"])
def test_a_json_of_no_use_keeps_its_data_over_a_twin_of_the_same_stamp_and_time(sample_location, monkeypatch, how):
    """The real tree: the JSON and its markdown of one stamp, checked out at one time, the
    JSON's data not the markdown's (3 regressions, 12 from the markdown)."""
    path = sample_location.reports / "regression_latest.json"
    md = sample_location.reports / "regression_latest.md"
    _regress_with_a_newer_stamp(path, "topk_router_softmax", None)
    checkout = md.stat().st_mtime_ns
    os.utime(path, ns=(checkout, checkout))
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None and first.by_name()["topk_router_softmax"].pto_status == "blocked"
    _turn_bad(path, how, monkeypatch)
    bad, shown = reload_reports(sample_location, source, shown)
    assert bad is not None and bad.kernels == first.kernels and bad.changes == []


@pytest.mark.parametrize("how", ["fifo", "wrong-shaped"])
def test_twins_newer_than_a_json_of_no_use_are_read(sample_location, monkeypatch, how):
    """Only older twins give way: a newer markdown is read, as a fresh start would."""
    path = sample_location.reports / "regression_latest.json"
    md = sample_location.reports / "regression_latest.md"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    _, shown = reload_reports(sample_location, source, Shown())
    _regress_with_a_newer_stamp(path, "topk_router_softmax", "20261127T080000Z")
    _, shown = reload_reports(sample_location, source, shown)
    _turn_bad(path, how, monkeypatch)
    md.write_text(md.read_text().replace("20261126T074512Z", "20261129T080000Z"))
    reports, shown = reload_reports(sample_location, source, shown)
    assert reports is not None and reports.generated_at == "20261129T080000Z"
    assert reports.by_name()["topk_router_softmax"].pto_status != "blocked"
    assert not any("last good" in w.message for w in reports.warnings)


def test_a_state_matrix_of_no_use_keeps_its_last_good_data_for_the_compare(sample_location):
    """The compare with the snapshots takes the state matrix the screen shows, not the bad one."""
    path = sample_location.reports / "kernel_state_matrix_latest.json"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    held = source.parsed_state(path)
    assert first is not None and held is not None and held[0]
    path.write_text(json.dumps({"kernels": "not a list"}))
    bad, shown = reload_reports(sample_location, source, shown)
    assert bad is not None and bad.kernels == first.kernels
    kept = source.parsed_state(path)
    assert kept is not None and [k.name for k in kept[0]] == [k.name for k in held[0]]
