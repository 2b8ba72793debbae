"""``/`` in the detail and in the code diff: enter jumps to the first match, the next/previous
keys step round them (``n``/``N`` on the detail, ``f``/``F`` in the diff, where ``n``/``p`` step
files), every match is marked, and "no match" is said."""

from __future__ import annotations

import pytest

from ptotui.app.screens.detail import DetailScreen
from ptotui.app.screens.rundiff import RunDiffScreen
from ptotui.app.widgets.search import SearchBar
from tests.app.test_changes_screen import _with_runs
from tests.app.test_detail_limits import KERNEL, open_detail
from tests.helpers import build, until


def _said(screen) -> str:
    return str(screen.query_one("#search-said").render())


def _marked(screen, *ids: str) -> list[tuple[int, int, bool]]:
    return [mark for name in ids for marks in screen.query_one(f"#{name}").marks.values() for mark in marks]


async def _search(pilot, text: str) -> None:
    await pilot.press("slash", *("space" if c == " " else c for c in text), "enter")


@pytest.mark.slow
async def test_slash_in_the_detail_finds_marks_and_steps_round_the_matches(sample_location) -> None:
    app = build(sample_location)
    async with app.run_test(size=(100, 20)) as pilot:
        screen = await open_detail(pilot)
        bar = screen.query_one(SearchBar)
        await _search(pilot, "Baseline-Blocked")  # case-insensitive: the tier, the facts, the history
        await until(pilot, lambda: bar.current is not None)
        count = len(bar.matches)
        assert count >= 2 and bar.current == bar.matches[0]
        assert _said(screen).startswith(f"1 of {count}: n/N next/previous")
        marks = _marked(screen, "detail", "detail-changes", "detail-report")
        assert len(marks) == count and sum(current for *_, current in marks) == 1
        scroll = screen.query_one("#detail-scroll")
        assert scroll.scroll_y <= bar.current.y < scroll.scroll_y + scroll.size.height  # in view
        await pilot.press("n")
        assert bar.current == bar.matches[1] and _said(screen).startswith(f"2 of {count}")
        await pilot.press("N", "N")
        assert bar.current == bar.matches[-1]  # round the start
        last = bar.current
        assert scroll.scroll_y <= last.y < scroll.scroll_y + scroll.size.height
        await _search(pilot, "no such words here")
        assert bar.current is None and _said(screen) == "no match for “no such words here”"
        assert _marked(screen, "detail", "detail-changes", "detail-report") == []
        await pilot.press("escape")  # closes the search bar, not the screen
        assert app.screen is screen and not bar.has_class("-open")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main)
        assert KERNEL  # (the kernel the detail opened)


@pytest.mark.slow
async def test_slash_in_the_code_diff_steps_with_f_while_n_still_steps_files(sample_location) -> None:
    _with_runs(sample_location)
    app = build(sample_location)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: bool(screen.changes))
        await pilot.press("d")
        await until(pilot, lambda: isinstance(app.screen, RunDiffScreen))
        diff = app.screen
        assert isinstance(diff, RunDiffScreen)
        await until(pilot, lambda: diff.files is not None)
        bar = diff.query_one(SearchBar)
        await _search(pilot, "@@")
        await until(pilot, lambda: bar.current is not None)
        count = len(bar.matches)
        assert _said(diff).startswith(f"1 of {count}: f/F next/previous")
        assert len(_marked(diff, "rundiff-body")) == count
        await pilot.press("F")
        assert bar.current == bar.matches[-1]
        await pilot.press("f")
        assert bar.current == bar.matches[0]
        await pilot.press("n")
        assert diff.file_index == 1  # n is still the next file
        await _search(pilot, "nothing like this")
        assert _said(diff) == "no match for “nothing like this”"
        await pilot.press("escape", "escape")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
