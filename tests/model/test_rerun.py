"""Re-runs without a terminal: the command, the queue, the output, the outcome, stopping."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from ptotui.model.bench.record import stamp_of_time
from ptotui.model.config import RunnerSettings, read_config
from ptotui.model.rerun.command import CommandError, RerunCommand, Runner, command_for, spec_of, tree_root
from ptotui.model.rerun.output import OutputRing, Throttle, log_dir, open_log, prune_logs
from ptotui.model.rerun.process import StopTimes
from ptotui.model.rerun.queue import DONE, Event, FailedRun, RerunJob, RerunQueue, load_failed, save_failed
from ptotui.model.rerun.words import failed_marks, notice, quit_text, status_parts
from ptotui.model.types import Kernel
from tests.fake_runners import runner, tree

WAIT = 60.0  # a guard, not a measure


class Recorder:
    """The queue's events, and a wait for a kind of them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self._changed = threading.Condition()

    def __call__(self, event: Event) -> None:
        with self._changed:
            self.events.append(event)
            self._changed.notify_all()

    def wait(self, kind: str, count: int = 1) -> list[RerunJob]:
        with self._changed:
            ok = self._changed.wait_for(lambda: len(self.of(kind)) >= count, WAIT)
        assert ok, f"no {kind} event: {[e.kind for e in self.events]}"
        return self.of(kind)

    def of(self, kind: str) -> list[RerunJob]:
        return [e.job for e in self.events if e.kind == kind]


KERNEL = Kernel(name="attention_update", family="attention")


def ready(job: RerunJob, events: Recorder) -> None:
    """Wait for the runner's first line (its signal handlers are in place by then)."""
    while job.ring.total == 0:
        events.wait("output", len(events.of("output")) + 1)


def queue_for(root: Path, template: str, **kwargs) -> tuple[RerunQueue, Recorder, RerunJob]:
    events = Recorder()
    queue = RerunQueue(root / "state" / "reruns", events, **kwargs)
    command = command_for(Runner.of(RunnerSettings(), template), KERNEL, root, spec_of(KERNEL, root))
    job = queue.add(KERNEL.name, "attention", command)
    assert job is not None
    return queue, events, job


# -- the command ---------------------------------------------------------------------------


def test_the_default_command_is_the_trees_own_runner_from_its_root(tmp_path):
    root = tree(tmp_path)
    spec = spec_of(KERNEL, root)
    assert spec == "bench/specs/attention/attention_update.yaml"
    command = command_for(Runner.of(RunnerSettings()), KERNEL, root, spec)
    assert command.argv == ("python3", "-m", "pto_kernels.bench.runner", spec)
    assert command.cwd == root and command.environ({})["PYTHONPATH"] == "python"
    assert command.shown() == f"PYTHONPATH=python python3 -m pto_kernels.bench.runner {spec}"
    assert tree_root(root / "bench") == root.resolve()


def test_the_summarys_spec_first_then_the_conventional_path_else_none(tmp_path):
    root = tree(tmp_path)
    (root / "bench" / "specs" / "other.yaml").write_text("x", encoding="utf-8")
    assert spec_of(Kernel(name="attention_update", family="attention", spec="bench/specs/other.yaml"), root) == (
        "bench/specs/other.yaml"
    )
    # A spec that is not there, or outside the tree, is not used.
    escaping = Kernel(name="attention_update", family="attention", spec="../../etc/passwd")
    assert spec_of(escaping, root) == "bench/specs/attention/attention_update.yaml"
    assert spec_of(Kernel(name="nothing", family="attention"), root) is None
    assert spec_of(Kernel(name="..", family=".."), root) is None
    with pytest.raises(CommandError, match="nothing has no spec"):
        command_for(Runner(), Kernel(name="nothing", family="attention"), root, None)


def test_a_template_is_split_before_it_is_filled_and_checked(tmp_path):
    root = tmp_path / "a tree"
    root.mkdir()
    odd = Kernel(name="k; rm -rf ~", family="f")
    command = command_for(Runner("run --in {root} {family}/{kernel}"), odd, root, None)
    assert command.argv == ("run", "--in", str(root), "f/k; rm -rf ~")
    with pytest.raises(CommandError, match="not one of"):
        Runner("run {device}").check()
    with pytest.raises(CommandError):
        Runner("run 'unclosed").check()
    with pytest.raises(CommandError):
        Runner("   ").check()


