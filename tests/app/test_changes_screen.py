"""The change points on screen: the detail's list, `d`'s diff view, the runs chart's marks."""

from __future__ import annotations

import pytest

from ptotui.app.render import changes as changes_render
from ptotui.app.screens.detail import DetailScreen
from ptotui.app.screens.rundiff import RunDiffScreen
from tests.app.test_detail_limits import KERNEL, SIZE, open_detail, rendered_lines
from tests.changetree import noisy, pto_code, stamp, write_history
from tests.helpers import build, until


def _with_runs(location) -> None:
    """30 runs of the sample's paged_kv_gather, older than its summary: a PTO step at run 18
    where the kernel was split into two stages."""
    pto = noisy(30, 18, 0.25, 0.01, seed=11)
    write_history(location.bench, "cache", KERNEL, pto, code=lambda i: pto_code(i, 18))


async def test_the_detail_lists_the_change_points_and_d_shows_their_code(sample_location):
    _with_runs(sample_location)
    app = build(sample_location)  # watching: the runs are read
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: bool(screen.changes))  # once the history behind the newest run is read
        assert screen.changes is not None
        kernel_series = [c for c in screen.changes if c.shape is None]
        assert [(c.side, c.after) for c in kernel_series] == [("pto", stamp(18))]
        assert screen.changes[0].shape is None  # newest first, the kernel's series before its shapes
        lines = rendered_lines(app)
        heading = lines.index("Change points")
        first = lines[heading + 1].split()  # 120 columns: the short form, no cause
        assert first[:5] == ["03-10", "03:00", "PTO", "all", "shapes"]
        assert first[-5] == f"{screen.changes[0].before_ms:.4f}→{screen.changes[0].after_ms:.4f}"
        assert first[-4] == f"{screen.changes[0].change_pct:+.1f}%"
        assert first[-3:] == ["5", "files", "changed"]

        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, RunDiffScreen))
        diff = app.screen
        assert isinstance(diff, RunDiffScreen)
        await until(pilot, lambda: diff.files is not None)
        assert [part.path for part in diff.files or ()] == [
            "kernel.pto",
            "kernel.so",
            "stage1/kernel.pto",
            "stage1/kernel.so",
            "stage2/kernel.pto",
        ]
        await pilot.press("n", "n")
        assert diff.file_index == 2
        await pilot.press("p", "p", "p")
        assert diff.file_index == 4  # round the files
        await pilot.press("right_square_bracket")
        assert diff.index == 0  # one change listed: its two shapes' points at the same run are folded under it
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))


async def test_the_runs_chart_marks_the_change_points(sample_location):
    from ptotui.app.widgets.charts import RunsChart

    _with_runs(sample_location)
    app = build(sample_location)  # watching: the runs are read
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: bool(screen.changes))
        await pilot.press("g")
        await until(pilot, lambda: bool(screen.query(RunsChart)) and screen.query_one(RunsChart).marks != [])
        assert screen.query_one(RunsChart).marks == [stamp(18)]


