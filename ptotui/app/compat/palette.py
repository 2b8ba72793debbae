"""Textual's command palette with its one fixed sentence in the language in force.

Textual writes "No matches found" into the palette's list from a timer inside a private
method, with no hook to change the words. The list is an OptionList, whose public
``replace_option_prompt`` can: the palette puts our words in place on the same tick.
"""

from __future__ import annotations

from rich.align import Align
from rich.text import Text
from textual.command import CommandList, CommandPalette
from textual.css.query import NoMatches
from textual.timer import Timer
from textual.widgets.option_list import OptionDoesNotExist

from ptotui.model.i18n import _


class Palette(CommandPalette):
    _no_matches_words: Timer | None = None  # ours, beside Textual's own countdown

    def _start_no_matches_countdown(self, search_value: str) -> None:
        super()._start_no_matches_countdown(search_value)
        if search_value:  # Textual shows its sentence only when something was searched for
            self._no_matches_words = self.set_timer(self._NO_MATCHES_COUNTDOWN, self._say_no_matches)

    def _stop_no_matches_countdown(self) -> None:
        super()._stop_no_matches_countdown()
        words = self._no_matches_words
        if words is not None:
            words.stop()
            self._no_matches_words = None

    def _say_no_matches(self) -> None:
        """Runs after Textual's own timer of the same length (timers fire in order)."""
        try:
            self.query_one(CommandList).replace_option_prompt(
                self._NO_MATCHES, Align.center(Text(_("No matches found"), style="not bold"))
            )
        except (NoMatches, OptionDoesNotExist):
            pass  # a search result came in first, or the palette closed
