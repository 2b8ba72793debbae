"""The changes pane (``C``) from the keyboard (issue 33 item 4): in the tab cycle, scrolled by
PgDn/End/j/k, and the reloads' changes, the newest news, above the snapshot's."""

from __future__ import annotations

from ptotui.app.widgets.blocker_pane import BlockerPane
from ptotui.app.widgets.changes_pane import ChangesPane
from ptotui.model.core.diff import Change
from ptotui.model.history.since import SinceSnapshot
from tests.helpers import build, loaded, table, until


def _change(kernel: str) -> Change:
    return Change(kernel, "pto_status", "ok", "blocked", -1, True)


def _snapshot(n: int) -> SinceSnapshot:
    return SinceSnapshot("20260314T170132Z", None, tuple(_change(f"snap_{i}") for i in range(n)))


def _prompts(pane: ChangesPane) -> list[str]:
    return [str(pane.get_option_at_index(i).prompt) for i in range(pane.option_count)]


async def test_the_reloads_changes_come_before_the_snapshots(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("C")
        pane = app.main.query_one(ChangesPane)
        pane.show(_snapshot(41), [(1_764_400_000.0, _change("older")), (1_764_400_060.0, _change("newer"))])
        lines = _prompts(pane)
        assert lines[0].startswith("on reload, newest first"), lines[:3]
        assert "newer" in lines[1] and "older" in lines[2]
        assert lines[3].startswith("since snapshot 20260314T170132Z") and "snap_0" in lines[4]


async def test_tab_reaches_the_changes_pane_and_the_keys_scroll_it(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        # The app's own compare with the snapshots first: on a loaded machine it came after the
        # lines below and redrew the pane with the samples' few, so PgDn moved by two.
        await until(pilot, lambda: app.session.since is not None)
        await pilot.press("C")
        pane = app.main.query_one(ChangesPane)
        app.session.since = _snapshot(120)  # what a later redraw of the pane shows too
        pane.show(app.session.since, [])
        await pilot.press("tab")
        await until(pilot, lambda: isinstance(app.focused, BlockerPane))
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is pane)
        first = pane.highlighted or 0
        await pilot.press("j", "j")
        assert pane.highlighted == first + 2
        await pilot.press("k")
        assert pane.highlighted == first + 1
        await pilot.press("pagedown")
        await pilot.pause()
        assert pane.highlighted is not None and pane.highlighted > first + 10 and pane.scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert pane.highlighted == pane.option_count - 1 and pane.scroll_y == pane.max_scroll_y
        await pilot.press("home")
        await pilot.pause()
        assert pane.highlighted == 1 and pane.scroll_y == 0  # its heading in view too
        await pilot.press("tab")  # round to the table
        await until(pilot, lambda: app.focused is table(app))
        await pilot.press("shift+tab")  # and back the other way
        await until(pilot, lambda: app.focused is pane)


async def test_at_80_columns_tab_from_the_changes_pane_shows_the_table_again(sample_location):
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("C")
        pane = app.main.query_one(ChangesPane)
        pane.show(_snapshot(30), [])
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is pane)  # the narrow screen shows one thing at a time
        await pilot.press("tab")
        await until(pilot, lambda: app.focused is table(app))
        await pilot.pause()
        assert table(app).display and table(app).region.width > 0


def test_the_focus_cycle_takes_the_changes_pane_while_it_is_shown():
    from ptotui.model.present.focus import next_stop

    assert [next_stop(s, 1, False, True) for s in ("table", "blockers", "changes")] == ["blockers", "changes", "table"]
    assert [next_stop(s, -1, False, True) for s in ("table", "blockers", "changes")] == ["changes", "table", "blockers"]
    assert next_stop("table", 1, False, False) == "blockers" and next_stop("blockers", 1, False, False) == "table"
    assert next_stop("changes", 1, False, False) == "blockers"  # closed under the focus: from the table's place
    assert next_stop("table", 1, True, True) == "changes" and next_stop("changes", 1, True, True) == "table"
