"""json.loads for big report files, parsed so that other threads keep running.

``json.loads`` is one C call: on a 30 MB regression report it holds the GIL for
a few hundred milliseconds, and the UI thread freezes that long. Here a top-level
object's list values (the ``kernels`` list) are decoded one element at a time
with ``JSONDecoder.raw_decode``; between elements the interpreter can hand the
GIL to the UI. The result, and the errors, are those of ``json.loads``.
"""

from __future__ import annotations

import json
import re
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")
_UNSET = object()
_NONE = array("q")


@dataclass
class ListMemo:
    """What one big list's elements were, as last parsed: each one's length and the hash of
    its text, and the list of values the parse returned.

    An element whose text hashes as it did at that position (one slice and one C-level hash
    of it) is not decoded again: the value in that slot of the last list is reused. For a
    report rewritten with 1% of its kernels changed, 99% of the decoding is skipped. The
    texts themselves are not kept (they were a third of a big report's memory). ``values``
    is the very list the parse returned: its owner may replace an element by what it made
    of it (the live source's readers put the Kernel there, and the record is freed), and an
    unchanged element then comes back as that.
    """

    lengths: array[int] = field(default_factory=lambda: array("q"))
    hashes: array[int] = field(default_factory=lambda: array("q"))
    values: list[Any] = field(default_factory=list)


def _skip(text: str, index: int) -> int:
    match = _WS.match(text, index)
    return match.end() if match else index  # the pattern matches the empty string: always a match


def _expect(text: str, index: int, char: str, what: str) -> int:
    if text[index : index + 1] != char:
        raise json.JSONDecodeError(f"Expecting {what}", text, index)
    return index + 1


def _list(
    text: str, index: int, memo: ListMemo | None = None, convert: Callable[[Any], Any] | None = None
) -> tuple[list[Any], int]:
    items: list[Any] = []
    lengths, hashes = array("q"), array("q")
    index = _skip(text, index + 1)
    if text[index : index + 1] == "]":
        if memo is not None:
            memo.lengths, memo.hashes, memo.values = lengths, hashes, items
        return items, index + 1
    known_lengths, known_hashes, known = (
        (memo.lengths, memo.hashes, memo.values) if memo is not None else (_NONE, _NONE, [])
    )
    while True:
        position = len(items)
        item: Any = _UNSET
        if position < len(known):
            end = index + known_lengths[position]
            piece = text[index:end]
            after = _skip(text, end)
            if hash(piece) == known_hashes[position] and text[after : after + 1] in (",", "]") and end <= len(text):
                item = known[position]  # the same text: the same value
        if item is _UNSET:
            item, end = _DECODER.raw_decode(text, index)
            piece = text[index:end] if memo is not None else ""
            if convert is not None:
                item = convert(item)
        if memo is not None:
            lengths.append(end - index)
            hashes.append(hash(piece))
        items.append(item)
        index = _skip(text, end)
        if text[index : index + 1] == ",":
            index = _skip(text, index + 1)
            continue
        end = _expect(text, index, "]", "',' delimiter")
        if memo is not None:
            memo.lengths, memo.hashes, memo.values = lengths, hashes, items
        return items, end


class TooDeep(ValueError):
    """JSON nested deeper than the decoder can follow: an invalid file like any other."""

    msg = "nested too deep"

    def __init__(self) -> None:
        super().__init__(self.msg)


Convert = dict[str, Callable[[Any], Any]]


def loads(text: str, memos: dict[str, ListMemo] | None = None, convert: Convert | None = None) -> Any:
    """Parse ``text`` like ``json.loads``; a top-level object's lists element by element.

    With ``memos`` (one per top-level key, kept between calls for the same file),
    unchanged list elements are taken from the previous parse. ``convert``: per top-level
    key, a function each newly decoded element of that list is replaced by, at once (the
    live source builds a kernel from its record there: the record is garbage before the
    next one is decoded, so a big report's records never all live at once, and what the
    kernels keep is not scattered among their freed records). Nesting too deep
    for the decoder raises :class:`TooDeep`, a ``ValueError`` like every other
    reason the text is not valid JSON (``RecursionError`` is not one).
    """
    try:
        return _loads(text, memos, convert or {})
    except RecursionError:
        raise TooDeep() from None


def _loads(text: str, memos: dict[str, ListMemo] | None, convert: Convert) -> Any:
    index = _skip(text, 0)
    if text[index : index + 1] != "{":
        return json.loads(text)
    result: dict[str, Any] = {}
    index = _skip(text, index + 1)
    if text[index : index + 1] == "}":
        index += 1
    else:
        while True:
            if text[index : index + 1] != '"':
                raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, index)
            key, index = _DECODER.raw_decode(text, index)
            index = _skip(text, _expect(text, _skip(text, index), ":", "':' delimiter"))
            if text[index : index + 1] == "[":
                memo = memos.setdefault(key, ListMemo()) if memos is not None and isinstance(key, str) else None
                value, index = _list(text, index, memo, convert.get(key) if isinstance(key, str) else None)
            else:
                value, index = _DECODER.raw_decode(text, index)
            result[key] = value
            index = _skip(text, index)
            if text[index : index + 1] == ",":
                index = _skip(text, index + 1)
                continue
            index = _expect(text, index, "}", "',' delimiter")
            break
    if _skip(text, index) != len(text):
        raise json.JSONDecodeError("Extra data", text, _skip(text, index))
    return result
