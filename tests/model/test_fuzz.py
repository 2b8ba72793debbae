"""No reader raises, whatever the input; well-shaped input keeps the kernels it holds.

Each reader is wrapped by ``guarded``, which turns an unexpected exception into a
"could not be read" warning. That is the last line of defence, so these tests call the
readers underneath it: a reader that raises fails here instead of hiding behind a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ptotui.model.read import readers, sidefiles
from ptotui.model.read.loader import decode
from tests.conftest import SAMPLES

GUARDED = [
    readers.read_regression_json,
    readers.read_regression_md,
    readers.read_regression_csv,
    readers.read_state_json,
    readers.read_state_md,
    sidefiles.read_gap_board,
    sidefiles.read_inventory,
    sidefiles.read_kernel_report,
]
# The functions under the guard: these must not raise.
READERS: list[Callable[..., Any]] = [reader.__wrapped__ for reader in GUARDED]  # type: ignore[attr-defined]
REAL_MD = (SAMPLES / "reports" / "regression_latest.md").read_text()
REAL_STATE_MD = (SAMPLES / "reports" / "kernel_state_matrix_latest.md").read_text()
REAL_JSON = json.loads((SAMPLES / "reports" / "regression_latest.json").read_text())
REAL_NAMES = [k["name"] for k in REAL_JSON["kernels"]]

# (No deadlines: tests/conftest.py turns them off for the whole suite. The first example may
# import pandas for the CSV reader, which made test_arbitrary_text fail when run alone.)
fuzz = settings(max_examples=150)

json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5),
    max_leaves=20,
)


# The side files' readers parse YAML (a 20 KB JSON document takes them ~13 ms each, against
# ~1 ms for every other reader): a whole mutated report goes to the others, and all of them
# read the mutated row alone (the same fuzzed value, a twentieth of the text).
NOT_YAML = [reader.__wrapped__ for reader in GUARDED if reader.__module__ != sidefiles.__name__]  # type: ignore[attr-defined]


def _check(text: str, readers: list[Callable[..., Any]] = READERS) -> None:
    for reader in readers:
        result, warnings = reader(text, "fuzz")
        assert isinstance(warnings, list)
        assert result is not None


def _names(result: Any) -> list[str]:
    return [kernel.name for kernel in result["kernels"]]


@fuzz
@given(st.text(max_size=400))
def test_arbitrary_text(text):
    _check(text)


@fuzz
@given(st.binary(max_size=400))
def test_arbitrary_bytes(data):
    warnings: list = []
    _check(decode(data, "fuzz", warnings))


@fuzz
@given(st.integers(min_value=0, max_value=len(REAL_MD)), st.integers(min_value=0, max_value=len(REAL_STATE_MD)))
def test_real_markdown_cut_anywhere(cut_md, cut_state):
    _check(REAL_MD[:cut_md])
    _check(REAL_STATE_MD[:cut_state])
    result, _warnings = READERS[1](REAL_MD[:cut_md], "cut")
    # A cut file keeps every kernel whose rows it still holds whole (the last may be partial).
    lines = REAL_MD[:cut_md].splitlines(keepends=True)[:-1]
    whole = [line.split("|")[1].strip() for line in lines if line.startswith("| ")]
    expected = [name for name in dict.fromkeys(whole) if name in REAL_NAMES]
    assert _names(result)[: max(len(expected) - 1, 0)] == expected[: max(len(expected) - 1, 0)]
    assert set(_names(result)) <= set(REAL_NAMES)


@fuzz
@given(st.integers(min_value=0, max_value=len(REAL_MD) - 1), st.text(min_size=1, max_size=8))
def test_real_markdown_with_junk_inserted(at, junk):
    _check(REAL_MD[:at] + junk + REAL_MD[at:])


def test_real_files_read_whole_without_warnings():
    result, warnings = READERS[1](REAL_MD, "real")
    assert warnings == [] and _names(result) == REAL_NAMES
    result, warnings = READERS[0](json.dumps(REAL_JSON), "real")
    assert warnings == [] and _names(result) == REAL_NAMES


@fuzz
@given(
    st.sampled_from(["name", "variants", "baseline_status", "pto_status", "family", "baseline_reason"]),
    json_values,
    st.integers(min_value=0, max_value=14),
)
def test_real_json_rows_with_a_mutated_field(field, value, index):
    data = json.loads(json.dumps(REAL_JSON))
    data["kernels"][index][field] = value
    _check(json.dumps(data), NOT_YAML)
    _check(json.dumps(data["kernels"][index]))
    # One bad row costs that row at most: every other kernel is still read.
    result, warnings = READERS[0](json.dumps(data), "mutated")
    others = [name for i, name in enumerate(REAL_NAMES) if i != index]
    assert [name for name in _names(result) if name in others] == others
    assert not any("could not be read" in w.message for w in warnings)
    data = json.loads(json.dumps(REAL_JSON))
    data["kernels"][index]["variants"][0] = value
    _check(json.dumps(data), NOT_YAML)
    _check(json.dumps(data["kernels"][index]))
    result, _warnings = READERS[0](json.dumps(data), "mutated")
    assert [name for name in _names(result) if name in others] == others
