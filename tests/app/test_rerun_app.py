"""Re-runs in the app: R asks with the command, enter runs, the line says it, L shows the
output, the outcome is on screen; R again stops it; q asks. What is only a decision (refusals,
duplicates, the questions' answers) is tested without a terminal: tests/test_rerun_controller.py."""

from __future__ import annotations

import io
import re
import time

from rich.console import Console

from ptotui.app.screens.confirm import ConfirmScreen
from ptotui.app.screens.rerun_output import RerunOutputScreen
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.fitted_line import FittedLine
from ptotui.model.rerun.process import StopTimes
from tests.fake_runners import runner
from tests.helpers import build, loaded, table, until


def plain(renderable) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def status_line(app) -> str:
    line = app.main.query_one("#benchrun", FittedLine)
    return line.render().plain if line.display else ""


def said(app) -> list[str]:
    return [n.message for n in app._notifications]


def reruns(app):
    """The re-runs' controller (made now when not yet): its queue, what the screens draw."""
    return app.ctx.reruns_now()


def first_kernel(app) -> str:
    name = table(app).cursor_kernel
    assert name is not None
    return name


async def test_r_asks_with_the_command_runs_it_and_the_row_follows_its_report(sample_location, tmp_path):
    go = tmp_path / "go"
    template = runner(tmp_path, "writes") + f" {go}"
    app = build(sample_location, runner=template)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        name = first_kernel(app)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        assert f"writes.py {app.main.reports.by_name()[name].family} {name}" in app.screen.command
        assert app.screen.command.startswith("PYTHONPATH=python ")
        await pilot.press("enter")
        await until(pilot, lambda: f"re-running {name}" in status_line(app))
        await pilot.press("L")
        await until(pilot, lambda: isinstance(app.screen, RerunOutputScreen))
        await until(pilot, lambda: app.screen.job.ring.total >= 1 and app.screen._total >= 1)
        await pilot.press("escape")
        go.write_text("", encoding="utf-8")
        await until(pilot, lambda: not reruns(app).queue.active)
        await until(pilot, lambda: table(app).get_cell(name, "kernel").plain.endswith("·run"))
        assert "re-running" not in status_line(app)
        assert any("done" in s for s in said(app))


async def test_a_failing_runner_says_its_exit_and_last_words_and_is_not_running(sample_location, tmp_path):
    app = build(sample_location, runner=runner(tmp_path, "fails"))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        name = first_kernel(app)
        await pilot.press("R", "enter")
        await until(pilot, lambda: any("failed" in s for s in said(app)))
        notice = next(s for s in said(app) if "failed" in s)
        assert notice == f"re-run of {name} failed: exit 3 — ModuleNotFoundError: No module named 'torch'"
        await pilot.pause(0.5)  # the reload the outcome asked for
        assert "running" not in status_line(app) and "stalled" not in status_line(app)
        bench = reruns(app).bench(app.main.reports.bench_run)
        assert bench is None or not any(run.kernel == name for run in bench.running)
        # The detail lists the run directory it left behind as failed, with the exit status.
        await pilot.press("enter")
        await until(pilot, lambda: type(app.screen).__name__ == "DetailScreen")
        text = plain(app.screen.build("en"))
        assert "failed re-run: exit 3, no report.json" in text


async def test_a_failed_rerun_stays_on_its_row_and_the_question_says_where_it_runs(sample_location, tmp_path):
    """Issue 40, item 17: the row says ``re-run failed 14:02`` after the toast has gone; the
    confirmation names the directory the runner runs in."""
    app = build(sample_location, runner=runner(tmp_path, "fails"))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        name = first_kernel(app)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        root = sample_location.bench.resolve().parent
        assert str(app.screen.query_one("#confirm-where").render()) == f"in {root}"
        await pilot.press("enter")
        await until(pilot, lambda: "re-run failed" in table(app).get_cell(name, "kernel").plain)
        ended = reruns(app).queue.failures[name].ended_s
        assert ended is not None
        at = time.strftime("%H:%M", time.localtime(ended))
        assert re.search(rf"·re-run failed (\d\d-\d\d )?{at}$", table(app).get_cell(name, "kernel").plain)
        app.clear_notifications()  # the toast gone, the row still says it
        await pilot.press("j", "k")
        assert "re-run failed" in table(app).get_cell(name, "kernel").plain


