"""Cut a long text to what fits on one screen, cheaply, whatever its size.

A reason can be a 100k-line host dump or a 50 MB single line. Wrapping and
painting all of it froze the detail screen for seconds to minutes; only the
first screenful is shown, with a line that says how much more there is.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptotui.model.i18n import ngettext


@dataclass(frozen=True)
class Clipped:
    """The head of a text that fits in ``rows`` x ``width`` cells, and what was left out."""

    shown: str
    hidden_lines: int  # whole lines not shown (a line cut short counts as one)
    hidden_chars: int

    @property
    def cut(self) -> bool:
        return self.hidden_chars > 0

    def note(self) -> str:
        """``… 99,940 more lines`` (or characters, when the rest is one line)."""
        if self.hidden_lines > 1:
            return ngettext("… {n} more line", "… {n} more lines", self.hidden_lines).format(n=f"{self.hidden_lines:,}")
        return ngettext("… {n} more character", "… {n} more characters", self.hidden_chars).format(
            n=f"{self.hidden_chars:,}"
        )


def clip(text: str, rows: int, width: int) -> Clipped:
    """The first lines of ``text`` that fill at most ``rows`` rows of ``width`` cells when folded,
    a line cut short ending at a word boundary.

    Works in time proportional to what is shown (plus one C-level count of the
    newlines), never to the size of the text.
    """
    rows, width = max(rows, 1), max(width, 1)
    start, used = 0, 0
    while start < len(text) and used < rows:
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        need = max(1, -(-(end - start) // width))  # rows this line folds into
        if used + need > rows:
            # A part of this line fills the rest, cut after its last whole word on the last
            # row (a word longer than a row, as in a path or a dump, is cut where the room ends).
            cut = start + (rows - used) * width
            since = max(start, cut - width)
            space = max(text.rfind(" ", since, cut + 1), text.rfind("\t", since, cut + 1))
            start = space if space > start else cut
            used = rows
            break
        used += need
        start = end + 1
    start = min(start, len(text))
    if start >= len(text):
        return Clipped(text, 0, 0)
    shown = text[:start].removesuffix("\n")
    rest = len(text) - start
    hidden_lines = text.count("\n", start) + 1
    return Clipped(shown, hidden_lines, rest)
