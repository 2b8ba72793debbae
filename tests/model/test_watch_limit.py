"""Issue 40: the host's inotify limit reached (watches or instances) froze the dashboard on stale
data: ``Observer.start()`` raised OSError(28) in every load, and ``r`` did not help. One warning,
then the files are polled."""

from __future__ import annotations

import errno
import json
import threading

import pytest

from ptotui.model.live.watcher import ReportWatcher
from ptotui.model.location import Location
from tests.helpers import PATIENCE


@pytest.mark.parametrize("allowed", [0, 1])
def test_the_reports_still_update_when_inotify_refuses_a_watch(sample_location: Location, monkeypatch, allowed) -> None:
    from watchdog.observers.inotify import InotifyEmitter

    started = []
    real_start = InotifyEmitter.on_thread_start

    def limited(emitter: InotifyEmitter) -> None:  # as under max_user_watches = ``allowed``
        if len(started) >= allowed:
            raise OSError(errno.ENOSPC, "inotify watch limit reached")
        started.append(emitter)
        real_start(emitter)

    monkeypatch.setattr(InotifyEmitter, "on_thread_start", limited)
    loads, errors = [], []
    changed = threading.Condition()

    def on_load(reports) -> None:
        with changed:
            loads.append(reports)
            changed.notify_all()

    def on_error(text: str) -> None:
        with changed:
            errors.append(text)
            changed.notify_all()

    # The rescan far away: what brings the change is the polling of the reports.
    watcher = ReportWatcher(sample_location, on_load, quiet=0.01, rescan=600, on_error=on_error, runs=False)
    watcher.start()
    try:
        with changed:
            assert changed.wait_for(lambda: loads and errors, PATIENCE)
        path = sample_location.reports / "regression_latest.json"
        data = json.loads(path.read_text())
        data["kernels"][0]["name"] = "renamed_under_the_limit"
        path.write_text(json.dumps(data))
        with changed:
            assert changed.wait_for(lambda: "renamed_under_the_limit" in loads[-1].by_name(), PATIENCE), errors
        watcher.request_reload()  # r: a load, not a failure
        with changed:
            count = len(loads)
            assert changed.wait_for(lambda: len(loads) > count, PATIENCE), errors
    finally:
        watcher.stop()
    assert len(errors) == 1, errors
    assert "inotify watch limit reached" in errors[0] and "polled" in errors[0]
    assert str(sample_location.reports) in errors[0] or str(sample_location.bench) in errors[0]
