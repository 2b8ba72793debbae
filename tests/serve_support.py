"""A ``ptotui serve`` subprocess for the serve tests, on 127.0.0.1 and a free port, bounded in time."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = 30.0


@dataclass
class Served:
    """A running ``ptotui serve``: its process, the URL it printed and every line it wrote."""

    process: subprocess.Popen[str]
    url: str
    lines: queue.Queue[str] = field(default_factory=queue.Queue)

    @property
    def base(self) -> str:
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}"

    @property
    def token(self) -> str:
        return self.url.split("token=", 1)[1]

    @property
    def websocket(self) -> str:
        return "ws" + self.base[4:] + f"/ws/{self.token}"

    def children(self) -> list[int]:
        """The processes whose parent is the server: one app per open session."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # gone meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == self.process.pid:
                found.append(int(entry))
        return found

    def stop(self, timeout: float = 15.0) -> float:
        """SIGINT, as Ctrl+C; the seconds it took to exit (killed, and an AssertionError, past ``timeout``)."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            raise AssertionError(f"ptotui serve did not stop within {timeout} s") from None
        return time.monotonic() - started


def start_serve(*args: str, cwd: Path = ROOT) -> Served:
    """Start ``ptotui serve --port 0 ARGS`` and wait for the URL it prints."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "ptotui", "serve", "--host", "127.0.0.1", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        cwd=cwd,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()

    def pump() -> None:  # a thread, so no read can block the test past its deadline
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT
    seen = []
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if match := re.search(r"Open: (http://\S+\?token=\S+)", line):
            return Served(process, match.group(1), lines)
    process.kill()
    process.wait(5)
    raise AssertionError("ptotui serve printed no URL:\n" + "".join(seen))


def alive(pids: list[int]) -> list[int]:
    """The pids that still run (a zombie has exited and counts as gone)."""
    running = []
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            running.append(pid)
    return running
