"""Regressions no one can miss: since the previous snapshot, since you last looked, on reload."""

from __future__ import annotations

import json
import shutil

import pytest

from ptotui.model.core.diff import Change
from ptotui.model.history.since import load_seen, seen_file
from ptotui.model.location import locate
from tests.helpers import build, cell_text, every_variant, loaded, rewrite_kernels, scale_side, table, until

REGRESSED = ("moe_compute_expert_tokens", "ring_attention_update", "moe_init_routing")


async def test_start_up_shows_the_regressions_since_the_snapshot_then_m_remembers(reference_bench, tmp_path):
    location = locate(reference_bench)
    state = tmp_path / "state" / "triage.json"
    app = build(location, state=state)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.since is not None)
        await pilot.pause()
        header = str(app.main.query_one("#header").render())
        assert "13 regressions since snapshot 20260314T170132Z" in header
        for name in REGRESSED:
            assert app.session.marks[name] == -1, name
            assert cell_text(app, name, "mark") == "▼"
        await pilot.press("C")
        await pilot.pause()
        from ptotui.app.widgets.changes_pane import ChangesPane

        pane = app.main.query_one(ChangesPane)
        lines = [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]
        assert "13 regressions" in lines[0]
        assert all("▼" in line for line in lines[1:17])
        assert any("moe_compute_expert_tokens: PTO ok -> blocked" in line for line in lines[1:17])
        await pilot.press("m")
        assert app.session.marks == {}
    assert seen_file(state).exists()
    # The next start: nothing new since the user last looked, yet the header still counts.
    app = build(location, state=state)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.since is not None)
        assert app.session.marks == {}
        said = [str(n.message) for n in app._notifications if "regressions since snapshot" in str(n.message)]
        assert len(said) == 1 and "C lists them." in said[0] and "marks" not in said[0]  # none are marked
        # At 80 columns the count leads the header, before the path that would push it off.
        assert str(app.main.query_one("#header").render()).startswith(" 13 regressions since snapshot 20260314T170132Z")


async def test_unseen_marks_survive_a_restart(sample_location, tmp_path):
    state = tmp_path / "state" / "triage.json"
    app = build(sample_location, state=state)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("m")  # everything seen as it is now

    def blocked(kernel: dict) -> None:
        kernel["pto_status"] = "blocked"
        every_variant(pto_status="blocked", baseline_over_pto_pct=None, pto_median_ms=None)(kernel)

    rewrite_kernels(sample_location.reports, {"topk_router_softmax": blocked})  # changed while ptotui was closed
    app = build(sample_location, state=state)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        assert app.session.marks.get("topk_router_softmax") == -1


async def test_a_reload_regression_notifies_rings_and_runs_the_hook_once(sample_location, tmp_path):
    out = tmp_path / "hook.json"
    app = build(sample_location, on_regression=f"cat > {out}")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        rewrite_kernels(sample_location.reports, {"topk_router_softmax": every_variant(baseline_over_pto_pct=5.0)})
        await until(pilot, lambda: app.main.reports.by_name()["topk_router_softmax"].tier == "slow")
        await until(pilot, lambda: out.exists() and out.read_text().endswith("\n"))
        payload = json.loads(out.read_text())
        assert payload["schema"] == "ptotui.diff/2" and payload["regressions"] >= 1
        assert {c["kernel"] for c in payload["changes"]} == {"topk_router_softmax"}
        assert rings == [1]
        # Its tier and its ratio both dropped: one kernel, counted once, as diff counts it.
        assert any(n.message == "1 kernel regressed on reload: topk_router_softmax" for n in app._notifications)


