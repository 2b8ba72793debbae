"""Textual's terminal driver, with the escape key reported as soon as its wait ends.

A lone ESC byte is either the escape key or the start of a longer sequence (an arrow
key, a mouse event), so Textual waits ``ESCDELAY`` ms for more bytes before it calls
it the escape key. Its input thread only looks at that wait when ``select`` returns,
and ``select`` waits up to 100 ms for input: the escape key took 100 ms whatever the
wait was set to. Here ``select`` waits no longer than the pending ESC's wait, and the
wait is 50 ms unless the user set ``ESCDELAY`` (README, Configuration).
"""

from __future__ import annotations

import os
from codecs import getincrementaldecoder
from collections.abc import Callable
from selectors import EVENT_READ, SelectSelector
from threading import Event

from textual import constants
from textual._parser import ParseError
from textual._time import get_time
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

# ms. Neovim's default 'ttimeoutlen', and what tmux 3.5 and later wait on their side at
# most (10 ms, 'escape-time'): long enough for a sequence to arrive in one piece from a
# terminal, tmux or SSH, which write a key's bytes together; short enough that escape
# answers well under 100 ms.
ESCAPE_DELAY_MS = 50
IDLE_WAIT = 0.1  # s: as Textual's own input thread, to see the exit event


def set_escape_delay(environ: dict[str, str] | os._Environ[str] = os.environ) -> float:
    """The wait after a lone ESC, in seconds: ``ESCDELAY`` as Textual read it when the user
    set it, else ``ESCAPE_DELAY_MS``. Textual's parser reads the constant at each ESC."""
    if "ESCDELAY" not in environ:
        constants.ESCAPE_DELAY = ESCAPE_DELAY_MS / 1000  # type: ignore[misc]  # Final in Textual: set once, before the first key
    return constants.ESCAPE_DELAY


def read_keys(fileno: int, stop: Event, deliver: Callable[[Message], None], debug: bool = False) -> None:
    """Read ``fileno`` until ``stop`` is set, parse it as Textual does, ``deliver`` each event.

    Textual's loop (LinuxDriver.run_input_thread), except how long ``select`` waits.
    """
    parser = XTermParser(debug)
    decode = getincrementaldecoder("utf-8")().decode
    selector = SelectSelector()
    selector.register(fileno, EVENT_READ)
    try:
        while not stop.is_set():
            if selector.select(_wait(parser)):
                data = decode(os.read(fileno, 4096))
                if not data:  # end of input (a pipe): Textual's loop goes on waiting too
                    continue
                for event in parser.feed(data):
                    deliver(event)
            for event in parser.tick():
                deliver(event)
    finally:
        selector.close()
        try:
            for _ in parser.feed(""):
                pass
        except (EOFError, ParseError):
            pass


def _wait(parser: XTermParser) -> float:
    """Until the pending ESC's wait ends, if one is pending, at most ``IDLE_WAIT``."""
    deadline: float | None = getattr(parser, "_timeout_time", None)
    if deadline is None:
        return IDLE_WAIT
    return min(IDLE_WAIT, max(0.0, deadline - get_time()))


class PromptEscapeDriver(LinuxDriver):
    """LinuxDriver whose input thread reports the escape key when its wait ends."""

    def run_input_thread(self) -> None:
        set_escape_delay()
        read_keys(self.fileno, self.exit_event, self.process_message, self._debug)
