"""The readers' fast paths (measured by benchmarks/bench_scale.py) give what the plain rules give.

Each reference below is the rule as it reads plainly; the code under test takes shortcuts for
the common case (a cache of statuses, one call instead of three for a printable text, a
recursion per container instead of a stack entry per value). Any input, the same answer.
"""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ptotui.model.read import values
from ptotui.model.text import _CONTROLS, _ESCAPES, clean, clean_optional

TERMINAL_BYTES = st.sampled_from(["\x1b", "\x9b", "\x9d", "\x07", "\r", "\t", "\n", "\u202e", "\xa0", " "])
WORDS = st.sampled_from(["ok", "OK", " blocked ", "None", "null", "", "n/a", "fail", "Ok\n", "ok\x1b[0m"])
texts = WORDS | st.text(alphabet=st.characters() | TERMINAL_BYTES, max_size=12)
scalars = st.none() | st.booleans() | st.integers() | st.floats() | texts
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=2), children, max_size=3),
    max_leaves=40,
)


def reference_bounded(value: Any, limit: int) -> bool:
    """True when no list/dict sits ``limit`` or more levels down (the root is level 0)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= limit:
                return False
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return True


@given(json_values, st.integers(min_value=0, max_value=6))
def test_bounded_keeps_exactly_the_values_within_the_depth(value, limit):
    result = values.bounded(value, limit)
    if reference_bounded(value, limit):
        assert result is value
    else:
        assert result == f"(nested more than {limit} levels deep; not shown)"


def test_bounded_at_the_edge():
    assert values.bounded([[[]]], 3) == [[[]]]
    assert isinstance(values.bounded([[[]]], 2), str)
    assert isinstance(values.bounded({"a": [1, {"b": []}]}, 2), str)
    assert values.bounded({"a": [1, {"b": 2}]}, 3) == {"a": [1, {"b": 2}]}


@given(scalars | st.lists(texts, max_size=2))
def test_as_status_and_as_str_read_as_clean_optional_does(value):
    values._STATUSES.clear()
    plain = clean_optional(value)
    status = plain.lower() if plain else None
    assert values.as_status(value) == status
    assert values.as_status(value) == status  # the second time from the cache
    assert values.as_str(value) == (plain if isinstance(value, (str, int, float)) else None)


def test_the_status_cache_is_bounded():
    values._STATUSES.clear()
    for index in range(values._MAX_STATUSES * 2):
        assert values.as_status(f"Status{index}") == f"status{index}"
    assert len(values._STATUSES) == values._MAX_STATUSES


@given(st.floats() | st.integers(min_value=-(10**300), max_value=10**300) | st.booleans() | st.none())
def test_as_float_reads_numbers_as_finite_floats(value):
    expected = None
    if not isinstance(value, bool) and value is not None:
        number = float(value)
        expected = number if math.isfinite(number) else None
    assert values.as_float(value) == expected


def test_as_float_refuses_nan_and_infinities():
    for value in (math.nan, math.inf, -math.inf, "nan", "inf"):
        assert values.as_float(value) is None
    assert values.as_float(" 42.5% ") == 42.5


@given(texts)
def test_clean_without_its_shortcut(text):
    slow = _CONTROLS.sub("", _ESCAPES.sub("", text.replace("\r\n", "\n").replace("\t", " ")))
    assert clean(text) == slow


def reference_as_str_list(value: Any) -> list[str]:
    """The rule as it reads: every text or number of a list that is not blank, cleaned; a lone text."""
    if isinstance(value, list):
        return [clean(v) for v in value if isinstance(v, (str, int, float)) and str(v).strip()]
    if isinstance(value, str) and value.strip():
        return [clean(value)]
    return []


@given(st.lists(scalars, max_size=4) | scalars)
def test_as_str_list_reads_as_its_rule(value):
    assert values.as_str_list(value) == reference_as_str_list(value)


@given(scalars, st.sampled_from([None, values._WORD, 4]))
def test_as_word_reads_as_as_str_first_time_and_from_its_memo(value, longest):
    values._WORDS.clear()
    expected = values.as_str(value)
    assert values.as_word(value, longest) == expected
    assert values.as_word(value, longest) == expected  # the second time from the memo
    assert values.as_word(value) == expected


def test_the_word_memo_is_bounded_and_holds_each_word_once():
    values._WORDS.clear()
    first = values.as_word("".join(["green", " + tile-first"]))
    assert values.as_word("green + tile-first") is first
    for index in range(values._MAX_WORDS * 2):
        assert values.as_word(f" wave{index} ") == f"wave{index}"
    assert len(values._WORDS) == values._MAX_WORDS


def reference_within_depth(value: Any, limit: int) -> bool:
    """One level a call, as the rule reads."""
    if limit <= 0:
        return False
    children = value.values() if isinstance(value, dict) else value
    return all(reference_within_depth(c, limit - 1) for c in children if isinstance(c, (list, dict)))


@given(st.lists(json_values, max_size=3) | st.dictionaries(st.text(max_size=2), json_values, max_size=3))
def test_within_depth_two_levels_a_call_reads_as_one_level_a_call(value):
    for limit in range(8):
        assert values.within_depth(value, limit) == reference_within_depth(value, limit)


ends = st.sampled_from(["42.3%", "0%", " 7.5% ", "1e6%", "1e7%", "-5%", "nan%", "inf%", "n/a", "1_0%", "", "x"])


@given(st.tuples(ends, ends).map("..".join) | texts)
def test_checked_range_reads_as_its_rule(text):
    from ptotui.model.read.readers import checked_range

    if not text or ".." not in text:
        assert checked_range(text) == (text, ())
        return
    invalid: list[str] = []
    for end in text.split("..", 1):
        values.checked_number(end, values.MAX_RATIO_PCT, "Baseline / PTO range", invalid)
    got, said = checked_range(text)
    assert (got is None) == bool(invalid)
    assert got in (None, text)
    assert bool(said) == bool(invalid)


statuses = st.sampled_from([None, "", "ok", "blocked", "fail", "error"])


@given(st.lists(statuses, max_size=5))
def test_kernel_status_is_the_worst_said(said):
    from ptotui.model.core.merge import kernel_status

    known = [s for s in said if s]
    bad = [s for s in known if s != "ok"]
    expected = ("ok" if known else None) if not bad else ("blocked" if "blocked" in bad else bad[0])
    assert kernel_status(said) == expected
    assert kernel_status(iter(said)) == expected


@given(st.lists(st.tuples(st.none() | st.booleans(), st.none() | st.booleans()), max_size=4))
def test_a_kernels_correctness_is_false_on_one_failure_true_on_all_passes(checks):
    from ptotui.model.types import Kernel, Variant

    kernel = Kernel("k", variants=[Variant(baseline_correct=b, pto_correct=p) for b, p in checks])
    for side, index in (("baseline_correct", 0), ("pto_correct", 1)):
        said = [check[index] for check in checks]
        expected = False if False in said else (True if said and all(s is True for s in said) else None)
        assert getattr(kernel, side) is expected


VARIANT_FIELDS = (
    "shape_summary",
    "variant",
    "baseline_status",
    "pto_status",
    "baseline_median_ms",
    "pto_median_ms",
    "baseline_over_pto_pct",
    "baseline_correct",
    "pto_correct",
    "baseline_limitations",
    "baseline_reason",
    "pto_reason",
)
records = st.fixed_dictionaries({}, optional={key: json_values for key in VARIANT_FIELDS})


@given(records)
def test_a_variant_read_with_its_shortcuts_is_the_one_its_checkers_give(record):
    from ptotui.model.read import readers
    from ptotui.model.types import Variant

    get = record.get
    params = get("variant")
    baseline_ms, pto_ms, ratio_pct, invalid = readers._numbers(
        get("baseline_median_ms"), get("pto_median_ms"), get("baseline_over_pto_pct")
    )
    expected = readers.derived_ratio(
        Variant(
            shape=values.bounded(get("shape_summary")),
            params=params if type(params) is dict and values.within_depth(params, values.MAX_DEPTH) else None,
            baseline_status=values.as_status(get("baseline_status")),
            pto_status=values.as_status(get("pto_status")),
            baseline_ms=baseline_ms,
            pto_ms=pto_ms,
            ratio_pct=ratio_pct,
            invalid=invalid,
            baseline_correct=values.as_bool(get("baseline_correct")),
            pto_correct=values.as_bool(get("pto_correct")),
            limitations=values.as_str_list(get("baseline_limitations")),
            baseline_reason=values.as_str(get("baseline_reason")),
            pto_reason=values.as_str(get("pto_reason")),
        )
    )
    assert readers._variant_from_json(record) == expected
