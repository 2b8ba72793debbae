"""The session without Textual: loads, what changed, what was seen, on real-format reports."""

from __future__ import annotations

from pathlib import Path

from ptotui.model.core.blockers import is_blocker
from ptotui.model.core.diff import diff, regressed_kernels
from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.since import latest_state, since_snapshot, state_of
from ptotui.model.history.snapshots import read_history
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from ptotui.model.session import FLASH_SECONDS, Filters, Session
from ptotui.model.types import ReportSet
from tests.helpers import every_variant, rewrite_kernels

BLOCKED = every_variant(pto_status="blocked", pto_reason="lowering failed")


class Clocks:
    """A wall clock and a monotonic one that move only when told."""

    def __init__(self) -> None:
        self.wall = 1_764_400_000.0
        self.mono = 120.0  # a machine booted two minutes ago

    def session(self, location: Location | None = None, **kwargs) -> Session:
        where = location or Location(Path("bench/reports"), Path("bench"))
        return Session(where, 2.0, clock=lambda: self.wall, monotonic=lambda: self.mono, **kwargs)


def _load(location: Location) -> ReportSet:
    return load(location, Thresholds())


def _since(session: Session, location: Location, reports: ReportSet):
    history = read_history(location, Thresholds())
    return since_snapshot(history, reports, 2.0, latest_state(location, Thresholds()))


def test_a_reload_that_blocks_a_kernel_is_one_regression_to_announce(sample_location: Location) -> None:
    clocks = Clocks()
    session = clocks.session()
    first = session.apply(_load(sample_location))
    assert first.previous is None and first.changes == () and first.regressed == ()
    assert not first.flashing and session.changes == []

    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})
    clocks.wall += 60
    update = session.apply(_load(sample_location))
    assert update.previous is first.reports and update.reports is session.reports
    assert update.regressed == ("layernorm_gated",)  # blocked moves tier, status and ratio: one kernel
    assert len(update.changes) > 1 and {c.kernel for c in update.changes} == {"layernorm_gated"}
    assert [when for when, _ in session.changes] == [clocks.wall] * len(update.changes)
    assert update.flashing and session.flashing() == {"layernorm_gated"}
    clocks.mono += FLASH_SECONDS + 0.1
    assert session.flashing() == set()


def test_a_regression_that_flickers_through_older_data_is_announced_once(sample_location: Location) -> None:
    """Issue 24: a torn JSON read around (the older twins) and then restored rang and ran the
    hook a second time for the same regression."""
    session = Clocks().session()
    older = _load(sample_location)
    session.apply(older)
    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})
    regressed = _load(sample_location)
    assert session.apply(regressed).regressed == ("layernorm_gated",)
    assert session.apply(_load_file_set(older)).regressed == ()  # the older data for a moment
    again = session.apply(_load(sample_location))
    assert again.changes and again.regressed == ()  # shown as a change, not announced again
    # The same state from a new run is a regression again.
    path = sample_location.reports / "regression_latest.json"
    session.apply(_load_file_set(older))
    path.write_text(path.read_text().replace(str(regressed.generated_at), "20261127T080000Z"))
    assert session.apply(_load(sample_location)).regressed == ("layernorm_gated",)


def _load_file_set(reports: ReportSet) -> ReportSet:
    """A copy of a load, as a new load of the same files gives it."""
    return ReportSet(reports.source, reports.generated_at, list(reports.kernels), reports.gaps, [], [])


def test_a_reload_that_changes_nothing_announces_nothing(sample_location: Location) -> None:
    session = Clocks().session()
    session.apply(_load(sample_location))
    update = session.apply(_load(sample_location))
    assert update.changes == () and update.regressed == () and not update.flashing


