"""One blocker definition: what counts, in what order, and which gap unblocks most."""

from __future__ import annotations

import io
import re

from rich.console import Console

from ptotui.commands.summary import blocker_table
from ptotui.model.core.blockers import (
    GAPS_SECTION,
    HOST_SECTION,
    blocker_order,
    blocker_sections,
    gaps_by_impact,
    is_blocker,
)
from ptotui.model.core.tiers import classify
from ptotui.model.location import locate
from ptotui.model.read.loader import load
from ptotui.model.triage import TriageStore, triage_rows
from ptotui.model.types import Gap, Kernel, Variant


def kernel(name: str, tier: str, gaps: list[str] = (), klass: str | None = None) -> Kernel:
    """A kernel built from report fields, classified the way the loader does it."""
    pto, base, correct, ratio = "ok", "ok", True, {"high": 80.0, "mid": 50.0, "slow": 10.0}.get(tier, 50.0)
    if tier in ("pto-blocked", "both-blocked"):
        pto = "blocked"
    if tier in ("baseline-blocked", "both-blocked"):
        base = "blocked"
    if tier == "correctness-gap":
        correct = False
    variant = Variant(
        baseline_status=base,
        pto_status=pto,
        ratio_pct=ratio if "blocked" not in tier else None,
        baseline_correct=True,
        pto_correct=correct,
    )
    made = Kernel(name, baseline_status=base, pto_status=pto, klass=klass, gap_ids=list(gaps), variants=[variant])
    classify(made, BOARD)
    assert made.tier == tier
    return made


BOARD = {
    "dsl-a": Gap("dsl-a", "ptodsl", "open", "surface A"),
    "dsl-b": Gap("dsl-b", "ptodsl", "open", "surface B"),
    "as-c": Gap("as-c", "ptoas", "open", "lowering C"),
    "done": Gap("done", "ptodsl", "resolved", "fixed last week"),
}


def test_working_kernels_with_gaps_are_open_work_not_blockers():
    working = kernel("w", "mid", ["dsl-a"])
    assert not is_blocker(working) and working.blocker_layer is None
    kernels = [working, kernel("p", "pto-blocked", ["dsl-a"], "blocked by PTODSL surface")]
    assert [k.name for k in blocker_order(kernels)] == ["p"]
    sections = blocker_sections(kernels)
    assert [s.key for s in sections] == ["ptodsl", GAPS_SECTION]
    assert [k.name for k in sections[-1].kernels] == ["w"]
    # A working kernel whose only gap is resolved carries no open work at all.
    assert [s.key for s in blocker_sections([kernel("r", "high", ["done"])])] == []


def test_order_layers_by_count_then_tier_then_name_host_after():
    kernels = [
        kernel("z_corr", "correctness-gap", [], "blocked by PTO correctness gap"),
        kernel("b_both", "both-blocked", ["dsl-a"], "blocked by PTODSL surface"),
        kernel("a_both", "both-blocked", ["dsl-b"], "blocked by PTODSL surface"),
        kernel("y_pto", "pto-blocked", ["dsl-a", "dsl-b"], "blocked by PTODSL surface"),
        kernel("lower", "pto-blocked", ["as-c"], "blocked by PTOAS lowering"),
        kernel("a_host", "baseline-blocked", [], "blocked by host baseline/runtime gap"),
        kernel("fast", "high", ["as-c"]),
    ]
    sections = blocker_sections(kernels)
    assert [s.key for s in sections] == ["ptodsl", "ptoas", "correctness", HOST_SECTION, GAPS_SECTION]
    assert [k.name for k in sections[0].kernels] == ["y_pto", "a_both", "b_both"]
    assert [k.name for k in blocker_order(kernels)] == ["y_pto", "a_both", "b_both", "lower", "z_corr", "a_host"]


