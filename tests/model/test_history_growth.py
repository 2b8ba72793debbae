"""History over many snapshots: keep only what history needs, read only new or changed files."""

from __future__ import annotations

import json
import os

import pytest

from ptotui.model.history import snapshots as history_module
from ptotui.model.history.snapshots import CHECK_NEWEST, HistoryReader, read_history
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
    reader.full_check_s = 0  # an old file edited in place is seen at the next look at every file
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


def settle(location: Location, seconds: int) -> None:
    """The reports directory last changed ``seconds`` after an old fixed time: long
    enough ago that its mtime can be trusted (a change within the clock's last tick
    could be followed by another with the same mtime)."""
    when = (1_700_000_000 + seconds) * 1_000_000_000
    os.utime(location.reports, ns=(when, when))


def write_replacing(path, text: str) -> None:
    """Write as tools that write atomically do: a new file renamed over the old one."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


def test_an_update_lists_checks_and_reads_only_what_changed(sample_location, monkeypatch):
    """Before: every update listed the directory, stat'ed every snapshot file and rebuilt
    every kernel's points. Now unchanged files are neither stat'ed nor read again."""
    for day in range(1, 21):
        add_snapshot(sample_location, f"202612{day:02d}T080000Z", 30.0 + day)
    settle(sample_location, 1)
    reader = HistoryReader()
    first = reader.read(sample_location)
    assert len(first.stamps) == 23 and reader.files_read == 23
    first_stamps, first_points = list(first.stamps), {name: list(points) for name, points in first.kernels.items()}

    stats: list[str] = []
    real_stat = os.stat

    def counting_stat(path, *args, **kwargs):
        if "kernel_state_matrix_" in str(path):
            stats.append(os.path.basename(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(history_module.os, "stat", counting_stat)
    listings = []
    real_scandir = os.scandir

    def counting_scandir(path):
        listings.append(path)
        return real_scandir(path)

    monkeypatch.setattr(history_module.os, "scandir", counting_scandir)
    read_paths = []
    real_load = history_module.load_file

    def only_new_files(path, thresholds):  # an unchanged snapshot read again fails the test
        read_paths.append(path.name)
        return real_load(path, thresholds)

    monkeypatch.setattr(history_module, "load_file", only_new_files)
    rebuilt = []
    real_of = history_module._Assembled.of.__func__

    def counting_of(cls, snapshots):
        rebuilt.append(len(snapshots))
        return real_of(cls, snapshots)

    monkeypatch.setattr(history_module._Assembled, "of", classmethod(counting_of))

    again = reader.read(sample_location)  # nothing changed
    assert listings == [] and read_paths == [] and rebuilt == []
    assert len(stats) == CHECK_NEWEST  # the newest only: a run may be writing them in place
    assert same(again, first)

    add_snapshot(sample_location, "20261221T080000Z", 77.0)
    settle(sample_location, 2)
    stats.clear()
    second = reader.read(sample_location)
    assert len(listings) == 1 and read_paths == ["kernel_state_matrix_20261221T080000Z.json"]
    assert rebuilt == []  # the new points were appended, the others not gathered again
    assert len(stats) <= 1 + CHECK_NEWEST
    assert same(second, read_history(sample_location))
    assert second.stamps[-1] == "20261221T080000Z" and second.kernels[next(iter(second.kernels))][-1].ratio_min_pct
    # the history handed out before is not changed under the UI that may be drawing it
    assert first.stamps == first_stamps and {n: list(p) for n, p in first.kernels.items()} == first_points

    # An old file replaced under its name (a new inode) is read again, and only it.
    old = sample_location.reports / "kernel_state_matrix_20261205T080000Z.json"
    write_replacing(old, old.read_text().replace('"wave3"', '"wave5"'))
    settle(sample_location, 3)
    read_paths.clear()
    third = reader.read(sample_location)
    assert read_paths == [old.name]
    assert same(third, read_history(sample_location))


def test_an_old_file_edited_in_place_is_seen_at_the_next_full_check(sample_location):
    for day in range(1, 6):
        add_snapshot(sample_location, f"202612{day:02d}T080000Z", 30.0 + day)
    settle(sample_location, 1)
    reader = HistoryReader()
    reader.read(sample_location)
    old = sample_location.reports / "kernel_state_matrix_20261202T080000Z.json"
    data = json.loads(old.read_text())
    data["kernels"][0]["baseline_over_pto_range"] = "12.0%..12.0%"
    with open(old, "r+") as handle:  # the same inode, and no change to the directory
        handle.write(json.dumps(data))
        handle.truncate()
    settle(sample_location, 1)
    name = data["kernels"][0]["name"]

    def ratio_of_that_day(history) -> float | None:
        return next(p.ratio_min_pct for p in history.kernels[name] if p.stamp == "20261202T080000Z")

    assert ratio_of_that_day(reader.read(sample_location)) == pytest.approx(32.0)  # not looked at yet
    reader.full_check_s = 0
    assert ratio_of_that_day(reader.read(sample_location)) == pytest.approx(12.0)


def test_a_directory_changed_just_now_is_listed_again(sample_location):
    """A file added within the same tick of the file system's clock leaves the mtime
    the directory had when it was listed: a listing of a directory that had just
    changed is not trusted."""
    reader = HistoryReader()
    os.utime(sample_location.reports)  # changed now
    just_now = os.stat(sample_location.reports).st_mtime_ns
    reader.read(sample_location)
    add_snapshot(sample_location, "20261201T080000Z", 50.0)
    os.utime(sample_location.reports, ns=(just_now, just_now))  # as if added within the same tick
    assert reader.read(sample_location).stamps[-1] == "20261201T080000Z"


def test_the_reader_gives_way_before_each_file_it_parses(sample_location):
    parsed_before: list[int] = []
    reader = HistoryReader()
    reader.give_way = lambda: parsed_before.append(reader.files_read)
    reader.read(sample_location)
    assert parsed_before == [0, 1, 2] and reader.files_read == 3
    reader.read(sample_location)  # nothing new: nothing parsed, no call
    assert len(parsed_before) == 3
