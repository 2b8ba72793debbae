"""The table's width rules (README, "The table") as properties of the pure layout, no app running."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.text import Text

from ptotui.app import render
from ptotui.app.widgets.table_columns import COLUMNS, INDEX, RowContext, data_width, header_width
from ptotui.model.config import DEFAULT_COLUMNS, normal_columns
from ptotui.model.location import Location
from ptotui.model.present.layout import (
    CORE,
    GAP,
    KERNEL_MAX,
    KERNEL_MIN,
    TRIAGE_COMPACT,
    Layout,
    column_width,
    core_count,
    fit_columns,
    marker,
    marker_room,
)
from ptotui.model.read.loader import load
from ptotui.model.triage import Entry, Status
from ptotui.model.types import Kernel
from tests.conftest import SAMPLES

SCROLLED = (
    "ratio",
    "range",
    "history",
    "pto_ms",
    "pto",
    "baseline",
    "triage",
    "correct",
    "gaps",
    "family",
    "wave",
    "class",
)


class Table:
    """Made-up columns: a width per form for each, a header no wider, some free text."""

    def __init__(self, order, wide, narrow, headers, cuttable, sorted_key=None):
        self.order, self.wide, self.narrow = order, wide, narrow
        self.headers, self.cuttable = headers, cuttable
        self.measured: list[tuple[str, bool]] = []

    def __repr__(self) -> str:
        return f"Table({self.order}, wide={self.wide}, narrow={self.narrow}, headers={self.headers}, {self.cuttable})"

    def width_of(self, key: str, compact: bool) -> int:
        self.measured.append((key, compact))
        return (self.narrow if compact else self.wide)[key]

    def header_width(self, key: str, compact: bool) -> int:
        widths = self.narrow if compact else self.wide
        return min(self.headers[key], widths[key]) if key != "kernel" else self.headers[key]

    def fit(self, width: int, first: int = 0, header_width: Callable[[str, bool], int] | None = None) -> Layout:
        return fit_columns(
            self.order, width, first, self.width_of, header_width or self.header_width, cuttable=self.cuttable
        )

    def least(self, key: str, compact: bool) -> int:
        """The narrowest a column is ever drawn."""
        if key == "kernel":
            return self.headers["kernel"]
        return self.header_width(key, compact) if key in self.cuttable else self.width_of(key, compact)


@st.composite
def tables(draw) -> Table:
    fixed = draw(st.sampled_from([("mark", "tier", "kernel"), ("mark", "kernel"), ("kernel",)]))
    scrolled = tuple(draw(st.permutations(SCROLLED))[: draw(st.integers(0, len(SCROLLED)))])
    order = fixed + scrolled
    wide, narrow, headers = {}, {}, {}
    for key in order:
        headers[key] = draw(st.integers(1, 12))
        if key == "kernel":  # its widest name (within KERNEL_MAX), never less than its header
            wide[key] = narrow[key] = draw(st.integers(headers[key], KERNEL_MAX))
        else:
            wide[key] = draw(st.integers(headers[key], 40))
            narrow[key] = draw(st.integers(min(headers[key], wide[key]), wide[key]))
    cuttable = {key for key in scrolled if key in ("family", "wave", "class") and draw(st.booleans())}
    return Table(order, wide, narrow, headers, cuttable)


widths = st.integers(1, 260)


def scrolled_shown(table: Table, layout: Layout) -> list[str]:
    return list(layout.keys[layout.fixed :])


def lone(table: Table, layout: Layout, width: int) -> bool:
    """The one scrolled column shown because not even one fitted beside the name (at its
    least, the widest marker kept): the name may then give more, down to its header."""
    shown = scrolled_shown(table, layout)
    if len(shown) != 1:
        return False
    compact, gap = layout.compact, layout.gap
    natural = table.width_of("kernel", compact)
    least = sum(table.width_of(key, compact) + gap for key in layout.keys[: layout.fixed])
    least -= natural - min(natural, max(KERNEL_MIN, table.headers["kernel"]))
    widest_marker = marker_room(layout.hidden_left, len(table.order) - layout.fixed)
    return least + table.width_of(shown[0], compact) + gap + widest_marker > width


@given(tables(), widths, st.integers(0, 20))
def test_the_fixed_columns_stay_and_the_scrolled_ones_are_a_run_from_the_first(table, width, first):
    layout = table.fit(width, first)
    k = table.order.index("kernel")
    scrolled = table.order[k + 1 :]
    assert layout.keys[: layout.fixed] == table.order[: k + 1]
    assert len(layout.widths) == len(layout.keys)
    shown = scrolled_shown(table, layout)
    start = layout.hidden_left
    assert set(shown) == set(scrolled[start : start + len(shown)])
    assert start + len(shown) + layout.hidden_right == len(scrolled)
    assert 0 <= start <= max(0, min(first, len(scrolled) - 1))
    if scrolled and start < len(scrolled):
        assert shown, "at least one scrolled column is always shown"


@given(tables(), widths, st.integers(0, 20))
def test_full_forms_only_when_everything_fits_in_full(table, width, first):
    layout = table.fit(width, first)
    everything = sum(table.wide[key] + GAP[False] for key in table.order)
    if everything <= width:
        assert not layout.compact and dict(layout.columns) == table.wide
    if not layout.compact:  # the full forms only when nothing is hidden (range may move beside the ratio)
        assert sorted(layout.keys) == sorted(table.order) and layout.hidden_left == layout.hidden_right == 0
        assert not layout.marker
    else:
        assert everything > width


@given(tables(), widths, st.integers(0, 20))
def test_columns_are_whole_and_only_the_name_is_shortened(table, width, first):
    layout = table.fit(width, first)
    compact = layout.compact
    natural = table.width_of("kernel", compact)
    for key, drawn in layout.columns:
        if key == "kernel":
            assert drawn <= natural
            if lone(table, layout, width):
                assert drawn >= table.headers["kernel"]
            else:  # down to 16 cells (or its header), never below
                assert drawn >= min(natural, max(KERNEL_MIN, table.headers["kernel"]))
        elif key in table.cuttable and len(scrolled_shown(table, layout)) == 1 and key in scrolled_shown(table, layout):
            assert table.header_width(key, compact) <= drawn <= table.width_of(key, compact)
        elif key == "triage" and compact:  # cut after its state, longer where room is left over
            assert table.width_of(key, True) <= drawn <= max(table.width_of(key, True), table.width_of(key, False))
        else:
            assert drawn == table.width_of(key, compact), key


@given(tables(), widths, st.integers(0, 20))
def test_the_columns_and_the_marker_never_exceed_the_width(table, width, first):
    layout = table.fit(width, first)
    shown = scrolled_shown(table, layout)
    # The least a line can take: the fixed columns (the name at its header), the first
    # scrolled column at its least and the marker of what that hides.
    least = sum(table.least(key, layout.compact) + layout.gap for key in layout.keys[: layout.fixed])
    if shown:
        least += table.least(shown[0], layout.compact) + layout.gap
        least += marker_room(layout.hidden_left, layout.hidden_right + len(shown) - 1)
    # (With no scrolled column to make room for, the name is not shortened: the line is cropped.)
    if width >= least and (shown or sum(table.wide.values()) + GAP[False] * len(table.order) <= width):
        assert layout.used <= width, (layout, width)
    if len(shown) > 1:
        assert layout.used <= width


@given(tables(), widths, st.integers(0, 20))
def test_the_marker_says_what_is_hidden_either_side(table, width, first):
    layout = table.fit(width, first)
    left = f"←{layout.hidden_left}" if layout.hidden_left else ""
    right = f"+{layout.hidden_right} →" if layout.hidden_right else ""
    assert layout.marker == " ".join(part for part in (left, right) if part)
    assert bool(layout.marker) == (layout.hidden_left > 0 or layout.hidden_right > 0)
    if layout.marker:
        assert layout.compact


@given(tables(), widths, st.integers(0, 20))
def test_the_name_gives_way_only_to_show_the_first_columns(table, width, first):
    layout = table.fit(width, first)
    compact = layout.compact
    if layout.width("kernel") == table.width_of("kernel", compact):
        return

    def unshrinkable(key: str, compact: bool) -> int:
        return table.width_of(key, compact) if key == "kernel" else table.header_width(key, compact)

    proud = table.fit(width, first, header_width=unshrinkable)  # a name that never gives a cell
    # What the name's cells bought: more columns, the full forms rather than the narrow ones
    # (everything fits in full), or a lone free-text column shown whole rather than cut with …
    # (or the fit without them would not fit at all).
    cut = any(proud.width(key) < table.width_of(key, proud.compact) for key in scrolled_shown(table, proud))
    fuller = proud.compact and not layout.compact
    more = len(scrolled_shown(table, proud)) < len(scrolled_shown(table, layout))
    assert more or fuller or cut or proud.used > width
    if not lone(table, layout, width) and not fuller:
        # Only for the first CORE columns, or those up to Triage, and not a cell more than they need.
        # (Bought full forms: the narrow fit without those cells may show CORE columns or more.)
        candidates = table.order[layout.fixed :][layout.hidden_left :]
        assert len(scrolled_shown(table, proud)) < core_count(candidates), (layout, proud)
        assert layout.used == width, layout


@given(tables(), widths)
def test_the_first_core_columns_come_before_the_names_last_cells(table, width):
    """Triage (the fifth scrolled column by default, later with History or columns moved before
    it) stays in view with the columns before it when the name's cells can pay for them."""
    layout = table.fit(width, 0)
    if not layout.compact:
        return
    scrolled = table.order[layout.fixed :]
    core = scrolled[: core_count(scrolled)]
    fixed_least = sum(
        (min(table.width_of(key, True), max(KERNEL_MIN, table.headers[key])) if key == "kernel" else table.narrow[key])
        + 1
        for key in table.order[: layout.fixed]
    )
    if fixed_least + sum(table.narrow[key] + 1 for key in core) + marker_room(0, len(scrolled)) <= width:
        assert set(core) <= set(layout.keys), (core, layout.keys)


