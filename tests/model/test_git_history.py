"""History from git: committed versions merged in time order with the snapshot files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ptotui.model.history.snapshots import HistoryReader
from ptotui.model.location import locate
from tests.conftest import REFERENCE
from tests.gitrepos import commit, make_repository, reports_dir

Repo = tuple[Path, dict[str, str]]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "kernels"
    root.mkdir()
    ids = make_repository(root)
    # Two snapshot files beside the latest ones, never committed: an older run, and the
    # very run c5 committed (the same content: it must count once).
    older = "kernel_state_matrix_20260314T170132Z.json"
    shutil.copyfile(REFERENCE / "reports" / older, reports_dir(root) / older)
    latest = reports_dir(root) / "kernel_state_matrix_latest.json"
    shutil.copyfile(latest, reports_dir(root) / "kernel_state_matrix_20260324T010000Z.json")
    return root, ids


def test_committed_versions_join_the_snapshots_in_time_order(repo: Repo) -> None:
    root, ids = repo
    reader = HistoryReader(git=True)
    try:
        history = reader.read(locate(root))
    finally:
        reader.close()
    assert history.stamps[0] == "20260314T170132Z"
    assert history.stamps[1].startswith(f"20260320T094640Z {ids['c1'][:8]} Add migration reports")
    assert history.stamps[2].startswith(f"20260321T133320Z {ids['c2'][:8]} Refresh migration reports")
    assert history.stamps[3] == "20260324T010000Z"  # c5's run, as its snapshot file: counted once
    assert len(history.stamps) == 4
    points = history.kernels["grouped_matmul"]
    assert [p.tier for p in points[1:3]] == ["mid", "high"]  # the committed bench run moved it
    assert history.notes == [] and history.warnings == []
    assert [s.generated_at for s in history.snapshots] == ["20260314T170132Z", "20260324T010000Z"]


def test_without_git_only_the_files(repo: Repo) -> None:
    root, _ = repo
    history = HistoryReader(git=False).read(locate(root))
    assert history.stamps == ["20260314T170132Z", "20260324T010000Z"]


def test_a_torn_committed_report_is_skipped_with_a_warning(repo: Repo) -> None:
    root, _ = repo
    path = reports_dir(root) / "regression_latest.json"
    data = json.loads(path.read_text())
    data["generated_at"] = "20260401T000000Z"
    path.write_text(json.dumps(data)[:4000])
    torn = commit(root, "Half-written refresh", 1_774_900_000)
    reader = HistoryReader(git=True)
    try:
        history = reader.read(locate(root))
    finally:
        reader.close()
    assert not any(torn[:8] in stamp for stamp in history.stamps)
    assert any(w.file == f"{torn[:8]}:bench/reports/regression_latest.json" for w in history.warnings)


def test_a_shallow_clone_is_said_once(repo: Repo, tmp_path: Path) -> None:
    root, _ = repo
    from tests.gitrepos import git

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{root}", str(clone))
    reader = HistoryReader(git=True)
    try:
        first = reader.read(locate(clone))
        second = reader.read(locate(clone))
    finally:
        reader.close()
    assert len(first.stamps) == 1
    assert [n.message for n in first.notes] == ["is a shallow clone: history from git goes back only so far"]
    assert second.notes == [] and second.stamps == first.stamps
