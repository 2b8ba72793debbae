"""The fleet view's decisions (ptotui/model/fleetview.py), without a terminal; and the feed that
reads only the hosts whose branch moved (ptotui/model/fleetfeed.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptotui.model.config import FleetSettings
from ptotui.model.fleet import Cell, Fleet, Host, Row
from ptotui.model.fleetfeed import FleetFeed
from ptotui.model.fleetview import (
    STALE_FLOOR_S,
    Columns,
    FetchState,
    FleetView,
    SettingsKeeper,
    is_stale,
    kernel_on_hosts,
    usual_interval,
)
from tests.cli.test_fleet import Team
from tests.model.test_verdict import STEADY, WOBBLE, land

HOUR = 3600


def host(name: str, publishes: list[int], group: int = 0, cells: dict[str, Cell] | None = None) -> Host:
    return Host(name, f"refs/heads/ptotui/hosts/{name}", "0" * 40, publishes[0], publishes=publishes, group=group,
                cells=cells or {})  # fmt: skip


def ok(tier: str = "mid", ratio: float | None = 50.0, pto_ms: float | None = 1.0, pto: str = "ok") -> Cell:
    return Cell(tier, ratio, pto_ms, "ok", pto, False)


# -- stale --------------------------------------------------------------------------------


def test_a_host_is_stale_after_three_times_its_usual_interval() -> None:
    hourly = host("a", [10 * HOUR, 9 * HOUR, 8 * HOUR, 7 * HOUR])
    assert usual_interval(hourly.publishes) == HOUR
    assert not is_stale(hourly, 10 * HOUR + 3 * HOUR)
    assert is_stale(hourly, 10 * HOUR + 3 * HOUR + 1)


def test_a_host_with_too_few_publishes_is_never_stale() -> None:
    assert usual_interval([5, 1]) is None
    assert not is_stale(host("a", [HOUR, 0]), 10**9)


def test_a_host_that_publishes_every_minute_is_not_stale_within_the_floor() -> None:
    busy = host("a", [600, 540, 480, 420])
    assert not is_stale(busy, 600 + STALE_FLOOR_S)
    assert is_stale(busy, 600 + STALE_FLOOR_S + 1)


def test_the_usual_interval_is_the_median_gap_so_one_long_pause_does_not_move_it() -> None:
    times = [100 * HOUR, 99 * HOUR, 98 * HOUR, 40 * HOUR, 39 * HOUR]
    assert usual_interval(times) == HOUR


# -- columns ---------------------------------------------------------------------------------


def test_columns_follow_the_hosts_new_ones_last_gone_ones_dropped() -> None:
    columns = Columns()
    columns.follow(["b", "a"])
    assert columns.visible() == ["a", "b"]
    assert columns.move("b", -1) and columns.visible() == ["b", "a"]
    columns.follow(["a", "b", "c"])
    assert columns.visible() == ["b", "a", "c"]
    columns.pin("c")
    columns.follow(["a", "b"])  # c's branch went away
    assert columns.reference is None and columns.visible() == ["b", "a"]


def test_the_reference_comes_first_and_stays_there() -> None:
    columns = Columns()
    columns.follow(["a", "b", "c"])
    assert columns.pin("c")
    assert columns.visible() == ["c", "a", "b"]
    assert not columns.move("c", 1)  # the reference does not move
    assert not columns.move("a", -1)  # nothing goes before it
    assert columns.move("a", 1) and columns.visible() == ["c", "b", "a"]
    assert not columns.pin("c")  # again: unpinned
    assert columns.reference is None and columns.visible() == ["b", "a", "c"]  # back in its place


def test_hide_and_show_all_never_the_last_column() -> None:
    columns = Columns()
    columns.follow(["a", "b"])
    columns.pin("a")
    assert columns.hide("a") and columns.reference is None  # a hidden reference is unpinned
    assert not columns.hide("b")  # the last one shown stays
    assert columns.visible() == ["b"]
    assert not columns.move("b", 1)
    assert columns.show_all() and columns.visible() == ["a", "b"]
    assert not columns.show_all()


# -- the columns kept between sessions ([fleet] in the settings file) --------------------------


def test_the_saved_columns_come_back_new_hosts_after_them_unknown_names_passed_over() -> None:
    saved = FleetSettings(order=("c", "gone", "a"), hidden=("gone", "a"), reference="c")
    columns = Columns.from_settings(saved)
    columns.follow(["a", "b", "c", "d"])
    assert columns.visible() == ["c", "b", "d"]  # c pinned first; b and d new, after the saved ones
    assert columns.reference == "c" and columns.hidden & columns.present == {"a"}
    assert columns.settings() == FleetSettings(("c", "gone", "a", "b", "d"), ("gone", "a"), "c")


def test_a_pinned_host_that_is_gone_is_no_reference_until_it_is_back() -> None:
    columns = Columns.from_settings(FleetSettings(reference="z"))
    columns.follow(["a", "b"])
    assert columns.reference is None and columns.visible() == ["a", "b"]
    assert columns.settings() == FleetSettings(reference="z")  # kept: another repository's, or back later
    columns.follow(["a", "b", "z"])
    assert columns.visible() == ["z", "a", "b"]


def test_the_order_by_name_is_not_kept_so_a_host_added_later_takes_its_place_by_name() -> None:
    columns = Columns()
    columns.follow(["b", "a", "c"])
    assert columns.settings() == FleetSettings()
    assert columns.move("c", -1)
    assert columns.settings().order == ("a", "c", "b")
    assert columns.move("c", 1) and columns.settings() == FleetSettings()


def test_saved_settings_that_hide_every_host_present_still_show_one() -> None:
    columns = Columns.from_settings(FleetSettings(hidden=("a", "b"), reference="b"))
    columns.follow(["a", "b"])
    assert columns.visible() == ["b"]  # the reference is shown, whatever the file says
    columns = Columns.from_settings(FleetSettings(hidden=("a", "b")))
    columns.follow(["b", "a"])
    assert columns.visible() == ["a"]
    assert not columns.hide("a")


def test_show_all_shows_the_hosts_present_and_remembers_the_others() -> None:
    columns = Columns.from_settings(FleetSettings(hidden=("a", "elsewhere")))
    columns.follow(["a", "b"])
    assert columns.show_all() and columns.visible() == ["a", "b"]
    assert columns.settings().hidden == ("elsewhere",)


def test_the_names_kept_are_capped_the_absent_ones_going_first() -> None:
    from ptotui.model.config import MAX_FLEET_HOSTS

    absent = [f"old-{i:03d}" for i in range(MAX_FLEET_HOSTS)]
    columns = Columns.from_settings(FleetSettings(order=tuple(reversed(absent))))
    columns.follow(["a", "b"])
    kept = columns.settings().order
    assert len(kept) == MAX_FLEET_HOSTS and kept[-2:] == ("a", "b")
    assert kept[:-2] == tuple(reversed(absent))[:-2]  # the last absent ones dropped


def test_the_keeper_writes_the_newest_choice_once_and_nothing_without_a_file(tmp_path: Path) -> None:
    from ptotui.model.config import read_config

    assert not SettingsKeeper(None, FleetSettings()).stage(FleetSettings(hidden=("a",)))
    path = tmp_path / "config.toml"
    keeper = SettingsKeeper(path, FleetSettings())
    assert keeper.stage(FleetSettings(hidden=("a",)))
    assert keeper.stage(FleetSettings(hidden=("b",)))  # before a worker took the first: the newest wins
    keeper.write()
    assert read_config(path)[0].fleet == FleetSettings(hidden=("b",))
    keeper.write()  # nothing staged: nothing done
    path.write_text("fleet = 3\n")  # hand-edited meanwhile into something ptotui cannot update
    keeper.stage(FleetSettings())
    with pytest.raises(ValueError):
        keeper.write()
    assert path.read_text() == "fleet = 3\n"
    keeper.stage(FleetSettings(hidden=("b",)))  # what the file held as ptotui last wrote it: not written
    keeper.write()
    assert path.read_text() == "fleet = 3\n"


# -- cells, disagreement, environments ------------------------------------------------------


def fleet_of(*hosts: Host) -> FleetView:
    names = sorted({k for h in hosts for k in h.cells})
    rows = [Row(k, {h.name: h.cells[k] for h in hosts if k in h.cells}, False) for k in names]
    view = FleetView()
    view.take(Fleet(list(hosts), rows))
    return view


def test_disagreement_is_among_the_hosts_shown() -> None:
    view = fleet_of(
        host("a", [0], cells={"k": ok()}),
        host("b", [0], cells={"k": ok()}),
        host("c", [0], cells={"k": ok("pto-blocked", None, None, "blocked")}),
    )
    [row] = view.rows()
    assert view.disagrees(row)
    view.columns.hide("c")
    assert not view.disagrees(row)


def test_milliseconds_are_compared_only_within_one_environment() -> None:
    view = fleet_of(
        host("a", [0], cells={"k": ok(ratio=50.0, pto_ms=1.0)}),
        host("b", [0], cells={"k": ok(ratio=55.0, pto_ms=1.1)}),
        host("c", [0], group=1, cells={"k": ok(ratio=40.0, pto_ms=2.0)}),
    )
    [row] = view.rows()
    hosts = view.hosts
    assert view.compared(row, hosts["b"]) is None  # no reference: nothing compared
    assert "another environment than a, b" in (view.environments_note() or "")
    view.columns.pin("a")
    b = view.compared(row, hosts["b"])
    assert b is not None and b.ratio_pp == pytest.approx(5.0) and b.ms_pct == pytest.approx(10.0)
    assert not b.other_environment and not b.differs
    c = view.compared(row, hosts["c"])
    assert c is not None and c.ratio_pp == pytest.approx(-10.0) and c.ms_pct is None and c.other_environment
    assert view.environments_note() == "PTO ms of c: another environment than a, not compared (ratios are)"
    view.columns.pin("c")  # now a and b are the other environment
    assert not view.ms_comparable(hosts["a"]) and view.ms_comparable(hosts["c"])
    assert view.compared(row, hosts["c"]) is None


def test_a_fetch_failure_is_one_line_until_a_fetch_works() -> None:
    fetches = FetchState()
    assert fetches.words() is None
    fetches.record("fatal: unable to access\n  'https://x/': Could not resolve host", at=0.0)
    words = fetches.words(local=False)
    assert words == "fetch failed 00:00 (fatal: unable to access 'https://x/': Could not resolve host)"
    fetches.record(None, at=60.0)
    assert fetches.words() is None and fetches.ok_at == 60.0


# -- the feed and the detail, on published trees ----------------------------------------------

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "ptotui" / "fleet"


def test_the_feed_reads_again_only_the_host_whose_branch_moved(tmp_path: Path) -> None:
    team = Team(tmp_path)
    feed = FleetFeed(team.clone, "origin")
    first = feed.read()
    assert sorted(first.moved) == ["host-a", "host-b", "host-c"] and first.fetch_error is None
    assert feed.read().moved == []
    land(team.benches["host-b"], WOBBLE[-1] * 1.2)
    team.publish("host-b")
    assert feed.read().moved == []  # not fetched yet
    moved = feed.read(fetch=True)
    assert moved.fetched and moved.moved == ["host-b"]
    hosts = {h.name: h for h in moved.fleet.hosts}
    assert hosts["host-b"].cells[STEADY].regressed and not hosts["host-a"].cells[STEADY].regressed
    assert len(hosts["host-b"].publishes) == 2  # its two publishes, for its usual interval
    # A second viewer of the same repository reads the judged hosts back: the same fleet.
    again = FleetFeed(team.clone, "origin").read()
    assert [h.cells for h in again.fleet.hosts] == [h.cells for h in moved.fleet.hosts]
    assert [h.regressed for h in again.fleet.hosts] == [h.regressed for h in moved.fleet.hosts]


def test_the_tree_written_again_is_the_commits_tree(tmp_path: Path) -> None:
    """A moved host's tree is the earlier one with only the files that changed written: it must
    equal the new commit's tree, also where a run went away."""
    team = Team(tmp_path)
    feed = FleetFeed(team.clone, "origin")
    feed.read()
    bench = team.benches["host-b"]
    land(bench, WOBBLE[-1] * 1.2)
    gone = sorted((bench / "results").glob("*/*/*/report.json"))[0].parent
    shutil.rmtree(gone)
    team.publish("host-b")
    reading = feed.read(fetch=True)
    [b] = [h for h in reading.fleet.hosts if h.name == "host-b"]
    assert b.root is not None
    root = Path(b.root) / "bench"
    written = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    listed = team.git_files("host-b")
    assert written == listed
    assert not (root / gone.relative_to(bench)).exists()


