"""The GIL-friendly JSON parser gives exactly what json.loads gives, errors included."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptotui.model.read import jsonstream
from tests.conftest import SAMPLES

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


@settings(max_examples=300)
@given(values, st.sampled_from([None, 2]))
def test_same_value_as_json_loads(value, indent):
    text = json.dumps(value, indent=indent)
    assert jsonstream.loads(text) == json.loads(text)


def test_real_report():
    text = (SAMPLES / "reports" / "regression_latest.json").read_text()
    assert jsonstream.loads(text) == json.loads(text)


def _damaged(doc: dict, indent: int | None, at: int, how: str) -> str:
    text = json.dumps(doc, indent=indent)
    # Damage lands on a structural character: that is where the list parser decides things.
    marks = [i for i, ch in enumerate(text) if ch in "[]{},:"]
    at = marks[at % len(marks)]
    if how == "cut":
        return text[:at]
    return text[:at] + ("" if how == "drop" else how) + text[at + 1 :]


# Documents shaped like the reports (an object of lists), cut, or with one character dropped or
# replaced by a delimiter:
# random text alone almost never reaches the element-by-element list parser's error paths.
near_json = st.builds(
    _damaged,
    st.dictionaries(st.text(max_size=4), st.lists(values, max_size=4), min_size=1, max_size=3),
    st.sampled_from([None, 2]),
    st.integers(min_value=0),
    st.sampled_from(["cut", "drop", ",", "]", "}", ":", "x"]),
)


@pytest.mark.slow
@settings(max_examples=300)
@given(st.text(max_size=60) | near_json)
def test_rejects_what_json_rejects(text):
    try:
        expected = json.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            jsonstream.loads(text)
    else:
        assert json.dumps(jsonstream.loads(text)) == json.dumps(expected)  # NaN != NaN


@pytest.mark.parametrize("cut", [1, 10, 100, 1000, 5000])
def test_truncated_report_raises(cut):
    text = (SAMPLES / "reports" / "regression_latest.json").read_text()
    with pytest.raises(ValueError):
        jsonstream.loads(text[:cut])


@pytest.mark.slow
@settings(max_examples=200)
@given(st.lists(values, max_size=6), st.lists(values, max_size=6), st.sampled_from([None, 2]))
def test_memo_of_a_previous_parse_gives_the_new_value(first, second, indent):
    memos: dict = {}
    one = json.dumps({"kernels": first, "x": 1}, indent=indent)
    two = json.dumps({"kernels": second, "x": 2}, indent=indent)
    assert json.dumps(jsonstream.loads(one, memos)) == json.dumps(json.loads(one))
    assert json.dumps(jsonstream.loads(two, memos)) == json.dumps(json.loads(two))
    assert json.dumps(jsonstream.loads(two, memos)) == json.dumps(json.loads(two))


def test_memo_reuses_unchanged_elements_only():
    memos: dict = {}
    first = jsonstream.loads('{"kernels": [{"a": 1}, {"b": 2}, 12]}', memos)
    second = jsonstream.loads('{"kernels": [{"a": 1}, {"b": 3}, 123]}', memos)
    assert second == {"kernels": [{"a": 1}, {"b": 3}, 123]}
    assert second["kernels"][0] is first["kernels"][0]  # the same text: not decoded again
    assert second["kernels"][1] is not first["kernels"][1]


def test_convert_replaces_each_newly_decoded_element_once():
    """The live source builds a kernel from each record as it is decoded: an unchanged
    element comes back as what it was converted to, not converted again; the memo keeps
    lengths and hashes, not the elements' texts."""
    memos: dict = {}
    converted: list = []

    def convert(item):
        converted.append(item)
        return ("built", json.dumps(item))

    text = '{"kernels": [{"a": 1}, {"b": 2}], "other": [{"c": 3}]}'
    first = jsonstream.loads(text, memos, {"kernels": convert})
    assert first == {"kernels": [("built", '{"a": 1}'), ("built", '{"b": 2}')], "other": [{"c": 3}]}
    assert converted == [{"a": 1}, {"b": 2}]
    second = jsonstream.loads(text.replace('"b": 2', '"b": 5'), memos, {"kernels": convert})
    assert converted == [{"a": 1}, {"b": 2}, {"b": 5}]  # only the changed element again
    assert second["kernels"][0] is first["kernels"][0]
    assert second["kernels"][1] == ("built", '{"b": 5}')
    memo = memos["kernels"]
    assert list(memo.lengths) == [len('{"a": 1}'), len('{"b": 5}')] and memo.values is second["kernels"]
    assert not any(isinstance(value, str) for value in vars(memo).values())
