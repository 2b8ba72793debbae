"""Triage and what was seen are keyed by the repository (its root commit) and the reports'
path in it, so a note follows the reports into another checkout and a shared --state is
shared across hosts; outside git by the path, as before; old path keys move (issue 40, 15)."""

from __future__ import annotations

import json
import os
import shutil
import threading

import pytest

from ptotui.model import reportskey
from ptotui.model.history.since import load_seen, save_seen, seen_file
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from ptotui.model.reportskey import reports_key
from ptotui.model.session import Session
from ptotui.model.triage import TriageStore
from tests.conftest import SAMPLES
from tests.gitrepos import GIT, commit, git

pytestmark = pytest.mark.skipif(GIT is None, reason="no git on this machine")


def checkout(root, when=1_774_000_000):
    """A repository at ``root`` holding the sample bench tree, one commit."""
    shutil.copytree(SAMPLES, root / "bench")
    git(root, "init", "-q")
    return commit(root, "Add the bench tree", when)


@pytest.fixture
def two_checkouts(tmp_path):
    first = tmp_path / "host-a" / "pto-kernels"
    first.mkdir(parents=True)
    root = checkout(first)
    second = tmp_path / "host-b" / "elsewhere"
    git(tmp_path, "clone", "-q", str(first), str(second))
    return first, second, root


@pytest.fixture
def kernels():
    return load(Location(SAMPLES / "reports", SAMPLES)).by_name()


def test_a_note_follows_the_reports_into_another_checkout(tmp_path, two_checkouts, kernels):
    first, second, root = two_checkouts
    state = tmp_path / "shared" / "triage.json"
    TriageStore(state, reports_key(first / "bench" / "reports")).set(kernels["paged_kv_gather"], "investigating", "x")
    keys = reports_key(second / "bench" / "reports")
    assert keys.key == f"git:{root}:bench/reports" and keys.old == str((second / "bench" / "reports").resolve())
    entry = TriageStore(state, keys).entries["paged_kv_gather"]
    assert (entry.state, entry.note) == ("investigating", "x")
    assert list(json.loads(state.read_text())["reports"]) == [f"git:{root}:bench/reports"]  # no host's path in it


def test_another_directory_of_the_same_repository_is_another_key(two_checkouts):
    first, _, root = two_checkouts
    (first / "other" / "reports").mkdir(parents=True)
    assert reports_key(first / "other" / "reports").key == f"git:{root}:other/reports"
    assert reports_key(first).key == f"git:{root}:"


def test_outside_git_the_key_is_the_resolved_path(tmp_path):
    reports = tmp_path / "plain" / "reports"
    reports.mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "plain")
    keys = reports_key(tmp_path / "link" / "reports")
    assert keys.key == str(reports.resolve()) and keys.old is None


