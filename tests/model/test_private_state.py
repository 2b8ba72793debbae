"""Issue 40 (11): ptotui's state is its owner's alone: files 0600, the directories it makes 0700,
and the triage lock never follows a symlink planted at its path."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from ptotui.model.history.since import save_seen
from ptotui.model.read.loader import load
from ptotui.model.rerun.queue import FailedRun, save_failed
from ptotui.model.triage import TriageStore


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_failed_reruns_record_is_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "reruns" / "failed.json"
    save_failed(path, [FailedRun("norm", "layernorm_gated", "20261127T031000Z", "failed", "/home/me/secret")])
    assert (mode(path), mode(path.parent), mode(path.parent.parent)) == (0o600, 0o700, 0o700)


def test_what_was_seen_is_private(tmp_path: Path) -> None:
    path = tmp_path / "state" / "seen.json"
    save_seen(path, "/reports", {})
    assert (mode(path), mode(path.parent)) == (0o600, 0o700)


def test_a_directory_already_there_keeps_its_mode(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o775)
    shared.chmod(0o775)
    save_failed(shared / "failed.json", [])
    assert mode(shared) == 0o775 and mode(shared / "failed.json") == 0o600


def test_the_triage_lock_does_not_follow_a_planted_symlink(tmp_path: Path, sample_location) -> None:
    state = tmp_path / "state" / "triage.json"
    store = TriageStore(state, "/reports")
    kernel = load(sample_location).by_name()["paged_kv_gather"]
    store.set(kernel, "acknowledged")
    assert mode(state) == 0o600 and mode(state.parent) == 0o700
    victim = tmp_path / "victim"
    (state.parent / "triage.json.lock").symlink_to(victim)
    with pytest.raises(OSError, match="symlink"):
        store.set(kernel, "investigating")
    assert not victim.exists()  # nothing made or locked through the link
