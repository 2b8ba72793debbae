"""The ``--on-regression`` hook: the user's command, run as a shell would with the diff's JSON
on its stdin, one at a time, in a process group of its own.

- **One at a time.** A hook due while another runs waits for it (in order); at most
  :data:`WAITING_MAX` wait, and a newer one beyond them is skipped, said in one notice.
- **Its output.** stdout is discarded; of stderr only the last :data:`ERR_BYTES` are kept, for
  the notice of a failure (a chatty hook held 3 GB when both were kept whole).
- **Stopped as a group.** It runs in a session of its own: on its timeout and when ptotui quits
  (:meth:`HookRunner.close`) the whole group gets SIGTERM, then SIGKILL after
  :data:`KILL_GRACE_S`, so the children it started go with it (killing ``/bin/sh`` alone
  left them, and ``q`` waited for the timeout).

:meth:`HookRunner.run` runs on a worker thread; :meth:`HookRunner.close` on any.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections import deque
from typing import IO

from ptotui.model.control.wording import Said
from ptotui.model.i18n import _
from ptotui.model.rerun.process import signal_group

TIMEOUT_S = 120.0
KILL_GRACE_S = 2.0  # after SIGTERM to the group, SIGKILL to what is left of it
DRAIN_S = 2.0  # a child left behind may hold stderr open: read no longer after the hook ended
ERR_BYTES = 64 * 1024
WAITING_MAX = 8


class HookFailed(Said):
    """The --on-regression command could not run, exited non-zero, timed out or was skipped."""


def group_alive(pgid: int) -> bool:
    """Whether any process of the group ``pgid`` is left to signal."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_group(process: subprocess.Popen[bytes], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM to the process's group now; SIGKILL to what is left of it after ``grace_s``."""
    signal_group(process, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        pass
    # The shell may be gone while a child of it traps SIGTERM: the group is what is waited for.
    while group_alive(process.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    signal_group(process, signal.SIGKILL)
    try:
        process.wait(grace_s)
    except subprocess.TimeoutExpired:
        pass


class _Tail:
    """The last ``size`` bytes read from a stream, read on a thread of its own."""

    def __init__(self, stream: IO[bytes], size: int = ERR_BYTES) -> None:
        self._stream = stream
        self._size = size
        self._data = bytearray()
        self._lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True, name="hook stderr")
        self.thread.start()

    def _read(self) -> None:
        try:
            while chunk := os.read(self._stream.fileno(), 1 << 16):
                with self._lock:
                    self._data += chunk
                    if len(self._data) > self._size:
                        del self._data[: len(self._data) - self._size]
        except (OSError, ValueError):
            pass
        finally:
            try:
                self._stream.close()
            except OSError:
                pass

    def last_line(self) -> str:
        with self._lock:
            text = bytes(self._data).decode("utf-8", "replace")
        lines = [line for line in text.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""


def _feed(stream: IO[bytes], data: bytes) -> None:
    """The diff's JSON to the hook's stdin (a hook that does not read it is no error)."""
    try:
        stream.write(data)
    except (OSError, ValueError):
        pass
    finally:
        try:
            stream.close()
        except OSError:
            pass


class HookRunner:
    """The hooks of one dashboard, run one at a time, stopped for good by :meth:`close`."""

    def __init__(
        self, timeout_s: float = TIMEOUT_S, grace_s: float = KILL_GRACE_S, waiting_max: int = WAITING_MAX
    ) -> None:
        self.timeout_s = timeout_s
        self.grace_s = grace_s
        self.waiting_max = waiting_max
        self._cond = threading.Condition()
        self._turns: deque[object] = deque()  # the hooks waiting, oldest first
        self._busy = False
        self._process: subprocess.Popen[bytes] | None = None
        self._closed = False
        self.started = 0  # hooks started (for the tests)

    @property
    def waiting(self) -> int:
        with self._cond:
            return len(self._turns)

    @property
    def pid(self) -> int | None:
        """The running hook's shell (its group's id), or None."""
        with self._cond:
            return self._process.pid if self._process is not None else None

    def run(self, command: str, data: str) -> None:
        """On a worker thread: run the hook once the one before it has ended. Raises
        HookFailed saying why when it fails or is skipped; returns quietly once closed."""
        turn = object()
        with self._cond:
            if self._closed:
                return
            if self._busy and len(self._turns) >= self.waiting_max:
                said = _("--on-regression skipped: {n} hooks are waiting for the one running")
                raise HookFailed(said.format(n=len(self._turns)))
            self._turns.append(turn)
            self._cond.wait_for(lambda: self._closed or (not self._busy and self._turns[0] is turn))
            self._turns.remove(turn)
            if self._closed:
                self._cond.notify_all()
                return
            self._busy = True
        try:
            self._run(command, data)
        finally:
            with self._cond:
                self._busy = False
                self._process = None
                self._cond.notify_all()

    def _run(self, command: str, data: str) -> None:
        try:
            # The command is the user's own --on-regression flag, run as a shell would.
            process = subprocess.Popen(  # noqa: S603 - the user's own command line, by design
                ["/bin/sh", "-c", command],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise HookFailed(_("--on-regression failed: {error}").format(error=exc)) from None
        stdin, stderr = process.stdin, process.stderr
        if stdin is None or stderr is None:  # (never: both are pipes)
            stop_group(process, self.grace_s)
            raise HookFailed(_("--on-regression failed: {error}").format(error="no pipe"))
        with self._cond:
            self._process = process
            self.started += 1
            closed = self._closed
        if closed:  # closed while it was starting: close() did not see it
            stop_group(process, self.grace_s)
            return
        tail = _Tail(stderr)
        threading.Thread(target=_feed, args=(stdin, data.encode()), daemon=True, name="hook stdin").start()
        try:
            code = process.wait(self.timeout_s)
        except subprocess.TimeoutExpired:
            stop_group(process, self.grace_s)
            said = _("--on-regression timed out after {seconds} s: its process group was stopped")
            raise HookFailed(said.format(seconds=f"{self.timeout_s:g}")) from None
        tail.thread.join(DRAIN_S)
        with self._cond:
            if self._closed:
                return  # stopped because ptotui is leaving: nothing to say
        if code != 0:
            error = tail.last_line()
            raise HookFailed(_("--on-regression exited {code}: {error}").format(code=code, error=error))

    def close(self) -> None:
        """ptotui is leaving: no hook starts any more, the waiting ones are dropped, and the
        running one's group is stopped (SIGTERM, SIGKILL after the grace) on a thread the
        interpreter waits for at exit, so no child of it outlives ptotui."""
        with self._cond:
            self._closed = True
            process = self._process
            self._cond.notify_all()
        if process is not None and (process.poll() is None or group_alive(process.pid)):
            threading.Thread(target=stop_group, args=(process, self.grace_s), name="hook stop").start()
