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

from ptotui.model.read.loader import load
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
    assert files == ["triage.json"]  # no temp file, and no lock file left either (issue 24)
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


@pytest.mark.slow
def test_kill_9_during_writes_never_corrupts(tmp_path):
    path = tmp_path / "state" / "triage.json"
    for attempt in range(5):
        proc = subprocess.Popen([sys.executable, "-c", KILL_SCRIPT, str(path)])
        deadline = time.monotonic() + 30
        while not path.exists() and time.monotonic() < deadline:  # a loaded machine starts Python slowly
            time.sleep(0.02)
        time.sleep(0.1 + attempt * 0.13)
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


WRONG_SHAPES = {
    "reports is a list": {"reports": [1, 2]},
    "an entry is a string": {"reports": {"/reports": {"paged_kv_gather": "acknowledged"}}},
    "entries are a list": {"reports": {"/reports": ["paged_kv_gather"]}},
    "state is a number": {"reports": {"/reports": {"k": {"state": 3}}}},
    "note is an object": {"reports": {"/reports": {"k": {"state": "acknowledged", "note": {"a": 1}}}}},
    "blocker is a list": {"reports": {"/reports": {"k": {"state": "acknowledged", "blocker": [1]}}}},
    "a top-level array": [1, 2],
    "deep in another key": {"extra": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]},
}


