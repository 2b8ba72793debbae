"""A modal text input for a triage note."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from ptotui.model.i18n import N_, _
from ptotui.model.text import clean, one_line


class NoteScreen(ModalScreen[str | None]):
    """Edit the note of one kernel; enter saves, escape cancels."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"), id="note.cancel")]

    def __init__(self, kernel: str, note: str) -> None:
        super().__init__()
        self.kernel = kernel
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical(id="note-box"):
            title = _("Note for {kernel} (enter saves, escape cancels)").format(kernel=one_line(clean(self.kernel), 60))
            yield Static(title, markup=False)
            yield Input(
                value=self.note, placeholder=_("who is on it, what was tried, the upstream issue…"), id="note-input"
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
