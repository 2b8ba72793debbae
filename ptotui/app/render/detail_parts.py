"""The pieces the detail screen is drawn with: fact words, headings, indented and key-value tables, clipped texts."""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ptotui.model.core.fmt import ms
from ptotui.model.i18n import N_, _
from ptotui.model.read.longtext import Clipped, clip
from ptotui.model.text import clean
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from ptotui.model.bench.record import Run


def fact(value: object) -> str:
    """A number or yes/no read from report.json; ``n/a`` when the report does not say."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


HISTORY_LINES = 12  # snapshots listed before ``h`` shows them all
LIMITATIONS_MIN = 30  # cells a Variants column of limitations needs, else they go under the table

HEADINGS = {
    "facts": N_("Facts"),
    "variants": N_("Variants"),
    "reasons": N_("Reasons and limitations"),
    "gaps": N_("Gaps"),
    "scalar": N_("Scalar matches"),
    "report": N_("report.json"),
    "next": N_("Look next"),
    "history": N_("History"),
    "none": N_("none"),
    "missing": N_("not found under {path}"),
    "reading": N_("reading…"),
    "more": N_("{more}: `e` opens it in $PAGER"),
    "triage": N_("Triage"),
    "blocking": N_("What blocks it"),
    "history_of": N_("{shown} of {total} snapshots, then now (h: all)"),
    "history_all": N_("all {total} snapshots, then now (h: fewer)"),
    "history_few": N_("{total} snapshots, then now"),
    "now": N_("now"),
    "untriaged": N_("untriaged: no one has looked at this blocker yet (a i u w on the main screen)"),
    "runs": N_("Bench runs"),
    "moved": N_("What moved"),
    "moved_since": N_("since {reference}"),
    "moved_reload": N_("reload at {at}"),
    "baseline_ms": N_("baseline ms"),
    "pto_ms": N_("PTO ms"),
    "runs_of": N_("{shown} of {total} runs"),
    "failed_run": N_("failed re-run: {status}, no report.json"),
    "runs_note": N_(", newest last; ms: median over shapes (lowest..highest shape)"),
    "runs_where": N_("the newest ran on: {where}"),
    "from_run": N_("from run"),
    "from_run_note": N_("{run}, newer than the summary (class, scalar, gaps: the state matrix)"),
    # the variants table's headings and the reasons' labels
    "shape": N_("shape"),
    "ratio": N_("ratio"),
    "baseline": N_("baseline"),
    "pto": N_("PTO"),
    "limitations": N_("limitations"),
    "variant_n": N_("variant {n}"),
    "more_variants": N_("… {n} more variants"),
    "baseline_reason": N_("baseline reason"),
    "pto_reason": N_("PTO reason"),
    "shown_above": N_("{label}: shown above"),
    "nested": N_("(shape nested too deep to show)"),
    "not_on_board": N_("not on the gap board"),
    # the triage section
    "by_since": N_("by {by}   since {since}"),
    "note": N_("note"),
    "resolved": N_("resolved: it no longer blocks ({why})"),
    "stale": N_("stale: the blocker changed since it was triaged ({why})"),
    # the report.json section's labels
    "file": N_("file"),
    "baseline_timings": N_("baseline timings ms"),
    "pto_timings": N_("pto timings ms"),
    "baseline_correctness": N_("baseline correctness"),
    "pto_correctness": N_("pto correctness"),
    "baseline_entrypoint": N_("baseline entrypoint"),
    "pto_entrypoint": N_("pto entrypoint"),
    "device": N_("device"),
    "warning": N_("warning"),
}


def headings(lang: str | None = None) -> dict[str, str]:
    """The screen's headings and fixed words in ``lang`` (default: the language in force)."""
    return {key: _(word, lang) for key, word in HEADINGS.items()}


REPORT_KEYS = 28  # the report's key column, its gap, the screen's padding and scrollbar


def left_cut(path: str, width: int) -> str:
    """``path`` in ``width`` cells: whole folders cut from the left behind ``…/``, so the
    file name shows; a file name longer than that is left whole (the cell wraps it)."""
    if Text(path).cell_len <= width:
        return path
    parts = path.split("/")
    for start in range(1, len(parts)):
        shorter = "…/" + "/".join(parts[start:])
        if Text(shorter).cell_len <= width:
            return shorter
    return "…/" + parts[-1]


def indented(body: RenderableType, indent: int = 2) -> Table:
    """``body`` with every line of it indented, the ones it wraps onto too."""
    grid = Table.grid()
    grid.add_column(width=indent)
    grid.add_column()
    grid.add_row("", body)
    return grid


def kv_table(rows: list[tuple[str, RenderableType]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if not isinstance(value, str) else Text(value))
    return table


def ms_spread(median: float | None, low: float | None, high: float | None) -> Text:
    text = Text(ms(median))
    if median is not None and low is not None and high is not None and low != high:
        text.append(f" ({ms(low)}..{ms(high)})", style="dim")
    return text


def heading(text: str) -> Text:
    return Text("\n" + text, style="bold underline")


# Each reason's screenful, per kernel (dropped with it) by the text's identity and the
# screen size, kept across keys and openings: counting the lines of a 50 MB reason
# took 20 ms. Only the kernel's own reasons are kept (texts joined for the screen
# are new objects each time), and an entry holds its text, so its id stays its own.
_CLIPS: dict[int, tuple[weakref.ref[Kernel], dict[tuple[int, int, int], tuple[str, Clipped]]]] = {}


def clip_field(kernel: Kernel, text: str, rows: int, width: int) -> Clipped:
    entry = _CLIPS.get(id(kernel))
    if entry is None or entry[0]() is not kernel:
        entry = _CLIPS[id(kernel)] = (weakref.ref(kernel, _forget(id(kernel))), {})
    clips, key = entry[1], (id(text), rows, width)
    known = clips.get(key)
    if known is not None and known[0] is text:
        return known[1]
    clipped = clip(text, rows, width)
    reasons = (kernel.baseline_reason, kernel.pto_reason)
    if any(text is r for r in reasons) or any(
        text is v.baseline_reason or text is v.pto_reason for v in kernel.variants
    ):
        if len(clips) >= 16:  # other screen sizes: start again
            clips.clear()
        clips[key] = (text, clipped)
    return clipped


def _forget(key: int) -> Callable[[weakref.ref[Kernel]], None]:
    def drop(_: weakref.ref[Kernel]) -> None:
        _CLIPS.pop(key, None)

    return drop


def shape(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):  # nested too deep for the encoder
        return _("(shape nested too deep to show)")


def moved_environment(before: Run | None, run: Run) -> str:
    """What differs between where ``before`` and ``run`` ran (``toolkit 8.5.0 → 9.0.0``), cleaned."""
    if before is None or before.environment == run.environment:
        return ""
    from ptotui.model.core.environment import describe, differences, of_text

    return clean(describe(differences(of_text(before.environment), of_text(run.environment))))
