"""The older summaries with rounds (kernel_parity_*, regression_parity_*) as readers and as a main source."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptotui.model.location import Location
from ptotui.model.read.loader import load
from ptotui.model.read.parity import read_parity_json, read_parity_md
from tests import runtree

SHAPE = {"x": [32, 64]}


def _round(number: int, b: float | None, p: float | None, b_status: str = "ok", p_status: str = "ok") -> dict:
    return {
        "round": number,
        "baseline_status": b_status,
        "pto_status": p_status,
        "variant_rows": [
            {
                "variant": {"rows": 32},
                "shape_summary": SHAPE,
                "baseline_median_ms": b,
                "pto_median_ms": p,
                "baseline_over_pto_pct": None if b is None or p is None else b / p * 100,
            }
        ],
    }


def parity_json(kind: str = "kernel_parity") -> dict:
    return {
        "generated_at": "20260402T080000Z",
        "rounds": 3,
        "kernels": [
            {
                "name": "tile_scan",
                "spec": "bench/specs/scan/tile_scan.yaml",
                "latest_report_path": "/home/someone/pto-kernels/bench/generated/scan/t/report.json",
                "variants": [
                    {
                        "variant": {"rows": 32},
                        "shape_summary": SHAPE,
                        "baseline_median_ms": 0.1,
                        "pto_median_ms": 0.25,
                        "baseline_over_pto_pct": 40.0,
                        "all_correct": True,
                    }
                ],
                "rounds": [_round(1, 0.1, 0.24), _round(2, 0.1, 0.25), _round(3, 0.1, 0.26)],
            },
            {
                "name": "ring_fold",
                "latest_report_path": "/home/someone/pto-kernels/bench/generated/mc/ring_fold/report.json",
                "variants": [
                    {
                        "variant": {},
                        "shape_summary": None,
                        "baseline_median_ms": None,
                        "pto_median_ms": 3.5,
                        "baseline_over_pto_pct": None,
                        "all_correct": False,
                    }
                ],
                "rounds": [_round(1, None, 3.5, b_status="blocked")],
            },
        ],
    }


PARITY_MD = """# Kernel Parity Summary

Generated: `20260402T080000Z`
Rounds per kernel: `3`

| Kernel | Input Shape | Baseline ms | PTO ms | Baseline / PTO | Correctness | Latest |
| --- | --- | ---: | ---: | ---: | --- | --- |
| tile_scan | `{"x": [32, 64]}` | 0.1000 | 0.2500 | 40.0% | pass | [report](bench/generated/scan/t/report.json) |
| ring_fold | `null` | n/a | 3.5000 | n/a | fail | [report](bench/generated/mc/ring_fold/report.json) |
"""


def test_parity_json_gives_kernels_and_their_rounds() -> None:
    parsed, warnings = read_parity_json(json.dumps(parity_json()), "kernel_parity_latest.json")
    assert warnings == []
    scan, fold = parsed["kernels"]
    assert (scan.name, scan.family, scan.baseline_status, scan.pto_status) == ("tile_scan", "scan", "ok", "ok")
    assert scan.variants[0].ratio_pct == 40.0 and scan.pto_correct is True
    assert [r.pto_ms for r in parsed["rounds"]["tile_scan"]] == [0.24, 0.25, 0.26]
    assert parsed["round_count"] == 3
    assert (fold.baseline_status, fold.pto_status, fold.variants[0].pto_ms) == ("blocked", "ok", 3.5)
    assert parsed["rounds"]["ring_fold"][0].baseline_ms is None


def test_parity_md_gives_the_same_kernels_without_rounds() -> None:
    parsed, warnings = read_parity_md(PARITY_MD, "kernel_parity_latest.md")
    assert warnings == []
    scan, fold = parsed["kernels"]
    assert (scan.name, scan.family, scan.variants[0].ratio_pct, scan.variants[0].pto_correct) == (
        "tile_scan",
        "scan",
        40.0,
        True,
    )
    assert fold.variants[0].pto_ms == 3.5 and fold.variants[0].baseline_ms is None
    assert parsed["round_count"] == 3 and parsed["rounds"] == {}


@pytest.mark.parametrize("bad", ["", "{", "[]", '{"kernels": [1, {"name": "k", "rounds": 5, "variants": "x"}]}'])
def test_bad_parity_files_warn_and_never_raise(bad: str) -> None:
    parsed, warnings = read_parity_json(bad, "kernel_parity_latest.json")
    assert warnings or parsed["kernels"]
    parsed, warnings = read_parity_md(bad, "kernel_parity_latest.md")
    assert warnings or parsed["kernels"]


@pytest.mark.parametrize(
    ("files", "said"),
    [
        ({"kernel_parity_latest.json": json.dumps(parity_json())}, "Kernel Parity Summary"),
        ({"kernel_parity_latest.md": PARITY_MD}, "Kernel Parity Summary"),
        (
            {
                "regression_parity_latest.json": json.dumps(parity_json("regression_parity")),
                "kernel_parity_latest.json": "{}",
            },
            "Regression Parity Summary",
        ),
    ],
)
def test_an_older_kind_is_the_main_source_when_there_is_no_regression_latest(
    tmp_path: Path, files: dict[str, str], said: str
) -> None:
    reports = tmp_path / "bench" / "reports"
    reports.mkdir(parents=True)
    for name, text in files.items():
        (reports / name).write_text(text, encoding="utf-8")
    result = load(Location(reports, reports.parent))
    assert sorted(k.name for k in result.kernels) == ["ring_fold", "tile_scan"]
    notes = [w for w in result.warnings if "older report kind" in w.message]
    assert len(notes) == 1 and said in notes[0].message
    assert not any("no report found" in w.message for w in result.warnings)
    tiers = {k.name: k.tier for k in result.kernels}
    assert tiers == {"tile_scan": "mid", "ring_fold": "baseline-blocked"}


def test_a_regression_latest_wins_over_the_older_kinds(sample_location: Location) -> None:
    (sample_location.reports / "kernel_parity_latest.json").write_text(json.dumps(parity_json()), encoding="utf-8")
    result = load(sample_location)
    assert "tile_scan" not in result.by_name()
    assert not any("older report kind" in w.message for w in result.warnings)


def test_a_checkout_of_35b63ef_shows_its_parity_kernels(tmp_path: Path) -> None:
    root = runtree.extract(tmp_path, "bench", commit="35b63ef")
    result = load(Location(root / "bench" / "reports", root / "bench"))
    assert len(result.kernels) == 6 and all(k.tier for k in result.kernels)
    assert any("Kernel Parity Summary" in w.message for w in result.warnings)