async def test_a_kernel_without_runs_shows_no_change_points_and_no_d(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        assert screen.changes == []
        assert "Change points" not in rendered_lines(app)
        assert screen.check_action("show_code_changes", ()) is False


async def test_the_step_column_shows_the_newest_pto_step_and_its_age(sample_location):
    from ptotui.model.bench.record import stamp_seconds
    from ptotui.model.config import DEFAULT_COLUMNS, Config
    from tests.helpers import cell_text, loaded

    _with_runs(sample_location)
    three_days_on = (stamp_seconds(stamp(18)) or 0) + 3 * 86400 + 60
    app = build(sample_location, config=Config(columns=(*DEFAULT_COLUMNS, "step")), clock=lambda: three_days_on)
    async with app.run_test(size=(200, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: cell_text(app, KERNEL, "step") != "", timeout=60)
        text = cell_text(app, KERNEL, "step")
        assert text.startswith("+2") and text.endswith("% 3d")
        assert cell_text(app, "layernorm_gated", "step") == ""  # no runs, no step


@pytest.mark.slow
async def test_a_pto_step_that_landed_runs_make_significant_is_a_regression_told_once(sample_location, tmp_path):
    """Runs landing one by one (as the runner writes them): once the runs after the step make it
    significant, one toast, one bell and one hook entry, and the change log has it; the runs
    that land after it tell nothing more."""
    import json

    pto = noisy(26, 18, 0.25, 0.01, seed=11)
    write_history(sample_location.bench, "cache", KERNEL, pto[:12])
    hook = tmp_path / "hook.jsonl"
    app = build(sample_location, on_regression=f"cat >> {hook}")
    rings: list[int] = []
    app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
    said: list[str] = []
    notify = app.notify
    app.notify = lambda text, **kw: said.append(str(text)) or notify(text, **kw)  # type: ignore[method-assign]

    def runs_in() -> int:
        reports = app.session.reports
        bench = reports.bench_run if reports is not None else None
        return len(bench.runs.of(KERNEL)) if bench is not None else 0

    def told() -> list[str]:
        return [text for text in said if "for good" in text]

    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: runs_in() == 12)  # the history behind the newest run read
        for index in range(12, len(pto)):
            write_history(sample_location.bench, "cache", KERNEL, [pto[index]], first=index)
            await pilot.press("r")  # (the rescan would find the new run directory within 2 s)
            await until(pilot, lambda n=index + 1: runs_in() == n)
            if index == 19:
                assert not told()  # two runs after the step: pending, not told
            if index == 20:  # its third run after: a change point, told
                await until(pilot, lambda: bool(told()))
        await until(pilot, lambda: hook.exists() and hook.read_text().endswith("}\n"))
        await pilot.pause(0.3)  # (the last landings' searches: nothing more is told)
        logged = [c for _when, c in app.session.changes if c.kind == "step"]
        assert [c.kernel for c in logged] == [KERNEL] and logged[0].step is not None
        pct = logged[0].step.change_pct
        assert 20 < pct < 30
        assert told() == [
            f"1 kernel's PTO got slower for good (a change point of its runs): {KERNEL} {pct:+.0f}% ({stamp(18)})"
        ]
        assert rings == [1]
        payload = json.loads(hook.read_text())  # one entry: the step
        (change,) = payload["changes"]
        assert (change["kind"], change["cause"], change["regression"]) == ("step", "pto-slower", True)
        assert change["step"]["after"] == stamp(18) and change["step"]["side"] == "pto"
        assert payload["regressed_kernels"] == [KERNEL]
        assert "change point of its PTO runs" in logged[0].describe()


async def test_pto_first_a_pending_point_apart_and_d_on_the_baseline_says_whose_code(sample_location):
    """fused_infer_attention_score's detail of the real tree: a baseline step opened `d` at
    PTO's kernel.cpp diff as if it explained it, and a one-run baseline blip was change 1."""
    baseline = [v * (0.8 if i >= 8 else 1.0) for i, v in enumerate(noisy(30, None, 0.0, 0.01, seed=4))]
    pto = noisy(30, None, 0.0, 0.01, seed=3)
    pto[-1] *= 1.5  # the newest run: a PTO blip, pending
    write_history(sample_location.bench, "cache", KERNEL, pto, baseline, code=lambda i: pto_code(i, 8))
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: bool(screen.changes))
        assert [(i.change.side, i.change.shape, i.change.after) for i in screen.listed or ()] == [
            ("baseline", None, stamp(8))
        ]
        assert len((screen.listed or [])[0].repeats) == 2  # its two shapes' points at the same run: folded
        assert [(i.change.side, i.change.runs_after) for i in screen.pending] == [("pto", 1)]
        lines = rendered_lines(app)
        heading = lines.index("Change points")
        assert lines[heading + 1].split()[2:5] == ["baseline", "all", "shapes"]
        assert lines[heading + 2].split()[:4] == ["↳", "2", "shapes", "too"]
        assert lines[heading + 3].strip() == "Pending: fewer than 3 runs after them yet"
        assert lines[heading + 4].split()[2:5] == ["PTO", "all", "shapes"]
        assert not any("{}" in line for line in lines)

        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, RunDiffScreen))
        diff = app.screen
        assert isinstance(diff, RunDiffScreen) and diff.changes[0].side == "baseline"
        await until(pilot, lambda: diff.files is not None)

        def head() -> str:  # the heading the view draws, as it draws it
            paths = [part.path for part in diff.files or ()]
            count, repeats = len(diff.changes), diff.repeats[diff.index]
            return changes_render.header(diff.changes[diff.index], diff.index, count, 0, paths, "en", repeats).plain

        assert "its code is not kept in the run" in head() and "what changed on PTO's side" in head()
        assert "(and 2 shapes)" in head()
        await pilot.press("right_square_bracket")
        assert diff.index == 1
        assert "pending: 1 of 3 runs after it yet" in head() and "not kept in the run" not in head()


def _diff_colours(screen: RunDiffScreen) -> set[str]:
    """The colours the diff's added and removed lines are drawn in, as the screen shows them."""
    body = screen.query_one("#rundiff-body")
    colours = set()
    for y in range(body.size.height):
        for segment in body.render_line(y):
            if segment.text.startswith(("+", "-")) and segment.style is not None and segment.style.color:
                colours.add(segment.style.color.name)
    return colours


async def test_the_code_diff_is_drawn_in_the_themes_light_or_dark(sample_location):
    """Issue 40 (19): the code diff was always drawn with the dark theme's colours (bright green
    and red, hard to read on a light background)."""
    _with_runs(sample_location)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: bool(screen.changes))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, RunDiffScreen) and app.screen.files is not None)
        diff = app.screen
        assert isinstance(diff, RunDiffScreen)
        await until(pilot, lambda: bool(_diff_colours(diff)))
        dark = _diff_colours(diff)
        app.theme = "textual-light"
        await until(pilot, lambda: bool(_diff_colours(diff)) and _diff_colours(diff) != dark)
        assert "bright_green" in dark and "green" in _diff_colours(diff)  # rich's ansi_dark / ansi_light
        app.theme = "textual-dark"
        await until(pilot, lambda: _diff_colours(diff) == dark)