def test_the_change_log_keeps_the_newest_500(sample_location: Location) -> None:
    session = Clocks().session()
    session.apply(_load(sample_location))
    for index in range(40):  # every kernel changes class back and forth: 15 changes a load
        klass = "blocked by PTOAS lowering" if index % 2 == 0 else None
        reports = _load(sample_location)
        for kernel in reports.kernels:
            kernel.klass = klass or f"class {index}"
        session.apply(reports)
    assert len(session.changes) == 500


def test_a_first_run_marks_what_changed_since_the_newest_differing_snapshot(sample_location: Location) -> None:
    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})  # since the snapshot
    session = Clocks().session()
    reports = _load(sample_location)
    session.apply(reports)
    assert session.start_seen(None) is not None  # nothing saved: the first load counts as seen, for now
    assert session.marks == {}
    since = _since(session, sample_location, reports)
    assert since.regressions
    update = session.set_since(since, reports)
    assert update is not None and update.since is since
    assert update.since_regressed == tuple(regressed_kernels(list(since.changes)))
    assert update.since_marked  # marked, since nothing was seen before
    assert "layernorm_gated" in update.since_regressed
    for name in update.since_regressed:
        assert session.marks[name] == -1, name
    assert set(session.marks) == {c.kernel for c in since.changes}  # improvements are marked too
    # A second compare says nothing more.
    again = session.set_since(since, reports)
    assert again is not None and again.since is None and again.since_regressed == ()


def test_a_compare_without_regressions_marks_and_announces_nothing(sample_location: Location) -> None:
    session = Clocks().session()
    reports = _load(sample_location)
    session.apply(reports)
    session.start_seen(None)
    since = _since(session, sample_location, reports)
    assert since.changes and not since.regressions  # the samples' newest snapshot: only better
    update = session.set_since(since, reports)
    assert update is not None and update.since is None and update.since_regressed == ()
    assert session.marks and set(session.marks.values()) <= {0, 1}


def test_a_compare_for_an_older_load_is_dropped(sample_location: Location) -> None:
    session = Clocks().session()
    old = _load(sample_location)
    session.apply(old)
    session.apply(_load(sample_location))
    assert session.set_since(_since(session, sample_location, old), old) is None
    assert session.since is None


def test_the_compare_is_pending_from_a_new_load_until_its_own_arrives(sample_location: Location) -> None:
    """Issue 24: for one frame the header showed the old regression count over the new data."""
    session = Clocks().session(sample_location)
    first = _load(sample_location)
    session.apply(first)
    assert not session.since_pending  # nothing compared yet: nothing stale either
    session.set_since(_since(session, sample_location, first), first)
    assert not session.since_pending
    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})
    second = _load(sample_location)
    session.apply(second)
    assert session.since_pending and session.since is not None  # its count is the first load's
    assert session.set_since(_since(session, sample_location, first), first) is None  # an older compare
    assert session.since_pending
    session.set_since(_since(session, sample_location, second), second)
    assert not session.since_pending


def test_saved_seen_marks_the_change_and_the_cursor_visit_clears_it(sample_location: Location) -> None:
    from ptotui.model.history.since import kernel_of

    reports = _load(sample_location)
    saved = {k.name: kernel_of(k.name, state_of(k)) for k in reports.kernels}
    saved["layernorm_gated"].tier = "pto-blocked"  # seen blocked, now working: improved
    session = Clocks().session()
    session.apply(reports)
    update = session.start_seen(saved)
    assert update is not None
    assert session.marks == {"layernorm_gated": 1}
    assert session.start_seen(saved) is None  # once
    assert not session.visit("topk_router_softmax")  # not marked
    assert session.visit("layernorm_gated")
    assert session.marks == {} and session.seen is not None
    assert session.seen.kernels["layernorm_gated"] is reports.by_name()["layernorm_gated"]