@given(tables(), widths)
def test_right_reaches_every_column_and_left_comes_back(table, width):
    first, seen, layouts = 0, set(), []
    for _ in range(len(table.order) + 1):
        layout = table.fit(width, first)
        layouts.append(layout)
        seen |= set(layout.keys)
        if not layout.hidden_right:
            break
        first = layout.hidden_left + 1
    assert seen == set(table.order) and not layouts[-1].hidden_right
    for layout in reversed(layouts):  # and back, one column at a time, to where it began
        assert table.fit(width, layout.hidden_left) == layout


@given(tables(), widths, st.integers(0, 20))
def test_range_sits_right_after_the_ratio(table, width, first):
    layout = table.fit(width, first)
    shown = scrolled_shown(table, layout)
    if "ratio" in shown and "range" in shown and table.order.index("ratio") < table.order.index("range"):
        assert layout.keys.index("range") == layout.keys.index("ratio") + 1


@given(tables(), widths, st.integers(0, 20))
def test_a_column_past_the_first_that_does_not_fit_is_never_measured(table, width, first):
    """Measuring a column looks at every kernel: those past the room are never asked for."""
    layout = table.fit(width, first)
    if not layout.compact:
        return
    candidates = table.order[layout.fixed + layout.hidden_left :]
    natural = table.narrow["kernel"]
    slack = natural - min(natural, max(KERNEL_MIN, table.headers["kernel"]))
    room = width - sum(table.narrow[key] + 1 for key in table.order[: layout.fixed]) + slack
    fitting = 0
    for key in candidates:  # how many could fit, were there no marker and the name at its least
        room -= table.narrow[key] + 1
        if room < 0:
            break
        fitting += 1
    measured = {key for key, compact in table.measured if compact and key in candidates}
    assert measured <= set(candidates[: max(fitting + 1, len(scrolled_shown(table, layout)))])


