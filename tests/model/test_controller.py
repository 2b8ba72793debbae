"""The controller's decisions as data, without a terminal: for each event, the ordered
notices, the bell, the hook's payload, the jobs and the publishes the App will run."""

from __future__ import annotations

import json
from pathlib import Path

from ptotui.model.control.controller import Controller
from ptotui.model.control.effects import Hook, Job, Notice, Publish
from ptotui.model.control.wording import Said, failure
from ptotui.model.location import Location
from ptotui.model.options import DashboardOptions
from ptotui.model.read.loader import load
from ptotui.model.session import Session
from tests.helpers import rewrite_kernels, scale_side


class FakeFeed:
    """The Feed protocol, recording what the controller asks of it."""

    def __init__(self, location: Location) -> None:
        self.location = location
        self.follows_runs = False
        self.asked: list[str] = []

    def start(self) -> None:
        self.asked.append("start")

    def stop(self) -> None:
        self.asked.append("stop")

    def load_now(self) -> None:
        self.asked.append("load_now")

    def request_reload(self, force: bool = True) -> None:
        self.asked.append(f"reload force={force}")

    def first_frame_shown(self) -> None:
        self.asked.append("shown")

    def parsed_state(self, path: Path) -> None:
        return None

    def loaded_once_more(self) -> None:
        self.asked.append("loaded_once_more")


def _controller(location: Location, tmp_path: Path, **options) -> tuple[Controller, FakeFeed]:
    feed = FakeFeed(location)
    opts = DashboardOptions(git=False, state=tmp_path / "state" / "triage.json", **options)
    return Controller(Session(location, opts.ratio_pp), opts, feed, post=lambda thunk: None), feed


def _kinds(effects) -> list[str]:
    return [type(e).__name__ for e in effects]


def test_a_first_load_publishes_then_reads_triage_and_the_history_after_the_first_frame(sample_location, tmp_path):
    controller, feed = _controller(sample_location, tmp_path)
    effects = controller.loaded(load(sample_location))
    assert _kinds(effects) == ["Job", "Publish", "Job"]
    triage, _, history = effects
    assert isinstance(triage, Job) and triage.group == "triage"
    assert isinstance(history, Job) and history.group == "history" and history.delay == 0.5
    shown = controller.first_frame_shown()
    assert feed.asked == ["shown"] and isinstance(shown[0], Job) and shown[0].group == "seen" and shown[0].delay > 0


def test_a_reload_that_regresses_says_which_rings_and_hands_the_hook_the_diff(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path, on_regression="cat > /dev/null")
    controller.loaded(load(sample_location))
    rewrite_kernels(sample_location.reports, {"paged_kv_gather": scale_side("pto", 3.0)})
    effects = controller.loaded(load(sample_location))
    said = [e for e in effects if not isinstance(e, Job)]
    assert _kinds(said) == ["Notice", "Bell", "Hook", "Publish"]
    notice, _, hook, publish = said
    assert isinstance(notice, Notice) and notice.severity == "error"
    assert notice.text == "1 kernel regressed on reload: paged_kv_gather"
    assert isinstance(hook, Hook) and hook.command == "cat > /dev/null"
    assert json.loads(hook.data)["regressed_kernels"] == ["paged_kv_gather"]
    assert isinstance(publish, Publish) and publish.update.regressed == ("paged_kv_gather",)


def test_only_the_baseline_moving_is_a_word_never_the_bell_or_the_hook(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path, on_regression="cat > /dev/null")
    controller.loaded(load(sample_location))
    rewrite_kernels(sample_location.reports, {"layernorm_gated": scale_side("baseline", 0.5)})
    said = [e for e in controller.loaded(load(sample_location)) if not isinstance(e, Job)]
    assert _kinds(said) == ["Notice", "Publish"]
    assert said[0].severity == "information" and "only the baseline moved for layernorm_gated" in said[0].text


