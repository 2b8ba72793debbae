"""Filtering and ordering of kernels for the table (pure functions, no Textual)."""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable
from typing import Any

from ptotui.model.core.tiers import tier_rank
from ptotui.model.i18n import N_, _
from ptotui.model.types import Kernel

# id(kernel) -> (a weak reference to it, its haystack). Kernels are unhashable dataclasses,
# so not a WeakKeyDictionary; the reference's callback drops the entry with the kernel.
_HAYSTACKS: dict[int, tuple[weakref.ref[Kernel], str]] = {}


def haystack(kernel: Kernel) -> str:
    """The text ``/`` searches: kernel, family, class, reasons and gap ids.

    Kept per kernel object (an unchanged kernel is the same object across reloads),
    and each reason once however many variants repeat it: a reason can be a 50 MB
    dump, and lower-casing it again at every key of the filter stalled the keys.
    """
    key = id(kernel)
    entry = _HAYSTACKS.get(key)
    if entry is not None and entry[0]() is kernel:
        return entry[1]
    parts = [kernel.name, kernel.family, kernel.klass, kernel.baseline_reason, kernel.pto_reason, *kernel.gap_ids]
    parts += [v.baseline_reason for v in kernel.variants] + [v.pto_reason for v in kernel.variants]
    hay = "\n".join(dict.fromkeys(p for p in parts if p)).lower()
    _HAYSTACKS[key] = (weakref.ref(kernel, _forget(key)), hay)
    return hay


def _forget(key: int) -> Callable[[weakref.ref[Kernel]], None]:
    def drop(_: weakref.ref[Kernel]) -> None:
        _HAYSTACKS.pop(key, None)

    return drop


def matches(kernel: Kernel, text: str) -> bool:
    """Every whitespace-separated word of ``text`` occurs somewhere in the haystack."""
    words = text.lower().split()
    if not words:
        return True
    hay = haystack(kernel)
    return all(word in hay for word in words)


def _number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


SORT_KEYS: dict[str, Callable[[Kernel], Any]] = {
    "tier": lambda k: tier_rank(k.tier),
    "kernel": lambda k: k.name.lower(),
    "family": lambda k: (k.family or "").lower() or None,
    "wave": lambda k: k.wave or None,
    "class": lambda k: k.klass or None,
    "baseline": lambda k: k.baseline_status or None,
    "pto": lambda k: k.pto_status or None,
    "ratio": lambda k: _number(k.ratio_median_pct),
    "pto_ms": lambda k: _number(k.pto_ms),
    "correct": lambda k: {True: 0, False: 1, None: None}[k.pto_correct],
    "gaps": lambda k: len(k.gap_ids),
    "scalar": lambda k: 0 if k.scalar_heavy else 1,
    # The triage entries are not the kernel's: Session.visible sorts by them
    # (ptotui.model.triage.triage_rank); alone, the column has nothing to sort by.
    "triage": lambda k: None,
}


# The sort keys as the header names them (``by tier,ratio``): the codes in English, words in Chinese.
SORT_WORDS: dict[str, str] = {
    "tier": N_("tier"),
    "kernel": N_("kernel"),
    "family": N_("family"),
    "wave": N_("wave"),
    "class": N_("class"),
    "baseline": N_("baseline"),
    "pto": N_("pto"),
    "ratio": N_("ratio"),
    "pto_ms": N_("pto_ms"),
    "correct": N_("correct"),
    "gaps": N_("gaps"),
    "scalar": N_("scalar"),
    "triage": N_("triage"),
}


def sort_words(column: str | None) -> str:
    """The header's name of a sort (None: the default order, tier then ratio), in the language in force."""
    keys = ("tier", "ratio") if column is None else (column,)
    return ",".join(_(SORT_WORDS[key]) if key in SORT_WORDS else key for key in keys)


def sort_key(column: str, reverse: bool, getter: Callable[[Kernel], Any] | None = None) -> Callable[[Kernel], tuple]:
    """A key that sorts by ``column`` (its value as ``getter`` gives it, else as SORT_KEYS
    does) with missing values (n/a) last in both directions."""
    getter = getter or SORT_KEYS[column]

    def key(kernel: Kernel) -> tuple:
        value = getter(kernel)
        missing = value is None
        # sorted(..., reverse=True) flips the whole tuple, so flip the missing flag too.
        return (missing != reverse, value if not missing else 0, kernel.name)

    return key


def default_order(kernels: list[Kernel]) -> list[Kernel]:
    """Tier order, then ratio descending (n/a last), then name."""
    return sorted(
        kernels,
        key=lambda k: (tier_rank(k.tier), k.ratio_median_pct is None, -(k.ratio_median_pct or 0), k.name),
    )
