"""``/`` in a screen of text (the detail, the code diff): type, ``enter`` jumps to the first
match, the next/previous keys step through them, every match is marked and the one jumped
to stands out; "no match" is said in the bar.

It looks in the lines as drawn (case-insensitive, within one line), so what it finds is
what is on screen, in the language shown."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, ScrollableContainer
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static

from ptotui.app.widgets.rendered import RenderedStatic
from ptotui.model.i18n import N_, _
from ptotui.model.text import one_line


@dataclass(frozen=True, order=True)
class Match:
    """A match at content line ``y`` of the scroll (``line`` of ``widget``), cells ``start`` to ``end``."""

    y: int
    start: int
    end: int
    line: int
    widget: RenderedStatic


def find(widgets: list[RenderedStatic], text: str) -> list[Match]:
    """Every match of ``text`` (case-insensitive) in the lines the widgets draw, top to bottom."""
    needle = text.casefold()
    found: list[Match] = []
    if not needle:
        return found
    for widget in widgets:
        if not widget.display:
            continue
        top = widget.virtual_region.y + widget.gutter.top
        for line, plain in enumerate(widget.plain_lines()):
            folded = plain.casefold()
            at = folded.find(needle)
            while at >= 0:  # (casefold keeps the length of these lines but for a few letters: ß)
                start = cell_len(plain[:at])
                found.append(Match(top + line, start, start + cell_len(plain[at : at + len(needle)]), line, widget))
                at = folded.find(needle, at + max(1, len(needle)))
    return found


def key_named(screen: Screen, keymap: Mapping[str, str], binding_id: str, default: str) -> str:
    """The first key of ``binding_id`` as the settings file maps it, as the footer shows it."""
    keys = [k.strip() for k in keymap.get(binding_id, default).split(",") if k.strip()] or [default]
    return screen.app.get_key_display(Binding(keys[0], ""))


class SearchInput(Input):
    """The search's text; ``esc`` closes the bar (not the screen)."""

    BINDINGS = [Binding("escape", "close", N_("Close the search"), show=False)]

    class Closed(Message):
        pass

    def action_close(self) -> None:
        self.post_message(self.Closed())


class SearchBar(Horizontal):
    """Hidden until ``/``: the text typed, then what was found (``3 of 12``, ``no match``)."""

    DEFAULT_CSS = """
    SearchBar { display: none; height: 1; background: $boost; }
    SearchBar.-open { display: block; }
    SearchBar #search-slash { width: 2; }
    SearchBar SearchInput { width: 32; height: 1; border: none; padding: 0; }
    SearchBar #search-said { width: 1fr; padding: 0 1; }
    """

    def __init__(self, scroll: Callable[[], ScrollableContainer], widgets: Callable[[], list[RenderedStatic]]) -> None:
        super().__init__()
        self._scroll = scroll
        self._widgets = widgets
        self.text = ""
        self.matches: list[Match] = []
        self.current: Match | None = None
        self.keys = ("n", "N")  # the next/previous keys, as the bar names them (given by the screen)

    def compose(self) -> ComposeResult:
        yield Static("/", id="search-slash", markup=False)
        yield SearchInput(placeholder=_("search"), id="search-input")
        yield Static("", id="search-said", markup=False)

    def open(self, keys: tuple[str, str]) -> None:
        """Show the bar and focus its text; ``keys``: the next/previous keys it names."""
        self.keys = keys
        self.add_class("-open")
        field = self.query_one(SearchInput)
        field.value = self.text
        field.display = True
        self.app.set_focus(field)

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @on(SearchInput.Closed)
    def close(self) -> None:
        """The bar hidden, the marks gone, the text's scroll focused."""
        self.remove_class("-open")
        self.text, self.matches, self.current = "", [], None
        self._mark()
        self._scroll().focus()

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.text = event.value
        self._scroll().focus()
        if not self.text:
            self.close()
            return
        self.matches = find(self._widgets(), self.text)
        self.current = self.matches[0] if self.matches else None
        self._show()

    def step(self, step: int) -> None:
        """The next (1) or previous (-1) match after the current one, round the end: found
        anew each time, so a text drawn again (a reload, ``l``) is searched as it is now."""
        if not self.text:
            return
        self.matches = find(self._widgets(), self.text)
        if not self.matches:
            self.current = None
        elif self.current is None:
            self.current = self.matches[0 if step > 0 else -1]
        else:
            at = (self.current.y, self.current.start)
            later = [m for m in self.matches if (m.y, m.start) > at]
            earlier = [m for m in self.matches if (m.y, m.start) < at]
            if step > 0:
                self.current = later[0] if later else self.matches[0]
            else:
                self.current = earlier[-1] if earlier else self.matches[-1]
        self._show()

    def _show(self) -> None:
        said = self.query_one("#search-said", Static)
        shown = one_line(self.text, 40)
        if self.current is None:
            said.update(Text(_("no match for “{text}”").format(text=shown), style="bold red"))
        else:
            number = self.matches.index(self.current) + 1
            words = _("{number} of {count}: {next}/{previous} next/previous, esc closes")
            said.update(words.format(number=number, count=len(self.matches), next=self.keys[0], previous=self.keys[1]))
            scroll = self._scroll()
            scroll.scroll_to(y=max(0, self.current.y - scroll.size.height // 3), animate=False, immediate=True)
        self._mark()

    def _mark(self) -> None:
        marks: dict[RenderedStatic, dict[int, list[tuple[int, int, bool]]]] = {w: {} for w in self._widgets()}
        for match in self.matches:
            marks.setdefault(match.widget, {}).setdefault(match.line, []).append(
                (match.start, match.end, match is self.current)
            )
        for widget, marked in marks.items():
            widget.set_marks(marked)


class SearchActions:
    """What a screen with a :class:`SearchBar` does with its keys: the next/previous match, and
    ``esc`` that closes the bar when it is open, else leaves the screen (the detail, the code diff)."""

    def action_search_step(self: Screen, step: int) -> None:  # type: ignore[misc]
        self.query_one(SearchBar).step(step)

    def action_back(self: Screen) -> None:  # type: ignore[misc]
        """``esc``: close the search bar when it is open, else back."""
        bar = self.query_one(SearchBar)
        if bar.is_open:
            bar.close()
        else:
            self.app.pop_screen()
