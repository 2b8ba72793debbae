"""The history read inside the app: frozen out of full collections, giving way to keys, a
library app's collector left alone (the reader's own growth is tests/model/test_history_growth.py)."""

from __future__ import annotations

import pytest

from ptotui.model.history.snapshots import HistoryReader
from tests.model.test_history_growth import add_snapshot


def test_a_first_read_never_holds_more_than_a_few_snapshots_whole(sample_location, monkeypatch):
    """Holding every ReportSet until the end of the first read peaked at 400 MB for 4,000 snapshots."""
    import weakref

    from ptotui.model.history import snapshots as history_module

    for day in range(1, 9):
        add_snapshot(sample_location, f"202612{day:02d}T080000Z", 40.0 + day)
    real = history_module.load_file
    alive: list[weakref.ref] = []
    peak = 0

    def counting(path, thresholds):
        nonlocal peak
        peak = max(peak, sum(ref() is not None for ref in alive))
        reports = real(path, thresholds)
        alive.append(weakref.ref(reports))
        return reports

    monkeypatch.setattr(history_module, "load_file", counting)
    history = HistoryReader().read(sample_location)
    assert len(history.stamps) == 11 and len(history.snapshots) == 2
    assert peak <= 2


async def test_the_first_history_read_is_frozen_out_of_full_collections(sample_location, monkeypatch):
    """A full collection walked every point of a 4,000-snapshot history with the
    interpreter held: 0.3-0.4 s stalls of whatever key was pressed then."""
    import gc

    from ptotui.model.history.snapshots import HistoryReader
    from tests.helpers import build, loaded, until

    collector_on: list[bool] = []
    read = HistoryReader.read

    def reading(self, location):
        collector_on.append(gc.isenabled())
        return read(self, location)

    monkeypatch.setattr(HistoryReader, "read", reading)
    try:
        app = build(sample_location, pause_gc=True)  # the CLI's choice: the app tunes the collector
        async with app.run_test(size=(120, 36)) as pilot:
            await loaded(pilot, 15)
            await until(pilot, lambda: app.session.history is not None)
            assert collector_on == [False]  # paused for the read
            assert gc.isenabled()  # and on again after it
            points = {id(p) for kernel in app.session.history.kernels.values() for p in kernel}
            assert points
            assert not any(id(o) in points for o in gc.get_objects())  # frozen: no full pass sees them
    finally:
        gc.enable()
        gc.unfreeze()


async def test_a_library_app_leaves_the_collector_alone(sample_location):
    import gc

    from tests.helpers import build, loaded, until

    frozen = gc.get_freeze_count()
    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.history is not None)
        assert gc.get_freeze_count() == frozen


@pytest.mark.slow
async def test_the_history_read_waits_while_keys_come(sample_location):
    """A first read of 4,000 snapshots is seconds of CPU; on a machine busy elsewhere it
    took the core and the interpreter from the UI thread, and keys took up to 0.27 s."""
    import threading
    import time

    from tests.helpers import PATIENCE, build, loaded

    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        done = threading.Event()
        app.activity.last_input = time.monotonic() + 3600  # keys keep coming
        waiting = threading.Thread(target=lambda: (app.activity.give_way(), done.set()), daemon=True)
        waiting.start()
        assert not done.wait(0.5), "the reader went on while keys were coming"
        app.activity.last_input = None  # they stopped
        assert done.wait(PATIENCE)
