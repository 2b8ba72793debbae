"""The compare with the newest differing snapshot and what was seen: the model's side (the
dashboard's is tests/app/test_since.py)."""

from __future__ import annotations

import json
import shutil

from ptotui.model.core.diff import diff, regressed_kernels
from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.since import Seen, latest_state, load_seen, save_seen, seen_file, since_snapshot
from ptotui.model.history.snapshots import read_history
from ptotui.model.location import locate
from ptotui.model.read.loader import load, load_file


def test_newest_differing_snapshot_is_the_baseline(reference_bench, tmp_path):
    bench = tmp_path / "bench"
    shutil.copytree(reference_bench, bench, ignore=shutil.ignore_patterns("generated"))
    location = locate(bench)
    current = load(location)
    history = read_history(location)
    since = since_snapshot(history, current, latest_state=latest_state(location, Thresholds()))
    newest = sorted(location.reports.glob("kernel_state_matrix_2*.json"))[-1]
    assert since.stamp == "20260314T170132Z" and newest.stem.endswith(since.stamp)
    # The same changes `ptotui diff <newest snapshot> <reports>` finds, regressions first.
    expected = diff(load_file(newest), current)
    assert sorted(since.changes, key=repr) == sorted(expected, key=repr)
    assert since.regressions == len(regressed_kernels(expected)) == 13  # kernels, as `ptotui diff` counts
    assert [c.regression for c in since.changes] == sorted((c.regression for c in since.changes), reverse=True)
    # A snapshot identical to the current state says nothing: it is skipped.
    same = location.reports / "kernel_state_matrix_20260321T024111Z.json"
    shutil.copy(location.reports / "kernel_state_matrix_latest.json", same)
    history = read_history(location)
    assert history.stamps[-1] == "20260321T024111Z"
    state = latest_state(location, Thresholds())
    assert since_snapshot(history, load(location), latest_state=state).stamp == "20260314T170132Z"


def test_seen_marks_first_to_now_and_round_trips(sample_location, tmp_path):
    first = load(sample_location)
    seen = Seen(None)
    seen.start(first.kernels)
    assert seen.marks(first.kernels) == {}
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    original = json.dumps(data)
    for kernel in data["kernels"]:
        if kernel["name"] == "topk_router_softmax":
            for variant in kernel["variants"]:
                variant["baseline_over_pto_pct"] = 75.0
    path.write_text(json.dumps(data))
    second = load(sample_location)
    assert seen.marks(second.kernels) == {"topk_router_softmax": 1}
    path.write_text(original)  # back where it was first seen: first → now is no change
    assert seen.marks(load(sample_location).kernels) == {}
    # Saved in the state directory and read back: the same marks at the next start.
    state = tmp_path / "state" / "triage.json"
    save_seen(seen_file(state), "/reports", seen.kernels)
    again = Seen(load_seen(seen_file(state), "/reports"))
    again.start(second.kernels)
    assert again.marks(second.kernels) == {"topk_router_softmax": 1}
    assert load_seen(seen_file(state), "/other") is None
    assert not list(sample_location.reports.glob("seen*"))
    # What was read back and is as the kernel is now is that kernel, not a copy beside it; the
    # changed one stays as remembered (marked), and saved again it is the same file.
    current = {k.name: k for k in second.kernels}
    assert sum(again.kernels[name] is kernel for name, kernel in current.items()) == len(current) - 1
    assert again.kernels["topk_router_softmax"] is not current["topk_router_softmax"]
    before = seen_file(state).read_bytes()
    save_seen(seen_file(state), "/reports", again.kernels)
    assert seen_file(state).read_bytes() == before


def test_triage_why_names_what_changed_and_the_mark_of_now(sample_location):
    from ptotui.model.history.since import current_mark, triage_why
    from ptotui.model.triage import fingerprint

    kernel = load(sample_location).by_name()["paged_kv_gather"]
    remembered = fingerprint(kernel)
    assert triage_why(remembered, kernel) == "nothing recorded differs"
    remembered["pto_reason"] = "an older reason"
    remembered["tier"] = "pto-blocked"
    assert triage_why(remembered, kernel) == f"tier pto-blocked → {kernel.tier}; PTO reason changed"
    assert current_mark(kernel) == "×"  # paged_kv_gather's baseline is blocked


