"""The YAML side files as parsed before, kept by their content as JSON beside the triage file.

The gap board and the inventory are read with the first load, on the way to the first rows:
importing PyYAML alone took ~45 ms there and parsing the reference snapshot's two files
~12 ms more (benchmarks/startup_breakdown.py). They seldom change, so the dashboard keeps what
a file parsed to under the BLAKE2 digest of its text, in ``cache/`` beside the triage file
(never in the reports tree): a start whose files are unchanged reads two small JSON files and
does not import PyYAML at all. A text that parses to anything JSON cannot hold as it was (a
date, a non-finite number, a key that is not a string) is not kept; a cache file that cannot
be read is parsed again and written anew. Without :func:`use` (the commands, tests, a
library caller) nothing is kept.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ptotui.model import private
from ptotui.model.read.safefile import FileRefused, read_bytes

SCHEMA = "ptotui.yamlcache/1"
KEPT = 16  # parsed texts kept (the newest by use); a gap board edited all day makes new ones
# The largest cache file written or read: the real gap board's is 32 KB. A text whose data would
# take more is parsed at each start instead (a bigger file left there by an older ptotui is removed).
MAX_BYTES = 4 << 20
_MAX_INT = 2**63

_directory: Path | None = None
_writable = False


def use(directory: Path | None, writable: bool = True) -> None:
    """Keep parsed texts in ``directory`` (None: keep nothing); ``writable`` False reads only
    what is there (``--read-only``)."""
    global _directory, _writable
    _directory, _writable = directory, writable


def parsed(text: str, parse: Callable[[str], Any]) -> Any:
    """``parse(text)``, or what it gave before for the same text. What ``parse`` raises, it
    raises (nothing is kept then)."""
    directory = _directory
    if directory is None:
        return parse(text)
    import hashlib  # (OpenSSL's, ~2.5 ms: only where a cache is used, never by the commands)

    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    path = directory / f"{digest}.json"
    with contextlib.suppress(OSError, FileRefused, ValueError, TypeError, KeyError):
        if _writable and path.stat().st_size > MAX_BYTES:  # never written so by this version
            path.unlink()
        held = orjson.loads(read_bytes(path, MAX_BYTES))
        if isinstance(held, dict) and held.get("schema") == SCHEMA and held.get("digest") == digest:
            if _writable:
                with contextlib.suppress(OSError):
                    os.utime(path)  # the newest by use are the ones kept
            return held["data"]
    data = parse(text)
    if _writable and plain(data):
        with contextlib.suppress(OSError, TypeError, ValueError):
            _write(directory, path, orjson.dumps({"schema": SCHEMA, "digest": digest, "data": data}))
    return data


def plain(data: Any) -> bool:
    """Whether JSON holds ``data`` as it is: dicts with string keys, lists, strings, booleans,
    64-bit integers, finite floats and None (looked at without recursion)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, str | bool):
            continue
        if isinstance(item, int):
            if abs(item) >= _MAX_INT:
                return False
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                return False
            stack.extend(item.values())
        else:
            return False
    return True


def _write(directory: Path, path: Path, blob: bytes) -> None:
    """Atomically, then the oldest beyond KEPT removed; nothing over MAX_BYTES."""
    if len(blob) > MAX_BYTES:
        return
    private.write_atomic(path, blob)  # 0600 in a 0700 directory, as every state file
    held = [p for p in directory.glob("*.json") if p.is_file()]
    if len(held) > KEPT:
        held.sort(key=lambda p: p.stat().st_mtime)
        for old in held[: len(held) - KEPT]:
            with contextlib.suppress(OSError):
                old.unlink()