def test_gaps_ranked_by_kernels_their_fix_unblocks():
    kernels = [
        kernel("one", "pto-blocked", ["dsl-b"], "blocked by PTODSL surface"),
        kernel("two", "both-blocked", ["dsl-b"], "blocked by PTODSL surface"),
        kernel("three", "pto-blocked", ["dsl-a", "dsl-b"], "blocked by PTODSL surface"),
        kernel("four", "pto-blocked", ["dsl-a", "as-c"], "blocked by PTODSL surface"),
        kernel("five", "pto-blocked", ["done", "as-c"], "blocked by PTOAS lowering"),  # done is resolved
        kernel("fast", "high", ["dsl-a"]),
    ]
    impacts = {g.id: g for g in gaps_by_impact(kernels, BOARD)}
    ranked = [g.id for g in gaps_by_impact(kernels, BOARD)]
    assert ranked == ["dsl-b", "as-c", "dsl-a"]
    assert impacts["dsl-b"].unblocks == ("one", "two") and len(impacts["dsl-b"].blocks) == 3
    assert impacts["as-c"].unblocks == ("five",)
    assert impacts["dsl-a"].unblocks == () and impacts["dsl-a"].working == ("fast",)
    assert impacts["dsl-a"].summary == "surface A" and impacts["dsl-a"].component == "ptodsl"
    assert "done" not in impacts


def test_reference_blockers_cli_and_pane_share_one_order(reference_bench, tmp_path):
    reports = load(locate(reference_bench.parent))
    blockers = blocker_order(reports.kernels)
    assert len(blockers) == 18  # 2 PTO-BLOCKED, 6 BOTH-BLOCKED, 1 CORRECTNESS, 9 BASELINE-BLOCKED
    assert all(k.tier not in ("high", "mid", "slow") for k in blockers)
    sections = blocker_sections(reports.kernels)
    assert sections[0].key == "ptodsl" and sections[0].kernels[0].tier == "both-blocked"
    assert [s.key for s in sections][-2:] == [HOST_SECTION, GAPS_SECTION]
    store = TriageStore(tmp_path / "triage.json", "/ref")
    assert [row["kernel"] for row in triage_rows(reports.kernels, store)] == [k.name for k in blockers]
    assert {row["state"] for row in triage_rows(reports.kernels, store)} == {"untriaged"}
    out = io.StringIO()
    Console(file=out, width=400).print(blocker_table(reports))
    listed = [name for name in re.findall(r"│ *[^│]*│ ([a-z0-9_]+) +│", out.getvalue())]
    assert listed == [k.name for k in blockers]
    # The regression that started it all: a working kernel is never listed as a blocker.
    assert not is_blocker(reports.by_name()["grouped_mat_mul_all_reduce"])


def test_a_pto_side_gap_unblocks_only_pto_side_blockers():
    """Issue 24: a BASELINE-BLOCKED kernel already runs PTO; a PTO-side gap cannot unblock it."""
    board = dict(BOARD)
    board["host-x"] = Gap("host-x", "ops-transformer", "open", "no host entrypoint")
    kernels = [
        kernel("pto", "pto-blocked", ["dsl-a"], "blocked by PTODSL surface"),
        kernel("base", "baseline-blocked", ["dsl-a"], "blocked by host baseline/runtime gap"),
        kernel("base2", "baseline-blocked", ["host-x"], "blocked by host baseline/runtime gap"),
        # PTO is held back by dsl-b alone: the host gap beside it does not stand in PTO's way.
        kernel("both", "both-blocked", ["dsl-b", "host-x"], "blocked by PTODSL surface"),
    ]
    impacts = {g.id: g for g in gaps_by_impact(kernels, board)}
    assert impacts["dsl-a"].unblocks == ("pto",)
    assert impacts["dsl-b"].unblocks == ("both",)
    assert impacts["host-x"].unblocks == ("base2",)  # the host's gap unblocks the host's blocker


def test_reference_routing_gap_does_not_count_baseline_blocked_kernels(reference_bench):
    reports = load(locate(reference_bench.parent))
    tiers = {k.name: k.tier for k in reports.kernels}
    assert tiers["moe_finalize_routing_v2"] == tiers["moe_finalize_routing_v2_grad"] == "baseline-blocked"
    impacts = {g.id: g for g in gaps_by_impact(reports.kernels, reports.gaps)}
    unblocks = impacts["ptodsl-routing-sort-primitives"].unblocks
    assert "moe_finalize_routing_v2" not in unblocks and "moe_finalize_routing_v2_grad" not in unblocks
    assert all(tiers[name] in ("pto-blocked", "both-blocked", "correctness-gap") for name in unblocks)