def test_a_broken_remote_keeps_the_last_reading_and_says_why(tmp_path: Path) -> None:
    team = Team(tmp_path)
    feed = FleetFeed(team.clone, "origin")
    feed.read(fetch=True)
    team.remote.rename(tmp_path / "moved.git")
    reading = feed.read(fetch=True)
    assert reading.fetch_error and "\n" not in reading.fetch_error
    assert [h.name for h in reading.fleet.hosts] == ["host-a", "host-b", "host-c"]


def test_the_detail_reads_each_hosts_runs_and_change_points(tmp_path: Path) -> None:
    team = Team(tmp_path)
    for stamp in ("20201102T080000Z", "20201102T090000Z", "20201102T100000Z", "20201102T110000Z"):
        land(team.benches["host-c"], WOBBLE[-1] * 1.2, stamp=stamp)
    team.publish("host-c")
    reading = FleetFeed(team.clone, "origin").read(fetch=True)
    items = {item.host.name: item for item in kernel_on_hosts(reading.fleet.hosts, STEADY)}
    assert len(items["host-a"].runs) == len(WOBBLE) and not items["host-a"].changes
    assert len(items["host-c"].runs) == len(WOBBLE) + 4
    [change] = items["host-c"].changes
    assert change.side == "pto" and change.after == "20201102T080000Z" and change.cause() == "PTO slower"


