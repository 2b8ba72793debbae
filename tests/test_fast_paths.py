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
