"""Deeply nested input: any failure to parse a file means "this file is invalid", never a dead loader."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from ptotui.model.live import watcher as live
from ptotui.model.live.source import StableSource
from ptotui.model.live.watcher import ReportWatcher
from ptotui.model.location import Location
from ptotui.model.present import export
from ptotui.model.read import readers, values
from ptotui.model.read.loader import load
from ptotui.model.types import ReportSet
from tests.helpers import PATIENCE


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def nest_regression(location: Location, shape_levels: int) -> Path:
    """regression_latest.json with one kernel's shape_summary nested ``shape_levels`` deep."""
    path = location.reports / "regression_latest.json"
    text = path.read_text()
    data = json.loads(text)
    data["kernels"][0]["variants"][0]["shape_summary"] = "@@DEEP@@"
    path.write_text(json.dumps(data, indent=1).replace('"@@DEEP@@"', deep(shape_levels)))
    return path


def both_sources(location: Location) -> list[ReportSet]:
    return [load(location), load(location, source=StableSource(delays=(0.0,), sleep=lambda _: None))]


@pytest.mark.parametrize("shape_levels", [1_100, 100_000])
def test_a_shape_nested_too_deep_makes_the_json_invalid_and_the_twins_fill_in(sample_location, shape_levels):
    path = nest_regression(sample_location, shape_levels)
    for reports in both_sources(sample_location):
        assert len(reports.kernels) == 15
        (warning,) = [w for w in reports.warnings if w.file == str(path)]
        assert warning.message == "invalid JSON: nested too deep"
        assert any(f.endswith(("regression_latest.csv", "regression_latest.md")) for f in reports.files_read)


def test_2000_nested_brackets_as_the_whole_file(sample_location):
    path = sample_location.reports / "regression_latest.json"
    path.write_text('{"kernels": ' + deep(2_000) + "}")
    for reports in both_sources(sample_location):
        assert len(reports.kernels) == 15
        assert any(w.file == str(path) and "nested too deep" in w.message for w in reports.warnings)


def test_a_shape_deep_enough_to_parse_is_kept_as_text_so_nothing_downstream_recurses(sample_location):
    """900 levels parse, but comparing, diffing or exporting such a value can still hit the recursion limit."""
    nest_regression(sample_location, 900)
    reports = load(sample_location)
    shape = reports.kernels[0].variants[0].shape
    assert isinstance(shape, str) and "nested" in shape
    json.loads(export.to_json(reports))


def test_a_deep_input_shape_cell_loses_only_that_cell(sample_location):
    for name in ("regression_latest.json", "regression_latest.csv"):
        (sample_location.reports / name).unlink()
    path = sample_location.reports / "regression_latest.md"
    lines = path.read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("| ") and "`" in line.split("|")[2])
    cells = lines[row].split("|")
    cells[2] = " `" + deep(5_000) + "` "
    lines[row] = "|".join(cells)
    path.write_text("".join(lines))
    reports = load(sample_location)
    assert len(reports.kernels) == 15
    assert not any("RecursionError" in w.message for w in reports.warnings)


def test_the_loader_thread_survives_an_exception_in_the_first_load(sample_location, monkeypatch):
    """The first load ran outside the loop's guard: one exception and the app showed `loading…` for ever."""
    real = live.reload_reports
    calls = []

    def flaky(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a bug in the first load")
        return real(*args, **kwargs)

    monkeypatch.setattr(live, "reload_reports", flaky)
    loaded = threading.Event()
    errors: list[str] = []
    failed = threading.Event()

    def on_error(text: str) -> None:
        errors.append(text)
        failed.set()

    watcher = ReportWatcher(sample_location, lambda reports: loaded.set(), on_error=on_error, rescan=0.2)
    watcher.start()
    try:
        assert failed.wait(PATIENCE)
        assert "a bug in the first load" in errors[0]
        watcher.request_reload()  # `r`
        assert loaded.wait(PATIENCE), "the loader thread died"
    finally:
        watcher.stop()


def test_parse_shape_never_raises():
    assert isinstance(values.parse_shape("`" + deep(5_000) + "`"), str)


class CountingStr(str):
    """A str that counts how often it is compared for equality."""

    comparisons = 0

    def __eq__(self, other: object) -> bool:
        CountingStr.comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_deduplicating_limitations_is_linear():
    """`item not in list` per item: 50k limitations took 20 s. Count comparisons, not seconds."""
    items = [CountingStr(f"limit {i}") for i in range(5_000)]
    record = {"name": "k", "variants": [{"baseline_limitations": items}, {"baseline_limitations": items[:10]}]}
    CountingStr.comparisons = 0
    kernel = readers._regression_kernel(record)
    assert kernel.limitations == [str(i) for i in items]
    assert CountingStr.comparisons < 20 * len(items)  # quadratic was ~12.5 million
    md_rows = [({"kernel": "k", "baseline": "ok", "pto": "ok"}, {"limitations": items})] * 2
    CountingStr.comparisons = 0
    (md_kernel,) = readers._kernels_from_rows(md_rows)
    assert md_kernel.limitations == kernel.limitations
    assert CountingStr.comparisons < 20 * len(items)


def test_a_hundred_thousand_bad_entries_give_a_few_warning_lines(sample_location):
    """However many rows are bad, a few lines say so (a million took 9 s to write and read and
    told nothing more: the warnings are kept by kind, not counted one by one)."""
    path = sample_location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    data["kernels"] += [{"bad": i} for i in range(100_000)]
    path.write_text(json.dumps(data))
    reports = load(sample_location)
    assert len(reports.kernels) == 15
    mine = [w for w in reports.warnings if w.file == str(path)]
    assert len(mine) == 11
    assert mine[0].message == "kernels[15] has no name; skipped"
    assert mine[-1].message == "… and 99,990 more like this"


def test_warnings_of_different_kinds_are_all_kept():
    from ptotui.model.core.aggregate import aggregate
    from ptotui.model.types import ReadWarning

    warnings = [ReadWarning("a", f"row {i} is bad") for i in range(12)] + [ReadWarning("b", "row 1 is bad")]
    warnings += [ReadWarning("a", f"other {i}") for i in range(3)]
    out = aggregate(warnings, keep=10)
    assert [str(w) for w in out[:11]] == [f"a: row {i} is bad" for i in range(10)] + ["a: … and 2 more like this"]
    assert [str(w) for w in out[11:]] == ["b: row 1 is bad", "a: other 0", "a: other 1", "a: other 2"]


def test_a_failure_that_persists_is_reported_once_not_at_every_rescan(sample_location, monkeypatch):
    """Mid-session the same failure toasted every 2 s: after one report, only a change or `r` retries."""

    def broken(*args, **kwargs):
        raise RuntimeError("always")

    monkeypatch.setattr(live, "reload_reports", broken)
    errors: list[str] = []
    watcher = ReportWatcher(sample_location, lambda reports: None, on_error=errors.append, rescan=0.02)
    watcher.start()
    try:
        threading.Event().wait(0.6)  # some 30 rescans
        assert len(errors) == 1, errors
        watcher.request_reload()
        deadline = time.monotonic() + PATIENCE
        while len(errors) < 2 and time.monotonic() < deadline:
            threading.Event().wait(0.02)
        assert len(errors) == 2
    finally:
        watcher.stop()