async def test_a_baseline_speed_up_rings_nothing_and_a_pto_slowdown_runs_the_hook_once(sample_location, tmp_path):
    out = tmp_path / "hooks.log"
    app = build(sample_location, on_regression=f"cat >> {out}; echo >> {out}")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        name = "topk_router_softmax"
        before = app.main.reports.by_name()[name].ratio_median_pct
        rewrite_kernels(sample_location.reports, {name: scale_side("baseline", 0.6)})  # the baseline 40% faster
        await until(pilot, lambda: app.main.reports.by_name()[name].ratio_median_pct != before)
        await until(pilot, lambda: any("only the baseline moved" in n.message for n in app._notifications))
        assert rings == [] and not out.exists()
        rewrite_kernels(sample_location.reports, {name: scale_side("pto", 1.3)})  # PTO 30% slower
        await until(pilot, lambda: out.exists() and out.read_text().endswith("\n\n"))
        payloads = [json.loads(part) for part in out.read_text().split("\n\n") if part.strip()]
        assert len(payloads) == 1 and payloads[0]["regressed_kernels"] == [name]
        ratio = next(c for c in payloads[0]["changes"] if c["kind"] == "ratio")
        assert ratio["cause"] == "pto-slower" and ratio["pto_change_pct"] == pytest.approx(30.0)
        assert rings == [1]


async def test_no_bell_and_a_failing_hook_is_a_warning(sample_location):
    app = build(sample_location, bell=False, on_regression="echo broken >&2; exit 3")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        rewrite_kernels(sample_location.reports, {"topk_router_softmax": every_variant(baseline_over_pto_pct=5.0)})
        await until(pilot, lambda: any("exited 3: broken" in n.message for n in app._notifications))
        assert rings == []


async def test_one_regression_is_said_in_the_singular(sample_location):
    """The demo's header said "1 regressions since ..." (found by hand)."""
    from dataclasses import replace

    from ptotui.app.messages import Call

    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None and app.session.since.stamp is not None)
        one = Change("layernorm_gated", "tier", "high", "mid", -1, True)
        since = replace(app.session.since, changes=(one,))
        app.post_message(Call(lambda: app.controller.since_measured((since, app.session.reports))))
        await pilot.pause()
        header = str(app.main.query_one("#header").render())
        assert header.startswith(" 1 regression since ") and "regressions" not in header


async def test_the_app_says_when_the_seen_file_is_ignored(sample_location, tmp_path):
    state = tmp_path / "state" / "triage.json"
    state.parent.mkdir()
    seen_file(state).write_text("[" * 5000)
    app = build(sample_location, state=state)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.seen is not None)  # read after the first rows
        said = [str(n.message) for n in app._notifications]
        assert any(str(seen_file(state)) in m and "starts afresh" in m for m in said), said


async def test_a_reload_before_what_was_seen_is_read_is_marked_and_m_is_kept(sample_location, tmp_path, monkeypatch):
    """What was seen is read on a worker after the first rows; a reload that comes first is
    marked from the first load all the same, and an ``m`` pressed meanwhile is saved."""
    import threading

    from ptotui.model.control.controller import Controller

    gate = threading.Event()
    read = Controller.saved_seen

    def slow(self: Controller):
        if threading.current_thread() is not threading.main_thread():  # the worker's read, not m's
            gate.wait(20)
        return read(self)

    monkeypatch.setattr(Controller, "saved_seen", slow)
    state = tmp_path / "state" / "triage.json"
    # A first run, without the snapshot's marks: they come when the history is read and
    # compared, at a time of their own (before or after the gate opens).
    compare = Controller.compare_with_snapshots
    monkeypatch.setattr(Controller, "compare_with_snapshots", lambda self, reports: [])
    try:
        app = build(sample_location, state=state)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: table(app).row_count == 15)
            rewrite_kernels(sample_location.reports, {"topk_router_softmax": every_variant(baseline_over_pto_pct=75.0)})
            await until(pilot, lambda: app.main.reports.by_name()["topk_router_softmax"].tier == "high")
            assert app.session.seen is None
            gate.set()
            await until(pilot, lambda: app.session.seen is not None)
            await pilot.pause()
            assert app.session.marks == {"topk_router_softmax": 1}
        gate.clear()
        monkeypatch.setattr(Controller, "compare_with_snapshots", compare)
        app = build(sample_location, state=state)
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: table(app).row_count == 15)
            assert app.session.seen is None
            await pilot.press("m")  # before the read arrives
        saved = load_seen(seen_file(state), str(sample_location.reports.resolve()))
        assert saved is not None and saved["topk_router_softmax"].tier == "high"
    finally:
        gate.set()


