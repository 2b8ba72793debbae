"""Where a run ran: the environment its report.json names, and what differs between two.

The runner writes ``device`` (``soc``, ``npu_arch``, ``pto_arch``, ``toolkit_version``) and
``bench`` (``warmup``, ``repeat``, ``statistic``) into each run's report.json. Runs of different
environments measure different things (a toolkit upgrade moves every latency): they are never
pooled into one noise band, and a move between them is put down to the environment, not to PTO's
code. A field a report does not name (early reports have only ``device: {id: 0}``) is unknown, and
an unknown field differs from nothing: only fields both runs name can differ.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ptotui.model.i18n import N_, _
from ptotui.model.text import clean, one_line

# (section, key, label): the fields compared, in the order a difference is told. The label is
# the JSON's field name, and translated where it is said in words.
FIELDS = (
    ("device", "soc", N_("SoC")),
    ("device", "npu_arch", N_("NPU arch")),
    ("device", "pto_arch", N_("PTO arch")),
    ("device", "toolkit_version", N_("toolkit")),
    ("bench", "warmup", N_("warmup")),
    ("bench", "repeat", N_("repeat")),
    ("bench", "statistic", N_("statistic")),
)
_LIMIT = 60  # a value is a version or a word: longer is cut

# A run's environment: label -> value (as text), only the fields its report names.
Environment = Mapping[str, str]
NO_ENVIRONMENT: Environment = {}


def environment_of(report: Any) -> Environment:
    """The environment a run's report.json names (the fields above it has, as short text)."""
    if not isinstance(report, dict):
        return NO_ENVIRONMENT
    out: dict[str, str] = {}
    for section, key, label in FIELDS:
        part = report.get(section)
        value = part.get(key) if isinstance(part, dict) else None
        if isinstance(value, bool) or value is None or isinstance(value, dict | list):
            continue
        text = one_line(clean(value), _LIMIT)
        if text:
            out[label] = text
    return out


def differences(old: Environment, new: Environment) -> list[tuple[str, str, str]]:
    """The fields both name with different values: (label, old, new), in FIELDS' order."""
    return [
        (label, old[label], new[label])
        for _section, _key, label in FIELDS
        if label in old and label in new and old[label] != new[label]
    ]


def compatible(one: Environment, other: Environment) -> bool:
    """Whether two runs may be compared: no field both name differs."""
    return not differences(one, other)


def describe(changes: list[tuple[str, str, str]]) -> str:
    """``toolkit 8.5.0.alpha002 → 9.0.0-beta.1``."""
    return ", ".join(f"{_(label)} {old} → {new}" for label, old, new in changes)


def as_text(environment: Environment) -> str | None:
    """One line naming an environment, in FIELDS' order (``SoC ascend910b; toolkit 9.0.0``): what
    a run record keeps (one text per distinct environment in a tree); None when nothing is known."""
    parts = [f"{label}={environment[label]}" for _section, _key, label in FIELDS if label in environment]
    return "; ".join(parts) if parts else None


def of_text(text: str | None) -> Environment:
    """The environment :func:`as_text` wrote."""
    if not text:
        return NO_ENVIRONMENT
    out: dict[str, str] = {}
    for part in text.split("; "):
        label, sep, value = part.partition("=")
        if sep:
            out[label] = value
    return out
