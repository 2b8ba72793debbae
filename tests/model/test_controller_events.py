"""The controller's other events as data, without a terminal: the history read, the compare
with the snapshots, --compare sources, what was seen, dismissed warnings, triage refusals,
settings left unsaved at exit, and the start. Each is a decision: the effects are checked, and a
job's work is run here, on this thread, where its result decides what comes next."""

from __future__ import annotations

import shutil
from pathlib import Path

from ptotui.model.control.controller import Controller
from ptotui.model.control.effects import Effect, Job, Notice, Publish
from ptotui.model.control.wording import Said
from ptotui.model.history.compare import CompareSource
from ptotui.model.location import Location
from ptotui.model.options import DashboardOptions
from ptotui.model.read.loader import load
from ptotui.model.session import Session
from tests.model.test_controller import FakeFeed


def _controller(
    location: Location, tmp_path: Path, *, watch: bool = True, compare: list[CompareSource] | None = None, **options
) -> tuple[Controller, FakeFeed]:
    feed = FakeFeed(location)
    opts = DashboardOptions(git=False, state=tmp_path / "state" / "triage.json", **options)
    session = Session(location, opts.ratio_pp, compare=compare)
    return Controller(session, opts, feed, post=lambda thunk: None, watch=watch), feed


def _jobs(effects: list[Effect], group: str) -> list[Job]:
    return [e for e in effects if isinstance(e, Job) and e.group == group]


def _run(job: Job) -> list[Effect]:
    """A job as the App runs it: its work, then its done with the result."""
    result = job.work()
    return job.done(result) if job.done is not None else []


def test_not_watching_the_start_is_one_load_job_and_the_settings_warning_first(sample_location, tmp_path):
    controller, feed = _controller(sample_location, tmp_path, watch=False, settings_warning="bad settings.toml")
    effects = controller.started()
    assert isinstance(effects[0], Notice) and effects[0].text == "bad settings.toml"
    (load_job,) = _jobs(effects, "load")
    assert load_job.exclusive
    _run(load_job)
    assert feed.asked == ["load_now"]
    watching, _ = _controller(sample_location, tmp_path)
    assert watching.started() == []  # the watcher loads: nothing to ask at the start


