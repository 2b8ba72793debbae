"""The re-run controller's decisions as data, without a terminal or a process: what ``R``, ``L``,
``q`` and each of the queue's events give (refusals, the questions and what their answers do,
duplicates, asking before quit, the outcome's notice and reload)."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from ptotui.model.control.effects import Job, Notice
from ptotui.model.options import DashboardOptions
from ptotui.model.rerun.command import RerunCommand, Runner
from ptotui.model.rerun.controller import RerunController
from ptotui.model.rerun.effects import Cancel, Changed, Confirm, Enqueue, Exit, KillAll, Show, StopAll
from ptotui.model.rerun.output import log_dir
from ptotui.model.rerun.queue import DONE, QUEUED, RUNNING, Event, Outcome, RerunJob, RerunQueue
from ptotui.model.types import Kernel
from tests.fake_runners import tree

KERNEL = Kernel(name="attention_update", family="attention")
RELOADED = Notice("reloaded")  # stands for what the dashboard's reload gives


def controller(tmp_path: Path, **options) -> RerunController:
    """A controller over a tree with one kernel's spec; its queue is never started here: the
    tests put jobs into it as the adapter's changes would leave it."""
    root = tree(tmp_path / "tree")
    state = tmp_path / "state" / "triage.json"
    opts = DashboardOptions(git=False, state=state, **options)
    queue = RerunQueue(log_dir(state), lambda event: None)
    return RerunController(queue, Runner(), opts, state, lambda: root / "bench", lambda: [RELOADED])


def job(reruns: RerunController, name: str = KERNEL.name, state: str = RUNNING) -> RerunJob:
    added = RerunJob(name, "attention", RerunCommand(("run",), Path("/tree"), ()), state=state, started_s=0.0)
    reruns.queue.jobs.append(added)
    return added


def texts(effects) -> list[str]:
    return [e.text for e in effects if isinstance(e, Notice)]


@pytest.mark.parametrize(("options", "words"), [({"read_only": True}, "Read-only"), ({"runs": False}, "--allow-runs")])
def test_read_only_and_serve_refuse_with_one_warning(tmp_path, options, words):
    effects = controller(tmp_path, **options).request([KERNEL])
    assert len(effects) == 1 and isinstance(effects[0], Notice)
    assert effects[0].severity == "warning" and words in effects[0].text and effects[0].title == "Re-run"


def test_r_asks_with_the_command_and_where_it_runs_and_yes_queues_it(tmp_path):
    reruns = controller(tmp_path)
    [ask] = reruns.request([KERNEL])
    assert isinstance(ask, Confirm) and ask.title == "Re-run"
    assert ask.question == "Re-run attention_update? It runs:"
    runs = "python3 -m pto_kernels.bench.runner bench/specs/attention/attention_update.yaml"
    assert ask.command == f"PYTHONPATH=python {runs}"
    assert ask.where == f"in {(tmp_path / 'tree').resolve()}"
    [queued] = ask.answer(True)
    assert isinstance(queued, Enqueue) and [(k, f) for k, f, _c in queued.runs] == [(KERNEL.name, "attention")]
    assert queued.runs[0][2].shown() == ask.command
    assert ask.answer(False) == []


def test_r_on_a_kernel_queued_or_running_offers_to_stop_it(tmp_path):
    reruns = controller(tmp_path)
    for state, question in ((QUEUED, "is queued"), (RUNNING, "is being re-run")):
        reruns.queue.jobs.clear()
        running = job(reruns, state=state)
        [ask] = reruns.request([KERNEL])
        assert isinstance(ask, Confirm) and ask.title == "Stop re-run" and question in ask.question
        assert ask.answer(True) == [Cancel(running)] and ask.answer(False) == []


def test_several_kernels_pass_over_those_under_way_and_say_so_when_all_are(tmp_path):
    reruns = controller(tmp_path)
    other = Kernel(name="other", family="attention")
    spec = tmp_path / "tree" / "bench" / "specs" / "attention" / "other.yaml"
    spec.write_text("name: other\n", encoding="utf-8")
    job(reruns)
    [ask] = reruns.request([KERNEL, other])
    assert isinstance(ask, Confirm)
    [queued] = ask.answer(True)
    assert isinstance(queued, Enqueue) and [k for k, _f, _c in queued.runs] == ["other"]
    job(reruns, "other", QUEUED)
    effects = reruns.request([KERNEL, other])
    assert texts(effects) == ["Those kernels are queued or running already (R on one of them: stop it)."]
    assert not any(isinstance(e, Confirm) for e in effects)