def test_a_kernel_still_flashing_keeps_its_mark_when_visited(sample_location: Location) -> None:
    clocks = Clocks()
    session = clocks.session()
    session.apply(_load(sample_location))
    session.start_seen(None)
    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})
    session.apply(_load(sample_location))
    assert session.marks["layernorm_gated"] == -1
    assert not session.visit("layernorm_gated")  # only just shown inverted
    clocks.mono += FLASH_SECONDS + 0.1
    assert session.visit("layernorm_gated") and "layernorm_gated" not in session.marks


def test_mark_all_seen_before_the_saved_state_arrives_reads_it_then(sample_location: Location) -> None:
    session = Clocks().session()
    assert session.see_all(lambda: None) is None  # nothing loaded: nothing to save
    reports = _load(sample_location)
    session.apply(reports)
    reads: list[int] = []
    seen = session.see_all(lambda: reads.append(1) or None)
    assert reads == [1] and seen is not None and set(seen) == {k.name for k in reports.kernels}
    assert session.start_seen({}) is None  # the worker's read arrives later: m is kept


def test_a_warning_keeps_the_time_it_was_first_given(sample_location: Location) -> None:
    clocks = Clocks()
    session = clocks.session()
    (sample_location.reports / "kernel_state_matrix_latest.json").write_text('{"kernels": [')  # torn
    session.apply(_load(sample_location))
    first = dict(session.warned_since)
    assert first and set(first.values()) == {clocks.wall}
    clocks.wall += 30
    session.apply(_load(sample_location))
    assert session.warned_since == first
    (sample_location.reports / "kernel_state_matrix_latest.json").unlink()
    clocks.wall += 30
    session.apply(_load(sample_location))
    assert not set(first) & set(session.warned_since)


def test_the_reference_reports_since_their_snapshots(reference_bench: Path) -> None:
    """The real reports: the regressions announced are the kernels ``diff`` counts."""
    location = Location(reference_bench / "reports", reference_bench)
    session = Clocks().session()
    reports = _load(location)
    session.apply(reports)
    session.start_seen(None)
    since = _since(session, location, reports)
    update = session.set_since(since, reports)
    assert update is not None
    if since.snapshot is not None:
        expected = regressed_kernels(diff(since.snapshot, reports, 2.0))
        assert list(update.since_regressed) == expected
        assert set(session.marks) >= set(expected)


# -- what the table shows ---------------------------------------------------------------


def test_filters_keep_the_kernels_each_filter_names(sample_location: Location) -> None:
    session = Clocks().session(sample_location)
    reports = _load(sample_location)
    session.apply(reports)
    everything = session.visible(Filters())
    assert {k.name for k in everything} == {k.name for k in reports.kernels}
    mid = Filters().toggle_tier("mid")
    assert {k.tier for k in session.visible(mid)} == {"mid"}
    assert session.visible(mid.toggle_tier("mid")) == everything  # the key again takes it out
    assert session.visible(Filters(text="softmax")) == [k for k in everything if "softmax" in k.name]
    blockers = session.visible(Filters(untriaged=True))
    assert blockers and blockers == [k for k in everything if is_blocker(k)]  # none triaged yet
    only = Filters(only=("HIGH", lambda k: k.tier == "high"))
    assert [k.name for k in session.visible(only)] == [k.name for k in everything if k.tier == "high"]
    by_name = session.visible(Filters(), ("kernel", False))
    assert [k.name for k in by_name] == sorted(k.name for k in reports.kernels)


def test_only_changed_keeps_the_kernels_marked_when_it_was_turned_on(sample_location: Location) -> None:
    clocks = Clocks()
    session = clocks.session(sample_location)
    session.apply(_load(sample_location))
    session.start_seen(None)
    rewrite_kernels(sample_location.reports, {"layernorm_gated": BLOCKED})
    session.apply(_load(sample_location))
    changed = Filters(changed=True, changed_shown=frozenset(session.marks))
    assert [k.name for k in session.visible(changed)] == ["layernorm_gated"]
    clocks.mono += FLASH_SECONDS + 0.1
    assert session.visit("layernorm_gated")
    assert [k.name for k in session.visible(changed)] == ["layernorm_gated"]  # seen, still listed
    assert session.visible(Filters(changed=True)) == []


