"""A pipe-table parser for the generators' markdown reports.

The generators do not escape reason text, so one logical row can span several
physical lines (a host error dump with raw newlines). A row is complete once its
accumulated text ends with ``|``; a line that starts with ``|`` while the row is
incomplete is still part of that row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ptotui.model.i18n import N_, _

CUT_OFF = N_("row is cut off (file truncated?)")
NO_TABLE = N_("no table with columns {columns}")

_SPLIT = re.compile(r"(?<!\\)\|")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


@dataclass
class MdRow:
    """One main row with the continuation rows that follow it."""

    cells: dict[str, str]
    line: int
    notes: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class MdTable:
    generated_at: str | None
    columns: list[str]
    rows: list[MdRow]
    problems: list[tuple[int, str]]
    complete: bool


_GENERATED = re.compile(r"^Generated:\s*`?([^`\s]+)`?", re.IGNORECASE)


def _split_cells(text: str) -> list[str]:
    inner = text.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    return [cell.strip().replace("\\|", "|") for cell in _SPLIT.split(inner)]


def _logical_rows(lines: list[str], start: int) -> list[tuple[int, str]]:
    """Join physical lines into logical rows, keeping the first line number."""
    rows: list[tuple[int, str]] = []
    current: list[str] = []
    first = 0
    for number, line in enumerate(lines[start:], start=start + 1):
        if not current:
            if not line.startswith("|"):
                if line.strip():
                    break  # prose after the table ends it
                continue
            current, first = [line], number
        else:
            current.append(line)
        if current[-1].rstrip().endswith("|"):
            rows.append((first, "\n".join(current)))
            current = []
    if current:
        rows.append((first, "\n".join(current)))
    return rows


def parse_table(text: str, required: tuple[str, ...]) -> MdTable:
    """Parse the first pipe table whose header holds every ``required`` column."""
    lines = text.splitlines()
    generated_at = None
    problems: list[tuple[int, str]] = []
    header_at = -1
    columns: list[str] = []
    for index, line in enumerate(lines):
        match = _GENERATED.match(line.strip())
        if match and generated_at is None:
            generated_at = match.group(1)
        if line.startswith("|"):
            names = [c.lower() for c in _split_cells(line)]
            if all(r in names for r in required):
                header_at, columns = index, names
                break
    if header_at < 0:
        return MdTable(generated_at, [], [], [(0, _(NO_TABLE).format(columns=", ".join(required)))], False)
    start = header_at + 1
    if start < len(lines) and _SEPARATOR.match(lines[start].strip()):
        start += 1
    rows: list[MdRow] = []
    logical = _logical_rows(lines, start)
    complete = not logical or logical[-1][1].rstrip().endswith("|")
    for number, raw in logical:
        if not raw.rstrip().endswith("|"):
            problems.append((number, _(CUT_OFF)))
            continue
        cells = _split_cells(raw)
        if len(cells) >= 2 and not cells[0] and not cells[1]:
            if not rows:
                problems.append((number, _("continuation row before any kernel row")))
                continue
            for cell in cells[2:]:
                label, sep, value = cell.partition(":")
                if sep and label.strip():
                    rows[-1].notes.append((label.strip().lower(), value.strip()))
            continue
        if len(cells) != len(columns):
            problems.append(
                (
                    number,
                    _("row has {cells} cells, the header has {columns}").format(cells=len(cells), columns=len(columns)),
                )
            )
            continue
        if not cells[0]:
            problems.append((number, _("row has no kernel name")))
            continue
        rows.append(MdRow(dict(zip(columns, cells, strict=True)), number))
    return MdTable(generated_at, columns, rows, problems, complete)


def says_incomplete(message: str) -> bool:
    """``message`` is a problem of ``parse_table`` that already says the table ends early
    (a row cut off, or no table at all), in the language it was said in."""
    return message == _(CUT_OFF) or message.startswith(_(NO_TABLE).partition("{")[0])
