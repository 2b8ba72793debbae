"""What the detail screen does per key, kept small: no timing here (benchmarks/bench_history.py
measures the keys in a real terminal); these check that the work behind each key stays bounded."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from ptotui.app.render import detail_parts
from ptotui.app.render import detail_parts as detail_module
from ptotui.app.screens.detail import DetailScreen
from ptotui.app.widgets.footer import StableFooter
from ptotui.app.widgets.rendered import RenderedStatic
from tests.app.test_detail_limits import KERNEL, SIZE, open_detail, rendered_lines, set_reason
from tests.helpers import build, loaded, until


async def test_end_and_home_jump_at_once(sample_location):
    """Textual animates End over a second, redrawing the screen at every step on the way."""
    set_reason(sample_location, "\n".join(f"line {i} of a host dump" for i in range(100_000)))
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        # The detail follows the session (the history, the compare): let it settle, so that what
        # it shows, and so how far End goes, does not grow while the keys are pressed.
        await until(pilot, lambda: app.session.since is not None and not app.session.since_pending)
        await until(pilot, lambda: app.session.history is not None and app.session.seen is not None)
        screen = await open_detail(pilot)
        scroll = screen.query_one("#detail-scroll")
        await until(pilot, lambda: scroll.max_scroll_y > 0 and screen.changes is not None)
        await pilot.pause()
        steps: list[float] = []

        def step(value: float) -> None:
            steps.append(value)

        screen.watch(scroll, "scroll_y", step, init=False)
        for key, where in (("end", "end"), ("home", 0), ("pagedown", None), ("down", None)):
            steps.clear()
            await pilot.press(key)
            await pilot.pause()
            assert len(steps) == 1, (key, steps)  # one jump, no steps in between
            if where is not None:
                assert scroll.scroll_y == (scroll.max_scroll_y if where == "end" else where)


async def test_the_report_arriving_redraws_only_the_report(sample_location, monkeypatch):
    calls: list[str] = []
    main_part = DetailScreen._main_part

    def counting(self, lang):
        calls.append(lang)
        return main_part(self, lang)

    monkeypatch.setattr(DetailScreen, "_main_part", counting)
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        # The detail follows the session (the history, the compare with the snapshot): let it settle first.
        await until(pilot, lambda: app.session.since is not None and not app.session.since_pending)
        await until(pilot, lambda: app.session.history is not None and app.session.seen is not None)
        screen = await open_detail(pilot)
        await pilot.pause()
        assert len(calls) == 1  # drawn once on mount, not again when report.json was read
        report = "".join(seg.text for seg in app.console.render(screen._report_part("en")))
        assert "report.json" in report and "baseline timings ms" in report
        await pilot.press("l")
        assert calls == ["en", "zh"]
        assert any("基线计时 ms" in line for line in rendered_lines(app))  # the report part in Chinese too


async def test_a_long_text_is_cut_once_not_at_every_key(sample_location, monkeypatch):
    """Counting the lines of a 50 MB reason took 20 ms at each `l`."""
    set_reason(sample_location, "x" * 5_000_000)
    seen: list[int] = []
    real = detail_module.clip

    def counting(text, rows, width):
        seen.append(len(text))
        return real(text, rows, width)

    monkeypatch.setattr(detail_module, "clip", counting)
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot)
        cut = seen.count(5_000_000)
        assert cut == 1
        for lang in ("zh", "en", "zh"):
            await pilot.press("l")
            assert app.ctx.lang == lang
        assert seen.count(5_000_000) == cut
        lines = rendered_lines(app)
        assert any("另有" in line and "个字符" in line for line in lines)  # the last l: Chinese
        await pilot.press("escape")
        await open_detail(pilot)  # the same kernel again: its text is not cut again either
        assert seen.count(5_000_000) == cut


async def test_the_detail_footer_is_built_once_per_open(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_detail(pilot)
        footer = screen.query_one(StableFooter)
        await until(pilot, lambda: len(footer.query(FooterKey)) > 0)
        keys = list(footer.query(FooterKey))
        assert any(key.description == "Full text" for key in keys)
        screen.query_one("#detail-scroll").focus()
        screen.refresh_bindings()
        await pilot.pause()
        assert list(footer.query(FooterKey)) == keys  # the same widgets: not rebuilt
        assert app.screen is screen and screen.kernel.name == KERNEL
        await pilot.press("l")  # other words: built again, in Chinese
        await until(pilot, lambda: any(key.description == "返回" for key in footer.query(FooterKey)))


class _Toggle(Screen[None]):
    BINDINGS = [Binding("t", "toggle", "Toggle"), Binding("x", "extra", "Extra")]
    extra = False

    def compose(self) -> ComposeResult:
        yield Static("body")
        yield StableFooter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.extra if action == "extra" else True

    def action_toggle(self) -> None:
        self.extra = not self.extra
        self.refresh_bindings()


async def test_the_stable_footer_still_follows_a_change_of_keys():
    class Toy(App[None]):
        def on_mount(self) -> None:
            self.push_screen(_Toggle())

    app = Toy()
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()

        def shown() -> list[str]:
            return [key.description for key in app.screen.query(FooterKey)]

        await until(pilot, lambda: "Toggle" in shown())
        assert "Extra" not in shown()
        await pilot.press("t")
        await until(pilot, lambda: "Extra" in shown())
        await pilot.press("t")
        await until(pilot, lambda: "Extra" not in shown())


async def test_opening_and_leaving_the_detail_leaves_the_main_footer_alone(sample_location):
    """The main screen's footer was rebuilt on each return from the detail screen."""
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        main = app.screen
        await until(pilot, lambda: len(main.query(FooterKey)) > 0)
        await pilot.pause()
        keys = list(main.query(FooterKey))
        screen = await open_detail(pilot)
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is main)
        await pilot.pause()
        assert app.screen is not screen
        assert list(main.query(FooterKey)) == keys