def test_marker_room_is_the_marker_and_a_blank_either_side():
    assert marker(0, 0) == "" and marker_room(0, 0) == 0
    assert marker(2, 4) == "←2 +4 →" and marker_room(2, 4) == len("←2 +4 →") + 2
    assert marker(0, 9) == "+9 →" and marker_room(0, 10) == marker_room(0, 9) + 1


def test_column_width_limits():
    assert column_width("kernel", 60, 6, False) == KERNEL_MAX
    assert column_width("tier", 18, 4, True) == 6 and column_width("tier", 18, 4, False) == 18
    assert column_width("triage", 40, 6, True) == TRIAGE_COMPACT and column_width("triage", 40, 6, False) == 40
    assert column_width("class", 70, 5, False, limit=40) == 40
    assert column_width("gaps", 1, 4, False) == 4  # never less than the header


# -- the sample reports: the widths the app measures, fitted without an app ---------------


def sample_table(note: str = "", sorted_key: str | None = None) -> tuple[Callable[[int, int], Layout], dict]:
    kernels: list[Kernel] = load(Location(SAMPLES / "reports", SAMPLES)).kernels
    entries = {}
    if note:
        blocker = next(k for k in kernels if k.tier == "pto-blocked")
        entries[blocker.name] = Entry(blocker.name, "investigating", note, "2026-01-01T00:00:00Z", "me", {})

    def triage(kernel: Kernel) -> Text:
        entry = entries.get(kernel.name)
        return render.triage(kernel, Status(entry, False, False))

    ctx = RowContext(triage=triage, entries=entries)
    data = {column.key: data_width(column, kernels, ctx) for column in COLUMNS}

    def width_of(key: str, compact: bool) -> int:
        column = COLUMNS[INDEX[key]]
        return column_width(key, data[key], header_width(column, compact, sorted_key), compact, column.limit)

    def header(key: str, compact: bool) -> int:
        return header_width(COLUMNS[INDEX[key]], compact, sorted_key)

    cuttable = {column.key for column in COLUMNS if column.limit}
    order = ("mark", *normal_columns(DEFAULT_COLUMNS))

    def fit(width: int, first: int = 0) -> Layout:
        return fit_columns(order, width, first, width_of, header, cuttable)

    return fit, data


