"""``N``: the notices (toasts) of this session, newest first, so one that vanished can be read again."""

from __future__ import annotations

from ptotui.app.screens.notices import NoticesScreen
from ptotui.model.control.effects import Notice
from ptotui.model.location import Location
from ptotui.model.notices import NoticeLog
from tests.helpers import build, loaded, until


def test_the_log_keeps_the_newest_cleaned_and_gives_them_newest_first() -> None:
    ticks = iter(range(1000))
    log = NoticeLog(lambda: float(next(ticks)), kept=3)
    for number in range(5):
        log.add(f"said {number}\x1b]0;owned\x07", "title\x1b[31m", "warning")
    kept = log.newest_first()
    assert [n.text for n in kept] == ["said 4", "said 3", "said 2"]  # the oldest dropped, escapes gone
    assert kept[0].title == "title" and kept[0].at > kept[1].at and len(log) == 3


async def test_n_lists_every_notice_newest_first_after_the_toasts_vanished(sample_location: Location) -> None:
    app = build(sample_location)
    async with app.run_test(size=(100, 30)) as pilot:
        await loaded(pilot)
        app.run_effects([Notice("the first one", "Triage", "warning"), Notice("the second one", None, "error")])
        await pilot.press("r")  # a screen's own toast ("Reloading…"), not the controller's
        await until(pilot, lambda: len(app._notifications) >= 3)
        app.clear_notifications()  # every toast gone
        await pilot.press("N")
        await until(pilot, lambda: isinstance(app.screen, NoticesScreen))
        texts = [str(w.render()) for w in app.screen.query(".notice-entry")]
        assert texts[:3] == ["Reloading…", "the second one", "the first one"]
        heads = [str(w.render()) for w in app.screen.query(".notice-head")]
        assert "error" in heads[1] and "warning" in heads[2] and "Triage" in heads[2]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is app.main)