def test_no_bell_when_asked_for_none(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path, bell=False)
    controller.loaded(load(sample_location))
    rewrite_kernels(sample_location.reports, {"paged_kv_gather": scale_side("pto", 3.0)})
    assert "Bell" not in _kinds(controller.loaded(load(sample_location)))


def test_read_only_refuses_triage_with_a_word_and_writes_nothing(sample_location, tmp_path):
    controller, _ = _controller(sample_location, tmp_path, read_only=True)
    reports = load(sample_location)
    controller.loaded(reports)
    effects = controller.triage(reports.kernels[0], "investigating")
    assert _kinds(effects) == ["Notice"] and "Read-only" in effects[0].text
    assert not (tmp_path / "state").exists()


def test_reload_asks_the_feed_when_watching_and_runs_a_load_job_when_not(sample_location, tmp_path):
    controller, feed = _controller(sample_location, tmp_path)
    assert controller.reload() == [] and feed.asked == ["reload force=True"]
    controller.watch = False
    (job,) = controller.reload()
    assert isinstance(job, Job) and job.group == "load"
    job.work()
    assert feed.asked[-1] == "load_now"


def test_one_error_path_a_failed_job_is_one_notice():
    plain = failure("Reading the history", ValueError("boom"))
    assert plain.text == "Reading the history failed: ValueError: boom" and plain.severity == "warning"
    said = failure("Saving the columns", Said("Columns not saved: disk full", "error"))
    assert said.text == "Columns not saved: disk full" and said.severity == "error"


