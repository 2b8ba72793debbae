"""SIGTERM and SIGHUP leave through Textual, so the terminal is given back as it was."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the program in a pseudo-terminal, signalled: seconds each

ROOT = Path(__file__).resolve().parents[2]
ALT_SCREEN_OFF = b"\x1b[?1049l"
MOUSE_OFF = b"\x1b[?1000l"


def read_until(fd: int, done, timeout: float) -> bytes:
    out = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not done(out):
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            out += chunk
    return out


@contextlib.contextmanager
def app_in_a_pty(
    tmp_path: Path, program: list[str], env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen, int]]:
    """ptotui (``program`` runs it; with ``--state`` in tmp_path unless ``env`` is given, which
    is added to the environment) on the samples in a new pseudo-terminal, its rows on screen;
    yields the process and the terminal's master end, and cleans both up."""
    master, slave = pty.openpty()
    state = [] if env is not None else ["--state", str(tmp_path / "triage.json")]
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="xterm-256color", COLUMNS="100", LINES="30", **(env or {}))
    process = subprocess.Popen(
        [sys.executable, *program, *state],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
        cwd=tmp_path,
    )
    os.close(slave)
    try:
        started = read_until(master, lambda out: b"softmax_online_" in out, 60)
        assert b"softmax_online_" in started, started[-500:]
        yield process, master
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_restores_the_terminal(signum, tmp_path):
    with app_in_a_pty(tmp_path, ["-m", "ptotui"]) as (process, master):
        process.send_signal(signum)
        rest = read_until(master, lambda out: ALT_SCREEN_OFF in out and MOUSE_OFF in out, 30)
        assert process.wait(timeout=30) == 128 + signum  # the shell's convention for death by signal
        assert ALT_SCREEN_OFF in rest and MOUSE_OFF in rest


# Textual's shutdown blocked for ever, as seen when the terminal was gone (tmux kill-session
# during a reload left ptotui running on a deleted pty: the driver's close waited on its
# writer thread). The process must end anyway, with the signal's exit status.
HANGING_SHUTDOWN = """
import threading, sys
from textual.drivers import _writer_thread
_writer_thread.WriterThread.stop = lambda self: threading.Event().wait()
from ptotui.cli import main
sys.argv[0] = "ptotui"
sys.exit(main())
"""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_ends_the_process_even_when_textuals_shutdown_hangs(signum, tmp_path):
    with app_in_a_pty(tmp_path, ["-c", HANGING_SHUTDOWN]) as (process, master):
        process.send_signal(signum)
        read_until(master, lambda out: False, 1)  # keep draining what it writes
        assert process.wait(timeout=30) == 128 + signum
        assert (tmp_path / "seen.json").is_file()  # saved on unmount, before the hang
