"""One formatting module: every output reads numbers and correctness the same way."""

from __future__ import annotations

from ptotui.app import render
from ptotui.model.core import fmt
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


def test_header_parts_shorten_then_drop_the_least_important_first():
    from rich.text import Text

    from ptotui.app.render import Part, fit_parts

    parts = [
        Part(Text(" 3 regressions since 20260101T000000Z "), 0),
        Part(Text(" /srv/bench/a/very/long/checkout/bench/reports"), 6, Text(" …/bench/reports"), 4),
        Part(Text("  gen 20260101T000000Z"), 3),
        Part(Text("  read 10:00:00"), 5),
        Part(Text("  12/50"), 1),
        Part(Text("  by ratio"), 2),
        Part(Text("  only untriaged"), 0),
    ]
    wide = fit_parts(parts, 500).plain
    assert wide == "".join(part.text.plain for part in parts)
    at_80 = fit_parts(parts, 80).plain
    assert len(at_80) <= 80
    assert "only untriaged" in at_80 and "3 regressions" in at_80 and "12/50" in at_80  # never dropped first
    assert "read 10:00:00" not in at_80  # the read time goes before the shortened path
    assert "…/bench/reports" in fit_parts(parts, 110).plain and "read" not in fit_parts(parts, 110).plain
    narrow = fit_parts(parts, 56).plain
    assert narrow == " 3 regressions since 20260101T000000Z   only untriaged"

    def whole(line: str, choices: list[list[str]]) -> bool:
        """``line`` is, in order, each part whole, shortened or left out."""
        if not choices:
            return line == ""
        first, rest = choices[0], choices[1:]
        return whole(line, rest) or any(line.startswith(c) and whole(line[len(c) :], rest) for c in first)

    choices = [[part.text.plain] + ([part.short.plain] if part.short else []) for part in parts]
    for width in range(0, 140):
        line = fit_parts(parts, width).plain
        assert len(line) <= width and whole(line, choices), (width, line)