def test_a_name_that_starts_with_a_dash_never_reaches_the_runner_as_an_option(tmp_path):
    """Issue 40, item 8: a kernel named ``-h`` was the runner's ``-h``."""
    root = tree(tmp_path)
    dashed = Kernel(name="--output=/tmp/x", family="attention")
    with pytest.raises(CommandError, match="{kernel} in the runner command would be --output=/tmp/x, an option"):
        command_for(Runner("run.py {kernel}"), dashed, root, None)
    with pytest.raises(CommandError, match="{family} in the runner command would be -f,"):
        command_for(Runner("run.py {family}{kernel}"), Kernel(name="k", family="-f"), root, None)
    # The template's own options, and a name inside a word, are the template's business.
    assert command_for(Runner("run.py --kernel={kernel}"), dashed, root, None).argv[-1] == "--kernel=--output=/tmp/x"
    assert command_for(Runner("run.py x{kernel}"), dashed, root, None).argv[-1] == "x--output=/tmp/x"
    # A spec that starts with a dash is the same file as ./-spec.yaml.
    (root / "-rf.yaml").write_text("x", encoding="utf-8")
    kernel = Kernel(name="attention_update", family="attention", spec="-rf.yaml")
    spec = spec_of(kernel, root)
    assert spec == "-rf.yaml"
    assert command_for(Runner(), kernel, root, spec).argv[-1] == "./-rf.yaml"


