"""A yes-or-no question over the screen: ``enter`` yes, ``esc`` no (re-runs: start, stop, quit)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from ptotui.model.i18n import N_
from ptotui.model.text import clean


class ConfirmScreen(ModalScreen[bool]):
    """``question``, then ``command`` shown whole as it will run (when there is one) and ``where``
    (the directory it runs in), then the keys."""

    BINDINGS = [
        Binding("enter", "answer(True)", N_("Yes"), id="confirm.yes"),
        Binding("escape", "answer(False)", N_("No"), id="confirm.no"),
    ]

    def __init__(self, title: str, question: str, command: str, keys: str, where: str = "") -> None:
        super().__init__()
        self.title_text, self.question, self.command, self.keys = title, question, command, keys
        self.where = where

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box") as box:
            box.border_title = self.title_text
            yield Static(Text(clean(self.question)), id="confirm-question")
            if self.command:
                # The command exactly as it will run, wrapped, never cut: what the user agrees to.
                yield Static(Text(clean(self.command), style="bold", overflow="fold"), id="confirm-command")
            if self.where:
                yield Static(Text(clean(self.where), overflow="fold"), id="confirm-where")
            yield Static(Text(self.keys, style="dim italic"), id="confirm-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
