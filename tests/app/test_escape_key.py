"""The escape key: reported when its wait ends, not at Textual's next 100 ms poll."""

from __future__ import annotations

import os
import threading
from selectors import SelectSelector

import pytest
from textual import constants, events
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from ptotui.app import driver
from tests.helpers import build


class _Reader:
    """``driver.read_keys`` on a pipe, in a thread, as the driver runs it."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        self.stop = threading.Event()
        self.events: list[Message] = []
        self.got = threading.Condition()
        self.thread = threading.Thread(target=driver.read_keys, args=(self.read_end, self.stop, self.deliver))
        self.thread.start()

    def deliver(self, event: Message) -> None:
        with self.got:
            self.events.append(event)
            self.got.notify_all()

    def keys(self, count: int) -> list[str]:
        """The first ``count`` keys read (waits for them: the test fails on a hang only)."""
        with self.got:
            assert self.got.wait_for(lambda: len(self.key_events()) >= count, timeout=10)
            return self.key_events()[:count]

    def key_events(self) -> list[str]:
        return [e.key for e in self.events if isinstance(e, events.Key)]

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)
        os.close(self.read_end)
        os.close(self.write_end)


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """How long each ``select`` of the input loop was asked to wait."""
    asked: list[float | None] = []

    class Spy(SelectSelector):
        def select(self, timeout=None):
            asked.append(timeout)
            return super().select(timeout)

    monkeypatch.setattr(driver, "SelectSelector", Spy)
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.05)
    return asked


def test_a_lone_escape_is_reported_when_its_wait_ends(waits):
    """Textual's input loop waited 100 ms in ``select`` whatever ESCDELAY said."""
    reader = _Reader()
    try:
        os.write(reader.write_end, b"\x1b")
        assert reader.keys(1) == ["escape"]
        os.write(reader.write_end, b"q")
        assert reader.keys(2) == ["escape", "q"]
    finally:
        reader.close()
    assert max(w for w in waits if w is not None) <= driver.IDLE_WAIT
    assert any(w is not None and w <= 0.05 for w in waits)  # the wait after the ESC: no longer than its delay


def test_whole_sequences_are_still_one_key(waits):
    """An arrow key or alt+key is ESC and more, in one write: not escape and loose letters."""
    reader = _Reader()
    try:
        os.write(reader.write_end, b"\x1b[A")
        os.write(reader.write_end, b"\x1bx")
        assert reader.keys(2) == ["up", "alt+x"]
    finally:
        reader.close()
    assert "escape" not in reader.key_events()


def test_escdelay_is_50_ms_unless_the_user_set_it(monkeypatch):
    monkeypatch.setattr(constants, "ESCAPE_DELAY", 0.1)
    assert driver.set_escape_delay({"ESCDELAY": "100"}) == 0.1  # the user's, as Textual read it
    assert driver.set_escape_delay({}) == 0.05


def test_the_app_uses_the_driver_in_a_terminal(sample_location, monkeypatch):
    monkeypatch.setattr(constants, "DRIVER", None)
    app = build(sample_location, watch=False)
    assert issubclass(app.get_driver_class(), LinuxDriver)
    assert app.get_driver_class() is driver.PromptEscapeDriver
    monkeypatch.setattr(constants, "DRIVER", "textual.drivers.headless_driver:HeadlessDriver")
    assert app.get_driver_class().__name__ == "HeadlessDriver"  # another driver asked for: kept
