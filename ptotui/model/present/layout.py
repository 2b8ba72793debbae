"""Which of the kernel table's columns fit a width, and how wide each is: arithmetic only.

The rules (README, "The table"): a column is shown whole or not at all. The columns up to
the kernel name stay put; the rest scroll sideways a whole column at a time, as many as fit
from the first one scrolled to. When everything fits in full, everything is shown in full;
otherwise the table uses its narrow forms (short headers, short badges, a gap of one, Triage
cut after its state unless room is left over) and the header says how many columns are
hidden either side (``←2 +4 →``), in room kept for it.
When not everything fits in full, an ``empty`` column (no cell of any row has anything in it,
such as Triage with no blocker and no entry shown) is left out first, before anything else gives
way, and the name gives way to as many fewer columns as it would have made room for: the room
of an empty column goes to the name, not to a later column.
Only the name is shortened (with …, down to ``KERNEL_MIN`` cells), and only to make room for
the first scrolled columns up to Triage (``core_count``: at least ``CORE``). When not even one column fits beside the
name, the first is shown anyway (free text cut to the room, the name down to its header), so
→ always reaches every column.

``fit_columns`` measures lazily: a column past the first that does not fit is never measured, as
measuring one means looking at every kernel (benchmarks/bench_scale.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

COMPANIONS = {"range": "ratio"}  # shown right after its anchor whenever both are shown
# Blank cells around a column: one either side, or only one before it in narrow forms.
GAP = {False: 2, True: 1}
KERNEL_MIN, KERNEL_MAX = 16, 44  # the name is cut with … to fit more columns, never below KERNEL_MIN
TRIAGE_COMPACT = len("needs-upstream") + 1  # the longest state and a …: narrow forms cut a note after it
SHORT_BADGE_WIDTH = 6  # a short badge is at most four letters and its two spaces
CORE = 5  # the name shortens only to fit this many scrolled columns (ratio, PTO ms, PTO, Baseline, Triage)


def core_count(candidates: tuple[str, ...]) -> int:
    """How many of the scrolled ``candidates`` the name shortens for: the first ``CORE``, and
    more when Triage comes later (History shown, or columns moved before it), so that Triage stays."""
    return max(CORE, candidates.index("triage") + 1) if "triage" in candidates else CORE


WidthOf = Callable[[str, bool], int]  # (column key, narrow forms) -> cells


def column_width(key: str, data: int, header: int, compact: bool, limit: int = 0) -> int:
    """A column's width from its widest cell ``data``: within its limits, never less than its header."""
    if key == "tier" and compact:
        data = min(data, SHORT_BADGE_WIDTH)
    elif key == "triage" and compact:
        data = min(data, TRIAGE_COMPACT)  # a note's start is cut with …: the state stays in view
    elif key == "kernel":
        data = min(data, KERNEL_MAX)
    elif limit:
        data = min(data, limit)
    return max(data, header)


def marker(left: int, right: int) -> str:
    """``←2 +4 →``: how many columns are scrolled off to the left and hidden to the right."""
    return " ".join(([f"←{left}"] if left else []) + ([f"+{right} →"] if right else []))


def marker_room(left: int, right: int) -> int:
    """Cells the header's marker takes, with a blank either side (0 when there is none)."""
    text = marker(left, right)
    return len(text) + 2 if text else 0


@dataclass(frozen=True)
class Layout:
    """Which columns a line shows, how wide, and which are left out either side."""

    compact: bool
    keys: tuple[str, ...]  # the shown columns, left to right
    widths: tuple[int, ...]  # their widths, without the gaps
    fixed: int  # the first ``fixed`` columns stay put while the rest scroll
    hidden_left: int  # also the first scrolled column shown: what ``first`` became
    hidden_right: int

    @property
    def gap(self) -> int:
        return GAP[self.compact]

    @property
    def marker(self) -> str:
        return marker(self.hidden_left, self.hidden_right)

    @property
    def columns(self) -> tuple[tuple[str, int], ...]:
        """(key, width) of each shown column, left to right."""
        return tuple(zip(self.keys, self.widths, strict=True))

    @property
    def used(self) -> int:
        """Cells the columns take with their gaps, and the marker with its blanks."""
        return sum(self.widths) + self.gap * len(self.widths) + marker_room(self.hidden_left, self.hidden_right)

    def width(self, key: str) -> int | None:
        """The width of column ``key`` (None when it is not shown)."""
        for shown, width in zip(self.keys, self.widths, strict=True):
            if shown == key:
                return width
        return None


class _Widths(dict[str, int]):
    """Column widths, each measured the first time it is asked for."""

    def __init__(self, measure: Callable[[str], int]) -> None:
        super().__init__()
        self._measure = measure

    def __missing__(self, key: str) -> int:
        width = self[key] = self._measure(key)
        return width


def _fits(keys: tuple[str, ...], need_of: Callable[[str], int], room: int) -> bool:
    """Whether all of ``keys`` fit in ``room`` (stops measuring at the first overflow)."""
    for key in keys:
        room -= need_of(key)
        if room < 0:
            return False
    return True


