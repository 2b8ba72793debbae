"""A kernel that appears twice in one file is merged with a warning, keeping its worst status (issue 9)."""

from __future__ import annotations

import json

from ptotui.model.location import Location
from ptotui.model.read import readers, writers
from ptotui.model.read.loader import load
from tests.conftest import SAMPLES


def _variant(pto: str, ratio: float | None) -> dict:
    ok = pto == "ok"
    return {
        "variant": {},
        "shape_summary": {"x": [4, 4]},
        "baseline_status": "ok",
        "pto_status": pto,
        "baseline_median_ms": 0.1,
        "pto_median_ms": 0.125 if ok else None,
        "baseline_over_pto_pct": ratio,
        "baseline_correct": True,
        "pto_correct": ok,
        "baseline_limitations": [],
    }


def _record(name: str, pto: str, ratio: float | None, shape: int = 4) -> dict:
    variant = _variant(pto, ratio)
    variant["shape_summary"] = {"x": [shape, 4]}
    return {
        "name": name,
        "family": "fam",
        "baseline_status": "ok",
        "pto_status": pto,
        "baseline_reason": None,
        "pto_reason": None if pto == "ok" else "lowering failed",
        "variants": [variant],
    }


def _data(*records: dict) -> dict:
    return {"generated_at": "20260101T000000Z", "kernels": list(records)}


def test_json_duplicate_warns_and_keeps_the_blocked_record():
    for order in ((0, 1), (1, 0)):
        records = [_record("dup", "ok", 80.0), _record("dup", "blocked", None, shape=8)]
        data = _data(_record("other", "ok", 50.0), *(records[i] for i in order))
        parsed, warnings = readers.read_regression_json(json.dumps(data), "/r/regression_latest.json")
        kernels = {k.name: k for k in parsed["kernels"]}
        assert [k.name for k in parsed["kernels"]] == ["other", "dup"]
        assert kernels["dup"].pto_status == "blocked" and kernels["dup"].pto_reason == "lowering failed"
        assert len(kernels["dup"].variants) == 2  # both records' shapes are kept
        assert len(warnings) == 1 and warnings[0].file == "/r/regression_latest.json"
        assert "dup" in warnings[0].message and "other" not in warnings[0].message


def test_markdown_and_state_matrix_duplicates_warn_too():
    data = _data(_record("dup", "blocked", None), _record("other", "ok", 50.0), _record("dup", "ok", 80.0, shape=8))
    parsed, warnings = readers.read_regression_md(writers.regression_md(data), "r.md")
    kernels = {k.name: k for k in parsed["kernels"]}
    assert kernels["dup"].pto_status == "blocked" and len(warnings) == 1 and "dup" in warnings[0].message
    parsed, warnings = readers.read_regression_csv(writers.regression_csv(data), "r.csv")
    assert {k.name: k for k in parsed["kernels"]}["dup"].pto_status == "blocked" and len(warnings) == 1

    state = json.loads((SAMPLES / "reports" / "kernel_state_matrix_latest.json").read_text())
    blocked = next(k for k in state["kernels"] if k["pto_status"] == "blocked")
    copy = dict(blocked, pto_status="ok", primary_class="green + tile-first", gap_ids=[])
    state["kernels"].append(copy)
    for reader, text in (
        (readers.read_state_json, json.dumps(state)),
        (readers.read_state_md, writers.state_md(state)),
    ):
        parsed, warnings = reader(text, "s")
        merged = [k for k in parsed["kernels"] if k.name == blocked["name"]]
        assert len(merged) == 1 and merged[0].pto_status == "blocked", reader
        assert merged[0].klass == blocked["primary_class"] and merged[0].gap_ids == blocked["gap_ids"]
        assert [w.file for w in warnings] == ["s"] and blocked["name"] in warnings[0].message


def test_the_loaded_kernel_is_blocked_and_the_warning_names_the_file(tmp_path):
    reports = tmp_path / "reports"
    reports.mkdir()
    path = reports / "regression_latest.json"
    path.write_text(json.dumps(_data(_record("dup", "ok", 80.0), _record("dup", "blocked", None))))
    loaded = load(Location(reports, tmp_path))
    assert [k.name for k in loaded.kernels] == ["dup"]
    assert loaded.kernels[0].tier == "pto-blocked"
    assert [w.file for w in loaded.warnings] == [str(path)]


def test_distinct_names_give_no_warning():
    data = _data(_record("a", "ok", 80.0), _record("b", "blocked", None))
    for reader, text in (
        (readers.read_regression_json, json.dumps(data)),
        (readers.read_regression_md, writers.regression_md(data)),
    ):
        parsed, warnings = reader(text, "r")
        assert warnings == [] and [k.name for k in parsed["kernels"]] == ["a", "b"]
