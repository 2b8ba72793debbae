"""Keyboard triage of blockers, end to end, at a wide and at an 80×24 terminal."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from ptotui.app.screens.detail import DetailScreen
from ptotui.app.screens.main.screen import MainScreen
from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.kernel_table import KernelTable
from ptotui.model.core.blockers import blocker_order, has_open_gaps
from tests.helpers import build, build_with_settings, every_variant, loaded, rewrite_kernels, set_triage, table, until


def plain(renderable) -> str:
    console = Console(file=io.StringIO(), width=200, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def pane(app) -> BlockerPane:
    return app.main.query_one(BlockerPane)


async def focus_pane(pilot) -> None:
    """``tab`` from the table into the blocker pane."""
    await pilot.press("tab")
    await until(pilot, lambda: isinstance(pilot.app.focused, BlockerPane))


@pytest.mark.slow
async def test_tab_enter_and_triage_keys_act_on_the_pane(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        assert isinstance(app.focused, KernelTable)
        await focus_pane(pilot)
        first = blocker_order(app.main.reports.kernels)[0].name
        assert pane(app).highlighted_kernel == first  # the pane opens on its first blocker
        await pilot.press("j")
        # The next layer's heading: the cursor stops on it (R there re-runs the layer's kernels).
        if pane(app).highlighted_kernel is None:
            assert pane(app).highlighted_heading
            await pilot.press("j")
        second = pane(app).highlighted_kernel
        assert second == blocker_order(app.main.reports.kernels)[1].name
        await pilot.press("i")  # triage acts on the pane's kernel, not the table's row
        assert app.session.triage.entries[second].state == "investigating"
        await pilot.press("n", *"waiting on lowering", "enter")
        await until(pilot, lambda: app.session.triage.entries[second].note == "waiting on lowering")
        assert isinstance(app.focused, BlockerPane)
        await until(pilot, lambda: "note: waiting on lowering" in str(pane(app).highlighted_option.prompt))
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen) and app.screen.kernel.name == second
        await pilot.press("escape")
        await pilot.press("tab")
        assert isinstance(app.focused, KernelTable)
        await pilot.press("shift+tab")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        await pilot.press("escape")  # from the pane, esc goes back to the table
        assert isinstance(app.focused, KernelTable)


@pytest.mark.slow
async def test_narrow_b_opens_the_pane_full_width_and_focuses_it(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        assert not pane(app).display or not pane(app).region.width
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        assert pane(app).region.width >= 78
        await pilot.press("down", "end", "home")
        name = pane(app).highlighted_kernel
        assert name is not None
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen) and app.screen.kernel.name == name
        await pilot.press("escape", "b")
        await until(pilot, lambda: isinstance(app.focused, KernelTable))
        assert app.main.query_one(KernelTable).region.width >= 78
        await pilot.press("b")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.focused, KernelTable) and app.focused.region.width >= 78)


async def test_gaps_on_working_kernels_collapsed_and_by_gap_view(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await focus_pane(pilot)
        shown = {pane(app).get_option_at_index(i).id for i in range(pane(app).option_count)}
        working = [k for k in app.main.reports.kernels if has_open_gaps(k)]
        assert working and not any(f"k:{k.name}" in shown for k in working)
        await pilot.press("end", "enter")  # the collapsed section's heading is last: enter opens it
        shown = {pane(app).get_option_at_index(i).id for i in range(pane(app).option_count)}
        assert all(f"k:{k.name}" in shown for k in working)
        await pilot.press("g")
        assert pane(app).view == "gap" and isinstance(app.focused, BlockerPane)
        first = pane(app).get_option_at_index(0)
        assert first.id.startswith("g:") and "unblocks" in str(first.prompt)
        await pilot.press("down")
        assert pane(app).highlighted_kernel is not None
        await pilot.press("g")
        assert pane(app).view == "layer"


async def test_detail_of_a_blocker_leads_with_triage_reason_and_gaps(reference_bench, tmp_path):
    from ptotui.model.location import locate

    app = build(locate(reference_bench), state=tmp_path / "triage.json")
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None)
        kernel = app.main.reports.by_name()["ring_attention_update"]
        assert set_triage(app, kernel, "investigating", note="asked the runtime team")
        app.main.open_detail("ring_attention_update")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DetailScreen)
        text = plain(screen.build("en"))
        order = [text.index(s) for s in ("Blocked on both", "investigating", "asked the runtime team", "PTO compile")]
        assert order == sorted(order)
        assert text.index("ptodsl-ring-attention-update-list-surface") < text.index("Neither the baseline")
        assert "12 of 18 snapshots" in text
        await pilot.press("h")
        text = plain(screen.build("en"))
        assert "all 18 snapshots" in text and text.count("\n  20260") >= 18
        # The current state is the history's last point, blocked: ×.
        assert "now              × both-blocked" in text


async def test_a_reload_redraws_only_the_blocker_entries_that_changed(sample_location):
    """A reload that changes a working kernel's ratio and one blocker's reason: that
    entry shows the new reason, every other entry is the same Option as before (its
    laid-out text is kept: rebuilding all of them held the UI ~0.2 s at 10k kernels)."""
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await pilot.pause()
        before = {option.id: option for option in pane(app).options}
        assert "k:fp8_blockwise_quant" in before and "k:block_sparse_flash_decode" in before
        reason = "PTO run failed: the new converter is not there yet"

        def new_reason(kernel: dict) -> None:
            kernel["pto_reason"] = reason
            every_variant(pto_reason=reason)(kernel)

        rewrite_kernels(
            sample_location.reports,
            {
                "softmax_online_fused": lambda k: k["variants"][0].update(baseline_over_pto_pct=12.5),
                "fp8_blockwise_quant": new_reason,
            },
        )
        await until(pilot, lambda: "new converter" in plain(pane(app).get_option("k:fp8_blockwise_quant").prompt))
        after = {option.id: option for option in pane(app).options}
        assert after.keys() == before.keys()
        changed = {key for key in after if key and key.startswith("k:") and after[key] is not before[key]}
        assert changed == {"k:fp8_blockwise_quant"}


async def test_the_scrollbar_of_a_long_pane_does_not_change_its_width(sample_location):
    """The entries are laid out for the pane's width, and a new width rebuilds every one
    (~70 ms at 10k kernels, benchmarks/bench_scale.py): the scrollbar that comes when the
    list outgrows the pane, and goes when it shrinks, must not change that width."""
    app = build(sample_location)
    async with app.run_test(size=(160, 14)) as pilot:
        await loaded(pilot, 15)
        await pilot.pause()
        await until(pilot, lambda: app.session.since is not None)  # its redraw would refill the pane below
        await pilot.pause()
        assert pane(app).display and pane(app).max_scroll_y > 0  # longer than the pane
        long = pane(app).scrollable_content_region.width
        pane(app).show([], {}, {})
        await pilot.pause()
        assert pane(app).max_scroll_y == 0 and pane(app).scrollable_content_region.width == long


async def test_every_line_of_an_entry_fits_the_pane(sample_location):
    """Found by hand: a long name beside its badge, or a long note, wrapped onto a line that
    started at the pane's left edge and was then cut there."""
    app = build(sample_location)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot, 15)
        kernel = app.main.reports.by_name()["block_sparse_flash_decode"]
        note = "waiting on the sparse block index lowering, see the PTOAS tracker " * 3
        assert set_triage(app, kernel, "investigating", note)
        app.main.refresh_rows()  # as the triage keys do
        await until(pilot, lambda: "note:" in plain(pane(app).get_option("k:block_sparse_flash_decode").prompt))
        room = pane(app).scrollable_content_region.width
        for option in pane(app).options:
            for line in plain(option.prompt).splitlines():
                assert len(line.rstrip()) <= room, line
        entry = plain(pane(app).get_option("k:block_sparse_flash_decode").prompt).splitlines()
        assert entry[0].rstrip().endswith("[investigating]") and "…" in entry[0]  # the name gave way


