"""No reader raises, whatever the input."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptotui.model import readers
from ptotui.model.loader import decode
from tests.conftest import SAMPLES

READERS = [
    readers.read_regression_json,
    readers.read_regression_md,
    readers.read_regression_csv,
    readers.read_state_json,
    readers.read_state_md,
    readers.read_gap_board,
    readers.read_inventory,
    readers.read_kernel_report,
]
REAL_MD = (SAMPLES / "reports" / "regression_latest.md").read_text()
REAL_STATE_MD = (SAMPLES / "reports" / "kernel_state_matrix_latest.md").read_text()
REAL_JSON = json.loads((SAMPLES / "reports" / "regression_latest.json").read_text())

json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20,
)


def _check(text: str) -> None:
    for reader in READERS:
        result, warnings = reader(text, "fuzz")
        assert isinstance(warnings, list)
        assert result is not None


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    _check(text)


@settings(max_examples=100)
@given(st.binary(max_size=400))
def test_arbitrary_bytes(data):
    warnings = []
    _check(decode(data, "fuzz", warnings))


@settings(max_examples=100)
@given(st.integers(min_value=0, max_value=len(REAL_MD)), st.integers(min_value=0, max_value=len(REAL_STATE_MD)))
def test_real_markdown_cut_anywhere(cut_md, cut_state):
    _check(REAL_MD[:cut_md])
    _check(REAL_STATE_MD[:cut_state])


@settings(max_examples=100)
@given(st.integers(min_value=0, max_value=len(REAL_MD) - 1), st.text(min_size=1, max_size=8))
def test_real_markdown_with_junk_inserted(at, junk):
    _check(REAL_MD[:at] + junk + REAL_MD[at:])


@settings(max_examples=150)
@given(
    st.sampled_from(["name", "variants", "baseline_status", "pto_status", "family", "baseline_reason"]),
    json_values,
    st.integers(min_value=0, max_value=14),
)
def test_real_json_rows_with_a_mutated_field(field, value, index):
    data = json.loads(json.dumps(REAL_JSON))
    data["kernels"][index][field] = value
    _check(json.dumps(data))
    data = json.loads(json.dumps(REAL_JSON))
    data["kernels"][index]["variants"][0] = value
    _check(json.dumps(data))
