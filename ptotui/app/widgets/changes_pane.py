"""What changed, reload after reload, newest first."""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ptotui.app.render import mark
from ptotui.model.diff import Change
from ptotui.model.text import one_line


class ChangesPane(OptionList):
    """A log of changes with their times; selecting one jumps to its kernel."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Changes"
        self._count = -1

    def show(self, changes: list[tuple[float, Change]]) -> None:
        if len(changes) == self._count:
            return
        self._count = len(changes)
        self.clear_options()
        if not changes:
            self.add_option(Option(Text("no changes since start", style="dim"), disabled=True))
            return
        options = []
        for index, (when, change) in enumerate(reversed(changes[-200:])):
            line = Text(time.strftime("%H:%M:%S ", time.localtime(when)), style="dim")
            line.append_text(mark(change.direction))
            line.append(" " + one_line(change.describe(), 200), style="bold red" if change.regression else "")
            options.append(Option(line, id=f"{index}:{change.kernel}"))
        self.add_options(options)
