"""Torn, vanished and unreadable files as the dashboard shows them."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from ptotui.commands.demo import write_chunked
from ptotui.model.read import writers
from ptotui.model.read.loader import load
from tests.helpers import build, cell_text, loaded, table, until
from tests.model.test_reliability import _twins_rewritten_after

SIZE = (120, 36)


def tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every file and directory below root with its mode, size and mtime."""
    state = {}
    for path in [root, *root.rglob("*")]:
        st = path.stat()
        state[str(path.relative_to(root))] = (st.st_mode, st.st_size, st.st_mtime_ns)
    return state


@pytest.mark.slow
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


@pytest.mark.slow
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
