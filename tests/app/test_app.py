"""Pilot tests: the dashboard as a person uses it."""

from __future__ import annotations

import json
import shutil

import pytest
from textual import events

from ptotui.app.screens.detail import DetailScreen
from ptotui.app.screens.help import HelpScreen
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.model.core.blockers import is_blocker
from ptotui.model.read.loader import load
from tests.helpers import build, cell_text, every_variant, loaded, names, rewrite_kernels, table, until

SIZE = (120, 36)


async def test_default_order_then_sort_keys_and_header_click(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        assert names(app)[:3] == ["softmax_online_fused", "layernorm_gated", "rmsnorm_residual_add"]
        assert names(app)[-2:] == ["grouped_conv2d_nhwc", "ragged_all_to_all"]
        await pilot.press("s", "s")  # tier, then kernel
        assert app.main.sort_column == "kernel"
        assert names(app) == sorted(names(app))
        await pilot.press("o")
        assert names(app) == sorted(names(app), reverse=True)
        await pilot.press("S", "S")  # back round to the default order
        assert app.main.sort_column is None and names(app)[0] == "softmax_online_fused"
        await pilot.press("s", "s")
        # Ratio, ascending and descending: numbers as numbers, n/a last both ways.
        app.main._sort_by("ratio", False)
        await pilot.pause()
        ratios = [app.main.reports.by_name()[n].ratio_median_pct for n in names(app)]
        known = [r for r in ratios if r is not None]
        assert known == sorted(known) and ratios[len(known) :] == [None] * (len(ratios) - len(known))
        await pilot.press("o")
        ratios = [app.main.reports.by_name()[n].ratio_median_pct for n in names(app)]
        known = [r for r in ratios if r is not None]
        assert known == sorted(known, reverse=True) and all(r is None for r in ratios[len(known) :])
        # A click on the "PTO ms" header sorts by it.
        t = table(app)
        await pilot.click(t, offset=(t.column_x("pto_ms") + 2, 0))
        assert app.main.sort_column == "pto_ms" and not app.main.sort_reverse
        values = [app.main.reports.by_name()[n].pto_ms for n in names(app)]
        known = [v for v in values if v is not None]
        assert known == sorted(known) and values[len(known) :] == [None] * (len(values) - len(known))


@pytest.mark.slow
async def test_filter_escape_and_tier_keys(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("slash", *"torch_npu", "enter")
        assert set(names(app)) == {"paged_kv_gather"}  # matched in a reason only
        await pilot.press("escape")
        assert len(names(app)) == 15
        await pilot.press("slash", *"ptoas-sparse", "enter")
        assert names(app) == ["block_sparse_flash_decode"]  # a gap id
        await pilot.press("escape", "4")
        assert names(app) == ["paged_kv_gather"]
        await pilot.press("4", "6")  # 4 off again, then 6 alone
        assert set(names(app)) == {"block_sparse_flash_decode", "fp8_blockwise_quant"}
        await pilot.press("4")  # tier keys add up: 6 and 4 both shown, and the header says so
        assert set(names(app)) == {"block_sparse_flash_decode", "fp8_blockwise_quant", "paged_kv_gather"}
        assert "only BASELINE-BLOCKED+PTO-BLOCKED" in str(app.main.query_one("#header").render())
        await pilot.press("0")
        assert len(names(app)) == 15
        await pilot.press("exclamation_mark")  # every blocker tier at once
        blockers = {k.name for k in app.main.reports.kernels if is_blocker(k)}
        assert set(names(app)) == blockers and len(blockers) < 15


async def test_initial_filter_focuses_the_table(sample_location):
    app = build(sample_location, filter="norm")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await until(pilot, lambda: table(app).row_count == 2)
        assert set(names(app)) == {"layernorm_gated", "rmsnorm_residual_add"}
        assert app.focused is table(app)


async def test_detail_screen_and_language_switch(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("slash", *"paged_kv", "enter", "enter")
        assert isinstance(app.screen, DetailScreen)
        screen = app.screen
        await until(pilot, lambda: screen.report is not None)  # report.json is read off the UI thread
        text = app.screen.build("en")
        rendered = "".join(seg.text for seg in app.console.render(text))
        assert "Not a PTO failure" in rendered
        assert "[ERROR] (PID:41822" in rendered  # literal, not markup
        assert "report.json" in rendered and "timings" in rendered
        await pilot.press("l")
        assert app.ctx.lang == "zh"
        rendered = "".join(seg.text for seg in app.console.render(app.screen.build(app.ctx.lang)))
        assert "不是 PTO 的失败" in rendered
        await pilot.press("escape")
        assert app.screen is app.main


async def test_help_lists_every_key(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        rendered = "".join(seg.text for seg in app.console.render(app.screen._table()))
        for word in (
            "Filter",
            "Blockers",
            "Sort",
            "Reload",
            "Quit",
            "Toggle HIGH",
            "cursor of the table",
            "blocker pane",
        ):
            assert word in rendered
        first = app.screen
        await pilot.press("escape")
        assert app.screen is app.main
        await pilot.press("question_mark")
        assert app.screen is first  # kept, not built again
        await pilot.press("escape", "enter", "question_mark")  # the detail screen has its own keys
        assert isinstance(app.screen, HelpScreen) and app.screen is not first
        rendered = "".join(seg.text for seg in app.console.render(app.screen._table()))
        assert "Back" in rendered and "row cursor" not in rendered
        await pilot.press("escape")
        assert isinstance(app.screen, DetailScreen)


async def test_blocker_pane_highlights_kernels(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None)  # the start-up redraws are done
        pane = app.main.query_one(BlockerPane)
        pane.focus()
        await pilot.press("down")
        if pane.highlighted_heading is not None:  # the next layer's heading: the cursor stops there (R)
            await pilot.press("down")
        await until(pilot, lambda: bool(app.main.highlighted))
        picked = pane.highlighted_kernel
        assert picked in app.main.highlighted
        assert table(app).cursor_kernel == picked
        # Kernels sharing a gap are highlighted together.
        reports = app.main.reports.by_name()
        gaps = set(reports[picked].gap_ids)
        assert app.main.highlighted == {n for n, k in reports.items() if n == picked or gaps & set(k.gap_ids)}
        # Re-sorting the table leaves the pane as it is: its order is its own.
        option = pane.get_option_at_index(pane.highlighted)
        app.main.action_sort_next()
        await pilot.pause()
        assert pane.get_option_at_index(pane.highlighted) is option


async def test_live_reload_keeps_cursor_and_updates_value(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        t = table(app)
        t.focus_kernel("topk_router_softmax")
        await pilot.pause()
        rewrite_kernels(sample_location.reports, {"topk_router_softmax": every_variant(baseline_over_pto_pct=75.0)})
        await until(pilot, lambda: app.main.reports.by_name()["topk_router_softmax"].tier == "high")
        await pilot.pause()
        assert t.cursor_kernel == "topk_router_softmax"
        assert app.session.marks["topk_router_softmax"] == 1  # marked as improved
        assert cell_text(app, "topk_router_softmax", "mark") == "▲"
        assert "75.0%" in cell_text(app, "topk_router_softmax", "ratio")


@pytest.mark.slow
async def test_files_torn_for_good_are_read_as_a_fresh_start_reads_them(sample_location):
    """The retries ride out a torn write; a JSON still torn after them is invalid (issue 9):
    the load reads its twins as a fresh start would, instead of the JSON's last good data for ever,
    once they show they are not older than it (issue 24): here the markdown is whole again."""
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        json_path = sample_location.reports / "regression_latest.json"
        whole = {}
        for name in ("regression_latest.json", "regression_latest.md", "regression_latest.csv"):
            path = sample_location.reports / name
            whole[name] = path.read_text()
            path.write_text(whole[name][:300])
        # Torn twins cannot show their run: the JSON's last good data stays, said so.
        await until(pilot, lambda: any("last good" in w.message for w in app.main.reports.warnings))
        assert table(app).row_count == 15
        (sample_location.reports / "regression_latest.md").write_text(whole["regression_latest.md"])
        fresh = load(sample_location)
        await until(pilot, lambda: app.main.reports.kernels == fresh.kernels)
        assert any(w.file == str(json_path) and "last good" not in w.message for w in app.main.reports.warnings)
        assert app.main.query_one("#warnings").display


async def test_directory_deleted_and_recreated(sample_location, tmp_path):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        backup = tmp_path / "backup"
        shutil.copytree(sample_location.reports, backup)
        shutil.rmtree(sample_location.reports)
        await until(pilot, lambda: any("gone" in w.message for w in app.main.reports.warnings))
        assert table(app).row_count == 15  # the last good data stays on screen
        shutil.copytree(backup, sample_location.reports)
        path = sample_location.reports / "regression_latest.json"
        path.write_text(path.read_text().replace('"softmax_online_fused"', '"softmax_online_fused_v2"'))
        await until(pilot, lambda: "softmax_online_fused_v2" in app.main.reports.by_name())
        assert app.main.reports.warnings == []


async def test_starts_on_missing_directory_and_waits(tmp_path, sample_bench):
    target = tmp_path / "later" / "bench"
    app = build(target)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 0)
        assert "waiting for" in str(app.main.query_one("#warnings").render())
        shutil.copytree(sample_bench, target)
        await until(pilot, lambda: table(app).row_count == 15)


async def test_hostile_text_is_shown_literally(sample_location):
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    data["kernels"][0]["name"] = "evil[/]kernel"
    data["kernels"][0]["family"] = "[@click=app.quit]x[/]"
    data["kernels"][0]["baseline_reason"] = "[ERROR] boom \x1b]2;TITLE\x07 [/] [bold]"
    path.write_text(json.dumps(data))
    for twin in ("regression_latest.md", "regression_latest.csv"):
        (sample_location.reports / twin).unlink()
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 16)  # the state matrix still has the old name: both show
        assert "evil[/]kernel" in names(app)
        t = table(app)
        t.focus_kernel("evil[/]kernel")
        await pilot.pause()
        row_y = t.cursor_row - t.scroll_offset.y + 1
        await pilot.click(t, offset=(t.column_x("kernel") + 1, row_y))  # markup-looking text: no action runs ...
        assert app.is_running and isinstance(app.screen, DetailScreen)  # ... the click opens the row under the cursor
        rendered = "".join(seg.text for seg in app.console.render(app.screen.build("en")))
        assert "[ERROR] boom  [/] [bold]" in rendered and "\x1b" not in rendered


async def test_triage_keys_note_and_untriaged_filter(sample_location, tmp_path):
    state = tmp_path / "triage.json"
    app = build(sample_location, state=state)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        untriaged = sum(1 for k in app.main.reports.kernels if k.blocker_layer)
        table(app).focus_kernel("fp8_blockwise_quant")
        await pilot.press("i")
        assert cell_text(app, "fp8_blockwise_quant", "triage") == "investigating"
        await pilot.press("n", *"on it", "enter")
        assert app.session.triage.entries["fp8_blockwise_quant"].note == "on it"
        await until(pilot, lambda: cell_text(app, "fp8_blockwise_quant", "triage") == "investigating: on it")
        await pilot.press("t")
        assert "fp8_blockwise_quant" not in names(app) and len(names(app)) == untriaged - 1
        await pilot.press("t")
        # From the blocker pane: the highlighted entry is the one triaged.
        pane = app.main.query_one(BlockerPane)
        pane.focus()
        await pilot.press("down")
        await until(pilot, lambda: pane.highlighted_option is not None)
        if pane.highlighted_heading is not None:  # the next layer's heading: the cursor stops there (R)
            await pilot.press("down")
        picked = pane.highlighted_kernel
        await pilot.press("w")
        assert app.session.triage.entries[picked].state == "wont-fix"
        await pilot.press("x")
        assert picked not in app.session.triage.entries
    assert json.loads(state.read_text())["reports"]  # written outside the reports directory
    assert not any("triage" in p.name for p in sample_location.reports.iterdir())


async def test_changed_filter_and_changes_pane(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None)
        await pilot.press("m")  # what the snapshots say is seen: only the reload's change is left
        path = sample_location.reports / "regression_latest.json"
        data = json.loads(path.read_text())
        data["kernels"][1]["pto_status"] = "blocked"
        for variant in data["kernels"][1]["variants"]:
            variant.update(pto_status="blocked", pto_median_ms=None, baseline_over_pto_pct=None, pto_correct=False)
        path.write_text(json.dumps(data))
        await until(pilot, lambda: "layernorm_gated" in app.session.marks)
        await pilot.press("c")
        assert names(app) == ["layernorm_gated"]
        assert app.session.marks["layernorm_gated"] == -1
        await pilot.press("c", "C")
        assert app.main.has_class("-show-changes")
        assert any(c.kernel == "layernorm_gated" and c.regression for _, c in app.session.changes)
        table(app).focus_kernel("softmax_online_fused")
        changes = app.main.query_one("#changes")
        changes.focus()
        ids = [changes.get_option_at_index(i).id or "" for i in range(changes.option_count)]
        changes.highlighted = next(i for i, x in enumerate(ids) if x.endswith(":layernorm_gated"))
        await pilot.press("enter")  # jump to the change's kernel
        await pilot.pause()
        assert table(app).cursor_kernel == "layernorm_gated" and app.focused is table(app)
        assert isinstance(app.screen, type(app.main))  # not the detail screen
        await pilot.press("m")
        assert app.session.marks == {}


async def test_history_column_and_detail_sparkline(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.history is not None)
        await pilot.press("h")
        t = table(app)
        assert "history" in t.fit().keys
        assert t.get_cell("segmented_argsort", "history").plain.startswith("×")
        app.main.open_detail("rotary_embedding_3d")
        await pilot.pause()
        rendered = "".join(seg.text for seg in app.console.render(app.screen.build("en")))
        assert "History" in rendered and "20261101T080000Z" in rendered


async def test_the_cursor_keeps_its_kernel_and_place_across_filters_and_sorts(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(120, 12)) as pilot:  # 10 rows fit: the table scrolls
        await loaded(pilot, 15)
        t = table(app)
        await pilot.press("end")
        assert t.cursor_kernel == "ragged_all_to_all" and t.scroll_offset.y > 0
        place = t.cursor_row - t.scroll_offset.y
        await pilot.press("slash", "o", "enter")  # a rebuild with fewer rows ...
        assert t.cursor_kernel == "ragged_all_to_all"
        await pilot.press("escape")  # ... and back
        assert t.row_count == 15 and t.cursor_kernel == "ragged_all_to_all"
        assert t.cursor_row - t.scroll_offset.y == place
        await pilot.press("s", "s")  # by kernel name: the row moves, the cursor with it
        assert t.cursor_kernel == "ragged_all_to_all"
        await pilot.press("home", "j", "j", "k")
        assert t.cursor_row == 1 and t.scroll_offset.y == 0
        await pilot.press("pagedown")
        assert t.cursor_row == 1 + t._page and t.cursor_row - t.scroll_offset.y < t._page


async def test_a_neutral_change_keeps_an_unseen_down_mark(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        table(app).focus_kernel("softmax_online_fused")
        reports = sample_location.reports
        data = json.loads((reports / "regression_latest.json").read_text())
        kernel = next(k for k in data["kernels"] if k["name"] == "layernorm_gated")
        kernel["pto_status"] = "blocked"
        for variant in kernel["variants"]:
            variant.update(pto_status="blocked", pto_median_ms=None, baseline_over_pto_pct=None, pto_correct=False)
        (reports / "regression_latest.json").write_text(json.dumps(data))
        await until(pilot, lambda: app.session.marks.get("layernorm_gated") == -1)
        assert cell_text(app, "layernorm_gated", "correct") == "n/a"  # PTO did not run
        state = json.loads((reports / "kernel_state_matrix_latest.json").read_text())
        next(k for k in state["kernels"] if k["name"] == "layernorm_gated")["primary_class"] = (
            "blocked by PTOAS lowering"
        )
        (reports / "kernel_state_matrix_latest.json").write_text(json.dumps(state))
        await until(pilot, lambda: app.main.reports.by_name()["layernorm_gated"].klass == "blocked by PTOAS lowering")
        await pilot.pause()
        assert app.session.marks["layernorm_gated"] == -1


async def test_poll_mode_sees_a_rewrite(sample_location):
    app = build(sample_location, poll=True)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.controller.feed._observer is not None)
        assert type(app.controller.feed._observer).__name__ == "PollingObserver"
        path = sample_location.reports / "regression_latest.json"
        path.write_text(path.read_text().replace('"rotary_embedding_3d"', '"rotary_embedding_3d_polled"'))
        await until(pilot, lambda: "rotary_embedding_3d_polled" in app.main.reports.by_name())


@pytest.mark.slow
async def test_a_checkout_without_reports_is_followed_once_they_appear(tmp_path, sample_bench):
    checkout = tmp_path / "pto-kernels"
    checkout.mkdir()
    app = build(str(checkout))  # a PATH, as the CLI passes it
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 0)
        shutil.copytree(sample_bench, checkout / "bench")
        await until(pilot, lambda: table(app).row_count == 15)
        assert app.session.location.reports == checkout / "bench" / "reports"


async def test_start_up_pauses_the_collector_only_until_the_first_rows(sample_location):
    import gc

    try:
        app = build(sample_location, pause_gc=True)
        assert not gc.isenabled()
        async with app.run_test(size=SIZE) as pilot:
            await loaded(pilot, 15)
            await until(pilot, gc.isenabled)
    finally:
        gc.enable()
        gc.unfreeze()


async def test_keys_typed_right_after_slash_land_in_the_filter(sample_location):
    from textual import events

    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        for key, char in (("slash", "/"), ("s", "s"), ("o", "o"), ("f", "f"), ("t", "t")):
            app.post_message(events.Key(key, char))  # all queued at once, as a fast typist or a paste does
        await until(pilot, lambda: app.main.filters.text == "soft")
        assert app.main.sort_column is None and not app.main.filters.untriaged
        app.post_message(events.Key("slash", "/"))  # in the filter, "/" is text
        await until(pilot, lambda: app.main.filters.text == "soft/")


async def test_help_states_the_thresholds_in_force(sample_location):
    app = build(sample_location, high=80, mid=25)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("question_mark")
        rendered = "".join(seg.text for seg in app.console.render(app.screen._table()))
        assert "HIGH ≥80%, MID 25–80%, SLOW <25%" in rendered


async def test_keys_typed_right_after_q_open_nothing(sample_location):
    """q then n typed fast: the note screen used to open on the closing app and crash
    (NoMatches in its on_mount, a traceback on the user's terminal)."""
    app = build(sample_location)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot, 15)
        app.post_message(events.Key("q", "q"))
        for key in "nv?G":
            app.post_message(events.Key(key, key))
        await pilot.pause(0.5)
    assert app.return_code == 0
    assert app._exception is None


@pytest.mark.slow
async def test_reports_that_appear_later_get_the_marks_a_fresh_start_gives(tmp_path, sample_bench):
    """Found by hand: started on a directory not written yet, every kernel of the first real
    load was marked new (●), because the empty first load had counted as the first sight."""
    fresh = build(sample_bench)
    async with fresh.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: fresh.session.since is not None)
        expected = dict(fresh.session.marks)
    assert expected  # the samples' newest snapshot differs: some kernels are marked

    target = tmp_path / "later" / "bench"
    app = build(target)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 0)
        shutil.copytree(sample_bench, target)
        await until(pilot, lambda: table(app).row_count == 15)
        await until(pilot, lambda: app.session.marks == expected)


