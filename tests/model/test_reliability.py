"""Reliability: torn writes under load, a reports tree nothing may touch, unreadable files, huge reasons."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ptotui.commands.demo import write_chunked
from ptotui.model.live.pipeline import Shown, reload_reports
from ptotui.model.live.source import StableSource
from ptotui.model.read import safefile, writers
from ptotui.model.read.loader import load
from tests.helpers import PATIENCE, build, cell_text, loaded, table, until

SIZE = (120, 36)


def tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file and directory below root with its mode, size and mtime."""
    state = {}
    for path in [root, *root.rglob("*")]:
        st = path.stat()
        state[str(path.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return state


async def test_torn_write_soak_never_shows_a_partial_table(sample_location):
    """A writer rewrites the reports in chunks, in place, 150 times while the app watches."""
    reports = sample_location.reports
    data = json.loads((reports / "regression_latest.json").read_text())
    target = next(k for k in data["kernels"] if k["name"] == "depthwise_conv1d_causal")
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        done = threading.Event()
        final = {}

        def writer() -> None:
            for step in range(150):
                value = 40.0 + (step % 100) * 0.2
                for variant in target["variants"]:
                    variant["baseline_over_pto_pct"] = value
                write_chunked(reports / "regression_latest.json", writers.dump_json(data), chunks=4, pause=0.001)
                write_chunked(reports / "regression_latest.md", writers.regression_md(data), chunks=3, pause=0.001)
                final["value"] = f"{value:.1f}%"
            done.set()

        thread = threading.Thread(target=writer)
        thread.start()
        seen_rows = set()
        while not done.is_set():
            await pilot.pause(0.01)
            seen_rows.add(table(app).row_count)
            assert app.main.reports is not None and len(app.main.reports.kernels) == 15
        thread.join()
        assert seen_rows == {15}  # never an empty or partial table
        await until(pilot, lambda: cell_text(app, "depthwise_conv1d_causal", "ratio") == final["value"])


async def test_nothing_is_written_into_a_read_only_reports_tree(sample_bench, tmp_path):
    for path in sorted(sample_bench.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    sample_bench.chmod(0o555)
    before = tree_state(sample_bench)
    from ptotui.model.location import locate

    app = build(locate(sample_bench), state=tmp_path / "state" / "triage.json")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.history is not None)
        table(app).focus_kernel("paged_kv_gather")
        await pilot.press("a", "n", *"note", "enter", "r", "enter", "escape", "h", "C")
        await pilot.pause(0.3)
    for command in (["export"], ["summary"], ["triage", "--state", str(tmp_path / "t.json")]):
        from ptotui.cli import main

        assert main([command[0], str(sample_bench), *command[1:]]) == 0
    assert tree_state(sample_bench) == before
    for path in [sample_bench, *sample_bench.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)


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


async def test_a_10kb_one_line_reason(sample_location):
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    huge = "[ERROR] " + "x" * 5000 + " [/] " + "y" * 5000
    kernel = next(k for k in data["kernels"] if k["name"] == "fp8_blockwise_quant")
    kernel["pto_reason"] = huge
    kernel["variants"][0]["pto_reason"] = huge
    path.write_text(json.dumps(data))
    os.unlink(sample_location.reports / "regression_latest.md")
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        assert app.main.reports.by_name()["fp8_blockwise_quant"].pto_reason == huge
        await pilot.press("slash", *"fp8", "enter", "enter")
        rendered = "".join(seg.text for seg in app.console.render(app.screen.build("en")))
        assert "[ERROR]" in rendered and "x" * 60 in rendered  # folded, literal
        assert "more characters" in rendered  # longer than a screenful: the rest is paged with e
        assert " [/] " in app.screen.full_text()
        await pilot.press("escape")
        assert app.is_running


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


async def test_json_moved_away_mid_session_falls_back_like_a_fresh_start(sample_location, tmp_path):
    json_path = sample_location.reports / "regression_latest.json"
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        json_path.rename(tmp_path / "away.json")
        fresh = load(sample_location)

        def fell_back() -> bool:
            return str(json_path) not in app.main.reports.files_read

        await until(pilot, fell_back)
        assert app.main.reports.kernels == fresh.kernels
        assert any(w.file == str(json_path) and "disappeared" in w.message for w in app.main.reports.warnings)
        await pilot.press("r")
        await pilot.pause(0.5)
        assert fell_back() and app.main.reports.kernels == fresh.kernels
        assert table(app).row_count == 15


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


async def test_app_shows_the_markdown_facts_when_the_json_turns_invalid_for_good(sample_location):
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] == "topk_router_softmax":
            for variant in kernel["variants"]:
                variant["baseline_over_pto_pct"] = 75.0  # a fact only the JSON has
    path.write_text(json.dumps(data))
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        assert app.main.reports.by_name()["topk_router_softmax"].tier == "high"
        path.write_text("[" * 2_000 + "]" * 2_000)
        _twins_rewritten_after(path)
        fresh = load(sample_location)
        assert fresh.by_name()["topk_router_softmax"].tier != "high"
        await until(pilot, lambda: app.main.reports.kernels == fresh.kernels)
        assert any(w.file == str(path) and "nested too deep" in w.message for w in app.main.reports.warnings)
        assert not any("last good" in w.message for w in app.main.reports.warnings)
        assert app.main.query_one("#warnings").display
        assert table(app).row_count == 15


def _regress_with_a_newer_stamp(path: Path, kernel: str, stamp: str) -> str:
    """A generator's new run: ``kernel`` blocked, a newer ``generated_at``; the JSON text written."""
    data = json.loads(path.read_text())
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


def _rewrite_one_kernel_same_stamp(path, kernel: str) -> str:
    """The generator run again on the same stamp: one kernel blocked, ``generated_at`` as it was."""
    data = json.loads(path.read_text())
    for entry in data["kernels"]:
        if entry["name"] == kernel:
            for variant in entry["variants"]:
                variant.update(pto_status="blocked", pto_reason="lowering failed")
    text = json.dumps(data)
    path.write_text(text)
    return text


def test_a_torn_json_keeps_its_content_over_an_older_markdown_twin_of_the_same_stamp(sample_location):
    """Issue 33 (3): a JSON rewritten with the same generated_at, then torn, brought back the
    markdown's older content. Equal stamps: the newer file by modification time wins."""
    path = sample_location.reports / "regression_latest.json"
    md = sample_location.reports / "regression_latest.md"
    source = StableSource(delays=(0.0, 0.0), sleep=lambda _: None)
    first, shown = reload_reports(sample_location, source, Shown())
    assert first is not None and first.by_name()["topk_router_softmax"].pto_status != "blocked"
    older = md.stat().st_mtime_ns
    text = _rewrite_one_kernel_same_stamp(path, "topk_router_softmax")
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
    _rewrite_one_kernel_same_stamp(path, "topk_router_softmax")
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
