"""Which side moved, by more than its noise: bands, causes, and the diff's rule."""

from __future__ import annotations

import json

import pytest

from ptotui.model.bench.noisedata import DiskTree, collect
from ptotui.model.core.diff import (
    BASELINE_MOVED,
    BETTER,
    NEUTRAL,
    WORSE,
    baseline_kernels,
    diff,
    direction_of,
    payload,
    regressed_kernels,
)
from ptotui.model.core.movement import attribute
from ptotui.model.core.noise import (
    DEFAULT_PCT,
    FLOOR_PCT,
    REPORT_FACTOR,
    Band,
    Noise,
    SideNoise,
    change_pct,
    history_band,
    report_band,
    rounds_band,
)
from ptotui.model.core.tiers import classify
from ptotui.model.types import Kernel, ReportSet, Variant

SHAPES = ({"m": 64}, {"m": 128}, {"m": 256})


def kernel(name: str, pto: list[float | None], baseline: list[float | None], **fields) -> Kernel:
    """A kernel whose per-shape ratios are Baseline / PTO of its latencies, as the generator writes them."""
    variants = []
    for params, p, b in zip(SHAPES, pto, baseline, strict=False):
        ratio = b / p * 100 if p is not None and b is not None else None
        variants.append(
            Variant(
                shape=None,
                params=params,
                pto_status="ok" if p is not None else "blocked",
                baseline_status="ok" if b is not None else "blocked",
                pto_ms=p,
                baseline_ms=b,
                ratio_pct=ratio,
                pto_correct=True,
                baseline_correct=True,
            )
        )
    k = Kernel(
        name,
        family="fam",
        pto_status="ok" if any(p is not None for p in pto) else "blocked",
        baseline_status="ok" if any(b is not None for b in baseline) else "blocked",
        variants=variants,
        **fields,
    )
    return classify(k, {})


def pair(old: Kernel, new: Kernel) -> tuple[ReportSet, ReportSet]:
    return ReportSet("old", kernels=[old]), ReportSet("new", kernels=[new])


def scaled(values: list[float], factor: float) -> list[float | None]:
    return [v * factor for v in values]


PTO = [0.25, 0.26, 0.30]
BASE = [0.12, 0.115, 0.14]


# -- bands -------------------------------------------------------------------------------


def test_change_is_the_median_over_the_shapes_both_have():
    old = {"a": 1.0, "b": 2.0, "c": 4.0, "gone": 9.0}
    new = {"a": 1.1, "b": 2.0, "c": 4.8, "new": 1.0}
    assert change_pct(old, new) == pytest.approx(10.0)
    assert change_pct({"a": 1.0}, {"b": 1.0}) is None


def test_history_band_is_the_upper_fence_of_consecutive_changes_and_ignores_a_code_step():
    steady = [{"s": v} for v in (1.00, 1.01, 0.99, 1.00, 1.02, 1.00)]
    band = history_band(steady)
    assert band is not None and band.source == "history" and band.points == 6
    assert 1.0 < band.pct < 6.0
    stepped = history_band([*steady, {"s": 1.5}, {"s": 1.51}, {"s": 1.49}])
    assert stepped is not None and stepped.pct < 10.0  # one 50% step among small ones is not noise
    assert history_band(steady[:4]) is None  # too few points: the next source decides


def test_rounds_and_report_bands():
    rounds = rounds_band([{"s": 1.00}, {"s": 1.08}, {"s": 1.03}])
    assert rounds == Band(pytest.approx(8.0), "rounds", 3)
    assert rounds_band([{"s": 1.0}]) is None
    report = report_band([[(0.98, 1.0), (1.9, 2.0), (2.7, 3.0)], [(0.99, 1.0)]])
    assert report is not None and report.source == "report" and report.points == 4
    assert report.pct == pytest.approx(REPORT_FACTOR * (2.0 + 5.0) / 2)  # 5x the median spread over every shape
    assert REPORT_FACTOR == 5.0  # calibrated: benchmarks/bench_noise.py --calibrate (docs/regressions.md)
    assert report_band([[(0.0, 1.0)]]) is None  # a min of 0 is no measurement


def test_side_band_order_default_and_floor():
    history = [{"s": 1.0 + 0.001 * i} for i in range(6)]
    both = SideNoise(history, [{"s": 1.0}, {"s": 1.5}], [])
    assert both.band().source == "history" and both.band().pct == FLOOR_PCT  # tiny noise: the floor
    assert both.band(floor=1.0).pct < 1.0 or both.band(floor=1.0).pct == 1.0
    assert SideNoise([], [{"s": 1.0}, {"s": 1.5}], []).band().source == "rounds"
    assert SideNoise([], [], []).band() == Band(DEFAULT_PCT, "default", 0)
    assert SideNoise([], [], []).band(floor=15.0).pct == 15.0