def test_the_oldest_root_commit_is_the_identity(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    late = checkout(repo, when=1_774_000_000)
    git(repo, "checkout", "-q", "--orphan", "old-history")
    git(repo, "rm", "-rqf", ".")
    (repo / "OLD").write_text("imported history\n")
    early = commit(repo, "An older history", 1_600_000_000)
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--allow-unrelated-histories", "-m", "Join the histories", "old-history")
    assert early != late and reports_key(repo / "bench" / "reports").key == f"git:{early}:bench/reports"


def test_a_repository_without_a_commit_is_keyed_by_the_path(tmp_path):
    (tmp_path / "fresh" / "reports").mkdir(parents=True)
    git(tmp_path / "fresh", "init", "-q")
    assert reports_key(tmp_path / "fresh" / "reports").key == str((tmp_path / "fresh" / "reports").resolve())


def test_old_path_keys_move_to_the_repository_key_with_no_loss(tmp_path, two_checkouts, kernels):
    first, _, root = two_checkouts
    reports = first / "bench" / "reports"
    old, new = str(reports.resolve()), f"git:{root}:bench/reports"
    state = tmp_path / "state" / "triage.json"
    TriageStore(state, old).set(kernels["paged_kv_gather"], "needs-upstream", "asked upstream")
    TriageStore(state, old).set(kernels["fp8_blockwise_quant"], "acknowledged", "old word")
    TriageStore(state, "/another/host/reports").set(kernels["paged_kv_gather"], "wont-fix")
    TriageStore(state, new).set(kernels["fp8_blockwise_quant"], "investigating", "newer word")
    mode = os.stat(state).st_mode

    store = TriageStore(state, reports_key(reports))  # read: found under the old key, and moved
    assert {k: (e.state, e.note) for k, e in store.entries.items()} == {
        "paged_kv_gather": ("needs-upstream", "asked upstream"),
        "fp8_blockwise_quant": ("investigating", "newer word"),  # the entry under the new key is the newer
    }
    on_disk = json.loads(state.read_text())["reports"]
    assert sorted(on_disk) == ["/another/host/reports", new]
    assert on_disk[new]["paged_kv_gather"]["note"] == "asked upstream"
    assert on_disk["/another/host/reports"]["paged_kv_gather"]["state"] == "wont-fix"
    assert os.stat(state).st_mode == mode and sorted(p.name for p in state.parent.iterdir()) == ["triage.json"]


def test_a_read_only_store_finds_old_keys_and_writes_nothing(tmp_path, two_checkouts, kernels):
    first, _, _ = two_checkouts
    reports = first / "bench" / "reports"
    state = tmp_path / "triage.json"
    TriageStore(state, str(reports.resolve())).set(kernels["paged_kv_gather"], "acknowledged")
    before = state.read_bytes()
    store = TriageStore(state, reports_key(reports), writable=False)
    assert set(store.entries) == {"paged_kv_gather"} and state.read_bytes() == before


def test_what_was_seen_moves_from_the_path_key(tmp_path, two_checkouts, kernels):
    first, _, _ = two_checkouts
    keys = reports_key(first / "bench" / "reports")
    path = seen_file(tmp_path / "triage.json")
    save_seen(path, keys.legacy, {"paged_kv_gather": kernels["paged_kv_gather"]})
    save_seen(path, "/other", {})
    saved = load_seen(path, keys.key, None, keys.old)
    assert saved is not None and set(saved) == {"paged_kv_gather"}
    save_seen(path, keys.key, saved, keys.old)
    assert sorted(json.loads(path.read_text())["reports"]) == ["/other", keys.key]


def test_the_key_is_found_off_the_ui_thread_and_once(tmp_path, two_checkouts, monkeypatch):
    first, _, _ = two_checkouts
    asked: list[threading.Thread] = []
    real = reportskey._git_key

    def spy(resolved: str) -> str | None:
        asked.append(threading.current_thread())
        return real(resolved)

    monkeypatch.setattr(reportskey, "_git_key", spy)
    monkeypatch.setattr(reportskey, "_cache", {})
    session = Session(Location(first / "bench" / "reports", first / "bench"))
    store = session.open_triage(tmp_path / "triage.json", read_only=False)
    assert asked == []  # opening it on the UI thread asks git nothing
    worker = threading.Thread(target=store.reload)
    worker.start()
    worker.join()
    assert asked == [worker] and store.key.startswith("git:")
    reports_key(first / "bench" / "reports")
    assert asked == [worker]  # cached


def test_old_entries_that_cannot_be_moved_are_shown_with_a_warning(tmp_path, two_checkouts, kernels, monkeypatch):
    first, _, _ = two_checkouts
    reports = first / "bench" / "reports"
    state = tmp_path / "state" / "triage.json"
    TriageStore(state, str(reports.resolve())).set(kernels["paged_kv_gather"], "acknowledged")
    before = state.read_bytes()

    def refuse(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TriageStore, "_write", refuse)
    store = TriageStore(state, reports_key(reports))
    assert set(store.entries) == {"paged_kv_gather"} and state.read_bytes() == before
    assert [w.message for w in store.warnings] == [
        f"entries under {reports.resolve()} could not be moved to {store.key} (No space left on device); "
        "they are still shown"
    ]