@pytest.mark.parametrize("width", [40, 60, 72, 80, 100, 119, 120, 140, 160, 200, 240])
def test_the_sample_table_at_every_width(width):
    fit, _data = sample_table()
    layout = fit(width)
    assert layout.keys[:3] == ("mark", "tier", "kernel")
    assert layout.used <= width
    if width >= 80:  # what matters first is on screen at 80 columns (Triage from 100)
        assert {"ratio", "pto_ms", "pto", "baseline"} <= set(layout.keys), layout.keys
    if width >= 100:
        assert "triage" in layout.keys
    assert layout.compact == (width < 200)  # full forms only when everything fits


def test_the_sample_names_set_the_kernel_width_in_full():
    fit, data = sample_table()
    layout = fit(240)
    assert not layout.compact and layout.width("kernel") == data["kernel"] and layout.width("tier") == data["tier"]


def test_a_note_is_cut_after_the_state_in_the_narrow_forms_and_triage_stays():
    fit, _ = sample_table(note="waiting on the vendor's converter for a fairly long while")
    assert fit(80).width("triage") == TRIAGE_COMPACT
    assert fit(240).width("triage") == COLUMNS[INDEX["triage"]].limit
    assert "triage" in fit(100).keys


def test_the_sort_arrow_widens_only_its_header():
    fit, _ = sample_table(sorted_key="ratio")
    assert fit(80).width("ratio") == len("B/PTO ▼")
    assert fit(240).width("ratio") == len("Baseline / PTO ▼")


