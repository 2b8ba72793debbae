"""``ptotui diff`` with revisions and ``ptotui log``, run in repositories the tests build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ptotui.cli import main
from tests.gitrepos import bench_run, commit, make_repository, reports_dir

Repo = tuple[Path, dict[str, str]]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "kernels"
    root.mkdir()
    ids = make_repository(root)
    monkeypatch.chdir(root)
    return root, ids


def test_diff_between_two_commits_gates_like_a_diff_of_directories(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "HEAD~3", "HEAD~2", "--format", "json"]) == 1  # c1 -> c2: grouped_matmul_add blocked
    payload = json.loads(capsys.readouterr().out)
    assert payload["old"]["source"] == "HEAD~3:bench/reports"
    assert payload["new"]["generated_at"] == "20260322T010000Z"
    changes = {(c["kernel"], c["kind"]): c for c in payload["changes"]}
    assert changes[("grouped_matmul_add", "pto_status")]["regression"] is True
    assert changes[("grouped_matmul", "tier")]["new"] == "high"
    assert payload["warnings"] == []


def test_diff_of_an_improvement_only_exits_0(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _, ids = repo
    assert main(["diff", ids["c1"], "host-b"]) == 0
    out = capsys.readouterr().out
    assert "dequant_rope_quant_kvcache" in out and "0 regressions" in out


def test_a_revision_against_the_work_tree(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = repo
    path = reports_dir(root) / "regression_latest.json"
    data = json.loads(path.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] == "grouped_matmul":
            for variant in kernel["variants"]:
                variant["baseline_over_pto_pct"] = 10.0  # an uncommitted bench run made it slow
    path.write_text(json.dumps(data))
    assert main(["diff", "HEAD", "./bench/reports", "--format", "json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert [c["kernel"] for c in payload["changes"] if c["regression"]] == ["grouped_matmul", "grouped_matmul"]


def test_repo_flag_from_outside_the_repository(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = repo
    monkeypatch.chdir(tmp_path)
    assert main(["diff", "main", "host-b", "--repo", str(root)]) == 1
    assert "grouped_matmul_add" in capsys.readouterr().out


def test_bad_revisions_are_one_line_and_exit_2(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, ids = repo
    (root / "notes").mkdir()
    (root / "notes" / "a.txt").write_text("x")
    commit(root, "Add notes", 1_774_700_000)
    cases = [
        ["diff", "no-such-rev", "HEAD"],
        ["diff", "HEAD", "--", "--output=x"],
        ["diff", "HEAD", "HEAD~1", "--repo", str(root / "notes")],  # no reports under notes/
    ]
    for argv in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ptotui: error: "), err
    monkeypatch.chdir(tmp_path)  # not a repository: a missing path is not a revision either
    assert main(["diff", "HEAD~1", "HEAD"]) == 2
    assert "not in a git repository" in capsys.readouterr().err


def test_log_is_the_changelog_newest_first(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _, ids = repo
    assert main(["log"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == [ids["c5"][:8], ids["c2"][:8], ids["c1"][:8]]
    assert "regressed: apply_rotary_pos_emb (tier mid -> slow, median ratio 46.6% -> 20.0%)" in out[0]
    assert "regressed: grouped_matmul_add (tier mid -> pto-blocked, PTO ok -> blocked)" in out[1]
    assert "improved: grouped_matmul (tier mid -> high, median ratio 42.4% -> 75.0%)" in out[1]
    assert "Refresh migration reports — 50 kernels: high 5, mid 18," in out[1]
    assert out[2].endswith("first reports")


def test_log_of_one_kernel_and_of_another_branch(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root, ids = repo
    assert main(["log", str(reports_dir(root)), "--kernel", "grouped_matmul_add"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0].startswith(ids["c2"][:8]) and "pto-blocked n/a (baseline ok, PTO blocked) ▼" in out[0]
    assert out[1].endswith("first seen")
    assert main(["log", "--revision", "host-b", "-n", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "improved: dequant_rope_quant_kvcache" in out[0]  # diffed against c1, not shown


def test_log_bad_input_is_one_line_and_exit_2(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = repo
    (root / "notes").mkdir()
    for argv in (
        ["log", "--kernel", "no_such_kernel"],
        ["log", "--revision", "nope"],
        ["log", str(root / "notes")],
        ["log", "-n", "-1"],
        ["log", str(tmp_path / "missing")],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ptotui: error: "), err
    outside = tmp_path / "outside"
    outside.mkdir()
    monkeypatch.chdir(outside)
    assert main(["log"]) == 2
    assert "not in a git repository" in capsys.readouterr().err


def test_log_skips_a_torn_commit_with_a_warning(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = repo
    path = reports_dir(root) / "kernel_state_matrix_latest.json"
    path.write_text(path.read_text()[:3000])
    torn = commit(root, "Half-written refresh", 1_774_800_000)
    assert main(["log"]) == 0
    captured = capsys.readouterr()
    assert torn[:8] not in captured.out
    assert f"{torn[:8]}:bench/reports/kernel_state_matrix_latest.json" in captured.err


def test_git_failing_under_us_is_one_line_not_a_traceback(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptotui.model.history import gitreports

    def broken(self: object) -> None:
        raise OSError("Cannot allocate memory")

    monkeypatch.setattr(gitreports.Repository, "_start", broken)
    for argv in (["diff", "HEAD~1", "HEAD"], ["log"], [".", "--compare", "host-b"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Cannot allocate memory" in err, err


def _set_class(root: Path, classes: dict[str, str]) -> None:
    path = reports_dir(root) / "kernel_state_matrix_latest.json"
    data = json.loads(path.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] in classes:
            kernel["primary_class"] = classes[kernel["name"]]
    path.write_text(json.dumps(data))


def test_log_names_the_change_that_regressed_or_improved_a_kernel_not_its_class(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = repo
    bench_run(root, "20260325T010000Z", {"grouped_matmul": 72.0, "dequant_rope_quant_kvcache": 80.0})
    _set_class(root, {"grouped_matmul": "green + tile-first", "dequant_rope_quant_kvcache": "green + tile-first"})
    commit(root, "Refresh migration reports", 1_774_900_000)
    assert main(["log", "-n", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    regressed = line.split("regressed: ", 1)[1].split(";", 1)[0]
    improved = line.split("improved: ", 1)[1].split(";", 1)[0]
    # grouped_matmul stays high: its ratio drop is the regression, its class change no reason at all
    assert regressed == "grouped_matmul (median ratio 75.0% -> 72.0%)", line
    # the tier move first, then the ratio: the class is left out of an improvement too
    assert improved == "dequant_rope_quant_kvcache (tier slow -> high, median ratio 17.5% -> 80.0%)", line
    assert "class" not in line, line


def test_log_labels_commit_times_as_utc(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    _, ids = repo
    assert main(["log"]) == 0
    out = capsys.readouterr().out.splitlines()
    # c1 was committed at 1_774_000_000 seconds: 2026-03-20 09:46:40 UTC
    assert out[-1].startswith(f"{ids['c1'][:8]} 2026-03-20 09:46 UTC Add migration reports"), out[-1]


def test_a_committed_blob_is_warned_once_per_command(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = repo
    (root / "bench" / "gap_board.yaml").write_text("gaps: [unclosed\n  - {id: x\n")
    commit(root, "Hand-edit the gap board", 1_774_800_000)
    bench_run(root, "20260326T010000Z", {"grouped_matmul": 60.0})
    commit(root, "Refresh migration reports", 1_774_900_000)
    assert main(["diff", "HEAD~1", "HEAD"]) == 1
    err = capsys.readouterr().err
    assert err.count("gap_board.yaml") == 1 and err.startswith("ptotui: warning: HEAD~1:bench/gap_board.yaml"), err
    assert main(["diff", "HEAD~1", "HEAD", "--format", "json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert [w["file"] for w in payload["warnings"]] == ["HEAD~1:bench/gap_board.yaml"]


def test_log_warns_once_of_a_torn_blob_two_commits_hold(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = repo
    state = reports_dir(root) / "kernel_state_matrix_latest.json"
    state.write_text(state.read_text()[:3000])
    torn = commit(root, "Half-written refresh", 1_774_800_000)
    regression = reports_dir(root) / "regression_latest.json"
    regression.write_text(regression.read_text().replace("20260324T010000Z", "20260326T010000Z"))
    commit(root, "Refresh the summary only", 1_774_900_000)  # the torn state matrix stays
    assert main(["log"]) == 0
    err = capsys.readouterr().err
    assert err.count("kernel_state_matrix_latest.json") == 1, err
    assert err.startswith(f"ptotui: warning: {torn[:8]}:bench/reports/kernel_state_matrix_latest.json"), err


def test_log_of_an_empty_or_unknown_kernel_name_says_so(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 24: ``log --kernel ""`` printed nothing and exited 0."""
    for name in ("", "   "):
        assert main(["log", "--kernel", name]) == 2, repr(name)
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ptotui: error: ") and "--kernel" in err, err
        assert "empty" in err, err
    assert main(["log", "--kernel", "no_such_kernel"]) == 2
    err = capsys.readouterr().err
    assert "no_such_kernel: no such kernel in the committed reports" in err, err


def test_a_revision_against_a_directory_outside_any_repository_is_the_current_ones(
    repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 33 item 8: ``ptotui diff REV /some/dir`` run inside a repository said
    ``/some/dir is not in a git repository``; the README looks REV up in the current directory's."""
    root, ids = repo
    elsewhere = tmp_path / "elsewhere" / "reports"
    shutil.copytree(reports_dir(root), elsewhere)  # the work tree's reports, rsynced out of git
    assert main(["diff", ids["c1"], str(elsewhere), "--format", "json"]) in (0, 1)
    payload = json.loads(capsys.readouterr().out)
    assert payload["old"]["source"] == f"{ids['c1']}:bench/reports"
    assert payload["new"]["source"] == str(elsewhere)
    assert main(["diff", str(elsewhere), "HEAD", "--format", "json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["new"]["source"] == "HEAD:bench/reports"
