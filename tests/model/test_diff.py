"""diff's words for a change: what it says when the ranges cannot tell which side moved."""

from __future__ import annotations

from ptotui.model.types import Kernel, Variant


def test_a_range_move_that_is_no_regression_does_not_say_counted() -> None:
    """A snapshot's ranges cannot tell which side moved; the old rule judges, and a ratio that
    rose is not "counted by the ratio"."""
    from ptotui.model.core.diff import kernel_changes

    old, new = Kernel("k", baseline_status="ok", pto_status="ok"), Kernel("k", baseline_status="ok", pto_status="ok")
    old.tier = new.tier = "high"
    old.ratio_min_pct, old.ratio_max_pct, old.ratio_median_pct = 75.7, 98.5, 87.1
    new.ratio_min_pct, new.ratio_max_pct, new.ratio_median_pct = 89.4, 94.5, 92.0
    new.variants = [Variant(baseline_ms=0.9, pto_ms=1.0, ratio_pct=90.0, baseline_status="ok", pto_status="ok")]
    (change,) = [c for c in kernel_changes(old, new) if c.kind == "ratio"]
    assert change.cause == "unknown" and not change.regression
    assert "counted by the ratio" not in change.why() and "not a regression" in change.why()
