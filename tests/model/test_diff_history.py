"""Diff rules, the diff command's exit codes, and the history reader."""

from __future__ import annotations

import copy

from ptotui.model.core.diff import diff, direction_of
from ptotui.model.history.snapshots import read_history
from ptotui.model.read.loader import load


def _pair(sample_location):
    old = load(sample_location)
    return old, copy.deepcopy(old)


def test_diff_rules(sample_location):
    old, new = _pair(sample_location)
    k = new.by_name()
    k["layernorm_gated"].tier = "pto-blocked"
    k["layernorm_gated"].pto_status = "blocked"
    k["softmax_online_fused"].ratio_median_pct -= 1.9  # below the 2 pp threshold
    k["topk_router_softmax"].ratio_median_pct += 2.5
    k["chunked_cross_entropy"].variants[0].pto_correct = False
    new.kernels = [x for x in new.kernels if x.name != "ragged_all_to_all"]
    changes = diff(old, new)
    kinds = {(c.kernel, c.kind): c for c in changes}
    assert kinds[("layernorm_gated", "tier")].regression
    assert kinds[("layernorm_gated", "pto_status")].regression
    assert ("softmax_online_fused", "ratio") not in kinds
    assert (
        kinds[("topk_router_softmax", "ratio")].direction == 1
        and not kinds[("topk_router_softmax", "ratio")].regression
    )
    assert kinds[("chunked_cross_entropy", "correctness")].regression
    assert ("ragged_all_to_all", "removed") in kinds
    assert direction_of([kinds[("topk_router_softmax", "ratio")], kinds[("layernorm_gated", "tier")]]) == -1
    assert diff(old, copy.deepcopy(old)) == []


def test_history_on_sample_snapshots(sample_location):
    history = read_history(sample_location)
    assert history.stamps == ["20261101T080000Z", "20261115T080000Z", "20261126T080000Z"]
    rotary = history.kernels["rotary_embedding_3d"]
    assert [p.tier for p in rotary] == ["slow", "slow", "slow"]
    assert rotary[0].ratio_median_pct < rotary[-1].ratio_median_pct
    argsort = history.kernels["segmented_argsort"]
    assert argsort[0].pto_status == "blocked" and argsort[-1].klass == "blocked by PTO correctness gap"
    assert history.sparkline("segmented_argsort")[0] == "×"
    assert len(history.sparkline("softmax_online_fused")) == 3


def test_history_prefers_json_and_skips_a_torn_snapshot(sample_location):
    (sample_location.reports / "kernel_state_matrix_20261115T080000Z.json").write_text('{"kernels": [')
    history = read_history(sample_location)
    assert "20261115T080000Z" not in history.stamps and len(history.stamps) == 2
    assert history.warnings and "20261115" in history.warnings[0].file


def test_history_on_reference(reference_bench):
    from ptotui.model.location import locate

    history = read_history(locate(reference_bench))
    assert len(history.stamps) == 18
    assert "recurrent_gated_delta_rule" in history.kernels
