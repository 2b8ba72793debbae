"""Read the entries of a YAML list that is not valid YAML as a whole.

Real ``gap_board.yaml`` files have had summaries with an unquoted ``: `` in them,
which ``yaml.safe_load`` rejects for the whole file. The generator that reads
them goes line by line (``- id:``, ``component:``, ``status:``, ``summary:``,
``blocking_kernels:`` list) and never fails. Here the list under a top-level key
is cut into its entries; each entry that is valid YAML on its own is read as YAML
(so it means exactly what a strict read would give), and only the others are read
with that line grammar: ``key: value`` at the entry's indentation, a value
continued on deeper lines, ``>``/``|`` blocks, ``- item`` and ``[a, b]`` lists, and
``{key: value, ...}`` one-line mappings.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_FIELD = re.compile(r"^([A-Za-z_][\w.-]*)\s*:(?:\s+(.*))?$")


@dataclass
class Entry:
    """One item of the list: where it starts (1-based line) and its text, dedented."""

    line: int
    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return textwrap.dedent("\n".join(self.lines)) + "\n"


def list_entries(text: str, key: str) -> list[Entry]:
    """The items of the block list under the top-level ``key:``, in order."""
    lines = text.splitlines()
    header = re.compile(rf"^{re.escape(key)}\s*:\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return []
    entries: list[Entry] = []
    indent: int | None = None
    for number, line in enumerate(lines[start + 1 :], start + 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            if entries:
                entries[-1].lines.append("")
            continue
        depth = len(line) - len(line.lstrip(" "))
        if indent is None:
            if not (stripped == "-" or stripped.startswith("- ")):
                return []  # not a block list
            indent = depth
        if depth == indent and (stripped == "-" or stripped.startswith("- ")):
            entries.append(Entry(number, [" " * (depth + 2) + stripped[2:]]))
        elif depth > indent and entries:
            entries[-1].lines.append(line)
        else:
            break  # the next top-level key
    return entries


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        inner = value[1:-1]
        return inner.replace("''", "'") if value[0] == "'" else inner
    return value


def _flow_mapping(text: str) -> dict[str, Any]:
    """``{name: a, family: b}`` split on its commas and first colons."""
    fields: dict[str, Any] = {}
    for part in text.strip()[1:-1].split(","):
        key, sep, value = part.partition(":")
        if sep and key.strip():
            fields[_unquote(key)] = _unquote(value)
    return fields


def _value(first: str, more: list[str]) -> Any:
    items = [line.strip() for line in more if line.strip()]
    if not first and items and all(item == "-" or item.startswith("- ") for item in items):
        return [_unquote(item[1:]) for item in items if item[1:].strip()]
    if first.startswith("[") and first.endswith("]") and not items:
        return [_unquote(part) for part in first[1:-1].split(",") if part.strip()]
    if first[:1] in ("|", ">"):
        first = ""  # a block scalar: its text is on the deeper lines
    return _unquote(" ".join([first, *items]).strip())


def _depth(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def loose_entry(entry: Entry) -> dict[str, Any]:
    """An entry read with the line grammar: whatever ``key: value`` pairs it has.

    A field starts on a ``key:`` line no deeper than the entry's first field; every
    other line continues the field above it (deeper text, ``- item`` lines).
    """
    lines = [line for line in entry.lines if line.strip()]
    if not lines:
        return {}
    first = lines[0].strip()
    if first.startswith("{") and first.endswith("}"):
        return _flow_mapping(first)
    indent = _depth(lines[0])
    fields: dict[str, Any] = {}
    current: tuple[str, str, list[str]] | None = None
    for line in lines:
        match = _FIELD.match(line.strip()) if _depth(line) <= indent else None
        if match is not None:
            if current is not None:
                fields[current[0]] = _value(current[1], current[2])
            current = (match.group(1), (match.group(2) or "").strip(), [])
        elif current is not None:
            current[2].append(line)
    if current is not None:
        fields[current[0]] = _value(current[1], current[2])
    return fields


def read_entries(text: str, key: str, strict: Callable[[str], Any]) -> tuple[list[Any], list[Entry]]:
    """Every entry under ``key``, and the ones that were not valid YAML on their own.

    ``strict`` parses a piece of YAML (raising on invalid input); an entry it
    rejects, or that is not a mapping, is read with :func:`loose_entry`.
    """
    values: list[Any] = []
    bad: list[Entry] = []
    for entry in list_entries(text, key):
        try:
            value = strict(entry.text)
        except Exception:  # noqa: BLE001 - any parse failure means: read it line by line
            value = None
        if not isinstance(value, dict):
            bad.append(entry)
            value = loose_entry(entry)
        values.append(value)
    return values, bad
