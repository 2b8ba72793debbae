"""The kernel table at every width: whole columns, narrow forms, ← →, the chooser, the settings file."""

from __future__ import annotations

import pytest
from rich.text import Text

from ptotui.app.render import SHORT_LABELS
from ptotui.app.screens.main.columns import ColumnsScreen
from ptotui.app.widgets.kernel_table import KernelTable
from ptotui.app.widgets.table_columns import COLUMNS, INDEX
from ptotui.model.config import DEFAULT_COLUMNS, read_config
from ptotui.model.core.tiers import TIER_LABELS, TIERS
from ptotui.model.location import Location
from ptotui.model.present.layout import KERNEL_MIN
from tests.helpers import build, hide_blocker_pane, loaded, set_triage, table, until

SHORT_BY_FULL = {TIER_LABELS[tier]: SHORT_LABELS[tier] for tier in TIERS}


def line(t: KernelTable, y: int) -> str:
    return "".join(segment.text for segment in t.render_line(y))


def check_whole(t: KernelTable) -> None:
    """Every shown cell and header is drawn whole at its place; only the name may end in …"""
    fit = t.fit()
    width = t.scrollable_content_region.width
    header = line(t, 0)
    assert len(header) == width
    if fit.hidden_left or fit.hidden_right:  # the marker, apart from the last header
        assert header.rstrip().endswith(" " + fit.marker), header
    else:
        assert not fit.marker and "→" not in header
    for y in range(0, min(t.row_count, t.scrollable_content_region.height - 1) + 1):
        text = line(t, y)
        row = None if y == 0 else t.get_row_at(t.scroll_offset.y + y - 1)
        x = 0
        for key, column_width in fit.columns:
            index = INDEX[key]
            drawn = text[x + 1 : x + 1 + column_width]
            x += column_width + fit.gap
            if row is None:
                label = COLUMNS[index].short if fit.compact else COLUMNS[index].label
                assert drawn.strip().startswith(label), (key, drawn)
                continue
            want = row[index].plain.strip()
            if key == "tier" and fit.compact:
                want = SHORT_BY_FULL[want]
            if key == "kernel" and len(want) > column_width:
                # (Under 50 columns the name gives more, so that one column still shows beside it.)
                assert column_width >= KERNEL_MIN or width < 50, drawn
                # Cut in the middle (issue 40 item 14): its start and end parts are the name's.
                head, _, tail = drawn.strip().partition("…")
                assert "…" in drawn and want.startswith(head) and len(head) < len(want), drawn
                assert want.endswith(tail.split("…")[-1]), drawn
            elif COLUMNS[index].limit and len(want) > column_width:
                assert drawn.endswith("…")  # free text (family, class) past its limit or the room
            else:
                assert drawn.strip() == want, (key, drawn, want)
        assert x <= width


@pytest.mark.slow
async def test_every_shown_column_is_drawn_whole(sample_location):
    """End to end: the drawn lines match the layout (which columns fit at which width is
    tests/app/test_layout.py's, without an app)."""
    app = build(sample_location)
    async with app.run_test(size=(200, 40)) as pilot:
        await loaded(pilot, 15)
        await hide_blocker_pane(pilot)  # at 120 columns and more the table gets the width
        t = table(app)
        seen_compact = seen_full = False
        for width in (40, 80, 119, 120, 240):
            await pilot.resize_terminal(width, 30)
            await pilot.pause()
            fit = t.fit()
            seen_compact |= fit.compact
            seen_full |= not fit.compact
            check_whole(t)
            if width <= 60:  # → reaches every column, each whole, however narrow
                shown = set(fit.keys)
                for _ in range(len(DEFAULT_COLUMNS)):
                    await pilot.press("right")
                    check_whole(t)
                    shown |= set(t.fit().keys)
                assert shown == {"mark", *DEFAULT_COLUMNS} and not t.fit().hidden_right
                for _ in range(len(DEFAULT_COLUMNS)):
                    await pilot.press("left")
        assert seen_compact and seen_full


