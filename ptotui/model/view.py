"""Filtering and ordering of kernels for the table (pure functions, no Textual)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ptotui.model.tiers import tier_rank
from ptotui.model.types import Kernel


def haystack(kernel: Kernel) -> str:
    """The text ``/`` searches: kernel, family, class, reasons and gap ids."""
    parts = [kernel.name, kernel.family, kernel.klass, kernel.baseline_reason, kernel.pto_reason, *kernel.gap_ids]
    parts += [v.baseline_reason for v in kernel.variants] + [v.pto_reason for v in kernel.variants]
    return "\n".join(p for p in parts if p).lower()


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
}


def sort_key(column: str, reverse: bool) -> Callable[[Kernel], tuple]:
    """A key that sorts by ``column`` with missing values (n/a) last in both directions."""
    getter = SORT_KEYS[column]

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