def test_the_history_read_is_published_then_compared_with_the_snapshots(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    effects = controller.loaded(load(sample_location))
    (history_job,) = _jobs(effects, "history")
    after = _run(history_job)
    assert isinstance(after[0], Publish)
    assert controller.session.history is not None
    (since_job,) = _jobs(after, "since")  # the reports are there: the compare follows at once
    assert since_job.exclusive
    measured = _run(since_job)
    assert any(isinstance(e, Publish) for e in measured)
    assert controller.session.since is not None


def test_no_compare_before_the_runs_joined_when_the_feed_follows_runs(sample_location, tmp_path):
    controller, feed = _controller(sample_location, tmp_path)
    reports = load(sample_location)
    _run(_jobs(controller.loaded(reports), "history")[0])
    feed.follows_runs = True
    reports.bench_run = None
    # Without the runs every ratio drop would count: the compare waits for the next load.
    assert controller.compare_with_snapshots(reports) == []


def test_a_stale_compare_result_publishes_nothing(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    first = load(sample_location)
    effects = controller.loaded(first)
    since_jobs = _jobs(_run(_jobs(effects, "history")[0]), "since")
    result = since_jobs[0].work()
    controller.loaded(load(sample_location))  # a newer load arrived while it was measured
    assert controller.since_measured(result) == []


def test_compare_sources_a_directory_read_once_when_not_watching_a_revision_read_on_a_worker(sample_location, tmp_path):
    other = tmp_path / "other" / "bench"
    shutil.copytree(sample_location.bench, other)
    sources = [
        CompareSource("other", "other", location=Location(other / "reports", other)),
        CompareSource("HEAD~1", "HEAD~1", revision="0" * 40),
    ]
    controller, _ = _controller(sample_location, tmp_path, watch=False, compare=sources)
    effects = controller.start_compare()
    assert [job.name for job in _jobs(effects, "compare")] == [
        "Reading a --compare directory",
        "Reading a --compare revision",
    ]
    # A compared source's reports are published in their own column.
    (published,) = controller._compared_in(0)(load(sample_location))
    assert isinstance(published, Publish)
    assert controller.session.compare_reports[0] is not None
    controller.leaving()  # the compared feeds stop with the main one


def test_what_was_seen_read_with_its_warnings_each_one_notice(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    controller.loaded(load(sample_location))
    (seen_job,) = _jobs(controller.first_frame_shown(), "seen")
    assert seen_job.delay > 0  # not while the first frame is written out
    effects = _run(seen_job)
    assert not [e for e in effects if isinstance(e, Notice)]  # nothing saved yet: nothing to warn of
    seen_file = tmp_path / "state" / "seen.json"
    seen_file.parent.mkdir(parents=True, exist_ok=True)
    seen_file.write_text("{torn")
    saved, warnings = controller.saved_seen()
    assert saved is None and len(warnings) == 1
    notices = [e for e in controller._seen_read((saved, warnings)) if isinstance(e, Notice)]
    assert len(notices) == 1 and "seen.json" in notices[0].text


def test_m_saves_what_was_seen_on_a_worker_and_read_only_saves_nothing(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    controller.loaded(load(sample_location))
    effects = controller.see_all()
    assert isinstance(effects[0], Publish)
    (save,) = _jobs(effects, "seen")
    _run(save)
    assert (tmp_path / "state" / "seen.json").is_file()

    quiet, _ = _controller(sample_location, tmp_path / "ro", read_only=True)
    quiet.loaded(load(sample_location))
    assert _jobs(quiet.see_all(), "seen") == []
    quiet.leaving()
    assert not (tmp_path / "ro" / "state").exists()  # nothing written, "last looked" included


def test_a_dismissed_warning_is_left_out_until_dismissed_again(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    key = ("reports/x.json", 3, "torn")
    assert isinstance(controller.warning_dismissed(key, True)[0], Publish)
    assert key in controller.session.dismissed_warnings
    controller.warning_dismissed(key, False)
    assert key not in controller.session.dismissed_warnings


def test_triage_before_the_store_is_open_does_nothing(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    kernel = load(sample_location).kernels[0]
    assert controller.triage(kernel, "investigating") == []


def test_triage_that_cannot_be_staged_is_one_error_notice(sample_location, tmp_path, monkeypatch):
    controller, _ = _controller(sample_location, tmp_path)
    reports = load(sample_location)
    controller.loaded(reports)
    store = controller.session.triage
    assert store is not None

    def refuse(*args, **kwargs):
        raise ValueError("the note is too long")

    monkeypatch.setattr(store, "stage", refuse)
    (notice,) = controller.triage(reports.kernels[0], "investigating", "x" * 10)
    assert isinstance(notice, Notice) and notice.severity == "error" and "too long" in notice.text


def test_a_settings_choice_not_written_yet_is_written_on_exit(sample_location, tmp_path):
    settings = tmp_path / "config.toml"
    settings.write_text("")
    controller, _ = _controller(sample_location, tmp_path)
    controller.config = controller.config.__class__(path=settings)
    (job,) = controller.language_chosen("zh")  # q pressed before its worker ran
    controller.leaving()
    assert "zh" in settings.read_text()
    job.work()  # the worker running late writes nothing twice
    assert settings.read_text().count("zh") == 1


def test_a_settings_write_that_fails_says_why(sample_location, tmp_path):
    settings = tmp_path / "no-such-dir" / "sub" / "config.toml"
    controller, _ = _controller(sample_location, tmp_path)
    controller.config = controller.config.__class__(path=settings)
    (tmp_path / "no-such-dir").write_text("a file where a directory should be")
    (job,) = controller.columns_chosen(["name", "tier"])
    try:
        job.work()
    except Said as said:
        assert "Columns not saved" in str(said)
    else:
        raise AssertionError("a write into a file's path was said to work")


def test_an_unknown_theme_is_one_warning_and_a_load_failure_one_error(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path)
    (notice,) = controller.theme_missing("neon-2030")
    assert notice.severity == "warning" and "neon-2030" in notice.text
    (error,) = controller.loader_failed("reports unreadable")
    assert error.severity == "error" and error.text == "reports unreadable"
