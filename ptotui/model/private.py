"""Files and directories of ptotui's own state (triage, what was seen, the parse cache, the
re-runs' record and logs): readable by their owner only. Report text, reasons and the paths
a runner prints may be private; nothing here is for anyone else to read."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600


def make_dirs(path: Path) -> None:
    """``path`` and its missing parents, each one created 0700; those already there are left
    as they are (a shared ``--state`` directory keeps its mode)."""
    missing: list[Path] = []
    current = path
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another ptotui
            directory.mkdir(mode=DIR_MODE)
    if not missing:
        path.mkdir(parents=True, exist_ok=True)  # raises as mkdir does when it is not a directory


def write_atomic(path: Path, data: bytes) -> None:
    """``data`` into a new 0600 file beside ``path``, then renamed over it: readers see the old
    file or the new one, never a part."""
    make_dirs(path.parent)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
