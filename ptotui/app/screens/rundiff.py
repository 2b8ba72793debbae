"""The code that changed at a change point: the diff of its two run directories, file by file.

Handed the kernel's change points as the detail lists them (PTO's first, the kernel's series
before its shapes, then the pending ones) and which one to show; the files' diff is made on a
worker thread (two run directories read) and drawn highlighted as a diff. A baseline point's
heading says the vendor's code is not in the run: the diff is PTO's, as context.
"""

from __future__ import annotations

from rich.syntax import Syntax
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message

from ptotui.app.render import changes as changes_render
from ptotui.app.screens.base import PtoScreen, page, thread_worker
from ptotui.app.widgets.footer import StableFooter
from ptotui.app.widgets.rendered import RenderedStatic
from ptotui.app.widgets.search import SearchActions, SearchBar, key_named
from ptotui.model.changes.artifacts import FileDiff, file_diffs
from ptotui.model.changes.points import ChangePoint
from ptotui.model.i18n import N_, _, language


def diff_theme(dark: bool) -> str:
    """Pygments' colours for a diff on the app's background: dark ones (light text) on a dark theme."""
    return "ansi_dark" if dark else "ansi_light"


class RunDiffScreen(SearchActions, PtoScreen[None]):
    """The diff of one change point's code; ``n``/``p`` step between files, ``]``/``[`` between
    change points, ``e`` pages the whole diff, ``esc`` goes back."""

    DEFAULT_CSS = """
    RunDiffScreen #rundiff-head { height: auto; padding: 0 1; background: $boost; }
    RunDiffScreen #rundiff-scroll { height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "back", N_("Back"), id="rundiff.back"),
        Binding("n", "step_file(1)", N_("Next file"), id="rundiff.next-file"),
        Binding("p", "step_file(-1)", N_("Previous file"), id="rundiff.previous-file"),
        Binding("right_square_bracket", "step_change(1)", N_("Next change"), id="rundiff.next-change"),
        Binding("left_square_bracket", "step_change(-1)", N_("Previous change"), id="rundiff.previous-change"),
        Binding("e", "page_diff", N_("In $PAGER"), id="rundiff.pager"),
        Binding("q", "back", N_("Back"), show=False, id="rundiff.quit"),
        # n and p step files here: the search steps with f (find next) and F.
        Binding("slash", "search", N_("Search"), key_display="/", id="rundiff.search"),
        Binding("f", "search_step(1)", N_("Next match"), show=False, id="rundiff.next-match"),
        Binding("F", "search_step(-1)", N_("Previous match"), show=False, id="rundiff.previous-match"),
    ]

    class DiffMade(Message):
        """One change point's diff was made on the worker thread."""

        def __init__(self, index: int, files: list[FileDiff]) -> None:
            super().__init__()
            self.index = index
            self.files = files

    def __init__(
        self,
        changes: list[ChangePoint],
        index: int = 0,
        repeats: list[int] | None = None,
        keymap: dict[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.keymap = keymap or {}  # binding id -> keys, as the settings file maps them
        self.changes = changes
        self.repeats = repeats or [0] * len(changes)  # the shapes' points folded under each
        self.index = index
        self.files: list[FileDiff] | None = None
        self.file_index = 0

    def compose(self) -> ComposeResult:
        yield RenderedStatic("", id="rundiff-head", markup=False)
        with VerticalScroll(id="rundiff-scroll"):
            yield RenderedStatic("", id="rundiff-body", markup=False)
        yield SearchBar(
            lambda: self.query_one("#rundiff-scroll", VerticalScroll),
            lambda: [self.query_one("#rundiff-body", RenderedStatic)],
        )
        yield StableFooter(eager=True)

    def on_mount(self) -> None:
        self.title = _("Code changes")
        self._load()
        self.query_one("#rundiff-scroll").focus()
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self._draw_body())

    def _load(self) -> None:
        self.files, self.file_index = None, 0
        self.redraw()
        self._make_diff(self.index)

    @thread_worker(N_("Comparing two runs' code"), group="rundiff", exclusive=True)
    def _make_diff(self, index: int) -> None:
        change = self.changes[index]
        self.post_message(self.DiffMade(index, list(file_diffs(change.before_dir, change.after_dir))))

    def on_run_diff_screen_diff_made(self, message: DiffMade) -> None:
        if message.index == self.index:
            self.files = message.files
            self.redraw()

    def redraw(self) -> None:
        change = self.changes[self.index]
        lang = language()
        paths = [part.path for part in self.files or ()]
        count = len(self.changes)
        repeats = self.repeats[self.index] if self.index < len(self.repeats) else 0
        head = changes_render.header(change, self.index, count, self.file_index, paths, lang, repeats)
        self.query_one("#rundiff-head", RenderedStatic).show(head)
        self._draw_body()
        self.query_one("#rundiff-scroll", VerticalScroll).scroll_home(animate=False)

    def _draw_body(self) -> None:
        """The diff, in the colours of the theme's light or dark (drawn again when it changes)."""
        body = self.query_one("#rundiff-body", RenderedStatic)
        if self.files is None:
            body.show(_("comparing the two run directories…"))
        elif not self.files:
            body.show("")
        else:
            text = "\n".join(self.files[self.file_index].lines)
            body.show(
                Syntax(
                    text,
                    "diff",
                    theme=diff_theme(self.app.current_theme.dark),
                    word_wrap=False,
                    background_color="default",
                )
            )

    def action_search(self) -> None:
        """``/``: find a text in the file's diff; ``f``/``F`` the next/previous match (``n``/``p`` step files)."""
        self.query_one(SearchBar).open(
            (
                key_named(self, self.keymap, "rundiff.next-match", "f"),
                key_named(self, self.keymap, "rundiff.previous-match", "F"),
            )
        )

    def action_step_file(self, step: int) -> None:
        if self.files:
            self.file_index = (self.file_index + step) % len(self.files)
            self.redraw()

    def action_step_change(self, step: int) -> None:
        index = self.index + step
        if 0 <= index < len(self.changes):
            self.index = index
            self._load()

    def language_changed(self) -> None:
        self.redraw()

    def action_page_diff(self) -> None:
        """The change point's whole diff in $PAGER (default ``less``), piped: no temp file."""
        lines = [line for part in self.files or () for line in part.lines]
        page(self, "\n".join(lines) + "\n")
