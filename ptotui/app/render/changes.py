"""The detail's change points section and the diff view's text, drawn from values.

PTO's points before the baseline's, the kernel's series before its shapes, newest first
(:func:`ptotui.model.changes.points.for_detail`): date, side, shape label (or all shapes),
before → after ms, change %, files changed; a shape's point at the kernel's one counted under
it; then the pending ones. Paths and shapes come from the tree: cleaned, never parsed as markup.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from ptotui.model.changes.points import CAUSES, MIN_AFTER, ChangePoint, Listed
from ptotui.model.core.fmt import ms
from ptotui.model.i18n import _, ngettext
from ptotui.model.text import clean, one_line

SHOWN = 12  # change points listed on the detail; the rest are counted


def when(stamp: str) -> str:
    """``20260314T152618Z`` as ``2026-03-14 15:26``."""
    if len(stamp) < 13:
        return clean(stamp)
    return f"{stamp[0:4]}-{stamp[4:6]}-{stamp[6:8]} {stamp[9:11]}:{stamp[11:13]}"


def side_word(change: ChangePoint, lang: str | None = None) -> str:
    return "PTO" if change.side == "pto" else _("baseline", lang)


def shape_word(change: ChangePoint, lang: str | None = None, limit: int = 40) -> str:
    """All shapes (the kernel's series), else the shape's label (:mod:`ptotui.model.core.shapes`)."""
    if change.shape is None:
        return _("all shapes", lang)
    return one_line(clean(change.label or change.shape), limit)


NARROW = 140  # below this width: a shorter date and shape, and no cause (the colour says it)


def section(
    changes: Sequence[Listed] | None,
    lang: str,
    runs: int,
    width: int = NARROW,
    pending: Sequence[Listed] = (),
) -> Group:
    """The change points heading and its lines (``changes`` None: still being found), then
    the pending ones under a heading of their own."""
    parts: list[RenderableType] = [Text("\n" + _("Change points", lang), style="bold underline")]
    if changes is None:
        parts.append(Text("  " + _("finding the change points…", lang), style="dim italic"))
        return Group(*parts)
    if not changes and not pending:
        parts.append(Text("  " + _("none in {n} runs", lang).format(n=runs), style="dim"))
        return Group(*parts)
    narrow = width < NARROW
    if changes:
        parts.append(_grid(changes[:SHOWN], lang, narrow))
    else:
        parts.append(Text("  " + _("none for good in {n} runs", lang).format(n=runs), style="dim"))
    if len(changes) > SHOWN:
        parts.append(Text("  " + _("… {n} more", lang).format(n=len(changes) - SHOWN), style="dim italic"))
    if pending:
        said = _("Pending: fewer than {n} runs after them yet", lang).format(n=MIN_AFTER)
        parts.append(Text("  " + said, style="bold"))
        parts.append(_grid(pending[:SHOWN], lang, narrow))
    parts.append(Text("  " + _("d: the code that changed", lang), style="dim italic"))
    return Group(*parts)


def _grid(listed: Sequence[Listed], lang: str, narrow: bool) -> Table:
    grid = Table.grid(padding=(0, 1 if narrow else 2))
    for justify in ("left", "left", "left", "right", "right", "right", "left")[: 6 if narrow else 7]:
        grid.add_column(no_wrap=True, justify=justify)  # type: ignore[arg-type]
    arrow = "→" if narrow else " → "
    for item in listed:
        change = item.change
        style = "red" if change.slower else "green"
        files = len(change.artifacts or ())
        row = [
            Text(when(change.after)[5 if narrow else 0 :]),
            Text(side_word(change, lang)),
            Text(shape_word(change, lang, 14 if narrow else 40)),
            Text(f"{ms(change.before_ms)}{arrow}{ms(change.after_ms)}" + ("" if narrow else " ms")),
            Text(f"{change.change_pct:+.1f}%", style=style if change.side == "pto" else ""),
            Text(ngettext("{n} file changed", "{n} files changed", files, lang).format(n=files)),
        ]
        if not narrow:
            row.append(Text(_(CAUSES[(change.side, change.slower)], lang)))
        grid.add_row(*row)
        if item.repeats:
            grid.add_row(*_repeats(item, lang, narrow))
    body = Table.grid(padding=(0, 0, 0, 2))
    body.add_column()
    body.add_row(grid)
    return body


def _repeats(item: Listed, lang: str, narrow: bool) -> list[Text]:
    """The row under a kernel's point: its shapes' points at the same run, counted, their
    changes' range (not a change of their own)."""
    n = len(item.repeats)
    pcts = sorted(c.change_pct for c in item.repeats)
    spread = f"{pcts[0]:+.1f}%" if len(pcts) == 1 else f"{pcts[0]:+.1f}..{pcts[-1]:+.1f}%"
    said = ngettext("↳ {n} shape too", "↳ {n} shapes too", n, lang).format(n=n)
    row = [Text(""), Text(""), Text(said, style="dim"), Text(""), Text(spread, style="dim"), Text("")]
    return row if narrow else [*row, Text("")]


def header(
    change: ChangePoint,
    index: int,
    count: int,
    file_index: int,
    files: Sequence[str],
    lang: str | None,
    repeats: int = 0,
) -> Text:
    """The diff view's heading: which change, which file. A baseline point's: the vendor's
    code is not in the run; the files shown are PTO's, as context."""
    text = Text()
    text.append(one_line(clean(change.kernel), 80), style="bold")
    text.append(f"  {side_word(change, lang)}  {shape_word(change, lang, 60)}  ")
    text.append(f"{change.change_pct:+.1f}%", style="bold red" if change.slower else "bold green")
    text.append(f"  {clean(change.before)} → {clean(change.after)}")
    text.append("  " + _("change {i} of {n}", lang).format(i=index + 1, n=count), style="dim")
    if change.pending:
        said = _("pending: {n} of {least} runs after it yet", lang).format(n=change.runs_after, least=MIN_AFTER)
        text.append("  " + said, style="bold yellow")
    if repeats:
        also = ngettext("(and {n} shape)", "(and {n} shapes)", repeats, lang).format(n=repeats)
        text.append("  " + also, style="dim")
    if change.side == "baseline":
        said = _(
            "The baseline is the vendor's operator: its code is not kept in the run. "
            "Shown as context only: what changed on PTO's side between these two runs.",
            lang,
        )
        text.append("\n" + said, style="yellow")
    if files:
        said = _("file {i} of {n}: {path}", lang).format(i=file_index + 1, n=len(files), path=files[file_index])
        text.append("\n" + said)
    else:
        text.append("\n" + _("no code files differ between these two runs", lang), style="dim")
    return text