def test_a_triaged_blocker_is_not_untriaged(sample_location: Location, tmp_path: Path) -> None:
    session = Clocks().session(sample_location)
    session.apply(_load(sample_location))
    store = session.open_triage(tmp_path / "triage.json", read_only=False)
    assert session.open_triage(tmp_path / "other.json", read_only=False) is store  # one per directory
    blockers = session.visible(Filters(untriaged=True))
    store.stage(blockers[0], "acknowledged")
    statuses = session.triage_statuses()
    assert set(statuses) == {blockers[0].name}
    assert session.triage_status(blockers[0]).entry is not None
    assert session.visible(Filters(untriaged=True)) == blockers[1:]
    by_name = session.reports.by_name() if session.reports else {}
    assert session.untriaged(statuses, by_name) == len(blockers) - 1
    session.relocate(Location(tmp_path / "elsewhere" / "reports", tmp_path / "elsewhere"))
    assert session.triage is None  # another directory's entries are not these


def test_history_is_read_again_only_for_new_snapshots(sample_location: Location) -> None:
    session = Clocks().session(sample_location)
    reports = _load(sample_location)
    assert session.history_due(reports, git=False) is True  # the first read
    assert session.history_due(reports, git=False) is None
    reports.snapshots = (*reports.snapshots, "kernel_state_matrix_20261201T080000Z.json")
    assert session.history_due(reports, git=False) is False  # again, not the first
    update = session.set_history(read_history(sample_location, Thresholds()))
    assert update.reports is session.reports and session.history is not None


def test_a_compared_source_marks_the_kernels_that_differ(sample_location: Location, tmp_path: Path) -> None:
    import shutil

    from ptotui.model.history.compare import CompareSource

    other = Location(tmp_path / "other" / "reports", tmp_path / "other")
    shutil.copytree(sample_location.bench, other.bench)
    rewrite_kernels(other.reports, {"layernorm_gated": BLOCKED})
    session = Clocks().session(sample_location, compare=[CompareSource("other", "other", other)])
    session.apply(_load(sample_location))
    assert session.visible(Filters(differing=True)) == []  # not read yet: nothing differs
    session.set_compared(0, _load(other))
    assert [k.name for k in session.visible(Filters(differing=True))] == ["layernorm_gated"]
    assert session.compare_sides[0]["layernorm_gated"].differs
    session.apply(_load(sample_location))  # a reload compares again
    assert [k.name for k in session.visible(Filters(differing=True))] == ["layernorm_gated"]


def test_sorting_by_triage_puts_untriaged_blockers_first_then_each_state(
    sample_location: Location, tmp_path: Path
) -> None:
    session = Clocks().session(sample_location)
    session.apply(_load(sample_location))
    store = session.open_triage(tmp_path / "triage.json", read_only=False)
    kernels = session.reports.kernels  # type: ignore[union-attr]
    blockers = [k for k in kernels if is_blocker(k)]
    assert len(blockers) >= 2
    store.stage(blockers[0], "wont-fix")
    store.stage(blockers[1], "acknowledged", "waiting")
    shown = [k.name for k in session.visible(Filters(), ("triage", False))]
    untriaged = [k.name for k in blockers[2:]]
    assert shown[: len(untriaged)] == sorted(untriaged)
    assert shown[len(untriaged) : len(untriaged) + 2] == [blockers[1].name, blockers[0].name]
    assert set(shown[len(untriaged) + 2 :]) == {k.name for k in kernels if not is_blocker(k)}
    backwards = [k.name for k in session.visible(Filters(), ("triage", True))]
    assert backwards[:2] == [blockers[0].name, blockers[1].name]  # the blanks stay last
    assert set(backwards[-len(shown[len(untriaged) + 2 :]) :]) == set(shown[len(untriaged) + 2 :])