def test_the_settings_files_runner_table_and_the_flag(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[runner]\ncommand = "my_runner {spec}"\nparallel = 2\nenv = { ASCEND = "1" }\n', encoding="utf-8")
    config, warning = read_config(path)
    assert warning is None
    assert config.runner == RunnerSettings("my_runner {spec}", (("ASCEND", "1"),), 2)
    runner_ = Runner.of(config.runner)
    assert runner_.template == "my_runner {spec}" and runner_.parallel == 2
    assert dict(runner_.env) == {"PYTHONPATH": "python", "ASCEND": "1"}
    assert Runner.of(config.runner, "other {kernel}").template == "other {kernel}"
    path.write_text("[runner]\ncommand = 3\nparallel = 0\nenv = { A = 1 }\n", encoding="utf-8")
    config, warning = read_config(path)
    assert config.runner == RunnerSettings()
    assert warning is not None and "runner.command" in warning and "runner.parallel" in warning
    assert "runner.env" in warning


# -- output ------------------------------------------------------------------------------


def test_the_ring_keeps_the_last_lines_cleaned():
    ring = OutputRing(size=3)
    for i in range(5):
        ring.add(f"line {i}\n".encode(), err=False)
    ring.add(b"bad \x1b]2;title\x07news\r\n", err=True)
    assert [line.text for line in ring.lines()] == ["line 3", "line 4", "bad news"]
    assert ring.total == 6 and ring.last_err == "bad news"
    fresh, total = ring.since(4)
    assert [line.text for line in fresh] == ["line 4", "bad news"] and total == 6


def test_the_throttle_says_at_most_once_an_interval_and_once_after_the_last():
    said = threading.Semaphore(0)
    count = []

    def emit() -> None:
        count.append(1)
        said.release()

    throttle = Throttle(emit, interval=0.2)
    for _ in range(1000):
        throttle.poke()
    assert said.acquire(timeout=WAIT) and said.acquire(timeout=WAIT)
    assert len(count) == 2  # the first at once, the rest in one trailing call


def test_logs_beyond_the_last_twenty_are_removed(tmp_path):
    directory = log_dir(tmp_path / "triage.json")
    directory.mkdir()
    for i in range(25):
        (directory / f"20260101T0000{i:02d}Z-k.log").write_text("x", encoding="utf-8")
    gone = prune_logs(directory)
    assert len(gone) == 5 and len(list(directory.iterdir())) == 20
    assert min(p.name for p in directory.iterdir()) == "20260101T000005Z-k.log"


# -- runs ----------------------------------------------------------------------------------


def test_a_runner_that_writes_its_run_gives_a_report(tmp_path):
    root = tree(tmp_path)
    queue, events, job = queue_for(root, runner(tmp_path, "writes"))
    events.wait("finished")
    outcome = job.outcome
    assert outcome is not None and outcome.ok and outcome.code == 0
    assert outcome.run_dir is not None and (outcome.run_dir / "report.json").is_file()
    assert (root / "bench" / "generated" / "attention" / "attention_update" / "report.json").is_file()
    assert [line.text for line in job.ring.lines()][0] == "compiling attention_update"
    assert job.log_path is not None and "compiling attention_update" in job.log_path.read_text(encoding="utf-8")
    assert job.log_path.parent == root / "state" / "reruns" and not queue.active
    assert queue.failed == [] and job.state == DONE


def test_a_failing_runner_says_its_exit_and_last_words_and_its_run_dir_is_failed(tmp_path):
    root = tree(tmp_path)
    queue, events, job = queue_for(root, runner(tmp_path, "fails"))
    events.wait("finished")
    outcome = job.outcome
    assert outcome is not None and not outcome.ok and outcome.code == 3 and not outcome.report
    said, severity = notice(job)
    assert said == "re-run of attention_update failed: exit 3 — ModuleNotFoundError: No module named 'torch'"
    assert severity == "error"
    assert outcome.run_dir is not None
    assert queue.is_failed("attention", "attention_update", outcome.run_dir.name)
    assert queue.failed[0].status == "exit 3"


def test_a_runner_that_cannot_start_is_a_failure_too(tmp_path):
    root = tree(tmp_path)
    queue, events, job = queue_for(root, "/nonexistent/runner {kernel}")
    events.wait("finished")
    assert job.error is not None and "could not start" in notice(job)[0]
    assert not queue.active


def test_ten_thousand_lines_fast_end_in_the_ring_and_the_log(tmp_path):
    root = tree(tmp_path)
    _queue, events, job = queue_for(root, runner(tmp_path, "floods"))
    events.wait("finished")
    lines = job.ring.lines()
    assert job.ring.total == 10000 and len(lines) == 2000 and lines[-1].text == "line 9999"
    assert job.log_path is not None
    assert len(job.log_path.read_text(encoding="utf-8").splitlines()) == 10000
    # The UI heard of it a few times, not once a line.
    assert 1 <= len(events.of("output")) < 1000


def test_a_log_is_capped_and_keeps_the_tail(tmp_path):
    """Issue 40, item 7: a runner writing 100 MB left a 102 MB log (and 20 are kept)."""
    path, log = open_log(tmp_path, "20260314T170132Z", "k", cap=1 << 20)
    lines = [f"  line {i:07d} {'x' * 40}\n" for i in range(100_000)]  # 5.4 MB
    for line in lines:
        log.write(line)
    log.close()
    data = path.read_bytes()
    assert len(data) <= 1 << 20
    head, *kept = data.decode("utf-8").splitlines(keepends=True)
    assert kept == lines[-len(kept) :] and len(kept) > 10_000  # the newest, whole lines, none lost between
    total = sum(len(line) for line in lines)
    assert head == f"[{total - len(''.join(kept))} bytes of output cut here: this log keeps the last 0.5 MB of it]\n"
    assert log.cut == total - len("".join(kept))


def test_a_flooding_runners_log_stays_under_its_cap(tmp_path):
    root = tree(tmp_path)
    _queue, events, job = queue_for(root, runner(tmp_path, "floods"), log_bytes=20_000)
    events.wait("finished")
    assert job.log_path is not None
    text = job.log_path.read_text(encoding="utf-8")
    assert len(text.encode()) <= 20_000 and "bytes of output cut here" in text.splitlines()[0]
    assert text.splitlines()[-1] == "  line 9999"  # the end of its output, which explains a failure


def test_a_failed_rerun_is_remembered_until_the_next_one_of_the_kernel_works(tmp_path):
    root = tree(tmp_path)
    queue, events, job = queue_for(root, runner(tmp_path, "fails"))
    events.wait("finished")
    assert queue.failures == {KERNEL.name: job} and job.ended_s is not None
    writes = command_for(Runner.of(RunnerSettings(), runner(tmp_path, "writes")), KERNEL, root, None)
    queue.add(KERNEL.name, "attention", writes)
    events.wait("finished", 2)
    assert queue.failures == {}


def test_the_row_says_when_its_last_rerun_failed_until_a_newer_run_lands():
    """Issue 40, item 17: after its toast a failed re-run left no trace on the main screen."""
    ended = time.mktime((2026, 3, 14, 14, 2, 30, 0, 0, -1))  # local time, as the row shows it
    job = RerunJob(
        KERNEL.name, "attention", RerunCommand(("run",), Path("/tree"), ()), started_s=ended - 60, ended_s=ended
    )
    failures = {KERNEL.name: job}
    other = Kernel(name="other", family="attention")
    assert failed_marks(failures, [KERNEL, other], ended + 60) == {KERNEL.name: "re-run failed 14:02"}
    assert failed_marks(failures, [KERNEL], ended + 2 * 86400) == {KERNEL.name: "re-run failed 03-14 14:02"}
    older = Kernel(name=KERNEL.name, family="attention", from_run=stamp_of_time(ended - 3600))
    assert failed_marks(failures, [older], ended + 60) == {KERNEL.name: "re-run failed 14:02"}
    newer = Kernel(name=KERNEL.name, family="attention", from_run=stamp_of_time(ended + 5))
    assert failed_marks(failures, [newer], ended + 60) == {}
    assert failed_marks({}, [KERNEL], ended) == {}


def test_parallel_one_runs_one_at_a_time_and_a_queued_kernel_can_be_dropped(tmp_path):
    root = tree(tmp_path)
    queue, events, first = queue_for(root, runner(tmp_path, "waits"))
    second = queue.add("b", "attention", first.command)
    third = queue.add("c", "attention", first.command)
    assert second is not None and third is not None
    assert queue.add("b", "attention", first.command) is None  # queued already
    assert [j.kernel for j in queue.running] == ["attention_update"] and len(queue.queued) == 2
    assert status_parts(queue.running, len(queue.queued), (first.started_s or 0) + 62)[0][0] == (
        "re-running attention_update 1m02s"
    )
    assert queue.cancel("c")
    assert events.wait("dropped") == [third]
    (tmp_path / "go").write_text("", encoding="utf-8")
    events.wait("finished", 2)
    assert [j.kernel for j in events.of("started")] == ["attention_update", "b"]


def test_stop_sends_sigint_to_the_group(tmp_path):
    root = tree(tmp_path)
    queue, events, job = queue_for(root, runner(tmp_path, "waits"))
    ready(job, events)
    assert queue.cancel("attention_update")
    events.wait("finished")
    assert job.outcome is not None and job.outcome.cancelled and job.outcome.code == 130
    assert job.process is not None and job.process.signals == [signal.SIGINT]
    assert "stopped" in notice(job)[0]


def test_a_runner_that_ignores_sigint_gets_sigterm_then_sigkill(tmp_path):
    root = tree(tmp_path)
    times = StopTimes(term_s=0.3, kill_s=0.6)
    queue, events, job = queue_for(root, runner(tmp_path, "stubborn"), stop_times=times)
    ready(job, events)
    queue.stop_all()
    events.wait("finished")
    assert job.process is not None and job.process.signals == [signal.SIGINT, signal.SIGTERM]
    assert job.outcome is not None and job.outcome.code == -signal.SIGTERM
    assert job.outcome.status() == "killed by SIGTERM"


def test_sigkill_when_sigterm_is_ignored_too(tmp_path):
    script = tmp_path / "deaf.py"
    script.write_text(
        "import signal, time\nfor s in (signal.SIGINT, signal.SIGTERM):\n    signal.signal(s, signal.SIG_IGN)\n"
        "print('ready', flush=True)\nwhile True:\n    time.sleep(0.05)\n",
        encoding="utf-8",
    )
    root = tree(tmp_path)
    queue, events, job = queue_for(root, f"{sys.executable} {script}", stop_times=StopTimes(0.2, 0.4))
    ready(job, events)
    queue.cancel("attention_update")
    events.wait("finished")
    assert job.process is not None and job.process.signals == [signal.SIGINT, signal.SIGTERM, signal.SIGKILL]
    assert job.outcome is not None and job.outcome.code == -signal.SIGKILL


def test_failed_run_dirs_are_kept_across_starts(tmp_path):
    path = tmp_path / "reruns" / "failed.json"
    failed = [FailedRun("attention", "k", "20260101T000000Z", "exit 1", "No module named 'torch'")]
    assert load_failed(path) == ([], None)  # no re-run has failed yet: nothing to say
    save_failed(path, failed)
    assert load_failed(path) == (failed, None)


@pytest.mark.parametrize(
    "content",
    [b"{torn", b"", b"\xff\xfe", b'{"failed": 3}', b"[1, 2]", b"[" * 100_000 + b"]" * 100_000],
    ids=["torn", "empty", "undecodable", "wrong-shaped", "a list", "deeply nested"],
)
def test_an_unusable_failed_runs_file_is_one_warning_naming_it_and_is_left_as_it_is(tmp_path, content):
    path = tmp_path / "reruns" / "failed.json"
    path.parent.mkdir()
    path.write_bytes(content)
    failed, warning = load_failed(path)
    assert failed == [] and warning is not None and str(path) in warning and "\n" not in warning
    assert path.read_bytes() == content  # read, never rewritten on start


def test_a_failed_runs_file_that_is_a_fifo_or_huge_is_not_read(tmp_path):
    path = tmp_path / "failed.json"
    os.mkfifo(path)
    failed, warning = load_failed(path)  # a plain open would wait for a writer for ever
    assert failed == [] and warning is not None and str(path) in warning
    path.unlink()
    with path.open("wb") as out:
        out.truncate(64 << 20)  # 64 MB of nothing: refused by its size, not read
    failed, warning = load_failed(path)
    assert failed == [] and warning is not None and "MB" in warning


def test_the_quit_question_counts_both():
    assert quit_text(1, 2) == "1 re-run is running, 2 are queued. Stop them and quit?"
    assert quit_text(0, 1) == "1 is queued. Stop it and quit?"