def test_publish_runs_after_a_landed_run_on_a_worker_and_a_failure_is_tried_again(tmp_path):
    """``--publish REMOTE``: the first load with runs publishes (what landed while ptotui was
    closed), then each load that brings a landed run; a failed push is one notice, and the next
    load tries again. The job's work is the real publish, into the tree's own repository."""
    import subprocess
    from dataclasses import replace

    from ptotui.model.bench.benchrun import BenchRun
    from ptotui.model.location import locate
    from tests.model.test_verdict import build_tree

    bench = build_tree(tmp_path / "host")
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q", str(tmp_path / "host")], check=True, env=env)
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True, env=env)
    location = locate(bench)
    controller, _ = _controller(location, tmp_path, publish=str(tmp_path / "missing.git"), publish_host="h1")
    reports = load(location)
    reports.bench_run = BenchRun((), 0, len(reports.kernels), None, reports.generated_at)
    jobs = [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"]
    assert len(jobs) == 1  # the first load with runs: a catch-up publish
    said = jobs[0].done(jobs[0].work())
    assert [type(e) for e in said] == [Notice] and "tried again at the next load" in said[0].text
    again = [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"]
    assert len(again) == 1  # due again after the failure, with nothing landed
    controller.options = replace(controller.options, publish=str(remote))
    assert again[0].done(jobs[0].work()) != []  # (the job made before keeps its remote)
    fresh = [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"]
    assert fresh and fresh[0].done(fresh[0].work()) == []  # pushed: nothing said
    branches = subprocess.run(
        ["git", "-C", str(remote), "for-each-ref", "--format=%(refname)"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert branches == ["refs/heads/ptotui/hosts/h1"]
    quiet = [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"]
    assert quiet == []  # nothing landed, nothing due


def test_read_only_settings_hold_for_the_session_and_write_nothing(sample_location, tmp_path):
    """Issue 40 (5): ``l`` and the column chooser wrote the settings file under --read-only (through
    ``serve --read-only`` a tab created the server's config.toml)."""
    from dataclasses import replace

    from ptotui.model.config import Config

    settings = tmp_path / "config" / "config.toml"
    controller, _feed = _controller(sample_location, tmp_path, read_only=True)
    controller.config = replace(Config(), path=settings)
    effects = controller.language_chosen("zh") + controller.columns_chosen(["tier", "kernel"])
    assert _kinds(effects) == ["Notice", "Notice"]
    assert all("Read-only" in e.text and "not saved" in e.text for e in effects)
    assert controller.config.lang == "zh" and controller.config.columns == ("tier", "kernel")  # held
    controller.leaving()
    assert not settings.exists() and not settings.parent.exists()


def test_the_theme_is_kept_when_it_differs_from_the_default(sample_location, tmp_path):
    """Issue 40 (19): the theme picked in the command palette was not kept between sessions."""
    from dataclasses import replace

    from ptotui.model.config import Config, read_config

    settings = tmp_path / "config" / "config.toml"
    controller, _feed = _controller(sample_location, tmp_path)
    controller.config = replace(Config(), path=settings)
    assert controller.theme_chosen("textual-dark", "textual-dark") == []  # the default: nothing to keep
    effects = controller.theme_chosen("nord", "textual-dark")
    assert _kinds(effects) == ["Job"] and isinstance(effects[0], Job) and effects[0].group == "settings"
    effects[0].work()
    assert read_config(settings)[0].theme == "nord" and controller.config.theme == "nord"
    assert controller.theme_chosen("nord", "textual-dark") == []  # the file's theme again (the start-up)
    effects = controller.theme_chosen("textual-dark", "textual-dark")  # back to the default: taken out
    assert isinstance(effects[0], Job)
    effects[0].work()
    assert read_config(settings)[0] == replace(Config(), path=settings)

    read_only, _feed = _controller(sample_location, tmp_path, read_only=True)
    read_only.config = replace(Config(), path=tmp_path / "other" / "config.toml")
    effects = read_only.theme_chosen("nord", "textual-dark")
    assert _kinds(effects) == ["Notice"] and "not saved" in effects[0].text
    read_only.leaving()
    assert not (tmp_path / "other").exists()


def test_settings_keep_only_what_differs_from_the_default(sample_location, tmp_path, monkeypatch):
    """Issue 40 (16): ``l`` pinned the language for good and the column chooser wrote the whole
    default list. The language the environment gives and the default columns are taken out."""
    from dataclasses import replace

    from ptotui.model.config import DEFAULT_COLUMNS, Config, read_config

    settings = tmp_path / "config" / "config.toml"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    controller, _feed = _controller(sample_location, tmp_path)
    controller.config = replace(Config(), path=settings)

    def run(effects) -> None:
        for effect in effects:
            assert isinstance(effect, Job) and effect.group == "settings"
            effect.work()

    run(controller.language_chosen("en"))  # away from LANG: kept
    run(controller.columns_chosen(["tier", "kernel"]))
    assert read_config(settings)[0].lang == "en" and read_config(settings)[0].columns == ("tier", "kernel")
    run(controller.language_chosen("zh"))  # what LANG gives: not pinned
    run(controller.columns_chosen(list(DEFAULT_COLUMNS)))
    assert controller.config.lang is None and controller.config.columns is None
    assert read_config(settings)[0] == replace(Config(), path=settings)
    monkeypatch.setenv("PTOTUI_LANG", "en")  # $PTOTUI_LANG is the environment's choice too
    run(controller.language_chosen("en"))
    assert read_config(settings)[0].lang is None


def test_publish_outside_a_repository_is_said_once_not_at_every_load(tmp_path):
    """A tree in no git repository cannot be published by any reload: one warning, and the next
    load does not try again (a landed run does)."""
    from ptotui.model.bench.benchrun import BenchRun
    from ptotui.model.location import locate
    from tests.model.test_verdict import build_tree

    bench = build_tree(tmp_path / "plain")
    location = locate(bench)
    controller, _ = _controller(location, tmp_path, publish=str(tmp_path / "remote.git"), publish_host="h")
    reports = load(location)
    reports.bench_run = BenchRun((), 0, len(reports.kernels), None, reports.generated_at)
    [job] = [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"]
    [said] = job.done(job.work())
    assert isinstance(said, Notice) and "not in a git repository" in said.text and "tried again" not in said.text
    assert [e for e in controller.loaded(reports) if isinstance(e, Job) and e.group == "publish"] == []