async def test_stepping_through_the_changed_kernels_hides_none_of_them(sample_location):
    """Found by hand: with ``c`` on, the cursor marked each row it reached as seen, and the
    filter then dropped it, so ``↓`` skipped rows and the first one vanished at once."""
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None and len(app.session.marks) >= 2)
        changed = set(app.session.marks)
        await pilot.press("c")
        assert set(names(app)) == changed
        for key in ("down", "up") * len(changed):  # the cursor starts on the first: back to it too
            await pilot.press(key, key)
        await pilot.pause()
        assert set(names(app)) == changed and not app.session.marks  # each seen, none hidden
        await pilot.press("c", "c")  # on again: nothing is unseen now
        assert names(app) == []


async def test_ctrl_c_quits_as_the_readme_says(sample_location):
    """Textual's ctrl+c only tells you to press ctrl+q (found by hand in tmux)."""
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.return_code == 0


async def test_equals_without_compare_says_why_it_does_nothing(sample_location):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.press("equals_sign")
        await pilot.pause()
        assert any("--compare" in str(n.message) for n in app._notifications)
        assert table(app).row_count == 15


@pytest.mark.slow
async def test_picking_a_bar_draws_the_table_once(sample_location, monkeypatch):
    """enter on an overview bar (show_only) cleared the filters with a redraw of its own, and
    emptying the filter line posted a change that drew the table a third time (~60 ms each
    at 10k kernels, benchmarks/bench_overview.py)."""
    from ptotui.app.screens.main.screen import MainScreen

    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        # The comparison with the snapshots redraws the table when it lands (its marks): after
        # the first rows, at a time of its own; counted here it is not show_only's.
        await until(pilot, lambda: app.session.since is not None)
        await pilot.press("slash", *"fp8", "enter")
        await until(pilot, lambda: table(app).row_count == 1)
        await pilot.pause()
        draws: list[int] = []
        real = MainScreen._draw_all
        monkeypatch.setattr(MainScreen, "_draw_all", lambda self: (draws.append(1), real(self))[1])
        app.main.show_only("HIGH", lambda k: k.tier == "high")
        await pilot.pause()
        await pilot.pause()
        assert len(draws) == 1 and app.main.filters.text == ""
        assert {k.tier for k in app.main.visible_kernels()} == {"high"}