# -- causes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pto", "baseline", "cause"),
    [
        (11.4, -3.2, "pto-slower"),
        (-8.0, 1.0, "pto-faster"),
        (-1.4, -38.7, "baseline-faster"),
        (2.0, 12.0, "baseline-slower"),
        (20.0, 21.0, "both"),  # the host slowed both alike
        (40.0, 10.0, "pto-slower"),  # both slower, PTO by far more than the host explains
        (12.0, -20.0, "pto-slower"),  # opposite ways: PTO's own move counts
        (2.0, -3.0, "noise"),
        (None, -30.0, "unknown"),
        (8.0, None, "pto-slower"),  # the baseline blocked on a side: PTO's latency still stands
    ],
)
def test_attribute(pto, baseline, cause):
    assert attribute(pto, baseline, 5.0, 5.0) == cause


# -- the diff ----------------------------------------------------------------------------


def test_a_baseline_speed_up_is_shown_never_counted():
    old, new = pair(kernel("k", PTO, BASE), kernel("k", scaled(PTO, 0.986), scaled(BASE, 0.613)))
    changes = diff(old, new)
    [ratio] = [c for c in changes if c.kind == "ratio"]
    assert ratio.cause == "baseline-faster" and not ratio.regression and ratio.direction == -1
    assert "baseline −38.7% (beyond its ±10.0%), PTO −1.4% (within its ±10.0%)" in ratio.describe()
    assert ratio.describe().endswith("the baseline got faster: not a PTO regression")
    assert regressed_kernels(changes) == [] and baseline_kernels(changes) == ["k"]
    assert direction_of(changes) == BASELINE_MOVED


def test_a_pto_slowdown_beyond_its_band_is_a_regression():
    old, new = pair(kernel("k", PTO, BASE), kernel("k", scaled(PTO, 1.3), BASE))
    changes = diff(old, new)
    ratio = next(c for c in changes if c.kind == "ratio")
    assert ratio.cause == "pto-slower" and ratio.regression
    assert ratio.move is not None and ratio.move.pto_change_pct == pytest.approx(30.0)
    assert regressed_kernels(changes) == ["k"] and direction_of(changes) == WORSE
    entry = payload(*pair(kernel("k", PTO, BASE), kernel("k", scaled(PTO, 1.3), BASE)), changes)["changes"][-1]
    assert entry["cause"] == "pto-slower" and entry["pto_change_pct"] == pytest.approx(30.0)
    assert entry["pto_ms"] == [pytest.approx(0.26), pytest.approx(0.338)]
    assert entry["band_pct"] == {"pto": DEFAULT_PCT, "baseline": DEFAULT_PCT}


def test_a_move_inside_both_bands_is_noise_and_so_is_its_tier_change():
    # 69% -> 71%: over the HIGH line by a 3% PTO speed-up, inside a 5% band.
    old = kernel("k", [1.0, 1.0, 1.0], [0.69, 0.69, 0.69])
    new = kernel("k", [0.97, 0.97, 0.97], [0.69, 0.69, 0.69])
    noise = Noise({"k": {"pto": SideNoise([], [{"s": 1.0}, {"s": 1.05}], [])}})
    changes = diff(*pair(old, new), noise=noise)
    assert [c.cause for c in changes] == ["noise", "noise"]  # the tier, the ratio
    assert not any(c.regression for c in changes) and direction_of(changes) == NEUTRAL
    # The band decides: with a tighter floor and no repeated measurements, the default still holds.
    tight = Noise({"k": {"pto": SideNoise([], [{"s": 1.0}, {"s": 1.01}], [])}}, floor=1.0)
    assert next(c for c in diff(*pair(old, new), noise=tight) if c.kind == "ratio").cause == "pto-faster"
    assert direction_of(diff(*pair(old, new), noise=tight)) == BETTER


def test_the_old_rule_is_kept_with_rule_ratio():
    old, new = pair(kernel("k", PTO, BASE), kernel("k", scaled(PTO, 0.986), scaled(BASE, 0.613)))
    changes = diff(old, new, rule="ratio")
    assert regressed_kernels(changes) == ["k"]
    assert payload(old, new, changes, rule="ratio")["rule"] == "ratio"


def test_a_snapshot_range_is_compared_as_a_range_and_keeps_the_old_rule():
    old = classify(Kernel("k", pto_status="ok", baseline_status="ok", state_ratio_range="45.0%..62.0%"), {})
    new = kernel("k", PTO, scaled(BASE, 0.8))  # ratios 35.4..38.4%: still MID
    [ratio] = diff(*pair(old, new))
    assert ratio.label == "ratio range" and ratio.old == "45.0..62.0%" and ratio.new.startswith("35.")
    assert ratio.cause == "unknown" and ratio.regression
    assert "which side moved cannot be told" in ratio.describe()
    assert "53.5" not in ratio.describe()  # a range's middle is not a median
    low = kernel("k", PTO, scaled(BASE, 0.5))  # SLOW now: the tier follows the range's rule too
    tier = next(c for c in diff(*pair(old, low)) if c.kind == "tier")
    assert tier.cause == "unknown" and tier.regression
    # Two snapshots: ranges on both sides, the old rule on their tiers.
    later = classify(Kernel("k", pto_status="ok", baseline_status="ok", state_ratio_range="20.0%..25.0%"), {})
    changes = diff(*pair(old, later))
    assert [(c.kind, c.cause, c.regression) for c in changes] == [("tier", "unknown", True), ("ratio", "unknown", True)]


