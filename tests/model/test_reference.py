"""The published reading of the real 2026-03-21 snapshot, reproduced from its files."""

from __future__ import annotations

import json
import shutil

import pytest

from ptotui.model.location import Location, locate
from ptotui.model.read.loader import load
from ptotui.model.read.writers import regression_csv, regression_md, state_md

pytestmark = pytest.mark.reference

PUBLISHED = {
    # kernel: (tier, ratio range as published, or PTO ms)
    "grouped_mat_mul_all_reduce": ("high", "89.4%..94.5%"),
    "prompt_flash_attention": ("high", "71.0%..87.4%"),
    "matmul_reduce_scatter": ("high", "76.6%..82.7%"),
    "grouped_matmul": ("mid", "42.3%..42.5%"),
    "flash_attention_score": ("mid", "36.2%..37.3%"),
    "fused_infer_attention_score": ("mid", "33.0%..41.1%"),
    "ffn": ("slow", "18.9%..20.7%"),
    "incre_flash_attention": ("slow", "24.0%..24.8%"),
    "qkv_rms_norm_rope_cache": ("baseline-blocked", 0.7783),
    "moe_finalize_routing_v2": ("baseline-blocked", 0.3181),
    "recurrent_gated_delta_rule": ("pto-blocked", None),
}


def test_published_reading(reference_bench):
    reports = load(locate(reference_bench.parent))
    assert reports.warnings == []
    assert len(reports.kernels) == 50
    kernels = reports.by_name()
    for name, (tier, expected) in PUBLISHED.items():
        kernel = kernels[name]
        assert kernel.tier == tier, name
        if isinstance(expected, str):
            assert f"{kernel.ratio_min_pct:.1f}%..{kernel.ratio_max_pct:.1f}%" == expected, name
        elif isinstance(expected, float):
            assert round(kernel.pto_ms, 4) == expected, name
    assert kernels["recurrent_gated_delta_rule"].klass == "blocked by pto-isa/backend capability"
    assert kernels["recurrent_gated_delta_rule"].blocker_layer == "backend"
    # A baseline that fails its own check does not demote PTO.
    assert kernels["moe_gating_top_k"].baseline_correct is False
    assert kernels["moe_gating_top_k"].tier == "mid"
    assert kernels["moe_init_routing"].tier == "correctness-gap"


def test_writers_match_the_generator_byte_for_byte(reference_bench):
    reports = reference_bench / "reports"
    assert (
        regression_md(json.loads((reports / "regression_latest.json").read_text()))
        == (reports / "regression_latest.md").read_text()
    )
    for source in reports.glob("kernel_state_matrix_*.json"):
        assert state_md(json.loads(source.read_text())) == source.with_suffix(".md").read_text(), source.name


def _facts(reports):
    out = {}
    for k in reports.kernels:
        out[k.name] = (
            k.family,
            k.wave,
            k.klass,
            k.tier,
            k.baseline_status,
            k.pto_status,
            len(k.variants),
            tuple(k.gap_ids),
            k.blocker_layer,
            k.scalar_heavy,
        )
    return out


def _ratios(reports):
    return {k.name: (k.ratio_min_pct, k.ratio_median_pct, k.ratio_max_pct) for k in reports.kernels}


@pytest.mark.parametrize("fmt", ["md", "csv"])
def test_markdown_and_csv_give_the_same_facts_as_json(reference_bench, tmp_path, fmt):
    bench = tmp_path / "bench"
    (bench / "reports").mkdir(parents=True)
    for name in ("gap_board.yaml", "kernel_inventory.yaml"):
        shutil.copy(reference_bench / name, bench)
    shutil.copy(reference_bench / "reports" / "kernel_state_matrix_latest.md", bench / "reports")
    data = json.loads((reference_bench / "reports" / "regression_latest.json").read_text())
    if fmt == "md":
        shutil.copy(reference_bench / "reports" / "regression_latest.md", bench / "reports")
    else:
        (bench / "reports" / "regression_latest.csv").write_text(regression_csv(data))
    expected = load(Location(reference_bench / "reports", reference_bench))
    got = load(Location(bench / "reports", bench))
    assert got.warnings == []
    assert _facts(got) == _facts(expected)
    for name, ratios in _ratios(expected).items():
        # The markdown carries ratios to 0.1 percentage point.
        mine = _ratios(got)[name]
        for got_ratio, want in zip(mine[:2], ratios[:2], strict=True):
            assert got_ratio == (None if want is None else pytest.approx(want, abs=0.06)), name
        pto_ms = expected.by_name()[name].pto_ms
        assert got.by_name()[name].pto_ms == (pytest.approx(pto_ms, abs=6e-5) if pto_ms else None)


def test_truncated_json_falls_back_to_the_markdown_twin(reference_bench, tmp_path):
    bench = tmp_path / "bench"
    shutil.copytree(reference_bench, bench)
    target = bench / "reports" / "regression_latest.json"
    text = target.read_text()
    target.chmod(0o644)
    target.write_text(text[: len(text) // 2])
    reports = load(Location(bench / "reports", bench))
    assert len(reports.kernels) == 50
    assert any("regression_latest.json" in w.file and "truncated" in w.message for w in reports.warnings)
    assert reports.by_name()["prompt_flash_attention"].tier == "high"
