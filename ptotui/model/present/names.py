"""Kernel names cut to a column's width so that no two rows look the same.

A name cut at its end lost what set it apart: at 16 cells ``moe_token_unpermute_with_routing_map``
and ``moe_token_unpermute_with_routing_map_grad`` were both ``moe_token_unper…`` (issue 40 item 14).
A name is cut in the middle instead, its last ``_`` part kept (``moe_token_…_grad``); where
two cuts still agree, more of the end is kept, then the part where the names differ.
Characters are taken as one cell each (kernel names are identifiers); the screen still clips.
"""

from __future__ import annotations

from collections.abc import Iterable

ELLIPSIS = "…"


def _cut(name: str, width: int, tail: int) -> str:
    head = width - 1 - tail
    return name[:head] + ELLIPSIS + (name[-tail:] if tail else "")


def _default_tail(name: str, width: int) -> int:
    """The last ``_`` part with its ``_`` (``_grad``), at most half the room."""
    at = name.rfind("_")
    tail = len(name) - at if at > 0 else (width - 1) // 3
    return max(1, min(tail, (width - 1) // 2))


def _window(name: str, width: int, start: int, tail: int) -> str:
    """``head…middle…tail`` with the middle from ``start``: where names of a group differ."""
    head = max(1, (width - 2 - tail) // 3)
    middle = width - 2 - head - tail
    if middle < 1 or start <= head:
        return _cut(name, width, tail)
    begin = min(start, len(name) - tail - middle)
    return name[:head] + ELLIPSIS + name[begin : begin + middle] + ELLIPSIS + name[len(name) - tail :]


def _common_prefix(names: list[str]) -> int:
    first, last = min(names), max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    return n


def cut_names(names: Iterable[str], width: int) -> dict[str, str]:
    """How each name longer than ``width`` is shown in ``width`` cells (names that fit are
    not in it): cut in the middle, and no two shown alike where the room allows."""
    every = list(dict.fromkeys(names))
    long = [n for n in every if len(n) > width]
    if not long or width < 4:
        return {}
    whole = {n for n in every if len(n) <= width}
    out = {n: _cut(n, width, _default_tail(n, width)) for n in long}
    for _round in range(4):
        groups: dict[str, list[str]] = {}
        for name, shown in out.items():
            groups.setdefault(shown, []).append(name)
        clashes = [group for shown, group in groups.items() if len(group) > 1 or shown in whole]
        if not clashes:
            break
        for group in clashes:
            taken = whole | {shown for name, shown in out.items() if name not in group}
            out.update(_apart(group, width, taken))
    return out


def _apart(group: list[str], width: int, taken: set[str]) -> dict[str, str]:
    """Cuts of ``group`` that differ from each other and from ``taken``: more of the end
    kept first (most names differ there: ``_grad``, ``_v2``), then less, then a window on
    where they differ."""
    default = _default_tail(group[0], width)
    tails = [*range(default, width - 1), *range(default - 1, 0, -1)]
    for tail in tails:
        shown = {n: _cut(n, width, tail) for n in group}
        if len(set(shown.values())) == len(group) and not taken & set(shown.values()):
            return shown
    start = _common_prefix(group)
    for tail in range(1, max(2, width // 3)):
        shown = {n: _window(n, width, start, tail) for n in group}
        if len(set(shown.values())) == len(group) and not taken & set(shown.values()):
            return shown
    return {n: _cut(n, width, default) for n in group}  # no cut tells them apart: as near as it gets