async def test_the_changes_pane_says_it_is_comparing_and_esc_closes_it_when_narrow(sample_location):
    """At 80 columns the changes pane covers the table and only C closed it; before the
    snapshots were compared it said there were no changes."""
    from ptotui.app.widgets.changes_pane import ChangesPane
    from ptotui.model.history.since import SinceSnapshot

    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        pane = app.main.query_one(ChangesPane)
        pane.show(None, [])
        assert "comparing with the newest snapshot" in str(pane.get_option_at_index(0).prompt)
        pane.show(SinceSnapshot(None, None, ()), [])
        assert "no changes since" in str(pane.get_option_at_index(0).prompt)
        await pilot.press("C")
        assert app.main.has_class("-show-changes")
        await pilot.press("escape")
        assert not app.main.has_class("-show-changes")
        await pilot.press("slash", *"paged", "enter", "C", "escape")  # then esc clears the filter as before
        assert not app.main.has_class("-show-changes") and app.main.filters.text == "paged"
        await pilot.press("escape")
        assert app.main.filters.text == ""


async def test_applying_a_filter_puts_the_cursor_on_its_first_match(sample_location):
    """Issue 24: after ``/moe_gating_top_k`` and enter the cursor kept its old row number, so
    a second enter opened the last match instead of the first."""
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        t = table(app)
        t.move_cursor(14)
        await pilot.pause()
        await pilot.press("slash", *"conv", "enter")  # three kernels
        await until(pilot, lambda: t.row_count == 3)
        first = names(app)[0]
        assert t.cursor_row == 0 and t.cursor_kernel == first
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen) and app.screen.kernel.name == first
