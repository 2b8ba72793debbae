"""Start-up order: what is drawn first, and what waits until the first rows are on screen.

The speed itself is measured in benchmarks/bench_startup.py; these tests pin the order
of events that speed depends on, and that what was moved later still works.
"""

from __future__ import annotations

import pytest
from textual.app import App
from textual.widgets import Input
from textual.widgets._footer import FooterKey

from ptotui.app.widgets.changes_pane import ChangesPane
from ptotui.app.widgets.footer import StableFooter
from tests.helpers import build, loaded, table, until

SIZE = (160, 48)


@pytest.fixture
def frames(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, bool, bool]]:
    """Each frame Textual renders for the screen: (inside a batch, i.e. never displayed;
    the table has rows; the footer is mounted)."""
    seen: list[tuple[bool, bool, bool]] = []
    display = App._display

    def record(app: App, screen, renderable) -> None:
        if renderable is not None and hasattr(app, "main") and app.main.is_attached:
            rows = bool(table(app).row_count)
            seen.append((bool(app._batch_count), rows, bool(app.main.query(StableFooter))))
        display(app, screen, renderable)

    monkeypatch.setattr(App, "_display", record)
    return seen


async def test_the_first_frame_is_displayed_not_thrown_away(sample_location, frames):
    """The main screen used to be pushed in the app's on_mount, inside Textual's start-up
    batch: its first layout and render were made and then dropped, unseen."""
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await pilot.pause(0.2)
        assert frames, "no frame was rendered"
        assert not [frame for frame in frames if frame[0]], "a frame was rendered inside the start-up batch"
        assert app.screen_stack == [app.main]  # the main screen is the first, not one over a blank one


async def test_footer_filter_and_changes_pane_come_after_the_first_rows(sample_location, frames):
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: bool(app.main.query(StableFooter)))
        first_rows = next(frame for frame in frames if frame[1])
        assert not first_rows[2], "the footer was mounted before the first rows were drawn"
        # What was mounted later works as before: its keys, the filter, the changes pane.
        await pilot.pause(0.1)
        assert any(key.key == "slash" for key in app.main.query(FooterKey))
        await pilot.press("C")
        assert app.main.query_one(ChangesPane).display
        await pilot.press("C", "slash", *"paged_kv", "enter")
        assert app.main.query_one("#filter", Input).value == "paged_kv"
        assert table(app).row_count == 1


async def test_the_footer_comes_even_when_the_first_load_fails(sample_location, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a loader bug")

    monkeypatch.setattr("ptotui.model.live.watcher.reload_reports", broken)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: bool(app.main.query(StableFooter)))
        assert app.main.reports is None
        assert app.main.query("#filter") and app.main.query(ChangesPane)


async def test_a_slash_handled_before_the_screen_mounted_keeps_the_filter_open(sample_location, monkeypatch):
    """Found by hand in tmux: ``/`` typed ~0.2 s after start was handled before the main
    screen's on_mount, which then hid the filter line and focused the table, so the words
    typed next ran as keys (``m`` marked everything seen, ``i`` triaged a kernel)."""
    from ptotui.app.screens.main.screen import MainScreen

    mount = MainScreen.on_mount

    def slash_first(self: MainScreen) -> None:
        self.action_open_filter()  # what Textual did with the early key
        mount(self)

    monkeypatch.setattr(MainScreen, "on_mount", slash_first)
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("m", "o", "e")
        assert app.main.filters.text == "moe" and app.main.has_class("-filtering")
        assert isinstance(app.focused, Input)
        assert app.main.sort_reverse is False  # `o` did not flip the sort


async def test_the_first_frame_is_laid_out_with_the_breakpoint_class(sample_location, monkeypatch):
    """Textual sets -wide / -narrow on the screen's first Resize, after its first frame,
    and then restyles and lays out everything again; three same-size Resizes followed."""
    from textual.screen import Screen

    classes: list[set[str]] = []
    relayouts: list[object] = []
    display, resized = App._display, Screen._on_resize

    def record(app: App, screen, renderable) -> None:
        if renderable is not None and screen is getattr(app, "main", None):
            classes.append(set(screen.classes))
        display(app, screen, renderable)

    async def count(screen: Screen, event) -> None:  # Textual's own handler: lays the screen out again
        relayouts.append(event.size)
        await resized(screen, event)

    monkeypatch.setattr(App, "_display", record)
    monkeypatch.setattr(Screen, "_on_resize", count)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        assert "-wide" in classes[0] and "-narrow" not in classes[0]
        assert relayouts == []  # no Resize to the size the screen was laid out at went on to Textual
        await pilot.resize_terminal(100, 36)  # a real change still does, breakpoint and all
        await until(pilot, lambda: app.main.has_class("-narrow"))
        assert not app.main.has_class("-wide") and relayouts


@pytest.mark.slow
async def test_start_up_work_waits_until_no_key_comes(sample_location, monkeypatch):
    """Keys typed as the first rows appeared waited for the footer to be mounted (the whole
    screen restyled and redrawn, ~50 ms) and the first ? for the help to be imported and
    built: over 100 ms on a 4,000-snapshot history (benchmarks/bench_history.py). That work
    now waits for a moment with no key; a key that needs a hidden widget mounts it."""
    from ptotui.model.live import activity

    monkeypatch.setattr(activity, "QUIET", 3600.0)  # a user who never stops typing
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down")
        await until(pilot, lambda: table(app).row_count == 15)
        await pilot.pause(0.5)
        assert not app.main.query(StableFooter), "the footer was mounted while keys were coming"
        assert not app.is_screen_installed("help-MainScreen")
        await pilot.press("C")
        assert app.main.query_one(ChangesPane).display
        await pilot.press("slash", *"paged_kv", "enter")
        assert table(app).row_count == 1
        app.activity.last_input = None  # and then a quiet moment
        await until(pilot, lambda: app.is_screen_installed("help-MainScreen"))
        assert app.main.query(StableFooter)


async def test_the_help_table_is_rendered_once_per_width(sample_location, monkeypatch):
    """A Static rendered the help's table twice at each layout, and ? lays the help out
    every time it shows it."""
    from rich.table import Table

    renders: list[int] = []
    rich_console = Table.__rich_console__

    def counted(table: Table, console, options):
        if table.title == "Keys":
            renders.append(options.max_width)
        yield from rich_console(table, console, options)

    monkeypatch.setattr(Table, "__rich_console__", counted)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        for _ in range(3):
            await pilot.press("question_mark")
            await pilot.pause()
            await pilot.press("question_mark")
        assert renders and len(renders) == len(set(renders)), renders


async def test_what_was_seen_is_read_off_the_ui_thread_after_the_first_rows(sample_location, frames, monkeypatch):
    """At 10,000 kernels reading seen.json is ~0.3 s of CPU; the first rows waited for it."""
    import threading

    from ptotui.model.history import since

    reads: list[tuple[bool, bool]] = []
    load_seen = since.load_seen

    def recorded(*args, **kwargs):
        reads.append((threading.current_thread() is threading.main_thread(), any(f[1] for f in frames)))
        return load_seen(*args, **kwargs)

    monkeypatch.setattr(since, "load_seen", recorded)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.seen is not None)
        assert reads == [(False, True)]  # once, on a worker, with the rows already drawn
