"""The settings file on the command line: read by default, merged with the flags, a bad one one warning line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ptotui.model.config import Config, read_config

STRICT = "[thresholds]\nhigh = 99.0\nmid = 98.0\n"  # no kernel is high


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptotui", *args], capture_output=True, text=True, timeout=60)


def test_cli_thresholds_from_the_settings_file_and_flags_win(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(STRICT)
    tiers = lambda result: {k["name"]: k["tier"] for k in json.loads(result.stdout)["kernels"]}  # noqa: E731
    default = tiers(run("export"))
    strict = tiers(run("export", "--config", str(path)))
    assert "high" in default.values() and "high" not in strict.values()
    assert tiers(run("export", "--config", str(path), "--high", "70", "--mid", "30")) == default


def test_cli_bad_settings_file_is_one_warning_line_and_exit_0(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("= broken")
    result = run("export", "--config", str(path))
    assert result.returncode == 0 and json.loads(result.stdout)["kernels"]
    lines = [line for line in result.stderr.splitlines() if "settings file" in line]
    assert len(lines) == 1 and lines[0].startswith("ptotui: warning:") and "Traceback" not in result.stderr


def test_default_settings_file_is_read(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    (tmp_path / "ptotui").mkdir()
    (tmp_path / "ptotui" / "config.toml").write_text(STRICT)
    assert all(k["tier"] != "high" for k in json.loads(run("export").stdout)["kernels"])


@pytest.mark.parametrize("text", ["[thresholds]\nhigh = 30\n", "[thresholds]\nmid = 70\n"])
def test_one_threshold_in_the_file_that_meets_the_default_is_a_warning_not_an_exit(tmp_path, text):
    """``high = 30`` alone (against the default mid of 30) stopped every command with exit 2 (issue 24)."""
    path = tmp_path / "c.toml"
    path.write_text(text)
    result = run("export", "--config", str(path))
    assert result.returncode == 0 and json.loads(result.stdout)["kernels"], result.stderr
    lines = [line for line in result.stderr.splitlines() if "settings file" in line]
    assert len(lines) == 1 and str(path) in lines[0] and "using 70/30" in lines[0]


def test_file_and_flags_are_merged_before_the_pair_is_checked(tmp_path):
    """``high = 25`` in the file with ``--mid 10``: 25/10, not the file's value thrown away (issue 24)."""
    from ptotui.model.config import merge_thresholds

    path = tmp_path / "c.toml"
    path.write_text("[thresholds]\nhigh = 25\n")
    config, warning = read_config(path)
    assert warning is None and merge_thresholds(None, 10.0, config) == (25.0, 10.0, None)
    assert merge_thresholds(None, None, config)[:2] == (70.0, 30.0)  # the file's 25 against mid 30: dropped
    with pytest.raises(ValueError, match="--mid"):
        merge_thresholds(None, 80.0, Config())  # the flag's own fault: exit 2
    result = run("export", "--config", str(path), "--mid", "10")
    assert result.returncode == 0 and "settings file" not in result.stderr
    assert run("export", "--mid", "80").returncode == 2