def test_the_marker_reserved_does_not_cost_the_last_column_a_cell():
    """At 80x24 on the reference reports, a note on a kernel: the room kept for "+12 →" was
    one cell more than the "+7 →" it became, and that cell was the one the noted Triage
    column lacked (these are the widths the app measured there: (full, narrow) and headers)."""
    measured = {
        "mark": (1, 1, 1),
        "tier": (18, 6, 4),
        "kernel": (41, 41, 6),
        "ratio": (14, 5, 5),
        "pto_ms": (7, 7, 6),
        "pto": (7, 7, 3),
        "baseline": (8, 7, 4),
        "triage": (20, 15, 6),
        "range": (11, 11, 5),
        "correct": (7, 4, 4),
        "gaps": (4, 4, 4),
        "scalar": (6, 6, 6),
        "family": (12, 12, 6),
        "wave": (5, 5, 4),
        "class": (37, 37, 5),
    }
    wide = {key: full for key, (full, _narrow, _header) in measured.items()}
    narrow = {key: short for key, (_full, short, _header) in measured.items()}
    headers = {key: header for key, (_full, _narrow, header) in measured.items()}
    table = Table(tuple(measured), wide, narrow, headers, {"family", "wave", "class"})
    layout = table.fit(78)  # 80 less the scrollbar
    assert layout.keys[3:] == ("ratio", "pto_ms", "pto", "baseline", "triage"), layout
    assert layout.width("kernel") == KERNEL_MIN and layout.marker == "+7 →" and layout.used == 78


def test_the_name_gives_cells_for_five_columns_not_a_sixth():
    order = ("mark", "tier", "kernel", "ratio", "pto_ms", "pto", "baseline", "triage", "correct", "gaps", "family")
    wide = {key: 5 for key in order} | {"kernel": 40}
    table = Table(order, wide, dict(wide), {key: 3 for key in order}, set())
    at_67 = table.fit(67)  # five columns: the name gave 22 cells for them
    assert len(scrolled_shown(table, at_67)) == 5 and at_67.width("kernel") == 18 and at_67.used == 67
    for width in range(68, 95):  # the sixth waits until it fits beside the whole name
        layout = table.fit(width)
        assert len(scrolled_shown(table, layout)) == 5, width
        assert layout.width("kernel") == min(40, 18 + width - 67), width


def test_a_lone_free_text_column_is_cut_to_the_room():
    """Not even one column fits beside the name: the first is shown anyway, Class cut with …"""
    order = ("mark", "tier", "kernel", "class", "gaps")
    wide = {"mark": 1, "tier": 18, "kernel": 30, "class": 37, "gaps": 4}
    narrow = wide | {"tier": 6}
    table = Table(order, wide, narrow, {"mark": 1, "tier": 4, "kernel": 6, "class": 5, "gaps": 4}, {"class"})
    layout = table.fit(60)
    assert layout.keys == ("mark", "tier", "kernel", "class") and layout.marker == "+1 →"
    assert layout.width("kernel") == 30 and layout.width("class") == 13 and layout.used == 60
    narrow = table.fit(40)  # Class down to its header, then the name gives what is still short
    assert narrow.width("class") == 5 and narrow.width("kernel") == 18 and narrow.used == 40
    narrowest = table.fit(20)  # the name down to its header: no less, even when it does not fit
    assert narrowest.width("class") == 5 and narrowest.width("kernel") == 6


def test_the_name_may_give_a_cell_for_the_full_forms_of_five_columns():
    """Found by hypothesis in the train: the name gave a cell for a fifth column in full,
    where the narrow fit without it showed all five too (the CORE bound is for one form)."""
    order = ("mark", "kernel", "ratio", "range", "pto_ms", "pto", "baseline")
    wide = {"mark": 1, "kernel": 17, "ratio": 1, "range": 1, "pto_ms": 1, "pto": 1, "baseline": 4}
    table = Table(order, wide, wide | {"baseline": 1}, {key: 1 for key in order}, set())
    layout = table.fit(39)
    assert not layout.compact and layout.width("kernel") == 16 and layout.used == 39


