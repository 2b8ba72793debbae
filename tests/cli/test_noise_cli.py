"""ptotui summary on what regressed since the snapshot, beyond its noise band."""

from __future__ import annotations


def test_summary_says_what_regressed_since_the_snapshot_and_where_only_the_baseline_moved(sample_bench, capsys):
    from ptotui.cli import main
    from tests.helpers import rewrite_kernels

    def block(side: str):
        def edit(kernel: dict) -> None:
            kernel[f"{side}_status"] = "blocked"
            for variant in kernel["variants"]:
                variant[f"{side}_status"] = "blocked"
                variant[f"{side}_median_ms"] = None
                variant["baseline_over_pto_pct"] = None

        return edit

    assert main(["summary", str(sample_bench)]) == 0
    assert "regression(s): " not in capsys.readouterr().out.splitlines()[1]
    edits = {"topk_router_softmax": block("pto"), "layernorm_gated": block("baseline")}
    rewrite_kernels(sample_bench / "reports", edits)
    assert main(["summary", str(sample_bench)]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert line.startswith("Since snapshot ") and ": 1 regression(s): topk_router_softmax;" in line
    assert line.endswith("the baseline moved (not counted): layernorm_gated")