@pytest.mark.parametrize("shape", list(WRONG_SHAPES))
def test_valid_json_of_the_wrong_shape_is_set_aside_like_invalid_json(tmp_path, kernels, shape):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    text = json.dumps(WRONG_SHAPES[shape])
    path.write_text(text)
    store = TriageStore(path, "/reports")
    assert store.entries == {} and not store.read_only
    assert len(store.warnings) == 1 and "moved aside" in store.warnings[0].message
    aside = [p for p in path.parent.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_text() == text  # nothing lost
    store.set(kernels["paged_kv_gather"], "acknowledged")  # and the store works on
    assert set(TriageStore(path, "/reports").entries) == {"paged_kv_gather"}


def test_five_thousand_levels_deep_is_set_aside(tmp_path, kernels):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    for text in ("[" * 5000 + "]" * 5000, '{"reports": {"/reports": {"k": ' + "[" * 5000 + "]" * 5000 + "}}}"):
        path.write_text(text)
        store = TriageStore(path, "/reports")
        assert store.entries == {} and "moved aside" in store.warnings[0].message
        store.set(kernels["paged_kv_gather"], "acknowledged")


def test_writing_keeps_the_mode_and_group_of_a_shared_file(tmp_path, kernels):
    path = tmp_path / "triage.json"
    path.write_text("{}")
    path.chmod(0o664)
    other_groups = [g for g in os.getgroups() + [100, 65534] if g != os.getegid()]
    group = os.getegid()
    for gid in other_groups:
        try:
            os.chown(path, -1, gid)
            group = gid
            break
        except OSError:
            continue
    TriageStore(path, "/reports").set(kernels["paged_kv_gather"], "acknowledged")
    after = path.stat()
    assert oct(after.st_mode & 0o777) == oct(0o664)
    assert after.st_gid == group


def test_a_symlinked_state_path_stays_a_symlink(tmp_path, kernels):
    shared = tmp_path / "team" / "triage.json"
    shared.parent.mkdir()
    shared.write_text("{}")
    link = tmp_path / "mine" / "triage.json"
    link.parent.mkdir()
    link.symlink_to(shared)
    TriageStore(link, "/reports").set(kernels["paged_kv_gather"], "investigating")
    assert link.is_symlink() and link.resolve() == shared.resolve()
    assert "paged_kv_gather" in json.loads(shared.read_text())["reports"]["/reports"]
    assert sorted(p.name for p in link.parent.iterdir()) == ["triage.json"]  # no temp or lock file beside the link


def test_stage_is_memory_only_and_flush_writes_in_order(tmp_path, kernels):
    path = tmp_path / "triage.json"
    store = TriageStore(path, "/reports", read=False)
    store.reload()
    kernel = kernels["paged_kv_gather"]
    store.stage(kernel, "acknowledged")
    store.stage(kernel, "investigating", note="n")
    store.stage(kernels["fp8_blockwise_quant"], "wont-fix")
    store.stage(kernels["fp8_blockwise_quant"])  # neither state nor note: clear
    assert store.entries["paged_kv_gather"].state == "investigating" and not path.exists()
    store.flush()
    on_disk = TriageStore(path, "/reports").entries
    assert set(on_disk) == {"paged_kv_gather"} and on_disk["paged_kv_gather"].note == "n"


def test_a_failed_flush_shows_the_file_as_it_is(tmp_path, kernels, monkeypatch):
    path = tmp_path / "triage.json"
    store = TriageStore(path, "/reports")
    store.set(kernels["paged_kv_gather"], "acknowledged")

    def disk_full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(TriageStore, "_write", disk_full)
    store.stage(kernels["fp8_blockwise_quant"], "investigating")
    with pytest.raises(OSError):
        store.flush()
    assert set(store.entries) == {"paged_kv_gather"}


def test_stage_does_not_wait_for_file_io(tmp_path, kernels):
    """A key on the UI thread stages while a worker reads a big file: it must not wait for it."""
    import threading

    store = TriageStore(tmp_path / "triage.json", "/reports")
    done = threading.Event()
    with store._io:  # a reload or flush in progress on a worker
        worker = threading.Thread(target=lambda: (store.stage(kernels["paged_kv_gather"], "acknowledged"), done.set()))
        worker.start()
        worker.join(10)
        assert done.is_set()
    assert store.entries["paged_kv_gather"].state == "acknowledged"


def _within(seconds: float, call):
    """``call()`` on a daemon thread: its result, or a failure (not a hung suite) if it blocks."""
    import threading

    out: list = []
    worker = threading.Thread(target=lambda: out.append(call()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "blocked"
    return out[0]


def test_a_fifo_as_the_triage_file_is_refused_without_blocking(tmp_path):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    os.mkfifo(path)
    store = _within(10, lambda: TriageStore(path, "/reports"))
    assert store.entries == {} and store.read_only
    assert any("FIFO" in w.message for w in store.warnings)
    assert path.is_fifo()  # not moved aside, not replaced


def test_dev_zero_as_the_triage_file_is_refused(tmp_path):
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    path.symlink_to("/dev/zero")
    store = _within(10, lambda: TriageStore(path, "/reports"))
    assert store.entries == {} and store.read_only
    assert any("character device" in w.message for w in store.warnings)


def test_a_triage_file_over_the_size_cap_is_refused(tmp_path, monkeypatch):
    from ptotui.model.read import safefile

    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    path.write_text('{"reports": {}, "pad": "' + "x" * 2_000 + '"}')
    monkeypatch.setattr(safefile, "_max_bytes", 1_000)
    store = TriageStore(path, "/reports")
    assert store.read_only and any("cap" in w.message for w in store.warnings)
    assert path.read_text().startswith('{"reports"')


@pytest.mark.parametrize("content", ['{"reports": {"/reports": {"x": ', '{"reports": [1, 2]}'])
def test_read_only_store_leaves_a_corrupt_file_where_it_is(tmp_path, content):
    """`serve --read-only` moved a corrupt triage file aside: a write where nothing may be written."""
    path = tmp_path / "state" / "triage.json"
    path.parent.mkdir()
    path.write_text(content)
    before = sorted(p.name for p in path.parent.iterdir())
    store = TriageStore(path, "/reports", writable=False)
    assert store.entries == {} and store.read_only
    assert store.warnings and "read-only" in store.warnings[0].message
    assert sorted(p.name for p in path.parent.iterdir()) == before  # no .corrupt-, no .lock
    assert path.read_text() == content


def _hold_and_count(path: str, key: str, names: list[str]) -> None:
    from pathlib import Path

    from ptotui.model.types import Kernel

    store = TriageStore(Path(path), key)
    for name in names:
        store.set(Kernel(name=name, tier="pto-blocked", pto_status="blocked"), "acknowledged")
        store.reload()


@pytest.mark.slow
def test_writers_that_remove_the_lock_file_still_exclude_each_other(tmp_path):
    """The lock file goes when its holder is done; a writer that waited on the removed file
    must not write beside one that locked the new file: every entry of three writers stays."""
    path = str(tmp_path / "state" / "triage.json")
    groups = [[f"{prefix}{i}" for i in range(30)] for prefix in "abc"]
    context = multiprocessing.get_context("spawn")
    procs = [context.Process(target=_hold_and_count, args=(path, "/r", names)) for names in groups]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(120)
    assert all(proc.exitcode == 0 for proc in procs)
    assert set(TriageStore(tmp_path / "state" / "triage.json", "/r").entries) == {n for g in groups for n in g}
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == ["triage.json"]
