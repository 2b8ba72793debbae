"""How numbers, ratios, correctness and tiers read in every output: the screens, the
exports, ``summary``, ``diff``, ``log``, the detail sentences and the generator-format
writers. Style names are plain Rich style strings; nothing here imports Rich."""

from __future__ import annotations

import re
from typing import Any

from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel

# A tier's colours: badges on screen and the tier names in ``summary``.
TIER_STYLES = {
    "high": "bold black on green",
    "mid": "black on dark_sea_green",
    "slow": "black on yellow",
    "baseline-blocked": "black on cyan",
    "correctness-gap": "bold white on magenta",
    "pto-blocked": "bold white on red",
    "both-blocked": "white on dark_red",
}
CORRECT_STYLES = {"pass": "green", "FAIL": "bold magenta", "?": "dim", "n/a": "dim"}


def ms(value: Any) -> str:
    """Milliseconds, four decimals, or ``n/a``."""
    return "n/a" if value is None else f"{value:.4f}"


def pct(value: Any) -> str:
    """A percentage, one decimal, or ``n/a``."""
    return "n/a" if value is None else f"{value:.1f}%"


def ratio_range(kernel: Kernel) -> str:
    """The kernel's baseline/PTO ratio over its variants: one value when they agree."""
    if kernel.ratio_min_pct is None or kernel.ratio_max_pct is None:
        return "n/a"
    if round(kernel.ratio_min_pct, 1) == round(kernel.ratio_max_pct, 1):
        return pct(kernel.ratio_min_pct)
    return f"{kernel.ratio_min_pct:.1f}%..{kernel.ratio_max_pct:.1f}%"


def correctness(value: bool | None, status: str | None = "ok") -> str:
    """``pass``, ``FAIL``, ``?`` (not reported), or ``n/a`` for a side that did not run."""
    if status == "blocked":
        return "n/a"
    return {True: "pass", False: "FAIL", None: "?"}[value]


_MD_ESCAPES = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "`": "\\`",
        "<": "&lt;",
        ">": "&gt;",
        "&": "&amp;",
        "[": "\\[",
        "]": "\\]",
        "!": "\\!",
        "@": "@\u200b",
    }
)


def md_cell(value: object) -> str:
    """Report text for a markdown table or list that ends up in a PR comment, made inert:
    one line, escape sequences stripped, and shown as typed: ``|`` (a new cell), backticks
    (code), ``<`` and ``>`` (HTML), ``&`` (an entity such as ``&lt;script&gt;``), ``[``,
    ``]`` and ``!`` (a link, a remote image) and backslashes (which would undo the other
    escapes). An ``@`` is followed by a zero-width space, so ``@everyone`` or ``@org/team``
    mentions no one."""
    return one_line(clean("" if value is None else value)).translate(_MD_ESCAPES)


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?%?")


def csv_text(text: str) -> str:
    """A CSV text cell a spreadsheet will not run: one starting with ``= + - @``, tab or CR
    gets a leading ``'`` (OWASP's advice for CSV injection). A cell that is just a number,
    such as ``-3.5``, stays a number."""
    if text.startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text
