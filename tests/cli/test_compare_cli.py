"""--compare on the command line: sources checked before the start, errors in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.model import test_compare
from tests.model.test_compare import Repo

repo = test_compare.repo  # the fixture (pytest finds it by this name)


def test_the_cli_checks_compare_sources_before_starting(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from ptotui.cli import main

    root, _ = repo
    for argv in (
        [str(root), "--compare", "no-such-branch"],
        [str(root), "--compare", "HEAD", "--compare", "HEAD~1", "--compare", "HEAD~2", "--compare", "HEAD~3"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ptotui: error: --compare"), err


def test_a_directory_without_reports_is_refused_in_one_line(
    repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptotui.cli import main

    root, _ = repo
    empty = tmp_path / "scratch"
    (empty / "reports").mkdir(parents=True)
    (empty / "notes.txt").write_text("not a report")
    assert main([str(root), "--compare", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"ptotui: error: --compare {empty}: holds no reports"), err


def test_a_compare_error_never_cuts_the_users_path(
    repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptotui.cli import main

    root, _ = repo
    deep = tmp_path / ("host-with-a-rather-long-name-" * 3) / "bench" / "reports"
    deep.mkdir(parents=True)
    report = deep / "regression_latest.json"
    shutil.copyfile(root / "bench" / "reports" / "regression_latest.json", report)
    assert len(str(report)) > 120
    assert main([str(root), "--compare", str(report)]) == 2
    err = capsys.readouterr().err
    assert err == f"ptotui: error: --compare {report}: a file; give a reports directory or a revision\n", err
