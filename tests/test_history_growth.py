"""History over many snapshots: keep only what history needs, read only new or changed files."""

from __future__ import annotations

import json
import os

from ptotui.model.history import HistoryReader, read_history
from ptotui.model.location import Location

LATEST = "kernel_state_matrix_20261126T080000Z.json"


def add_snapshot(location: Location, stamp: str, ratio: float) -> None:
    data = json.loads((location.reports / LATEST).read_text())
    data["kernels"][0]["baseline_over_pto_range"] = f"{ratio:.1f}%..{ratio:.1f}%"
    (location.reports / f"kernel_state_matrix_{stamp}.json").write_text(json.dumps(data))


def same(a, b) -> bool:
    return (a.stamps, a.kernels, [str(w) for w in a.warnings]) == (b.stamps, b.kernels, [str(w) for w in b.warnings])


def test_an_update_reads_only_the_new_or_changed_snapshot(sample_location):
    reader = HistoryReader()
    first = reader.read(sample_location)
    assert reader.files_read == 3 and len(first.stamps) == 3
    assert same(reader.read(sample_location), first) and reader.files_read == 3  # nothing new: nothing read

    add_snapshot(sample_location, "20261201T080000Z", 55.0)
    second = reader.read(sample_location)
    assert reader.files_read == 4
    assert second.stamps[-1] == "20261201T080000Z"
    assert same(second, read_history(sample_location))  # exactly what a fresh read gives

    changed = sample_location.reports / "kernel_state_matrix_20261101T080000Z.json"
    changed.write_text(changed.read_text().replace('"wave3"', '"wave4"') + "\n")
    os.utime(changed, ns=(1, 1))
    third = reader.read(sample_location)
    assert reader.files_read == 5 and same(third, read_history(sample_location))

    (sample_location.reports / "kernel_state_matrix_20261115T080000Z.json").unlink()
    (sample_location.reports / "kernel_state_matrix_20261115T080000Z.md").unlink(missing_ok=True)
    fourth = reader.read(sample_location)
    assert "20261115T080000Z" not in fourth.stamps and same(fourth, read_history(sample_location))


def test_only_the_newest_two_snapshots_are_kept_whole(sample_location):
    for day in range(1, 9):
        add_snapshot(sample_location, f"202612{day:02d}T080000Z", 40.0 + day)
    history = HistoryReader().read(sample_location)
    assert len(history.stamps) == 11
    assert [s.source.rsplit("_", 1)[-1] for s in history.snapshots] == [
        "20261207T080000Z.json",
        "20261208T080000Z.json",
    ]


def test_the_newest_two_are_whole_again_after_the_newest_is_deleted(sample_location):
    reader = HistoryReader()
    reader.read(sample_location)
    os.unlink(sample_location.reports / LATEST)
    (sample_location.reports / LATEST.replace(".json", ".md")).unlink(missing_ok=True)
    history = reader.read(sample_location)
    assert [s.source.rsplit("_", 1)[-1] for s in history.snapshots] == [
        "20261101T080000Z.json",
        "20261115T080000Z.json",
    ]


def test_points_share_their_words():
    """Class and status strings are interned: thousands of snapshots repeat the same few words."""
    from tests.conftest import SAMPLES

    location = Location(SAMPLES / "reports", SAMPLES)
    history = read_history(location)
    points = [p for ps in history.kernels.values() for p in ps if p.klass]
    first = {p.klass: p.klass for p in points}
    assert all(p.klass is first[p.klass] for p in points)
    assert not hasattr(points[0], "__dict__")  # slots: no per-point dict


def test_a_first_read_never_holds_more_than_a_few_snapshots_whole(sample_location, monkeypatch):
    """Holding every ReportSet until the end of the first read peaked at 400 MB for 4,000 snapshots."""
    import weakref

    from ptotui.model import history as history_module

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
