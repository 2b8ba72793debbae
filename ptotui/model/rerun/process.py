"""One runner process: started without a shell in a process group of its own, its two
streams read on threads into an :class:`OutputRing` and a log file, stopped on request by
signals to the whole group, escalating.

Callbacks run on this module's threads: ``on_output`` after lines came (throttled by the
caller if it wants), ``on_exit(code)`` once, after the process ended and its streams were
read to the end (or :data:`DRAIN_S` passed: a child left behind may hold a pipe open).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from ptotui.model.rerun.command import RerunCommand
from ptotui.model.rerun.output import CappedLog, OutputRing, read_lines

DRAIN_S = 2.0


@dataclass(frozen=True)
class StopTimes:
    """After SIGINT to the group: SIGTERM at ``term_s``, SIGKILL at ``kill_s`` (seconds)."""

    term_s: float = 10.0
    kill_s: float = 20.0


STOP_TIMES = StopTimes()


class RunnerProcess:
    """A started runner. :meth:`start` raises OSError when it cannot be started."""

    def __init__(
        self,
        command: RerunCommand,
        ring: OutputRing,
        log: CappedLog | None,
        on_output: Callable[[], None],
        on_exit: Callable[[int], None],
        stop_times: StopTimes = STOP_TIMES,
    ) -> None:
        self.command = command
        self.ring = ring
        self._log = log
        self._log_lock = threading.Lock()
        self._on_output = on_output
        self._on_exit = on_exit
        self.stop_times = stop_times
        self._process: subprocess.Popen[bytes] | None = None
        self._stopping = threading.Event()
        self.signals: list[int] = []  # what stop() sent, in order (for the UI and the tests)
        self.exited = threading.Event()

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        # A list of words, no shell, its own session (so its own process group): a signal to
        # the group reaches the runner's compilers too, and Ctrl+C at ptotui's terminal does not.
        self._process = process = subprocess.Popen(  # noqa: S603 - the user's own runner command, no shell
            list(self.command.argv),
            cwd=self.command.cwd,
            env=self.command.environ(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        if process.stdout is None or process.stderr is None:  # (never: both are pipes)
            raise OSError("the runner's output is not a pipe")
        readers = [
            threading.Thread(target=self._read, args=(process.stdout, False), daemon=True, name="rerun stdout"),
            threading.Thread(target=self._read, args=(process.stderr, True), daemon=True, name="rerun stderr"),
        ]
        for reader in readers:
            reader.start()
        threading.Thread(target=self._wait, args=(process, readers), daemon=True, name="rerun wait").start()

    def _read(self, stream: IO[bytes], err: bool) -> None:
        try:
            for raw in read_lines(stream):
                line = self.ring.add(raw, err)
                if self._log is not None:
                    with self._log_lock:
                        try:
                            self._log.write(("! " if err else "  ") + line.text + "\n")
                        except (OSError, ValueError):
                            self._log = None  # disk full, or closed: the ring still has it
                self._on_output()
        except (OSError, ValueError):
            pass  # the pipe went away
        finally:
            stream.close()

    def _wait(self, process: subprocess.Popen[bytes], readers: list[threading.Thread]) -> None:
        code = process.wait()
        for reader in readers:
            reader.join(DRAIN_S)
        with self._log_lock:
            if self._log is not None:
                try:
                    self._log.close()
                except OSError:
                    pass
                self._log = None
        self.exited.set()
        self._on_output()
        self._on_exit(code)

    def stop(self) -> None:
        """SIGINT to the group now, SIGTERM and SIGKILL later if it is still there (once)."""
        if self._process is None or self._stopping.is_set() or self.exited.is_set():
            return
        self._stopping.set()
        self._signal(signal.SIGINT)
        threading.Thread(target=self._escalate, daemon=True, name="rerun stop").start()

    def kill(self, signum: int = signal.SIGKILL) -> None:
        """``signum`` to the group now."""
        if self._process is not None and not self.exited.is_set():
            self._stopping.set()
            self._signal(signum)

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    def _escalate(self) -> None:
        times = self.stop_times
        if self.exited.wait(times.term_s):
            return
        self._signal(signal.SIGTERM)
        if self.exited.wait(max(times.kill_s - times.term_s, 0.0)):
            return
        self._signal(signal.SIGKILL)

    def _signal(self, signum: int) -> None:
        process = self._process
        if process is None:
            return
        self.signals.append(signum)
        signal_group(process, signum)


def signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    """Signal the process group a process started with ``start_new_session`` leads (its session's
    id is its pid: the process and what it started); the process alone where the group cannot be
    signalled; nothing when it is gone already. The re-runs' runner and the regression hook."""
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass  # gone already
    except PermissionError:
        try:
            process.send_signal(signum)
        except ProcessLookupError:
            pass
