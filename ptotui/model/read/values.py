"""Small parsers for untrusted report fields: bounded numbers, statuses, words held once, shapes, nesting."""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ptotui.model.i18n import _
from ptotui.model.text import clean, clean_optional
from ptotui.model.types import NO_ITEMS, Kernel, ReadWarning, shared_if_empty

if TYPE_CHECKING:  # the markdown readers import it when a markdown report is read
    pass

LINK = re.compile(r"generated/([^/\s()]+)/([^/\s()]+)/report\.json")
NA = {"", "n/a", "na", "none", "null", "-", "nan"}  # what a field says when it says nothing


# -- small value parsers -------------------------------------------------------------


def as_float(value: Any) -> float | None:
    """A finite float from a number or a text such as ``0.1059``, ``42.3%`` or ``n/a``."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            number = float(value)
        except OverflowError:  # an integer past a float's range (JSON allows any length): no number
            return None
    else:
        text = str(value).strip().rstrip("%").strip()
        if text.lower() in NA:
            return None
        try:
            number = float(text)
        except ValueError:
            return None
    return number if math.isfinite(number) else None


# What a report's number may be. Outside these bounds it is invalid input: the reader reads
# it as missing and its file gets one warning (``invalid_numbers_warning``). A Baseline / PTO
# ratio above 1e6 percent would be a baseline 10,000 times slower than PTO, and a median
# latency above 1e6 ms is over 16 minutes for one call: no measurement gives either, a
# broken generator does. Negative ratios and latencies are never measured.
MAX_RATIO_PCT = 1e6
MAX_MS = 1e6


def shown_number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool):
        text = str(value) if value.bit_length() < 64 else f"{len(str(abs(value)))}-digit integer"
        return text
    text = clean(value)
    return text if len(text) <= 24 else text[:23] + "…"


def checked_number(value: Any, limit: float, label: str, invalid: list[str]) -> float | None:
    """``as_float(value)`` when it lies in 0..limit; else None, with ``label value`` added to
    ``invalid`` when the value was a number at all (non-finite, negative or above ``limit``).
    A missing marker (``n/a``, ``null``, ``nan`` text as pandas writes it) is no number."""
    number = as_float(value)
    if number is not None:
        if 0.0 <= number <= limit:
            return number
    elif value is None or isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    elif isinstance(value, str) and not _non_finite_text(value):
        return None
    invalid.append(f"{label} {shown_number(value)}")
    return None


def _non_finite_text(text: str) -> bool:
    """An ``inf`` / ``-infinity`` / ``1e400`` text: a number, but no finite one."""
    stripped = text.strip().rstrip("%").strip()
    if stripped.lower() in NA:
        return False
    try:
        return not math.isfinite(float(stripped))
    except ValueError:
        return False


def invalid_numbers_warning(kernels: Iterable[Kernel], name: str, warnings: list[ReadWarning]) -> None:
    """One warning for ``name`` naming the first few invalid numbers its kernels held, if any."""
    found = [
        (kernel.name, item)
        for kernel in kernels
        if kernel.invalid or any(v.invalid for v in kernel.variants)
        for item in kernel.invalid + tuple(i for v in kernel.variants for i in v.invalid)
    ]
    if not found:
        return
    shown = "; ".join(f"{kernel}: {item}" for kernel, item in found[:3])
    if len(found) > 3:
        shown = _("{shown} and {n} more").format(shown=shown, n=len(found) - 3)
    said = _("{n} invalid number(s) (not finite, negative or absurd) read as missing: {shown}")
    warnings.append(ReadWarning(name, said.format(n=len(found), shown=shown)))


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if value is None:
        return None
    text = str(value).strip().lower()
    if text in ("true", "yes", "pass", "ok", "1"):
        return True
    if text in ("false", "no", "fail", "0"):
        return False
    return None


def as_status(value: Any) -> str | None:
    text = clean_optional(value)
    return text.lower() if text else None


def as_str(value: Any) -> str | None:
    """A text or a number as text, cleaned and stripped; None for anything else, and for a text
    that says nothing (empty, ``None``, ``null``)."""
    if not isinstance(value, (str, int, float)):
        return None
    text = clean(value).strip()
    return None if text in ("", "None", "null") else text


_WORD = 64  # texts up to this long are held once however many kernels say them


def as_word(value: Any, longest: int | None = _WORD) -> str | None:
    """:func:`as_str` of a text many kernels share (a family, a class, a wave), held once:
    10,000 kernels say ``green + tile-first`` with one string, not 10,000 (memory over days:
    benchmarks/bench_runs.py --app). ``longest=None``: whatever its length (a kernel's report
    path, given by the summary and the state matrix)."""
    text = as_str(value)
    return sys.intern(text) if text is not None and (longest is None or len(text) <= longest) else text


def as_str_list(value: Any) -> list[str]:
    """The texts of a list (or a lone text), cleaned; none: the shared empty list (memory over
    days: 211,000 empty lists were 12 MB at 10,000 kernels x 50 runs)."""
    if isinstance(value, list):
        return shared_if_empty([clean(v) for v in value if isinstance(v, (str, int, float)) and str(v).strip()])
    if isinstance(value, str) and value.strip():
        return [clean(value)]
    return NO_ITEMS


def strip_ticks(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text[1:-1].strip()
    return text


def parse_shape(text: str) -> Any:
    """The markdown's ``Input Shape`` cell: JSON in backticks, or ``null``."""
    inner = strip_ticks(text)
    if inner.lower() in ("null", "", "n/a"):
        return None
    try:
        return bounded(json.loads(inner))
    except (ValueError, RecursionError):  # not JSON, or nested too deep for the decoder
        return clean(inner)


MAX_DEPTH = 32


def bounded(value: Any, limit: int = MAX_DEPTH) -> Any:
    """``value``, or a short text instead when its lists/objects nest deeper than ``limit``.

    A shape nested a few hundred levels deep still parses, but comparing, diffing or
    exporting it recurses once per level and can hit the recursion limit later, on
    another thread. Real shapes are two or three levels deep.
    """
    if isinstance(value, (list, dict)) and not within_depth(value, limit):
        return f"(nested more than {limit} levels deep; not shown)"
    return value


def within_depth(value: Any, limit: int) -> bool:
    """No list/object at ``limit`` levels below ``value`` (a list or dict, itself one level). Stops at
    ``limit`` levels, whatever the depth of ``value``."""
    if limit <= 0:
        return False
    for child in value.values() if isinstance(value, dict) else value:
        if isinstance(child, (list, dict)) and not within_depth(child, limit - 1):
            return False
    return True


def family_from_link(text: str | None) -> str | None:
    match = LINK.search(text or "")
    return clean(match.group(1)) if match else None
