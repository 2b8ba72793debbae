"""The GIL-friendly JSON parser gives exactly what json.loads gives, errors included."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ptotui.model import jsonstream
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


@settings(max_examples=300)
@given(st.text(max_size=60))
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
