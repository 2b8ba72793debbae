"""How model values look on screen: badges, statuses, numbers (Rich Text only).

Every string from the reports goes through Text(...), never markup, so `[ERROR]`
or `[@click=...]` in a reason is shown as typed and does nothing.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from ptotui.model.export import ms, ratio_range
from ptotui.model.text import clean, one_line
from ptotui.model.tiers import TIER_LABELS
from ptotui.model.types import Kernel

TIER_STYLES = {
    "high": "bold black on green",
    "mid": "black on dark_sea_green",
    "slow": "black on yellow",
    "baseline-blocked": "black on cyan",
    "correctness-gap": "bold white on magenta",
    "pto-blocked": "bold white on red",
    "both-blocked": "white on dark_red",
}
STATUS_STYLES = {"ok": "green", "blocked": "bold red"}
MARKS = {1: ("▲", "bold green"), -1: ("▼", "bold red"), 0: ("●", "bold yellow")}


def literal(value: object, limit: int = 0, style: str = "") -> Text:
    """Untrusted text as a single, literal, escape-free line."""
    return Text(one_line(clean(value), limit) if value is not None else "", style=style, no_wrap=True)


def badge(tier: str) -> Text:
    return Text(f" {TIER_LABELS.get(tier, tier.upper())} ", style=TIER_STYLES.get(tier, "reverse"))


def status(value: str | None) -> Text:
    return Text(value or "n/a", style=STATUS_STYLES.get(value or "", "dim"))


def correctness(kernel: Kernel) -> Text:
    if kernel.pto_correct is True:
        return Text("pass", style="green")
    if kernel.pto_correct is False:
        return Text("FAIL", style="bold magenta")
    return Text("n/a" if kernel.pto_status == "blocked" else "?", style="dim")


def ratio(kernel: Kernel) -> Text:
    return Text(ratio_range(kernel), justify="right")


def pto_ms(kernel: Kernel) -> Text:
    return Text(ms(kernel.pto_ms), justify="right")


def mark(direction: int | None) -> Text:
    if direction is None:
        return Text(" ")
    symbol, style = MARKS[direction]
    return Text(symbol, style=style)


def display_path(path: Path) -> str:
    """The path relative to the working directory when it is inside it (shorter to read)."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
