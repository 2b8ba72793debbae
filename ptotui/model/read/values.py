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
    if type(value) is float:  # the common case first: JSON numbers (x - x is NaN for NaN and infinities)
        return value if value - value == 0.0 else None
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
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


# Statuses are a handful of words repeated on every kernel and variant: each distinct text
# is cleaned once (up to a bound, so a file of made-up statuses cannot grow it without end).
_STATUSES: dict[str, str | None] = {}
_MAX_STATUSES = 256


def as_status(value: Any) -> str | None:
    if type(value) is str:
        known = _STATUSES.get(value, "")
        if known != "":  # "" is never a result: an empty status is None
            return known
    text = clean_optional(value)
    status = text.lower() if text else None
    if type(value) is str and len(_STATUSES) < _MAX_STATUSES:
        _STATUSES[value] = status
    return status


def as_str(value: Any) -> str | None:
    if type(value) is str and value.isprintable():  # most texts: clean_optional without the calls
        text = value.strip()
        return None if text in _NONE_TEXTS else text
    if value is None:
        return None
    return clean_optional(value) if isinstance(value, (str, int, float)) else None


_NONE_TEXTS = frozenset(("", "None", "null"))  # what clean_optional reads as None

_WORD = 64  # texts up to this long are held once however many kernels say them

# What each short text read as a word: a family, class or wave is said by thousands of kernels,
# and each distinct text is checked once (bounded, as the statuses: made-up words cannot grow it).
_WORDS: dict[str, str | None] = {}
_MAX_WORDS = 4096


def as_word(value: Any, longest: int | None = _WORD) -> str | None:
    """:func:`as_str` of a text many kernels share (a family, a class, a wave), held once:
    10,000 kernels say ``green + tile-first`` with one string, not 10,000. ``longest=None``:
    whatever its length (a kernel's report path, given by the summary and the state matrix)."""
    if longest is None:  # a path: each kernel its own, nothing to remember
        text = as_str(value)
        return sys.intern(text) if text is not None else None
    if type(value) is str:
        known = _WORDS.get(value, "")
        if known != "":  # "" is never a result: an empty text is None
            return known
    text = as_str(value)
    word = sys.intern(text) if text is not None and len(text) <= longest else text
    if type(value) is str and len(value) <= longest and len(_WORDS) < _MAX_WORDS:
        _WORDS[value] = word
    return word


def as_str_list(value: Any) -> list[str]:
    if type(value) is list and not value:
        return NO_ITEMS
    if type(value) is list:  # the common case, texts with no control character: kept as they are
        texts = [item for item in value if type(item) is str and item.isprintable() and item.strip()]
        if len(texts) == len(value):
            return texts
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
    if type(value) in _CONTAINERS and not within_depth(value, limit):
        return f"(nested more than {limit} levels deep; not shown)"
    return value


_CONTAINERS = (list, dict)  # what JSON nests: exact types, checked with ``type(x) in`` (the fastest test)


def within_depth(value: Any, limit: int) -> bool:
    """No list/object at ``limit`` levels below ``value`` (a list or dict, itself one level). Stops at
    ``limit`` levels, whatever the depth of ``value``; once per container, not per scalar. The
    level below is looked at in the same call: a shape is an object of lists (30,000 of them)."""
    if limit <= 0:
        return False
    for child in value.values() if type(value) is dict else value:
        if type(child) in _CONTAINERS:
            if limit == 1:
                return False
            for grandchild in child.values() if type(child) is dict else child:
                if type(grandchild) in _CONTAINERS and not within_depth(grandchild, limit - 2):
                    return False
    return True


def family_from_link(text: str | None) -> str | None:
    match = LINK.search(text or "")
    return clean(match.group(1)) if match else None