@pytest.mark.slow
async def test_the_row_under_the_cursor_at_start_keeps_its_mark_until_a_key_moves_onto_it(sample_location, tmp_path):
    """A restart with no key pressed shows the marks the last session left (the cursor's row
    counted as seen at start-up once, so the first row lost its mark on every restart); a key
    that moves the cursor back onto the row sees it."""
    state = tmp_path / "state" / "triage.json"
    app = build(sample_location, state=state)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("m")
        working = [k.name for k in app.main.reports.kernels if k.ratio_median_pct is not None]

    def slower(kernel: dict) -> None:
        for variant in kernel["variants"]:
            if variant.get("baseline_over_pto_pct"):
                variant["baseline_over_pto_pct"] = variant["baseline_over_pto_pct"] / 2

    rewrite_kernels(sample_location.reports, dict.fromkeys(working, slower))
    for _ in range(2):  # the same marks on a second start, nothing pressed in between
        app = build(sample_location, state=state)
        async with app.run_test(size=(120, 36)) as pilot:
            await loaded(pilot, 15)
            await pilot.pause()
            cursor = table(app).cursor_kernel
            assert set(working) <= set(app.session.marks)
            assert cursor in app.session.marks
    app = build(sample_location, state=state)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        cursor = table(app).cursor_kernel
        await pilot.press("j", "k")
        assert cursor not in app.session.marks
        assert app.session.seen.kernels[cursor] is app.main.reports.by_name()[cursor]


@pytest.mark.slow
async def test_a_torn_regressed_json_keeps_its_data_and_the_hook_runs_once(sample_location, tmp_path):
    """Issue 24: truncating a regressed JSON showed the older markdown twin as current, and
    restoring it rang and ran the --on-regression hook a second time for the same regression."""
    out = tmp_path / "hooks.log"
    app = build(sample_location, on_regression=f"cat >> {out}; echo >> {out}")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    path = sample_location.reports / "regression_latest.json"
    name = "topk_router_softmax"
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        data = json.loads(path.read_text())
        data["generated_at"] = "20261127T080000Z"  # a newer run than the twins'
        for kernel in data["kernels"]:
            if kernel["name"] == name:
                for variant in kernel["variants"]:
                    variant.update(pto_status="blocked", pto_reason="lowering failed")
        text = json.dumps(data)
        path.write_text(text)
        await until(pilot, lambda: out.exists() and out.read_text().endswith("\n\n"))
        path.write_text(text[:300])
        await until(pilot, lambda: any("last good" in w.message for w in app.main.reports.warnings))
        assert app.main.reports.by_name()[name].pto_status == "blocked"
        path.write_text(text)
        await until(pilot, lambda: not app.main.reports.warnings)
        await until(pilot, lambda: not [w for w in app.workers if w.group == "hook" and not w.is_finished])
        assert app.main.reports.by_name()[name].pto_status == "blocked"
        assert len([p for p in out.read_text().split("\n\n") if p.strip()]) == 1
        assert rings == [1]


async def test_the_header_never_shows_the_old_regression_count_over_new_data(reference_bench, tmp_path):
    """Issue 24: for one frame after a reload the header showed the old reports' count."""
    from ptotui.app.widgets.fitted_line import FittedLine

    bench = tmp_path / "bench"
    shutil.copytree(reference_bench, bench)
    app = build(locate(bench))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.since is not None)
        await pilot.pause()
        header = app.main.query_one("#header", FittedLine)
        assert "13 regressions since" in str(header.render())
        held: list = []
        compare = app.controller.compare_with_snapshots
        app.controller.compare_with_snapshots = lambda reports: held.append(reports) or []  # type: ignore[method-assign]
        before = app.main.reports
        path = bench / "reports" / "regression_latest.json"
        path.write_text(path.read_text().replace('"ok"', '"blocked"', 1))
        await until(pilot, lambda: app.main.reports is not before and bool(held))
        await pilot.pause()
        shown = str(header.render())
        assert "13 regressions" not in shown and "comparing…" in shown, shown
        app.controller.compare_with_snapshots = compare  # type: ignore[method-assign]
        app.run_effects(compare(held[-1]))
        await until(pilot, lambda: "comparing…" not in str(header.render()))
        assert "regressions since" in str(header.render())