def test_narrow_forms_give_room_left_over_to_the_triage_note():
    """Issue 24: Triage was cut after its state in the narrow forms even with room to spare,
    so a note's start was never shown ("acknowledged: …" at 200 columns)."""
    order = ("mark", "kernel", "ratio", "triage", "gaps", "family")
    wide = {"mark": 1, "kernel": 20, "ratio": 5, "triage": 24, "gaps": 4, "family": 40}
    narrow = {**wide, "triage": TRIAGE_COMPACT}
    table = Table(order, wide, narrow, dict.fromkeys(order, 4), set())
    layout = table.fit(80)  # the family does not fit: narrow forms, cells to spare
    assert layout.compact and "family" not in layout.keys
    assert layout.width("triage") == 24 and layout.used <= 80
    tight = table.fit(62)
    assert tight.compact and TRIAGE_COMPACT <= tight.width("triage") < 24 and tight.used == 62


def test_the_name_gives_cells_for_triage_after_the_history_column():
    """Issue 33 item 13: with History shown (after the ratio) Triage is the sixth scrolled column;
    the name gave cells for five only, and Triage was dropped while the name kept its width."""
    order = ("mark", "tier", "kernel", "ratio", "history", "pto_ms", "pto", "baseline", "triage", "correct", "gaps")
    wide = {"mark": 1, "tier": 6, "kernel": 38, "ratio": 5, "history": 12, "pto_ms": 7, "pto": 7, "baseline": 7}
    wide |= {"triage": 15, "correct": 4, "gaps": 4}
    table = Table(order, wide, dict(wide), {key: 3 for key in order} | {"kernel": 6}, set())
    layout = table.fit(105)
    assert layout.keys[3:] == ("ratio", "history", "pto_ms", "pto", "baseline", "triage"), layout
    assert layout.width("kernel") == 38 - 8 and layout.used == 105
    assert core_count(order[3:]) == 6 and core_count(order[3:5]) == CORE


def test_an_empty_column_is_left_out_before_the_name_is_cut():
    """Issue 40, 14: at 80x24 an empty Triage column (nothing triaged, no blocker shown) kept
    its cells while the names were cut to make room for it."""
    order = ("mark", "tier", "kernel", "ratio", "pto_ms", "pto", "baseline", "triage", "class")
    cells = {"mark": 1, "tier": 6, "kernel": 30, "ratio": 5, "pto_ms": 6, "pto": 3, "baseline": 4, "triage": 6}
    cells["class"] = 30  # too wide to fit beside them, even with the name at its least

    def width_of(key: str, compact: bool) -> int:
        return cells[key]

    def header(key: str, compact: bool) -> int:
        return min(cells[key], 6)

    before = fit_columns(order, 70, 0, width_of, header)
    assert "triage" in before.keys and before.width("kernel") < 30  # today: the name gave way to it
    after = fit_columns(order, 70, 0, width_of, header, empty=lambda key: key == "triage")
    assert "triage" not in after.keys and after.width("kernel") == 30  # the name whole
    assert after.keys[after.fixed :] == ("ratio", "pto_ms", "pto", "baseline") and after.hidden_right == 1  # class
    assert after.used <= 70
    # Everything fits in full once the empty column is out: the full forms, nothing hidden.
    roomy = fit_columns(order, 105, 0, width_of, header, empty=lambda key: key == "triage")
    assert not roomy.compact and roomy.keys[roomy.fixed :] == ("ratio", "pto_ms", "pto", "baseline", "class")
    # With room for everything the empty column stays (nothing is short of room).
    assert "triage" in fit_columns(order, 110, 0, width_of, header, empty=lambda key: key == "triage").keys
