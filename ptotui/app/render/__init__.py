"""How model values look on screen: badges, statuses, numbers (Rich Text only).

Every string from the reports goes through Text(...), never markup, so `[ERROR]`
or `[@click=...]` in a reason is shown as typed and does nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from rich.cells import cell_len, set_cell_size
from rich.console import JustifyMethod
from rich.text import Text

from ptotui.model.core import fmt
from ptotui.model.core.blockers import is_blocker
from ptotui.model.core.fmt import TIER_STYLES, ms, pct, ratio_range
from ptotui.model.core.tiers import TIER_LABELS
from ptotui.model.i18n import N_, _
from ptotui.model.text import clean, one_line
from ptotui.model.triage import Status
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    from textual.widgets import Static

    from ptotui.model.history.compare import Side


@lru_cache(maxsize=1 << 16)
def cell(text: str, style: str = "", justify: JustifyMethod | None = None) -> Text:
    """A shared, immutable cell: most cells repeat ("ok", badges), and names repeat
    across reloads, so building each once saves Rich's per-Text control-code scan (most
    of a 10k-row redraw, benchmarks/bench_scale.py) and makes unchanged cells identical.
    Serves the first rows and the live latency at 10,000 kernels."""
    return Text(text, style=style, justify=justify, no_wrap=True)


STATUS_STYLES = {"ok": "green", "blocked": "bold red"}
TRIAGE_STYLES = {
    "acknowledged": "cyan",
    "investigating": "bold yellow",
    "needs-upstream": "magenta",
    "wont-fix": "dim",
    "resolved": "green",
}
MARKS = {1: ("▲", "bold green"), -1: ("▼", "bold red"), 0: ("●", "bold yellow"), 2: ("◇", "bold cyan")}
MARK_WIDTH = max(cell_len(symbol) for symbol, _style in MARKS.values())  # a blank mark is one space
CORRECT_WIDTH = max(cell_len(label) for label in fmt.CORRECT_STYLES)


def literal(value: object, limit: int = 0, style: str = "") -> Text:
    """Untrusted text as a single, literal, escape-free line."""
    return cell(literal_text(value, limit), style)


def clip(text: str, cells: int) -> str:
    """``text`` in at most ``cells`` terminal cells, ending in ``…`` where it was cut (the
    one way a cell or a name is shortened: never cut without the mark)."""
    if cell_len(text) <= cells:
        return text
    return set_cell_size(text, cells - 1) + "…" if cells > 0 else ""


def literal_text(value: object, limit: int = 0) -> str:
    """What :func:`literal` shows, as a string (measuring needs no Text)."""
    return one_line(clean(value), limit) if value is not None else ""


# Four-letter badges for narrow tables; the blocked tiers need the legend (LEGEND).
SHORT_LABELS = {
    "high": "HIGH",
    "mid": "MID",
    "slow": "SLOW",
    "baseline-blocked": "BBLK",
    "correctness-gap": "CORR",
    "pto-blocked": "PBLK",
    "both-blocked": "BOTH",
}
# What the short badges stand for, in the legend and ``?`` (translated where drawn: legend()).
TIER_WORDS = {
    "high": N_("high"),
    "mid": N_("mid"),
    "slow": N_("slow"),
    "baseline-blocked": N_("baseline-blocked"),
    "correctness-gap": N_("correctness"),
    "pto-blocked": N_("pto-blocked"),
    "both-blocked": N_("both-blocked"),
}


def legend() -> str:
    """``BBLK baseline-blocked · CORR correctness-gap · …`` in the language in force."""
    short = [t for t, code in SHORT_LABELS.items() if code != TIER_LABELS.get(t)]
    return " · ".join(f"{SHORT_LABELS[t]} {_(TIER_WORDS[t])}" for t in short)


_no_color = False  # NO_COLOR is set: the app says so when it starts (set_no_color)


def set_no_color(on: bool) -> None:
    """With NO_COLOR the colours never reach the terminal: a tier badge is then drawn in
    reverse video (bold where its coloured style is), so it still reads as a badge."""
    global _no_color
    _no_color = on


def tier_style(tier: str) -> str:
    """A tier badge's style: its colours, or reverse video under NO_COLOR."""
    style = TIER_STYLES.get(tier, "reverse")
    if _no_color:
        return "bold reverse" if "bold" in style.split() else "reverse"
    return style


def badge(tier: str) -> Text:
    return cell(f" {TIER_LABELS.get(tier, tier.upper())} ", tier_style(tier))


def short_badge(tier: str) -> Text:
    return cell(f" {SHORT_LABELS.get(tier, tier.upper()[:4])} ", tier_style(tier))


def status(value: str | None) -> Text:
    return cell(value or "n/a", STATUS_STYLES.get(value or "", "dim"))


def correct(value: bool | None, status: str | None = "ok") -> Text:
    """One side's correctness; ``n/a`` when that side did not run."""
    label = fmt.correctness(value, status)
    return cell(label, fmt.CORRECT_STYLES[label])