async def test_r_again_on_a_running_kernel_stops_it(sample_location, tmp_path):
    app = build(sample_location, runner=runner(tmp_path, "waits"))
    reruns(app).queue.stop_times = StopTimes(term_s=5.0, kill_s=10.0)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        name = first_kernel(app)
        await pilot.press("R", "enter")
        await until(pilot, lambda: bool(reruns(app).queue.running) and reruns(app).queue.running[0].ring.total > 0)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert "Stop it" in app.screen.question
        await pilot.press("enter")
        await until(pilot, lambda: not reruns(app).queue.active)
        assert any(s.startswith(f"re-run of {name} stopped") for s in said(app))


async def test_r_on_a_blocker_heading_queues_every_kernel_under_it(sample_location, tmp_path):
    app = build(sample_location, runner=runner(tmp_path, "waits"))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        pane = app.main.query_one(BlockerPane)
        while pane.highlighted_heading is None:
            await pilot.press("up")
        under = pane.highlighted_heading
        assert under
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("enter")
        await until(pilot, lambda: len(reruns(app).queue.jobs) == len(under))
        assert [j.kernel for j in reruns(app).queue.jobs] == under
        if len(under) > 1:
            await until(pilot, lambda: f"{len(under) - 1} queued" in status_line(app))
        (tmp_path / "go").write_text("", encoding="utf-8")
        await until(pilot, lambda: not reruns(app).queue.active)


async def test_quitting_with_a_run_asks_first_then_stops_it(sample_location, tmp_path):
    app = build(sample_location, runner=runner(tmp_path, "waits"))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        await pilot.press("R", "enter")
        await until(pilot, lambda: bool(reruns(app).queue.running) and reruns(app).queue.running[0].ring.total > 0)
        job = reruns(app).queue.running[0]
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("escape")
        assert app.return_code is None and reruns(app).queue.active
        await pilot.press("q")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("enter")
        await until(pilot, lambda: job.process is not None and job.process.exited.is_set())
    assert job.outcome is not None and job.outcome.cancelled


async def test_l_shows_the_last_lines_of_a_flood_and_follows_them(sample_location, tmp_path):
    from ptotui.app.screens.rerun_output import FollowingLog

    app = build(sample_location, runner=runner(tmp_path, "floods"))
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        await pilot.press("L")
        await pilot.pause()
        assert any("No re-run yet" in s for s in said(app))
        await pilot.press("R", "enter")
        await pilot.press("L")
        await until(pilot, lambda: isinstance(app.screen, RerunOutputScreen))
        await until(pilot, lambda: not reruns(app).queue.active)
        screen = app.screen
        assert isinstance(screen, RerunOutputScreen)
        log = screen.query_one(FollowingLog)
        await until(pilot, lambda: log.line_count == 2000 and log.lines[-1] == "  line 9999")
        await until(pilot, lambda: log.is_vertical_scroll_end)  # followed to the newest
        head = str(screen.query_one("#rerun-head").render())
        assert "the last 2000 of 10000 lines" in head and "failed: no report.json" in head  # exit 0, no report
        await pilot.press("pageup")
        assert not log.auto_scroll  # scrolled back: no longer following
        await pilot.press("end")
        assert log.auto_scroll


async def test_the_reruns_come_after_the_first_rows_and_a_torn_failed_file_is_one_warning(sample_location, tmp_path):
    """Made after the first frame (their run reader is start-up time), and read then: a torn
    failed.json is said once, naming it, and left as it is; R then works as ever."""
    state = tmp_path / "state" / "triage.json"
    failed = state.parent / "reruns" / "failed.json"
    failed.parent.mkdir(parents=True)
    failed.write_text('{"failed": [', encoding="utf-8")
    app = build(sample_location, state=state, runner=runner(tmp_path, "fails"))
    async with app.run_test(size=(160, 48)) as pilot:
        # (Not before the first frame: tests/cli/test_startup_imports.py pins that ptotui.app.rerun is not imported.)
        await until(pilot, lambda: app.ctx.reruns is not None)
        await until(pilot, lambda: any(str(failed) in s for s in said(app)))
        assert len([s for s in said(app) if str(failed) in s]) == 1
        assert failed.read_text(encoding="utf-8") == '{"failed": ['
        await loaded(pilot)
        await pilot.press("R")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))


async def test_r_before_the_reruns_are_made_makes_them_and_asks(sample_location, tmp_path):
    app = build(sample_location, runner=runner(tmp_path, "fails"))
    async with app.run_test(size=(160, 48)) as pilot:
        await until(pilot, lambda: app.main.reports is not None and app.main.query("KernelTable"))
        await pilot.press("R")  # at once, before the start-up step that makes them
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert app.ctx.reruns is not None