@pytest.mark.slow
async def test_right_and_left_move_whole_columns_and_keep_tier_and_kernel(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        t = table(app)
        before = t.fit()
        assert before.hidden_right and before.marker == f"+{before.hidden_right} →"
        assert line(t, 0).rstrip().endswith(before.marker)
        await pilot.press("right")
        after = t.fit()
        assert after.keys[:3] == before.keys[:3]  # tier and kernel stay put
        assert after.keys[3] == before.keys[4] and before.keys[3] not in after.keys
        assert after.hidden_left == 1 and after.marker.startswith("←1")
        check_whole(t)
        for _ in range(20):
            await pilot.press("right")
        assert t.fit().hidden_right == 0 and t.fit().keys[-1] == DEFAULT_COLUMNS[-1]
        check_whole(t)
        for _ in range(20):
            await pilot.press("left")
        assert t.fit() == before


async def test_narrow_forms_keep_the_sort_arrow_and_the_full_ones_come_back(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        app.main._sort_by("ratio", True)
        await pilot.pause()
        t = table(app)
        assert t.fit().compact and "B/PTO ▼" in line(t, 0)
        assert any(line(t, y).split()[0] in ("HIGH", "MID") for y in range(1, 4))
        await pilot.resize_terminal(240, 30)
        await hide_blocker_pane(pilot)  # room for every column in full
        await pilot.pause()
        assert not t.fit().compact and "Baseline / PTO ▼" in line(t, 0)


async def test_h_shows_history_beside_the_ratio_or_says_where(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.history is not None)
        t = table(app)
        await pilot.press("h")
        keys = t.fit().keys
        assert keys[keys.index("ratio") + 1] == "history"
        check_whole(t)
        await pilot.press("h")
        assert "history" not in t.order and "history" not in t.fit().keys
        await pilot.resize_terminal(40, 24)
        await pilot.pause()
        await pilot.press("h")
        assert "history" not in t.fit().keys
        assert any("History is after the ratio" in n.message for n in app._notifications)


async def test_an_empty_table_says_why(sample_location):
    app = build(sample_location, filter="zzz")
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        await pilot.press("2", "3")  # MID and SLOW
        await pilot.pause()
        t = table(app)
        assert t.row_count == 0
        assert line(t, 1).strip() == "no kernels match: filter `zzz`, tiers MID+SLOW (esc clears)"
        await pilot.press("escape")
        await pilot.pause()
        assert t.row_count == 15 and "no kernels" not in line(t, 1)


async def test_chosen_columns_survive_a_restart(sample_location, tmp_path):
    path = tmp_path / "ptotui" / "config.toml"

    def app():
        config, warning = read_config(path)
        assert warning is None
        return build(sample_location, settings=config)

    first = app()
    async with first.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(first.screen, ColumnsScreen))
        await pilot.press("down", "down", "space")  # hide the ratio (it goes to the hidden ones)
        await pilot.press(*["down"] * 3, "K", "K", "K")  # triage (now 5th) up three, to after the kernel
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(first.screen, ColumnsScreen))
        order = table(first).order
        assert order[:4] == ("tier", "kernel", "triage", "pto_ms") and "ratio" not in order
        assert table(first).fit().keys[3:5] == ("triage", "pto_ms")
    second = app()
    async with second.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        assert table(second).order == order
        assert table(second).fit().keys[3:5] == ("triage", "pto_ms") and "ratio" not in table(second).fit().keys