def test_a_kernel_without_a_command_is_said_and_the_rest_still_asked(tmp_path):
    reruns = controller(tmp_path)
    lost = Kernel(name="lost", family="attention")  # no spec in the tree
    [said] = reruns.request([lost])
    assert isinstance(said, Notice) and said.severity == "error" and said.text.startswith("lost has no spec")
    said, ask = reruns.request([lost, KERNEL])
    assert isinstance(said, Notice) and said.severity == "warning" and isinstance(ask, Confirm)


def test_l_shows_the_running_one_else_the_last_else_says_there_is_none(tmp_path):
    reruns = controller(tmp_path)
    assert texts(reruns.show_output()) == ["No re-run yet: R on a kernel starts one."]
    last = RerunJob("old", "attention", RerunCommand(("run",), Path("/tree"), ()), state=DONE)
    reruns.queue.last = last
    assert reruns.show_output() == [Show(last)]
    running = job(reruns)
    assert reruns.show_output() == [Show(running)]


def test_q_quits_at_once_with_nothing_under_way(tmp_path):
    assert controller(tmp_path).quit() == [Exit()]


def test_q_with_a_run_asks_then_stops_them_and_quits_once_they_have_ended(tmp_path):
    reruns = controller(tmp_path)
    running = job(reruns)
    job(reruns, "other", QUEUED)
    [ask] = reruns.quit()
    assert isinstance(ask, Confirm) and ask.title == "Quit"
    assert ask.question == "1 re-run is running, 1 is queued. Stop them and quit?"
    assert ask.answer(False) == [] and not reruns.quitting  # esc: stay, nothing stopped
    stop, said = ask.answer(True)
    assert stop == StopAll() and isinstance(said, Notice) and "then quitting" in said.text
    assert reruns.quitting
    # The adapter's StopAll dropped the queued one; the running one ends later: then the app quits.
    reruns.queue.jobs.remove(next(j for j in reruns.queue.jobs if j.state == QUEUED))
    assert reruns.quit() == [KillAll(signal.SIGKILL), Exit()]  # a second q: at once
    reruns.queue.jobs.remove(running)
    running.outcome = Outcome(-signal.SIGINT, None, None, False, cancelled=True)
    effects = reruns.happened(Event("finished", running))
    assert effects[-2:] == [Exit(), Changed(Event("finished", running))]


def test_q_answered_when_none_runs_any_more_quits_at_once(tmp_path):
    reruns = controller(tmp_path)
    job(reruns, state=QUEUED)
    [ask] = reruns.quit()
    assert isinstance(ask, Confirm)
    assert ask.answer(True)[-1] == Exit()


def test_a_failed_run_is_said_remembered_and_reloaded_and_then_redrawn(tmp_path):
    reruns = controller(tmp_path)
    failed = RerunJob(KERNEL.name, "attention", RerunCommand(("run",), Path("/tree"), ()), state=DONE)
    failed.outcome = Outcome(3, "ModuleNotFoundError: No module named 'torch'", None, False)
    event = Event("finished", failed)
    said, save, reloaded, changed = reruns.happened(event)
    assert isinstance(said, Notice) and said.severity == "error" and said.timeout == 15
    assert said.text == "re-run of attention_update failed: exit 3 — ModuleNotFoundError: No module named 'torch'"
    assert isinstance(save, Job) and save.group == "reruns"
    assert reloaded is RELOADED and changed == Changed(event)
    read_only = controller(tmp_path / "ro", read_only=True)
    assert not any(isinstance(e, Job) for e in read_only.happened(event))  # nothing written
    output = Event("output", failed)
    assert reruns.happened(output) == [Changed(output)]


def test_leaving_unasked_drops_the_queue_and_terms_every_runner(tmp_path):
    assert controller(tmp_path).leaving() == [StopAll(), KillAll(signal.SIGTERM)]


def test_an_unreadable_failed_file_is_one_warning_naming_it(tmp_path):
    reruns = controller(tmp_path)
    assert reruns.opened() == []  # none yet: no warning
    reruns.failed_file.parent.mkdir(parents=True)
    reruns.failed_file.write_text('{"failed": [', encoding="utf-8")
    [said] = reruns.opened()
    assert isinstance(said, Notice) and said.severity == "warning" and str(reruns.failed_file) in said.text