async def test_a_triage_key_on_a_heading_says_it_needs_a_kernel(sample_location):
    """a i u w x n on a layer heading or a gap did nothing, without a word."""
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await focus_pane(pilot)
        await pilot.press("end")  # the collapsed section's heading
        assert pane(app).highlighted_kernel is None
        await pilot.press("i", "n")
        assert isinstance(app.screen, MainScreen)  # no note screen opened
        assert not app.session.triage.entries
        said = [n.message for n in app._notifications]
        assert len(said) == 2 and "act on one kernel" in said[0]
        assert said[1].startswith("A note belongs to one kernel: move to a kernel row under this heading")


async def test_n_on_a_gap_heading_says_a_note_is_one_kernels(sample_location):
    """Issue 24: ``n`` on a gap heading of the by-gap pane did nothing and said nothing."""
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await focus_pane(pilot)
        await pilot.press("g")
        await until(pilot, lambda: pane(app).view == "gap" and pane(app).highlighted_option is not None)
        option = pane(app).highlighted_option
        assert option is not None and (option.id or "").startswith("g:") and pane(app).highlighted_kernel is None
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and not app.session.triage.entries  # no note screen, no entry
        said = [n.message for n in app._notifications]
        assert said == ["A note belongs to one kernel: move to a kernel row under this gap, then n."]


@pytest.mark.slow
async def test_a_filter_that_takes_the_highlighted_heading_away_does_not_crash(sample_location):
    """Found by hand at 80x24: the pane's cursor on the "gaps on working kernels" heading,
    back to the table, then a filter whose kernels have no such gaps: restoring the
    cursor asked the OptionList for the heading, which raised, and the app died."""
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await focus_pane(pilot)
        await pilot.press("end")
        assert pane(app).highlighted_option.id.startswith("section:")
        await pilot.press("shift+tab", "slash", *"paged_kv", "enter")
        await until(pilot, lambda: table(app).row_count == 1)
        ids = {pane(app).get_option_at_index(i).id for i in range(pane(app).option_count)}
        assert not any(i and i.startswith("section:") for i in ids)  # the heading is gone
        await pilot.press("escape")  # every kernel again: the heading is back, and the app runs on
        await until(pilot, lambda: table(app).row_count == 15)
        assert app.is_running


async def test_the_words_on_a_heading_name_the_keys_as_remapped(sample_location, tmp_path):
    """A `[keys]` remap of the note key: the word on a gap heading names the key that works."""
    app = build_with_settings(sample_location, tmp_path, '[keys]\nmain.note = "N"\n')
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await focus_pane(pilot)
        await pilot.press("g")
        await until(pilot, lambda: pane(app).view == "gap" and pane(app).highlighted_option is not None)
        await pilot.press("N")
        await pilot.pause()
        said = [n.message for n in app._notifications]
        assert said == ["A note belongs to one kernel: move to a kernel row under this gap, then N."]