def test_a_host_naming_fewer_fields_is_in_the_environment_it_does_not_contradict() -> None:
    from ptotui.model.fleet import group_environments

    bench = {"warmup": "20", "repeat": "100"}
    full = {"SoC": "ascend910b", "toolkit": "9.0.0", **bench}
    hosts = [host("a", [0]), host("b", [0]), host("c", [0]), host("d", [0])]
    for item, environment in zip(hosts, (bench, full, full, {**full, "toolkit": "8.5.0"}), strict=True):
        item.environment = environment
    group_environments(hosts)
    assert [item.group for item in hosts] == [0, 0, 0, 1]


def test_the_view_has_the_moved_hosts_judged_by_a_child_process(tmp_path: Path) -> None:
    """Judging in a thread holds the interpreter's lock from the keys: the view's reads have a
    child process judge the moved hosts, and read their judged form back."""
    from ptotui.model import fleet as fl

    team = Team(tmp_path)
    feed = FleetFeed(team.clone, "origin")
    refs, _warnings = fl.host_refs(feed.git, "origin")
    feed._judge_elsewhere(refs)  # the child alone
    judged = sorted(path.parent.name.split("-")[1] for path in feed.directory.glob(f"*/{fl.JUDGED}"))
    assert judged == ["a", "b", "c"]
    reading = feed.read(elsewhere=True)
    assert [h.name for h in reading.fleet.hosts] == ["host-a", "host-b", "host-c"]
    assert reading.fleet.hosts[0].cells == FleetFeed(team.clone, "origin").read().fleet.hosts[0].cells
