"""ptotui publish on the command line: outside a repository, the settings file's host name."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptotui.cli import main
from tests.model.test_publish import git
from tests.model.test_verdict import build_tree


def test_the_command_outside_a_repository_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bench = build_tree(tmp_path / "plain")
    assert main(["publish", str(bench)]) == 2
    err = capsys.readouterr().err
    assert "not in a git repository; give one with --repo" in err and len(err.strip().splitlines()) == 1
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    assert main(["publish", str(bench), "--repo", str(repo), "--host", "x"]) == 0
    assert "ptotui/hosts/x: published" in capsys.readouterr().out
    assert main(["publish", str(bench), "--repo", str(repo), "--host", "x", "--remote", str(tmp_path / "none")]) == 1
    assert "the push to" in capsys.readouterr().err


def test_the_settings_files_host_name_names_the_branch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 41 item 1: ``--host NAME`` / settings ``[host] name``, default the machine's hostname."""
    bench = build_tree(tmp_path / "plain")
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    config = tmp_path / "config.toml"
    config.write_text('[host]\nname = "910b-lab"\n')
    assert main(["publish", str(bench), "--repo", str(repo), "--config", str(config)]) == 0
    assert "ptotui/hosts/910b-lab: published" in capsys.readouterr().out
    assert main(["publish", str(bench), "--repo", str(repo), "--config", str(config), "--host", "other"]) == 0
    assert "ptotui/hosts/other: published" in capsys.readouterr().out  # the flag wins
    config.write_text("[host]\nname = 7\n")
    assert main(["publish", str(bench), "--repo", str(repo), "--config", str(config)]) == 0
    captured = capsys.readouterr()
    assert "host.name is not a host's name" in captured.err  # said, and the hostname used


def test_full_walks_every_run_again_and_finds_the_same_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    bench = build_tree(tmp_path / "plain")
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", str(repo))
    assert main(["publish", str(bench), "--repo", str(repo), "--host", "x"]) == 0
    assert "ptotui/hosts/x: published" in capsys.readouterr().out
    assert main(["publish", str(bench), "--repo", str(repo), "--host", "x", "--full"]) == 0
    assert "ptotui/hosts/x: nothing changed since the last publish (10 runs" in capsys.readouterr().out
