"""The --on-regression hook: one at a time, its output capped, stopped as a group on its
timeout and on quit (issue 40, item 6)."""

from __future__ import annotations

import os
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from ptotui.model.control.hook import HookFailed, HookRunner

WAIT = 30.0  # a guard, not a measure


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie no one reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def wait_for(condition, what: str) -> None:
    """Until ``condition()`` holds, checked on each of the hook's file events (polled: the
    hook is another process), at most WAIT seconds."""
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def pids(path: Path) -> list[int]:
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def in_thread(target, *args) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            target(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            errors.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, errors


def hanging(tmp_path: Path, ignore_term: bool = False) -> tuple[str, Path]:
    """A hook that starts a child, writes both pids, and hangs."""
    out = tmp_path / "pids"
    trap = "trap '' TERM; " if ignore_term else ""
    return f"{trap}sleep 1000 & echo $$ $! > {out}.tmp; mv {out}.tmp {out}; wait", out


def test_close_stops_the_hook_and_its_children(tmp_path):
    command, out = hanging(tmp_path)
    runner = HookRunner()
    thread, errors = in_thread(runner.run, command, "{}")
    wait_for(lambda: len(pids(out)) == 2, "the hook did not start")
    runner.close()
    thread.join(WAIT)
    assert not thread.is_alive() and errors == []  # quitting is no failure to tell
    for pid in pids(out):
        wait_for(lambda pid=pid: not alive(pid), f"{pid} outlived the hook")


def test_a_hook_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    command, out = hanging(tmp_path, ignore_term=True)
    runner = HookRunner(grace_s=0.2)
    thread, errors = in_thread(runner.run, command, "{}")
    wait_for(lambda: len(pids(out)) == 2, "the hook did not start")
    runner.close()
    thread.join(WAIT)
    for pid in pids(out):
        wait_for(lambda pid=pid: not alive(pid), f"{pid} outlived SIGKILL")


@pytest.mark.slow
def test_the_timeout_stops_the_whole_group_and_says_so(tmp_path):
    command, out = hanging(tmp_path)
    runner = HookRunner(timeout_s=0.5)
    with pytest.raises(HookFailed, match="timed out after 0.5 s"):
        runner.run(command, "{}")
    for pid in pids(out):
        wait_for(lambda pid=pid: not alive(pid), f"{pid} outlived the timeout (only /bin/sh was killed)")


def test_hooks_run_one_at_a_time_in_order(tmp_path):
    fifo = tmp_path / "gate"
    os.mkfifo(fifo)
    log = tmp_path / "log"
    lock = tmp_path / "lock"
    # Each hook holds a lock directory while it waits for one line on the gate.
    command = f"mkdir {lock} || echo overlap >> {log}; cat >> {log}; read x < {fifo}; rmdir {lock}"
    runner = HookRunner()
    first, errors1 = in_thread(runner.run, command, "1\n")
    wait_for(lambda: runner.started == 1, "the first hook did not start")
    second, errors2 = in_thread(runner.run, command, "2\n")
    wait_for(lambda: runner.waiting == 1, "the second hook did not wait")
    assert runner.started == 1
    for started in (1, 2):
        # The gate is opened for the hook that runs now only: once the first has gone (the second
        # started), else the writer could meet the first's reader as it closes (a broken pipe).
        wait_for(lambda n=started: runner.started == n, f"hook {started} did not start")
        with fifo.open("w") as gate:  # opens once that hook reads the gate
            gate.write("go\n")
    first.join(WAIT)
    second.join(WAIT)
    assert errors1 == errors2 == []
    assert log.read_text() == "1\n2\n"  # in order, never both at once


def test_past_the_waiting_limit_a_newer_hook_is_skipped_and_said(tmp_path):
    command, out = hanging(tmp_path)
    runner = HookRunner(waiting_max=1)
    first, _ = in_thread(runner.run, command, "{}")
    wait_for(lambda: runner.started == 1, "the first hook did not start")
    second, errors = in_thread(runner.run, "true", "{}")
    wait_for(lambda: runner.waiting == 1, "the second hook did not wait")
    with pytest.raises(HookFailed, match="skipped: 1 hooks are waiting"):
        runner.run("true", "{}")
    runner.close()
    first.join(WAIT)
    second.join(WAIT)
    assert errors == [] and runner.started == 1  # the waiting one was dropped on close


def test_a_chatty_hook_is_not_held_in_memory_and_its_last_error_is_said():
    # 32 MB on stdout and 8 MB on stderr, then the line that explains the failure.
    command = "head -c 33554432 /dev/zero; head -c 8388608 /dev/zero >&2; echo >&2; echo broken >&2; exit 3"
    tracemalloc.start()
    try:
        with pytest.raises(HookFailed, match="exited 3: broken$"):
            HookRunner().run(command, "{}")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 << 20


def test_the_diff_reaches_stdin_even_past_the_pipe_buffer(tmp_path):
    out = tmp_path / "in.json"
    data = "x" * (1 << 20) + "\n"
    HookRunner().run(f"cat > {out}", data)
    assert out.read_text() == data