async def test_no_settings_file_means_nothing_written(sample_location, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("v", "down", "down", "space", "escape")
        await pilot.pause()
        assert "ratio" not in table(app).order
    assert not (tmp_path / "config").exists()


REFERENCE_SIZES = [(80, 24, True), (100, 30, True), (120, 40, True), (160, 48, True), (160, 48, False), (200, 60, True)]


@pytest.mark.reference
@pytest.mark.parametrize(("width", "height", "pane"), REFERENCE_SIZES)
async def test_reference_columns_whole_at_every_size_and_scroll(reference_bench, width, height, pane):
    app = build(Location(reference_bench / "reports", reference_bench))
    async with app.run_test(size=(width, height)) as pilot:
        await loaded(pilot, 50)
        if not pane:
            await hide_blocker_pane(pilot)
        await pilot.pause()
        t = table(app)
        check_whole(t)
        shown = set(t.fit().keys)
        assert {"tier", "kernel", "ratio", "pto_ms", "pto", "baseline"} <= shown, t.fit().keys
        for _ in range(len(DEFAULT_COLUMNS)):  # every column can be reached with →, whole
            if not t.fit().hidden_right:
                break
            await pilot.press("right")
            check_whole(t)
            shown |= set(t.fit().keys)
        assert shown == {"mark", *DEFAULT_COLUMNS}


def _load_make_scale():
    """benchmarks/make_scale.py: the generator the 10k benchmark uses (sample kernels under new names)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "make_scale.py"
    spec = importlib.util.spec_from_file_location("make_scale", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_only_the_rows_drawn_are_built(tmp_path):
    """2,000 kernels: a screenful of rows gets cells, not all of them (the first frame at
    10k kernels built 170,000 cells, benchmarks/bench_scale.py); scrolling builds the rest."""
    bench = _load_make_scale().build(tmp_path, 2_000)
    app = build(Location(bench / "reports", bench))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 2_000)
        await pilot.pause()
        t = table(app)

        def built() -> int:
            return sum(1 for _kernel, _signature, row in t._cache.values() if row is not None)

        page = t.scrollable_content_region.height
        assert 0 < built() <= 2 * page
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert built() <= 4 * page
        check_whole(t)
        await pilot.press("end")
        await pilot.pause()
        assert built() <= 5 * page
        check_whole(t)


@pytest.mark.parametrize("source", ["samples", "reference"])
async def test_measured_widths_are_the_widest_cells(source, sample_location, request):
    """Columns are measured without building their cells (``width``, ``plain``, ``same``):
    each must give what building every cell gives, triage notes and marks included."""
    if source == "reference":
        bench = request.getfixturevalue("reference_bench")
        location = Location(bench / "reports", bench)
    else:
        location = sample_location
    app = build(location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        kernels = app.main.reports.kernels
        blocker = next(k for k in kernels if k.tier == "pto-blocked")
        set_triage(app, blocker, "investigating", "a note long enough to widen the triage column past its limit")
        app.session.marks = {kernels[0].name: 1, kernels[1].name: -1, kernels[2].name: 0}
        ctx = app.main.row_context()
        for column in COLUMNS:
            built = max(column.make(kernel, ctx).cell_len for kernel in kernels)
            assert column.widest(kernels, ctx) == built, column.key


async def test_the_tier_bar_is_the_legend_of_the_short_badges(sample_location):
    from textual.widgets import Static

    def bar(app) -> str:
        return " ".join(str(badge.render()) for badge in app.main.query("TierBadge").results(Static))

    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await pilot.pause()
        assert table(app).fit().compact
        text = bar(app)
        for tier in TIERS:  # every short badge the table can show is explained above it
            short, word = SHORT_LABELS[tier], TIER_LABELS[tier]
            assert (f"{short} {word.lower()}" if short != word else word) in text, (tier, text)
    app = build(sample_location)
    async with app.run_test(size=(240, 30)) as pilot:
        await loaded(pilot, 15)
        await hide_blocker_pane(pilot)
        await pilot.pause()
        assert not table(app).fit().compact
        assert "BBLK" not in bar(app) and "BASELINE-BLOCKED" in bar(app)


async def test_the_header_keeps_what_filters_the_table_at_80_columns(sample_location):
    """The header line drops the path and the read time before the filters and counts
    (at 80 columns it used to end in "only" with the filter cut off)."""
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        header = app.main.query_one("#header")
        await pilot.press("t")
        await pilot.press("slash", *"fp8", "enter")
        await pilot.pause()
        text = str(header.render())
        assert "only untriaged" in text and "filter: fp8" in text and "1/15" in text, text
        assert len(text) <= 80
    app = build(sample_location)
    async with app.run_test(size=(200, 24)) as pilot:
        await loaded(pilot, 15)
        text = str(app.main.query_one("#header").render())
        assert "reports" in text and "read " in text and "gen " in text, text  # room for all of it


async def test_a_long_triage_note_ends_in_an_ellipsis_and_its_width_goes_with_it(sample_location):
    """Found by hand at 80×24: a note was cut mid-word with no …, and after ``x`` cleared it
    the Triage column stayed as wide, keeping the columns after it off the screen."""
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await hide_blocker_pane(pilot)
        t = table(app)
        before = t.fit()
        kernel = app.main.reports.by_name()["fp8_blockwise_quant"]

        def triage_width() -> int:
            return dict(t.fit().columns)["triage"]

        narrow = triage_width()
        assert set_triage(app, kernel, "acknowledged", "waiting on the vendor's converter for a fairly long while")
        app.main.refresh_rows()  # as the triage keys do
        await until(pilot, lambda: triage_width() > narrow)
        t.focus_kernel("fp8_blockwise_quant")
        await pilot.pause()
        check_whole(t)
        assert any(line(t, y).count("…") for y in range(1, t.row_count + 1))
        t.focus_kernel("fp8_blockwise_quant")
        await pilot.pause()
        assert t.cursor_kernel == "fp8_blockwise_quant"
        await pilot.press("x")  # clear it
        await until(pilot, lambda: t.fit().columns == before.columns)


async def test_the_header_is_fitted_again_when_its_width_changes_under_it(sample_location):
    """Found by hand: with the command palette's keys panel docked, the header kept the width
    it had been fitted to and was cut mid-value; after the panel closed it stayed short."""
    app = build(sample_location)
    async with app.run_test(size=(100, 24)) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None)  # the header's last part
        await pilot.pause()
        header = app.main.query_one("#header")
        full = str(header.render())
        app.action_show_help_panel()
        await pilot.pause()
        await pilot.pause()
        narrow = str(header.render())
        assert header.size.width < 100 and len(narrow) <= header.size.width, narrow
        assert narrow.rstrip().endswith("by tier,ratio")  # whole parts, none cut
        app.action_hide_help_panel()
        await pilot.pause()
        await pilot.pause()
        assert str(header.render()) == full


async def test_the_column_chooser_hint_is_whole_at_80x24(sample_location):
    """Found by hand: at 80×24 the list took the box's height and the hint was cut after
    its first line (and End did not bring the rest)."""
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("v")
        await until(pilot, lambda: isinstance(app.screen, ColumnsScreen))
        await pilot.pause()
        hint = app.screen.query_one("#columns-hint")
        box = app.screen.query_one("#columns-box")
        from ptotui.app.screens.main.columns import hint as hint_text

        lines = len(Text(hint_text()).wrap(app.console, hint.content_region.width))
        assert hint.content_region.height >= lines == 4
        assert box.content_region.contains_region(hint.region)  # not under the border, not clipped


@pytest.mark.parametrize(("width", "height", "pane"), [(80, 24, False), (160, 48, True)])
async def test_triage_stays_in_view_as_a_kernel_is_triaged(reference_bench, width, height, pane):
    """Found by a tester: at 80x24 (and at 160x48 beside the blocker pane) the Triage
    column fitted while it read "untriaged" and went off the right edge on ``a``
    ("acknowledged"), kernel names kept whole; the name gives way to the first columns,
    and Triage is one of them."""
    from ptotui.model.location import locate

    app = build(locate(reference_bench))
    async with app.run_test(size=(width, height)) as pilot:
        await loaded(pilot, 50)
        t = table(app)
        if pane:  # the default view, beside the pane
            assert "triage" in t.fit().keys
            return
        await pilot.press("6")
        await until(pilot, lambda: table(app).row_count == 2)
        assert "triage" in t.fit().keys
        for key in ("a", "i", "u"):
            await pilot.press(key)
            await pilot.pause()
            assert "triage" in t.fit().keys, key
            check_whole(t)


def test_an_empty_table_names_an_overview_pick_and_the_differing_filter():
    """A bar picked in the overview that matched nothing said "no kernels match:  (esc clears)"."""
    from ptotui.app.render import empty_reason

    assert (
        empty_reason("", [], False, False, 50, only="ratio 0–10%")
        == "no kernels match: only ratio 0–10% (picked in the overview) (esc clears)"
    )
    assert empty_reason("", [], False, False, 50, differing=True) == "no kernels match: only differing (=) (esc clears)"


async def test_a_note_does_not_push_triage_out_of_a_narrow_table(reference_bench):
    """Found by hand at 80x24: a note made the Triage cell ~21 cells wide, and the column
    went off the right edge. In the narrow forms a note is cut after the state."""
    from ptotui.model.location import locate

    app = build(locate(reference_bench))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 50)
        await pilot.press("6")
        await until(pilot, lambda: table(app).row_count == 2)
        await pilot.press("u", "n", *"waiting on the PTOAS lowering fix", "enter")
        await until(pilot, lambda: any(e.note for e in app.session.triage.entries.values()))
        await pilot.pause()
        t = table(app)
        assert "triage" in t.fit().keys
        check_whole(t)
        assert any("needs-upstream…" in line(t, y) for y in range(1, 3))  # the state whole, the note cut


async def test_the_triage_note_starts_after_its_state_where_there_is_room(reference_bench):
    """Issue 24: at 200 columns the Triage cell read "acknowledged: …", never the note's start."""
    from ptotui.model.location import locate

    app = build(locate(reference_bench))
    async with app.run_test(size=(200, 48)) as pilot:
        await loaded(pilot, 50)
        t = table(app)
        kernel = next(k for k in app.main.reports.kernels if k.tier == "pto-blocked")
        assert set_triage(app, kernel, "acknowledged", "waiting on the vendor's converter")
        app.main.refresh_rows()
        t.focus_kernel(kernel.name)
        await until(pilot, lambda: "acknowledged: w" in line(t, t.cursor_row + 1 - t.scroll_offset.y))
        check_whole(t)


async def test_s_steps_through_the_columns_in_the_order_on_screen_triage_too(sample_location):
    """Issue 24: ``s`` skipped Triage and went Base before PTO, unlike the screen; a click on
    the Triage header did not sort by it."""
    from ptotui.model.present.view import SORT_KEYS

    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        t = table(app)
        expected = [key for key in t.shown_order() if key in SORT_KEYS]
        assert "triage" in expected and expected.index("pto") < expected.index("baseline")
        seen = []
        for _ in expected:
            await pilot.press("s")
            seen.append(app.main.sort_column)
        assert seen == expected
        await pilot.press("s")
        assert app.main.sort_column is None  # round to the default order
        t.post_message(KernelTable.HeaderSelected(t, "triage"))
        await until(pilot, lambda: app.main.sort_column == "triage")


@pytest.mark.parametrize("inside", [True, False], ids=["checkout", "elsewhere"])
async def test_the_header_gives_up_the_read_time_before_the_path(reference_bench, monkeypatch, inside):
    """Issue 24: in a git checkout (the path shown as bench/reports, nothing to shorten) the
    header dropped the path entirely while "read 06:59:50" stayed; it left a 3-space gap
    after the regression count at 80 columns."""
    from ptotui.app.render import fit_parts
    from ptotui.app.widgets.fitted_line import FittedLine
    from ptotui.model.location import locate

    if inside:
        monkeypatch.chdir(reference_bench.parent)
    app = build(locate(reference_bench))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.since is not None)
        await pilot.pause()
        parts = app.main.query_one("#header", FittedLine)._parts
        full = fit_parts(parts, 1_000).plain
        assert "read " in full and "13 regressions since" in full
        paths = ("bench/reports",) if inside else (str(reference_bench / "reports"), "…/bench/reports")
        assert paths[0] in full
        for width in range(len(full), 20, -1):
            line = fit_parts(parts, width).plain
            if "read " in line:
                assert any(path in line for path in paths), line  # the path outlives the read time
            assert "   " not in line, line


