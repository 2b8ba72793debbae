"""Giving the C heap's free pages back (ptotui.model.heap)."""

from __future__ import annotations

import pytest

from ptotui.model import heap


def test_a_trim_after_a_load_happens_each_time_and_during_the_history_at_most_once_in_a_while(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    trims: list[int] = []
    monkeypatch.setattr(heap, "trim", lambda: trims.append(1))
    now = [100.0]
    trimmer = heap.Trimmer(every=2.0, clock=lambda: now[0])
    trimmer(soon=True)
    trimmer(soon=True)  # the next slice of the history, at once: not again
    assert len(trims) == 1
    trimmer()  # a load: always
    assert len(trims) == 2
    now[0] += 2.5
    trimmer(soon=True)
    assert len(trims) == 3 == trimmer.count


def test_no_trim_before_the_first_frame(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    trims: list[int] = []
    monkeypatch.setattr(heap, "trim", lambda: trims.append(1))
    shown = threading.Event()
    trimmer = heap.Trimmer(after=shown.is_set)
    trimmer()  # the first load, before the first frame: the UI thread would wait for the heap's lock
    assert trims == [] and trimmer.count == 0
    shown.set()
    trimmer()  # the load after it gives back what the first one left
    assert trims == [1]


def test_trim_and_one_arena_run_on_this_c_library() -> None:
    heap.trim()  # never raises, on glibc or not
    assert heap.one_arena() is (heap._LIB is not None)  # noqa: SLF001
