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
from typing import Any

_DECODER = json.JSONDecoder()
_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, index: int) -> int:
    return _WS.match(text, index).end()


def _expect(text: str, index: int, char: str, what: str) -> int:
    if text[index : index + 1] != char:
        raise json.JSONDecodeError(f"Expecting {what}", text, index)
    return index + 1


def _list(text: str, index: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    index = _skip(text, index + 1)
    if text[index : index + 1] == "]":
        return items, index + 1
    while True:
        item, index = _DECODER.raw_decode(text, index)
        items.append(item)
        index = _skip(text, index)
        if text[index : index + 1] == ",":
            index = _skip(text, index + 1)
            continue
        return items, _expect(text, index, "]", "',' delimiter")


def loads(text: str) -> Any:
    """Parse ``text`` like ``json.loads``; a top-level object's lists element by element."""
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
                value, index = _list(text, index)
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
