"""One formatting module: every output reads numbers and correctness the same way."""

from __future__ import annotations

from ptotui.app import render
from ptotui.model import fmt
from ptotui.model.types import Kernel


def test_numbers_and_ranges():
    assert (fmt.ms(None), fmt.ms(0.15214), fmt.pct(None), fmt.pct(34.26)) == ("n/a", "0.1521", "n/a", "34.3%")
    assert fmt.ratio_range(Kernel(name="k", ratio_min_pct=30.02, ratio_max_pct=29.98)) == "30.0%"
    assert fmt.ratio_range(Kernel(name="k", ratio_min_pct=30.0, ratio_max_pct=41.0)) == "30.0%..41.0%"
    assert fmt.ratio_range(Kernel(name="k", ratio_min_pct=None, ratio_max_pct=41.0)) == "n/a"


def test_correctness_is_one_rule_for_the_table_and_the_detail():
    cases = [(True, "ok", "pass"), (False, "ok", "FAIL"), (None, "ok", "?"), (False, "blocked", "n/a")]
    for value, status, label in cases:
        assert fmt.correctness(value, status) == label
        assert render.correct(value, status).plain == label
    blocked = Kernel(name="k", pto_status="blocked")
    assert render.correctness(blocked).plain == "n/a"