def _in_time(work, seconds: float = 10.0):
    """``work()``'s result, or a failure if it blocks (a FIFO opened for reading waits
    for a writer for ever)."""
    import threading

    result: list = []
    thread = threading.Thread(target=lambda: result.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert result, "blocked"
    return result[0]


def test_a_seen_file_that_is_not_a_file_is_refused_not_waited_on(tmp_path):
    import os

    import pytest

    path = seen_file(tmp_path / "triage.json")
    os.mkfifo(path)
    warnings: list = []
    assert _in_time(lambda: load_seen(path, "/reports", warnings)) is None
    assert [w.file for w in warnings] == [str(path)] and "FIFO" in warnings[0].message

    def save() -> str:
        with pytest.raises(OSError) as caught:
            save_seen(path, "/reports", {})
        return str(caught.value)

    assert "FIFO" in _in_time(save)
    assert path.is_fifo()  # left as it is


def test_a_seen_file_nested_deeply_or_of_the_wrong_shape_starts_afresh_with_a_warning(tmp_path):
    path = seen_file(tmp_path / "triage.json")
    for text in ("[" * 5000 + "]" * 5000, '["reports"]', "{not json"):
        path.write_text(text)
        warnings: list = []
        assert load_seen(path, "/reports", warnings) is None  # no RecursionError
        assert len(warnings) == 1 and "starts afresh" in warnings[0].message
        save_seen(path, "/reports", {})  # replaced by a good one
        assert load_seen(path, "/reports") == {}


def test_words_read_from_the_seen_file_are_cleaned(tmp_path):
    path = seen_file(tmp_path / "triage.json")
    hostile = "green\x1b]2;owned\x07 + tile-first\x1b[2J"
    state = {"klass": hostile, "tier": "HIGH", "pto_status": hostile}
    path.write_text(json.dumps({"schema": "ptotui.seen/1", "reports": {"/reports": {"k\x1b[31m": state}}}))
    seen = load_seen(path, "/reports")
    assert seen is not None
    ((name, kernel),) = seen.items()
    assert "\x1b" not in name + kernel.klass + kernel.pto_status and "\x07" not in kernel.klass


def test_a_seen_file_of_the_wrong_inner_shape_or_too_big_is_named_and_then_replaced(tmp_path, monkeypatch):
    from ptotui.model.history import since

    path = seen_file(tmp_path / "triage.json")
    for data, said in (
        ({"reports": [1, 2]}, "reports are not a JSON object"),
        ({"reports": {"/reports": [1, 2, {"a": None}]}}, "entry is not a JSON object"),
    ):
        path.write_text(json.dumps(data))
        warnings: list = []
        assert load_seen(path, "/reports", warnings) is None
        assert len(warnings) == 1 and said in warnings[0].message, warnings
    path.write_text(json.dumps({"reports": {"/reports": {"k": [1], "j": {"tier": "high"}}}}))
    warnings = []
    assert list(load_seen(path, "/reports", warnings) or {}) == ["j"]
    assert len(warnings) == 1 and "1 entry is not an object" in warnings[0].message  # one, said as one

    monkeypatch.setattr(since, "SEEN_MAX_MB", 0.0001)  # ~100 bytes
    path.write_text(json.dumps({"reports": {"/other": {f"k{i}": {} for i in range(50)}}}))
    warnings = []
    assert load_seen(path, "/reports", warnings) is None
    assert "larger than" in warnings[0].message and "--max-file-mb" not in warnings[0].message
    save_seen(path, "/reports", {})  # an unusable regular file is replaced, as one that is not JSON
    monkeypatch.setattr(since, "SEEN_MAX_MB", 64)
    assert load_seen(path, "/reports") == {}


def test_the_latest_state_from_the_live_sources_parse_is_the_file_read_on_its_own(reference_bench):
    """The app compares snapshots on every load: it takes the state matrix the load parsed
    instead of reading and parsing it again (at 10,000 kernels: 8 MB, a third of a second),
    and leaves the parser's kernels unclassified."""
    from ptotui.model.live.pipeline import Shown, reload_reports
    from ptotui.model.live.source import StableSource
    from ptotui.model.types import kernel_fields

    location = locate(reference_bench)
    source = StableSource()
    reload_reports(location, source, Shown())
    read = latest_state(location, Thresholds())
    taken = latest_state(location, Thresholds(), source.parsed_state)
    assert read is not None and taken is not None and len(taken.kernels) == len(read.kernels) == 50
    assert [kernel_fields(k) for k in taken.kernels] == [kernel_fields(k) for k in read.kernels]
    assert taken.generated_at == read.generated_at
    parsed = source.parsed_state(location.reports / "kernel_state_matrix_latest.json")
    assert parsed is not None and all(k.tier == "" for k in parsed[0])  # theirs as built
    assert source.parsed_state(location.reports / "regression_latest.md") is None
