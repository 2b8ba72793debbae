"""ptotui triage, and the triage file as the command line reads and writes it."""

from __future__ import annotations

import json
import subprocess
import sys

from ptotui.model.read.loader import load
from ptotui.model.triage import TriageStore
from tests.model import test_triage

kernels = test_triage.kernels  # the fixture (pytest finds it by this name)


def test_triage_cli_json_and_md(tmp_path, sample_bench):
    state = tmp_path / "t.json"
    reports = load(__import__("ptotui.model.location", fromlist=["locate"]).locate(sample_bench))
    TriageStore(state, str((sample_bench / "reports").resolve())).set(
        reports.by_name()["paged_kv_gather"], "acknowledged", note="n1"
    )

    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ptotui", "triage", str(sample_bench), "--state", str(state), *a],
            capture_output=True,
            text=True,
            timeout=60,
        )

    result = run("--format", "json")
    assert result.returncode == 0, result.stderr
    entries = {e["kernel"]: e for e in json.loads(result.stdout)["entries"]}
    assert entries["paged_kv_gather"]["state"] == "acknowledged" and entries["paged_kv_gather"]["note"] == "n1"
    assert entries["paged_kv_gather"]["stale"] is False
    assert entries["fp8_blockwise_quant"]["state"] == "untriaged"
    assert "| paged_kv_gather | baseline-blocked |" in run("--format", "md").stdout


HOSTILE = "\x1b]2;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J"


def test_note_author_and_time_are_cleaned_when_read(tmp_path, sample_bench):
    reports_key = str((sample_bench / "reports").resolve())
    path = tmp_path / "triage.json"
    entry = {
        "state": "acknowledged",
        "note": f"hi{HOSTILE} | <b>`x`</b>",
        "since": f"2026{HOSTILE}",
        "by": f"me{HOSTILE}",
    }
    path.write_text(json.dumps({"schema": "ptotui.triage/1", "reports": {reports_key: {"paged_kv_gather": entry}}}))
    read = TriageStore(path, reports_key).entries["paged_kv_gather"]
    assert (read.note, read.since, read.by) == ("hi | <b>`x`</b>", "2026", "me")
    for fmt in ("md", "json"):
        result = subprocess.run(
            [sys.executable, "-m", "ptotui", "triage", str(sample_bench), "--state", str(path), "--format", fmt],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert "\x1b" not in result.stdout and "\x07" not in result.stdout


def test_no_lock_file_is_left_and_none_is_made_for_nothing(tmp_path, kernels, sample_bench):
    """Issue 24: a ``<state>.lock`` was left beside every --state path, even after a start
    that exited 2."""
    path = tmp_path / "state" / "triage.json"
    store = TriageStore(path, "/reports")  # reads a file that is not there
    assert not path.parent.exists()  # nothing to read: no directory, no lock made for it
    store.set(kernels["paged_kv_gather"], "investigating")
    store.reload()
    assert sorted(p.name for p in path.parent.iterdir()) == ["triage.json"]
    TriageStore(path, "/reports").clear("paged_kv_gather")
    assert sorted(p.name for p in path.parent.iterdir()) == ["triage.json"]
    # The CLI: a triage list, and a start that exits 2 (the dashboard without a terminal).
    state = tmp_path / "cli" / "state.json"
    for argv, code in (
        (["triage", str(sample_bench), "--state", str(state)], 0),
        ([str(sample_bench), "--state", str(state)], 2),
    ):
        result = subprocess.run(
            [sys.executable, "-m", "ptotui", *argv],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == code, result.stderr
        assert not (tmp_path / "cli" / "state.json.lock").exists()
