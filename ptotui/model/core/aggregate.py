"""Fold many warnings of one kind into a few: a million bad entries are not a million lines."""

from __future__ import annotations

import re
from collections import Counter

from ptotui.model.i18n import ngettext
from ptotui.model.types import ReadWarning

KEEP = 10  # warnings of one kind shown before the rest are counted
_NUMBER = re.compile(r"\d+")


def _kind(warning: ReadWarning) -> tuple[str, str]:
    """Warnings that differ only in their numbers (index, line, offset) are of one kind."""
    return warning.file, _NUMBER.sub("#", warning.message)


def aggregate(warnings: list[ReadWarning], keep: int = KEEP) -> list[ReadWarning]:
    """The first ``keep`` warnings of each kind, in order; after the last one kept, one
    more that says how many like it were left out (``… and 999,990 more like this``)."""
    if len(warnings) <= keep:
        return warnings
    kinds = [_kind(w) for w in warnings]
    totals = Counter(kinds)
    if max(totals.values()) <= keep:
        return warnings
    seen: Counter[tuple[str, str]] = Counter()
    out: list[ReadWarning] = []
    for warning, kind in zip(warnings, kinds, strict=True):
        seen[kind] += 1
        if seen[kind] <= keep:
            out.append(warning)
        if seen[kind] == keep and totals[kind] > keep:
            rest = totals[kind] - keep
            said = ngettext("… and {n} more like this", "… and {n} more like this", rest)
            out.append(ReadWarning(warning.file, said.format(n=f"{rest:,}")))
    return out
