"""Toasts: what the app shows on every regression must not pile up out of sight."""

from __future__ import annotations

from textual.widgets._toast import Toast, ToastHolder

from tests.helpers import build, loaded, until


async def test_a_toast_that_expired_before_its_timer_leaves_no_empty_holder(sample_location):
    """Textual 8's toast rack removes a toast whose notification expired before the toast's own
    timer fired (a busy loop, a regression every reload), but not the ToastHolder around it:
    one holder, ~20 KB, was kept per regression toast for as long as the app ran (issue 24)."""
    app = build(sample_location)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await loaded(pilot)
        app.notify("first", timeout=60)
        await until(pilot, lambda: len(app.screen.query(Toast)) == 1)
        first = next(iter(app._notifications))
        first.raised_at -= 120  # expired, while the toast's 60 s timer has not fired
        for index in range(5):
            app.notify(f"next {index}", timeout=60)
            await pilot.pause()
        await until(pilot, lambda: len(app.screen.query(Toast)) == 5)
        await pilot.pause(0.1)
        holders = app.screen.query(ToastHolder)
        assert len(holders) == 5, [len(h.children) for h in holders]