async def test_the_history_column_does_not_push_triage_out_beside_the_blocker_pane(reference_bench):
    """Issue 33 item 13: at 160×48 with the blocker pane open, ``h`` put History among the first
    columns and Triage, now the sixth, lost its place while the name kept 32 cells."""
    from ptotui.model.location import locate

    app = build(locate(reference_bench))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None)
        t = table(app)
        assert "triage" in t.fit().keys
        await pilot.press("h")
        await until(pilot, lambda: "history" in t.fit().keys)
        layout = t.fit()
        assert "triage" in layout.keys, layout
        assert layout.keys.index("history") < layout.keys.index("triage")


async def test_an_empty_triage_column_gives_its_room_to_the_names_at_80x24(reference_bench):
    """Issue 40, 14: at 80x24 the MID rows (no blocker, nothing triaged) kept an empty Triage
    column while their names were cut; it is left out first, and comes back once a row has
    an entry."""
    from ptotui.model.location import locate

    app = build(locate(reference_bench))
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 50)
        await pilot.press("2")
        await until(pilot, lambda: table(app).row_count == 20)
        t = table(app)
        layout = t.fit()
        assert "triage" not in layout.keys
        assert layout.width("kernel") == t._width("kernel", layout.compact)  # no name cut
        check_whole(t)
        await pilot.press("a")
        await until(pilot, lambda: "triage" in table(app).fit().keys)
