"""Reading committed reports through the host's git (tests/gitrepos.py builds the repositories)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptotui.model.history import gitpoints, gitreports
from ptotui.model.history.gitreports import GitError, Place, find_repository
from ptotui.model.location import locate
from ptotui.model.read.loader import load
from tests.gitrepos import commit, git, make_repository, reports_dir

Repo = tuple[Path, dict[str, str]]


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "kernels"
    root.mkdir()
    return root, make_repository(root)


def test_not_in_a_repository_is_simply_absent(tmp_path: Path) -> None:
    found = find_repository(tmp_path)
    assert found.repository is None and found.warning is None


def test_git_missing_is_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gitreports.shutil, "which", lambda name: None)
    found = find_repository(tmp_path)
    assert found.repository is None
    assert found.warning is not None and "git was not found" in found.warning


def test_finds_the_work_tree_from_a_subdirectory_and_a_missing_path(repo: Repo) -> None:
    root, _ = repo
    for start in (reports_dir(root), reports_dir(root) / "not-yet-written"):
        with find_repository(start).repository as repository:  # type: ignore[union-attr]
            assert repository.root == root.resolve()
            assert repository.prefix == "bench/reports"
            assert not repository.shallow


def test_revisions_resolve_and_unknown_ones_are_one_line(repo: Repo) -> None:
    root, ids = repo
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        assert repository.resolve("HEAD") == ids["c5"]
        assert repository.resolve("HEAD~2") == ids["c2"]
        assert repository.resolve("host-b") == ids["b1"]
        for bad in ("no-such-branch", "--output=/tmp/x", "HEAD\nmain", ""):
            with pytest.raises(GitError) as error:
                repository.resolve(bad)
            assert "\n" not in str(error.value)


def test_reports_are_found_where_path_resolution_finds_them(repo: Repo) -> None:
    root, ids = repo
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        for base in ("", "bench", "bench/reports"):
            assert repository.place(ids["c5"], base) == Place("bench/reports", "bench")
        assert repository.place(ids["c5"]) == Place("bench/reports", "bench")  # the root's own prefix
    (root / "elsewhere").mkdir()
    with find_repository(root / "elsewhere").repository as repository:  # type: ignore[union-attr]
        assert repository.place(ids["c5"]) is None  # no reports under elsewhere/


def test_a_revision_reads_like_the_work_tree(repo: Repo) -> None:
    root, ids = repo
    on_disk = load(locate(root))
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        place = repository.place(ids["c5"])
        assert place is not None
        committed = repository.load(ids["c5"], place, "HEAD")
    assert committed.warnings == []
    assert committed.source == "HEAD:bench/reports"
    assert [k.name for k in committed.kernels] == [k.name for k in on_disk.kernels]
    assert [(k.tier, k.ratio_median_pct, k.klass) for k in committed.kernels] == [
        (k.tier, k.ratio_median_pct, k.klass) for k in on_disk.kernels
    ]
    assert committed.gaps.keys() == on_disk.gaps.keys()


def test_report_commits_follow_the_branch_with_blob_ids(repo: Repo) -> None:
    root, ids = repo
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        place = Place("bench/reports", "bench")
        main = repository.report_commits(place, ids["c5"])
        host_b = repository.report_commits(place, ids["b1"])
        assert [c.id for c in main] == [ids["c1"], ids["c2"], ids["c5"]]  # c3 touched only the README
        assert [c.id for c in host_b] == [ids["c1"], ids["b1"]]
        assert main[1].subject == "Refresh migration reports"
        assert main[0].date.startswith("2026-03-")
        # Every report file is known at every commit, even the ones it did not touch.
        files = {
            "bench/reports/regression_latest.json",
            "bench/reports/regression_latest.md",
            "bench/reports/kernel_state_matrix_latest.json",
            "bench/reports/kernel_state_matrix_latest.md",
        }
        assert {path for path, _ in main[2].blobs} == files
        untouched = "bench/reports/regression_latest.md"  # no bench run here rewrote the markdown
        assert dict(main[2].blobs)[untouched] == dict(main[0].blobs)[untouched]
        # A limit lists only the newest, and the oldest of them still knows all its files.
        newest = repository.report_commits(place, ids["c5"], limit=1)
        assert [c.id for c in newest] == [ids["c5"]] and newest[0].blobs == main[2].blobs
        at_c2 = repository.load_blobs(dict(main[1].blobs), place, main[1].short)
        kernels = at_c2.by_name()
        assert kernels["grouped_matmul"].tier == "high"
        assert kernels["grouped_matmul_add"].pto_status == "blocked"


def test_blobs_are_read_once_by_one_process(repo: Repo) -> None:
    root, ids = repo
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        place = Place("bench/reports", "bench")
        commits = repository.report_commits(place, ids["c5"])
        repository.load_blobs(dict(commits[0].blobs), place, "a")
        process = repository._batch.process  # type: ignore[union-attr]
        reads = []
        original = repository._object

        def counted(name: str, limit: int | None = None):  # type: ignore[no-untyped-def]
            reads.append(name)
            return original(name, limit)

        repository._object = counted  # type: ignore[method-assign]
        repository.load_blobs(dict(commits[0].blobs), place, "b")
        assert reads == []  # every blob came from the cache
        repository.load_blobs(dict(commits[1].blobs), place, "c")
        changed = {b for _, b in commits[1].blobs} - {b for _, b in commits[0].blobs}
        assert set(reads) == changed
        assert repository._batch.process is process  # type: ignore[union-attr]


def test_a_torn_committed_report_names_the_revision_and_file(repo: Repo) -> None:
    root, _ = repo
    path = reports_dir(root) / "regression_latest.json"
    path.write_text(path.read_text()[:5000])
    torn = commit(root, "Half-written refresh", 1_774_500_000)
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        place = repository.place(torn)
        assert place is not None
        reports = repository.load(torn, place, torn[:8])
    assert any(w.file == f"{torn[:8]}:bench/reports/regression_latest.json" for w in reports.warnings)


def test_hostile_subjects_are_cleaned(repo: Repo) -> None:
    root, _ = repo
    path = reports_dir(root) / "kernel_state_matrix_latest.json"
    data = json.loads(path.read_text())
    data["generated_at"] = "20260401T000000Z"
    path.write_text(json.dumps(data))
    commit(root, "Refresh \x1b]0;owned\x07reports \x1b[31mred\u202e", 1_774_600_000)
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        last = repository.report_commits(Place("bench/reports", "bench"))[-1]
    assert last.subject == "Refresh reports red"


def test_a_shallow_clone_is_said_and_reads_as_far_as_it_goes(repo: Repo, tmp_path: Path) -> None:
    root, ids = repo
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{root}", str(clone))
    found = find_repository(clone)
    assert found.repository is not None and found.repository.shallow
    with found.repository as repository:
        commits = repository.report_commits(Place("bench/reports", "bench"))
        # c3, the shallow boundary, shows as the root commit that added every report.
        assert [c.id for c in commits] == [ids["c3"], ids["c5"]]
        assert repository.load_blobs(dict(commits[0].blobs), Place("bench/reports", "bench"), "x").kernels


def test_a_dead_cat_file_process_is_restarted(repo: Repo) -> None:
    root, ids = repo
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        place = Place("bench/reports", "bench")
        assert repository.load(ids["c1"], place, "a").kernels
        repository._batch.process.kill()  # type: ignore[union-attr]
        repository._batch.process.wait()  # type: ignore[union-attr]
        assert repository.load(ids["c2"], place, "b").kernels


def test_history_drops_repeated_content_and_skips_torn_points(repo: Repo) -> None:
    root, ids = repo
    path = reports_dir(root) / "regression_latest.json"
    good = path.read_text()
    path.write_text(good[:5000])
    torn = commit(root, "Half-written refresh", 1_774_500_000)
    path.write_text(good)
    back = commit(root, "Refresh again", 1_774_600_000)  # the same files as c5: nothing new
    gap_board = root / "bench" / "gap_board.yaml"
    gap_board.write_text(gap_board.read_text() + "\n")
    commit(root, "Touch only the gap board", 1_774_700_000)
    with find_repository(root).repository as repository:  # type: ignore[union-attr]
        history = gitpoints.report_history(repository, Place("bench/reports", "bench"))
        assert history.listed == 5  # c1, c2, c5, torn, back; the gap-board-only commit is no point
        # "back" holds c5's files again after the torn commit: the same content counts once.
        assert [c.id for c, _ in history.points] == [ids["c1"], ids["c2"], ids["c5"]]
        assert history.warnings and all(w.file.startswith(torn[:8] + ":") for w in history.warnings)
        newest = gitpoints.report_history(repository, Place("bench/reports", "bench"), limit=2)
        assert [c.id for c, _ in newest.points] == [back]  # the torn one of the newest two is skipped
        assert newest.points[0][1].by_name()["apply_rotary_pos_emb"].tier == "slow"


def test_git_points_for_the_app_history(repo: Repo, tmp_path: Path) -> None:
    root, ids = repo
    points = gitpoints.GitPoints(reports_dir(root))
    try:
        read, warnings = points.read()
        assert warnings == []
        assert [p.stamp.split()[1] for p in read] == [ids[c][:8] for c in ("c1", "c2", "c5")]
        stamps = [p.stamp for p in read]
        assert stamps == sorted(stamps) and stamps[1].endswith("Refresh migration reports")
        assert [p.state_run for p in read] == ["20260321T032615Z", "20260322T010000Z", "20260324T010000Z"]
        again, _ = points.read()
        assert again == read and again[0].reports is read[0].reports  # cached by content
    finally:
        points.close()
    outside = gitpoints.GitPoints(tmp_path / "not-a-repo")
    assert outside.read() == ([], [])


def test_git_points_say_git_missing_once(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    root, _ = repo
    monkeypatch.setattr(gitreports.shutil, "which", lambda name: None)
    points = gitpoints.GitPoints(reports_dir(root))
    first = points.read()
    assert first[0] == [] and len(first[1]) == 1 and "git was not found" in first[1][0].message
    assert points.read() == ([], [])
