"""The triage store: atomic writes, corrupt files, two writers, stale detection."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import time

import pytest

from ptotui.model.loader import load
from ptotui.model.triage import TriageStore, status_of, triage_rows


@pytest.fixture
def kernels(sample_location):
    return load(sample_location).by_name()


def store_at(tmp_path, key="/reports"):
    return TriageStore(tmp_path / "state" / "triage.json", key)


def test_set_clear_and_persist(tmp_path, kernels):
    store = store_at(tmp_path)
    store.set(kernels["paged_kv_gather"], "investigating", note="asked the driver team")
    again = store_at(tmp_path)
    entry = again.entries["paged_kv_gather"]
    assert entry.state == "investigating" and entry.note == "asked the driver team"
    assert entry.blocker["baseline_status"] == "blocked"
    again.clear("paged_kv_gather")
    assert store_at(tmp_path).entries == {}


def test_keyed_by_reports_path(tmp_path, kernels):
    store_at(tmp_path, "/a").set(kernels["paged_kv_gather"], "acknowledged")
    assert store_at(tmp_path, "/b").entries == {}
    assert "paged_kv_gather" in store_at(tmp_path, "/a").entries


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path, kernels):
    store = store_at(tmp_path)
    for state in ("acknowledged", "investigating", "wont-fix"):
        store.set(kernels["fp8_blockwise_quant"], state)
    files = sorted(p.name for p in (tmp_path / "state").iterdir())
    assert files == ["triage.json", "triage.json.lock"]
    assert json.loads((tmp_path / "state" / "triage.json").read_text())["schema"] == "ptotui.triage/1"


def test_corrupt_file_is_set_aside_and_reported(tmp_path, kernels):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    path.write_text('{"reports": {"/reports": {"x": ')
    store = TriageStore(path, "/reports")
    assert store.entries == {}
    assert store.warnings and "moved aside" in store.warnings[0].message
    aside = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text().startswith('{"reports"')  # nothing lost


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file")
def test_unreadable_file_makes_the_store_read_only(tmp_path, kernels):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0)
    store = TriageStore(path, "/reports")
    assert store.read_only and store.warnings
    with pytest.raises(PermissionError):
        store.set(kernels["paged_kv_gather"], "acknowledged")


def _writer(path: str, key: str, names: list[str]) -> None:
    from ptotui.model.types import Kernel

    store = TriageStore(__import__("pathlib").Path(path), key)
    for name in names:
        store.set(Kernel(name=name, tier="pto-blocked", pto_status="blocked"), "acknowledged")


def test_two_writers_keep_every_entry(tmp_path):
    path = str(tmp_path / "state" / "triage.json")
    first = [f"a{i}" for i in range(40)]
    second = [f"b{i}" for i in range(40)]
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_writer, args=(path, "/r", names)) for names in (first, second)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(60)
    assert set(TriageStore(tmp_path / "state" / "triage.json", "/r").entries) == set(first + second)


KILL_SCRIPT = """
import sys
from pathlib import Path
from ptotui.model.triage import TriageStore
from ptotui.model.types import Kernel
store = TriageStore(Path(sys.argv[1]), "/r")
i = 0
while True:
    kernel = Kernel(name=f"k{i % 50}", tier="pto-blocked", pto_status="blocked")
    store.set(kernel, "investigating", note="x" * (i % 500))
    i += 1
"""


def test_kill_9_during_writes_never_corrupts(tmp_path):
    path = tmp_path / "state" / "triage.json"
    for attempt in range(5):
        proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(path)])
        time.sleep(0.4 + attempt * 0.13)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        store = TriageStore(path, "/r")
        assert store.warnings == [], store.warnings
        assert store.entries  # parsed, not set aside


def test_stale_when_the_blocker_changes_and_resolved_when_green(tmp_path, sample_location):
    reports = load(sample_location)
    store = store_at(tmp_path)
    store.set(reports.by_name()["block_sparse_flash_decode"], "needs-upstream")
    store.set(reports.by_name()["paged_kv_gather"], "acknowledged")
    assert not store.status(reports.by_name()["block_sparse_flash_decode"]).stale
    # Same blocker with new PIDs and times in the error dump: not stale.
    gather = reports.by_name()["paged_kv_gather"]
    gather.baseline_reason = gather.baseline_reason.replace("41822", "99").replace("09:14:02", "10:00:00")
    assert not store.status(gather).stale
    # A different reason: stale, and counted as untriaged again.
    kernel = reports.by_name()["block_sparse_flash_decode"]
    kernel.pto_reason = "PTO compile failed: a different lowering error"
    status = store.status(kernel)
    assert status.stale and status.untriaged and status.label() == "needs-upstream (stale)"
    # The kernel turns green: resolved.
    kernel.pto_status, kernel.klass, kernel.tier, kernel.blocker_layer, kernel.gap_ids = (
        "ok",
        "green + tile-first",
        "mid",
        None,
        [],
    )
    status = store.status(kernel)
    assert status.resolved and not status.untriaged and status.label() == "resolved"
    rows = {row["kernel"]: row for row in triage_rows(reports.kernels, store)}
    assert rows["block_sparse_flash_decode"]["state"] == "resolved"
    assert rows["fp8_blockwise_quant"]["state"] == "untriaged"
    assert set(rows["paged_kv_gather"]) >= {"kernel", "layer", "gap_ids", "state", "note", "since", "stale"}


def test_status_of_without_entry():
    from ptotui.model.types import Kernel

    assert status_of(None, Kernel(name="k")).untriaged


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
