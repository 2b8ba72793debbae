"""The notices (toasts) of this session, kept so that one that vanished can be read again (``N``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ptotui.model.text import clean

KEPT = 200  # the newest notices kept; an older one is dropped as a new one comes


@dataclass(frozen=True)
class Logged:
    """One notice as it was shown: when, its title, its words (cleaned) and its severity."""

    at: float
    title: str
    text: str
    severity: str


class NoticeLog:
    """The newest :data:`KEPT` notices. ``add`` may be called from any thread (``deque.append``
    is atomic), as Textual's ``notify`` may be."""

    def __init__(self, clock: Callable[[], float], kept: int = KEPT) -> None:
        self._clock = clock
        self._kept: deque[Logged] = deque(maxlen=kept)

    def add(self, text: str, title: str = "", severity: str = "information") -> None:
        self._kept.append(Logged(self._clock(), clean(title), clean(text), severity))

    def newest_first(self) -> list[Logged]:
        return list(reversed(self._kept))

    def __len__(self) -> int:
        return len(self._kept)