def correctness(kernel: Kernel) -> Text:
    return correct(kernel.pto_correct, kernel.pto_status)


def ratio(kernel: Kernel) -> Text:
    """The ratio's range over the shapes (a single value when they agree)."""
    return cell(ratio_range(kernel), "", "right")


def median(kernel: Kernel) -> Text:
    """The median Baseline / PTO over the shapes: the number that sets the tier."""
    return cell(pct(kernel.ratio_median_pct), "", "right")


def spread(kernel: Kernel) -> Text:
    """Lowest and highest ratio over the shapes; blank when there is one value."""
    low, high = kernel.ratio_min_pct, kernel.ratio_max_pct
    if low is None or high is None or round(low, 1) == round(high, 1):
        return cell("")
    return cell(f"{low:.1f}..{high:.1f}%", "dim", "right")


def pto_ms(kernel: Kernel) -> Text:
    return cell(ms(kernel.pto_ms), "", "right")


def triage(kernel: Kernel, status: Status) -> Text:
    """The Triage cell: the state, ``(stale)`` inverted, or ``untriaged`` for a blocker,
    then the start of the note (the column is cut to its width; the pane and the detail
    show the note whole)."""
    label = status.label()
    if not label:
        return cell(_("untriaged") if is_blocker(kernel) else "", "dim italic")
    key = "resolved" if status.resolved or status.entry is None else status.entry.state
    text = cell(label, TRIAGE_STYLES.get(key, "") + (" reverse" if status.stale else ""))
    note = status.entry.note if status.entry is not None else ""
    if not note:
        return text
    text = text.copy()  # cells are shared: never append to one
    text.append(": " + clean(one_line(note, 40)), style="italic")
    return text


def compare_cell(side: Side) -> Text:
    """A --compare cell: ``≠`` and bold yellow where the tier or a status differs."""
    if side.tier is None:
        return cell("≠ not there", "bold yellow")
    ratio = pct(side.ratio_median_pct) if side.ratio_median_pct is not None else "n/a"
    text = f"{'≠' if side.differs else '='} {TIER_LABELS.get(side.tier, side.tier)} {ratio}"
    return cell(text, "bold yellow" if side.differs else "dim")


def mark(direction: int | None) -> Text:
    if direction is None:
        return cell(" ")
    symbol, style = MARKS[direction]
    return cell(symbol, style)


def empty_reason(
    filter_text: str,
    tiers: Iterable[str],
    untriaged: bool,
    changed: bool,
    total: int,
    differing: bool = False,
    only: str | None = None,
) -> str:
    """Why the table is empty: what is filtering every kernel out, and how to undo it
    (``only``: a bar picked in the overview, by its label)."""
    if not total:
        return _("no kernels in these reports")
    shown = one_line(clean(filter_text), 40)
    parts = [_("filter `{text}`").format(text=shown)] if filter_text.strip() else []
    labels = [TIER_LABELS.get(t, t) for t in tiers]
    if labels:
        parts.append(_("tiers {tiers}").format(tiers="+".join(labels)))  # as the header writes them
    flags = (
        (untriaged, _("only untriaged (t)")),
        (changed, _("only changed (c)")),
        (differing, _("only differing (=)")),
    )
    parts += [word for flag, word in flags if flag]
    if only is not None:
        parts.append(_("only {bar} (picked in the overview)").format(bar=one_line(clean(only), 40)))
    return _("no kernels match: {what} (esc clears)").format(what=", ".join(parts))


@dataclass
class Part:
    """A piece of a one-line header: ``rank`` 0 is kept longest; ``short`` is tried
    before the piece is left out, and then counts as ``short_rank``."""

    text: Text
    rank: int
    short: Text | None = None
    short_rank: int | None = None


def fit_parts(parts: list[Part], width: int) -> Text:
    """The parts in their order on one line of ``width`` cells: while too long, the
    least important part (the rightmost among equals) is shortened, then left out.
    What is left is whole: no label is cut in the middle."""
    parts = list(parts)
    while parts and sum(part.text.cell_len for part in parts) > width:
        worst = max(range(len(parts)), key=lambda i: (parts[i].rank, i))
        part = parts[worst]
        if part.short is not None and part.short.cell_len < part.text.cell_len:
            parts[worst] = Part(part.short, part.rank if part.short_rank is None else part.short_rank)
        else:
            del parts[worst]
    line = Text()
    for part in parts:
        line.append_text(part.text)
    return line


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is inside it (shorter to read)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


_SHOWN: WeakKeyDictionary[Static, tuple[object, ...]] = WeakKeyDictionary()  # what each Static shows now


def update_if_changed(widget: Static, text: Text) -> None:
    """Update a Static only when its text changed: an unchanged line costs no repaint
    and sends nothing to the terminal (it matters over SSH, every reload)."""
    key = (text.plain, str(text.style), tuple(text.spans))
    if _SHOWN.get(widget) != key:
        _SHOWN[widget] = key
        widget.update(text)
