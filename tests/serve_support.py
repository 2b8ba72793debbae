"""A ``ptotui serve`` subprocess for the serve tests, on 127.0.0.1 and a free port, bounded in time."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from tests.helpers import PATIENCE

ROOT = Path(__file__).resolve().parent.parent
START_TIMEOUT = PATIENCE


@dataclass
class Served:
    """A running ``ptotui serve``: its process, the URL it printed and every line it wrote."""

    process: subprocess.Popen[str]
    url: str
    port: int  # where it listens (the URL's may be a --public-url's)
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
        return [pid for pid, parent in _parents().items() if parent == self.process.pid]

    def descendants(self) -> list[int]:
        """The apps and whatever they started (git cat-file, for history)."""
        parents = _parents()
        found = [self.process.pid]
        for pid in found:
            found += [child for child, parent in parents.items() if parent == pid]
        return found[1:]

    def stop(self, timeout: float = PATIENCE) -> float:
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


def _parents() -> dict[int, int]:
    """Every process's parent, from /proc."""
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # gone meanwhile
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


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
    seen: list[str] = []
    port = 0
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            break
        seen.append(line)
        if match := re.search(r"Listening on \S+:(\d+)$", line):
            port = int(match.group(1))
        if match := re.search(r"Open: (http://\S+\?token=\S+)", line):
            return Served(process, match.group(1), port, lines)
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


class Relay:
    """A TCP relay from a free port on 127.0.0.1 to ``ptotui serve``, as ``ssh -L P:127.0.0.1:PORT``
    makes one. The port is known at once (for --public-url); ``start(target)`` once the server is up."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.listener.getsockname()[1]
        self.target = 0

    def start(self, target: int) -> None:
        self.target = target
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=10)
            except OSError:  # closed
                return
            upstream.settimeout(None)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()