class _Counted:
    """A Rich renderable that counts how often it is rendered."""

    def __init__(self) -> None:
        self.widths: list[int] = []

    def __rich_console__(self, console, options):
        self.widths.append(options.max_width)
        yield Text("\n".join(f"line {i}" for i in range(30)))


async def test_a_rendered_static_renders_once_per_width():
    """A Static renders a Rich renderable to measure its height and again to draw it,
    at every layout pass: opening the detail screen made several."""

    class Toy(App[None]):
        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield RenderedStatic("", id="body")

    app = Toy()
    async with app.run_test(size=(60, 10)) as pilot:
        counted = _Counted()
        body = app.query_one("#body", RenderedStatic)
        body.show(counted)
        await pilot.pause()
        assert body.virtual_region.height == 30
        first = len(counted.widths)
        assert first == len(set(counted.widths))  # once per width (the scrollbar takes two cells)
        for _ in range(3):
            body.refresh(layout=True)
            app.screen.refresh(layout=True)
            await pilot.pause()
        assert len(counted.widths) == first
        await pilot.resize_terminal(40, 10)
        await pilot.pause()
        assert len(counted.widths) > first and counted.widths[-1] < 40  # a new width: rendered again


def test_a_kept_screenful_goes_with_its_kernel():
    """The cut reasons are kept across openings, but not the 50 MB text of a kernel gone."""
    import gc

    from ptotui.model.types import Kernel

    kernel = Kernel(name="k", baseline_reason="x" * 100_000)
    first = detail_parts.clip_field(kernel, kernel.baseline_reason, 5, 20)
    assert detail_parts.clip_field(kernel, kernel.baseline_reason, 5, 20) is first
    joined = "\n".join(["a"] * 100)
    detail_parts.clip_field(kernel, joined, 5, 20)  # not the kernel's own text: not kept
    assert len(detail_module._CLIPS[id(kernel)][1]) == 1
    key = id(kernel)
    del kernel, first
    gc.collect()
    assert key not in detail_module._CLIPS


async def test_the_detail_footer_has_its_keys_in_the_first_frame(sample_location):
    """Textual's Footer builds its keys after the screen's first frame and then needs a
    frame of its own: the detail screen looked done only one more layout pass later."""
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        kernel = app.main.reports.by_name()[KERNEL]
        screen = DetailScreen(kernel, app.ctx)
        await app.push_screen(screen)  # returns once the screen and its children are mounted
        keys = screen.query_one(StableFooter).query(FooterKey)
        assert "Full text" in [key.description for key in keys]
        built = list(keys)
        await until(pilot, lambda: screen.report is not None)
        await pilot.pause()
        assert list(screen.query_one(StableFooter).query(FooterKey)) == built  # not built again


async def test_opening_the_detail_lays_out_no_screen_twice(sample_location, monkeypatch):
    """A new screen's first layout sends it a Resize to the size it has, and Textual laid
    out the new screen and every screen beneath it again for it."""
    from ptotui.app.screens.main.screen import MainScreen

    laid_out: list[str] = []
    real = Screen._refresh_layout

    def counting(self, size=None, scroll=False):
        laid_out.append(type(self).__name__)
        return real(self, size, scroll)

    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        # The history is read half a second after the first rows, and redraws the main
        # screen when it lands: wait for it, or it lays the main screen out meanwhile.
        await until(pilot, lambda: app.session.history is not None and app.session.since is not None)
        await pilot.pause()
        monkeypatch.setattr(Screen, "_refresh_layout", counting)
        await open_detail(pilot)
        await pilot.pause()
        assert MainScreen.__name__ not in laid_out  # beneath the detail: not laid out at all
        laid_out.clear()
        scroll = app.screen.query_one("#detail-scroll")
        width = scroll.size.width
        await pilot.resize_terminal(SIZE[0] - 20, SIZE[1])  # a real change of size still counts
        await until(pilot, lambda: scroll.size.width == width - 20)
        assert "DetailScreen" in laid_out and "MainScreen" in laid_out


async def test_the_detail_help_says_q_goes_back(sample_location):
    """The help listed one key per action, and the app's keys under the screen's: on the
    detail screen it said `q Quit`, where q goes back."""
    from ptotui.app.screens.help import HelpScreen

    def lines() -> list[str]:
        assert isinstance(app.screen, HelpScreen)
        text = "".join(seg.text for seg in app.console.render(app.screen._table()))
        return [" ".join(line.replace("│", " ").split()) for line in text.splitlines()]

    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot)
        await pilot.press("question_mark")
        assert "esc, q Back" in lines()
        assert [line for line in lines() if "Quit" in line] == ["^c Quit"]  # ctrl+c quits from anywhere
        await pilot.press("q", "q")  # the help, then the detail
        assert app.screen is app.main
        await pilot.press("question_mark")
        assert "q, ^c Quit" in lines()  # on the main screen q quits