def test_a_ratio_its_latencies_do_not_explain_keeps_the_old_rule():
    old = kernel("k", PTO, BASE)
    new = kernel("k", PTO, BASE)
    for variant in new.variants:
        variant.ratio_pct = 20.0  # edited by hand: the latencies did not move
    [ratio] = [c for c in diff(*pair(old, classify(new, {}))) if c.kind == "ratio"]
    assert ratio.cause == "unknown" and ratio.regression
    assert "do not account for the ratio" in ratio.describe()


def test_blocked_sides_who_did_it():
    # The baseline going blocked is the host's: shown, not counted. PTO's latency still stands.
    old, new = kernel("k", PTO, BASE), kernel("k", PTO, [None, None, None])
    changes = diff(*pair(old, new))
    assert {c.kind for c in changes} == {"tier", "baseline_status"}
    assert not any(c.regression for c in changes) and direction_of(changes) == BASELINE_MOVED
    slower = diff(*pair(old, kernel("k", scaled(PTO, 1.3), [None, None, None])))
    [latency] = [c for c in slower if c.kind == "pto_ms"]
    assert latency.regression and latency.cause == "pto-slower"
    # PTO going blocked is PTO's, whatever the tier says.
    gone = diff(*pair(old, kernel("k", [None, None, None], BASE)))
    assert regressed_kernels(gone) == ["k"]
    tier = next(c for c in gone if c.kind == "tier")
    assert tier.cause == "status" and tier.regression
    # PTO blocked, then the baseline too: still PTO-blocked, nothing PTO did.
    both = diff(*pair(kernel("k", [None, None, None], BASE), kernel("k", [None, None, None], [None, None, None])))
    assert not any(c.regression for c in both)


# -- the measurements at hand --------------------------------------------------------------


def _run(pto: dict[str, float], baseline: dict[str, float], spread: float = 0.02) -> dict:
    def side(values: dict[str, float]) -> dict:
        return {
            "benchmark": {
                "status": "ok",
                "variant_reports": [
                    {"variant": {"m": int(m)}, "timings_ms": {"min": v * (1 - spread), "median": v, "max": v * 2}}
                    for m, v in values.items()
                ],
            }
        }

    return {"name": "k", "pto": side(pto), "baseline": side(baseline)}


def test_collect_reads_history_generated_and_rounds_and_warns_on_a_torn_file(tmp_path):
    bench = tmp_path / "bench"
    for i, value in enumerate((1.0, 1.01, 0.99, 1.0, 1.02, 1.0)):
        run = bench / "results" / "fam" / "k" / f"2026031{i}T000000Z"
        run.mkdir(parents=True)
        (run / "report.json").write_text(json.dumps(_run({"64": value}, {"64": 0.5})))
    torn = bench / "results" / "fam" / "k" / "20260319T000000Z"
    torn.mkdir()
    (torn / "report.json").write_text('{"name": "k", "pto": {')
    generated = bench / "generated" / "fam" / "k"
    generated.mkdir(parents=True)
    (generated / "report.json").write_text(json.dumps(_run({"64": 1.0}, {"64": 0.5}, spread=0.05)))
    reports = bench / "reports"
    reports.mkdir()
    parity = {
        "kernels": [
            {
                "name": "k",
                "rounds": [{"variant_rows": [{"variant": {"m": 64}, "pto_median_ms": v}]} for v in (1.0, 1.1)],
            }
        ]
    }
    (reports / "kernel_parity_latest.json").write_text(json.dumps(parity))
    k = Kernel("k", family="fam")
    noise, warnings = collect(DiskTree(bench), DiskTree(bench), [k])
    side = noise.side("k", "pto")
    assert len(side.history) == 6 and len(side.rounds) == 2 and len(side.spreads) == 2
    assert noise.band("k", "pto").source == "history"
    assert noise.band("k", "baseline").source == "history"  # flat: the floor
    assert noise.band("k", "baseline").pct == FLOOR_PCT
    [warning] = warnings
    assert warning.file.endswith("20260319T000000Z/report.json") and "not used for noise bands" in warning.message
    # A kernel whose name is no plain path part reads nothing from the tree.
    noise, warnings = collect(DiskTree(bench), DiskTree(bench), [Kernel("../k", family="fam")])
    assert noise.band("../k", "pto").source == "default" and warnings == []