def fit_columns(
    order: tuple[str, ...],
    width: int,
    first: int,
    width_of: WidthOf,
    header_width: WidthOf,
    cuttable: Collection[str] = (),
    empty: Callable[[str], bool] | None = None,
) -> Layout:
    """The columns of ``order`` (which holds ``kernel``; it and those before it stay put) as
    they fit ``width`` cells, the scrolled ones from the ``first``-th on when not all fit.

    ``width_of(key, compact)`` is a column's width in the full or the narrow forms (see
    ``column_width``), ``header_width(key, compact)`` its header's (the sort arrow
    included): the least the name or a lone column is cut to. A ``cuttable`` column (free
    text) shown alone beside the name is cut to the room. ``empty(key)``: the column has
    nothing in any row; asked of the scrolled columns only when not all of them fit in
    full, and those are then left out (not shown, not counted as hidden, not scrolled to).
    """
    k = order.index("kernel")
    fixed, scrolled = order[: k + 1], order[k + 1 :]
    full = _fit_mode(width, fixed, scrolled, 0, False, width_of, header_width, cuttable)
    if not full.hidden_right:
        return full
    fewer = 0  # the name gives way to that many fewer columns: the empty ones it would have made room for
    if empty is not None:
        kept = tuple(key for key in scrolled if not empty(key))
        if kept != scrolled:
            fewer = len(set(scrolled[: core_count(scrolled)]) - set(kept))
            scrolled = kept
            full = _fit_mode(width, fixed, scrolled, 0, False, width_of, header_width, cuttable, fewer)
            if not full.hidden_right:
                return full
    first = max(0, min(first, len(scrolled) - 1))
    return _widen_triage(
        _fit_mode(width, fixed, scrolled, first, True, width_of, header_width, cuttable, fewer), width, width_of
    )


def _widen_triage(layout: Layout, width: int, width_of: WidthOf) -> Layout:
    """In the narrow forms Triage is cut after its state; room no column could use goes to it
    (up to its full width), so a note's start is shown after the state where there is room."""
    if "triage" not in layout.keys:
        return layout
    at = layout.keys.index("triage")
    grow = min(width - layout.used, width_of("triage", False) - layout.widths[at])
    if grow <= 0:
        return layout
    widths = list(layout.widths)
    widths[at] += grow
    return replace(layout, widths=tuple(widths))


def _fit_mode(
    width: int,
    fixed: tuple[str, ...],
    scrolled: tuple[str, ...],
    start: int,
    compact: bool,
    width_of: WidthOf,
    header_width: WidthOf,
    cuttable: Collection[str],
    fewer: int = 0,
) -> Layout:
    widths = _Widths(lambda key: width_of(key, compact))
    natural = widths["kernel"]
    slack = natural - min(natural, max(KERNEL_MIN, header_width("kernel", compact)))
    gap = GAP[compact]

    def need_of(key: str) -> int:
        return widths[key] + gap

    room = width - sum(widths[key] + gap for key in fixed)
    candidates = scrolled[start:]
    if start == 0 and _fits(candidates, need_of, room):
        shown, shrink = list(candidates), 0
    else:
        reserved = marker_room(start, len(scrolled))  # the most the marker can need
        core = max(1, core_count(candidates) - fewer)
        shown, shrink, left = _take(candidates, need_of, room - reserved, slack, core)
        # With one more column shown the marker may be a digit shorter ("+10 →" to "+9 →"),
        # which can be the very cell that column lacked: try once with that marker.
        tighter = marker_room(start, len(candidates) - len(shown) - 1)
        if len(shown) < len(candidates) and tighter < reserved:
            more = _take(candidates, need_of, room - tighter, slack, core)
            if len(more[0]) > len(shown) and marker_room(start, len(candidates) - len(more[0])) <= tighter:
                (shown, shrink, left), reserved = more, tighter
        # Room the name gave but nothing used (the marker turned out shorter) goes back to it.
        shrink -= min(shrink, left + reserved - marker_room(start, len(candidates) - len(shown)))
    widths["kernel"] = natural - shrink
    if candidates and not shown:
        # Not even one column fits beside the name: show the first anyway, so → always
        # reaches every column. Free text (Class, Family) is cut with … to the room.
        shown, lone = [candidates[0]], candidates[0]
        room += shrink - marker_room(start, len(candidates) - 1) - gap
        if lone in cuttable:
            widths[lone] = max(min(widths[lone], room), header_width(lone, compact))
        # Still short (a very narrow terminal): the name gives more, down to its header.
        deficit = widths[lone] - room
        if deficit > 0:
            widths["kernel"] -= min(deficit, widths["kernel"] - header_width("kernel", compact))
    keys = list(fixed)
    for key in shown:  # a companion goes right after its anchor when both scroll
        anchor = COMPANIONS.get(key)
        keys.insert(keys.index(anchor) + 1 if anchor in keys[len(fixed) :] else len(keys), key)
    return Layout(
        compact,
        tuple(keys),
        tuple(widths[key] for key in keys),
        len(fixed),
        start,
        len(candidates) - len(shown),
    )


def _take(
    candidates: tuple[str, ...], need_of: Callable[[str], int], room: int, slack: int, core: int = CORE
) -> tuple[list[str], int, int]:
    """The leading candidates that fit in ``room`` (each takes ``need_of(key)`` cells); the
    name gives up to ``slack`` cells (fixed part too wide, or one of the first ``core`` columns
    short of room). Returns them, the cells the name gave, and the room left."""
    shrink = min(slack, max(0, -room))
    room += shrink
    shown: list[str] = []
    for key in candidates:
        need = need_of(key)
        if need > room and len(shown) < core and need - room <= slack - shrink:
            shrink += need - room
            room = need
        if need > room:
            break
        room -= need
        shown.append(key)
    return shown, shrink, max(room, 0)
