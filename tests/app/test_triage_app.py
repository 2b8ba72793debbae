"""The dashboard reads and writes the triage file on worker threads, never on the UI thread."""

from __future__ import annotations

import json
import threading

from ptotui.model.triage import TriageStore
from tests.helpers import build, cell_text, loaded, table, until

SIZE = (120, 36)


async def test_triage_file_io_is_off_the_ui_thread(sample_location, tmp_path, monkeypatch):
    state = tmp_path / "triage.json"
    seed = TriageStore(state, str(sample_location.reports.resolve()))
    seed.set(
        __import__("ptotui.model.read.loader", fromlist=["load"]).load(sample_location).by_name()["paged_kv_gather"],
        "needs-upstream",
    )
    io_threads: list[threading.Thread] = []
    read, write = TriageStore._read, TriageStore._write

    def spy_read(self):
        io_threads.append(threading.current_thread())
        return read(self)

    def spy_write(self, data):
        io_threads.append(threading.current_thread())
        return write(self, data)

    monkeypatch.setattr(TriageStore, "_read", spy_read)
    monkeypatch.setattr(TriageStore, "_write", spy_write)
    app = build(sample_location, state=state)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: cell_text(app, "paged_kv_gather", "triage") == "needs-upstream")
        table(app).focus_kernel("fp8_blockwise_quant")
        await pilot.press("i")
        assert cell_text(app, "fp8_blockwise_quant", "triage") == "investigating"  # shown before it is written
        await until(pilot, lambda: "fp8_blockwise_quant" in json.loads(state.read_text())["reports"][seed.key])
    assert io_threads and threading.main_thread() not in io_threads


async def test_a_key_just_before_quit_is_written(sample_location, tmp_path):
    state = tmp_path / "triage.json"
    app = build(sample_location, state=state)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        table(app).focus_kernel("fp8_blockwise_quant")
        await pilot.press("w")
    entries = json.loads(state.read_text())["reports"][str(sample_location.reports.resolve())]
    assert entries["fp8_blockwise_quant"]["state"] == "wont-fix"


async def test_a_corrupt_triage_file_is_reported_not_fatal(sample_location, tmp_path):
    state = tmp_path / "triage.json"
    state.write_text('{"reports": [1, 2]}')
    app = build(sample_location, state=state)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.triage is not None and bool(app.session.triage.warnings))
        table(app).focus_kernel("fp8_blockwise_quant")
        await pilot.press("a")
        await until(pilot, lambda: state.exists() and "fp8_blockwise_quant" in state.read_text())
        assert app.is_running
    assert any(".corrupt-" in p.name for p in tmp_path.iterdir())


async def test_read_only_app_shows_no_triage_for_a_corrupt_file_and_writes_nothing(sample_location, tmp_path):
    state = tmp_path / "state" / "triage.json"
    state.parent.mkdir()
    state.write_text('{"reports": {"x": ')
    app = build(sample_location, state=state, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.triage is not None and bool(app.session.triage.warnings))
        assert not app.session.triage.entries
        assert "read-only" in app.session.triage.warnings[0].message
        await pilot.press("m")  # mark all seen: a writable app would save seen.json now
    # Nothing written at all: no .corrupt- copy, no lock, no "last looked" store (seen.json)
    assert sorted(p.name for p in state.parent.iterdir()) == ["triage.json"]
    assert state.read_text() == '{"reports": {"x": '
