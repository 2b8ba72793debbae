"""Files and directories of ptotui's own state (triage, what was seen, the parse cache, the
re-runs' record and logs): readable by their owner only. Report text, reasons and the paths
a runner prints may be private; nothing here is for anyone else to read."""

from __future__ import annotations

import contextlib
import os
import tempfile
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
    file or the new one, never a part. The new file is made by ``mkstemp`` (a fresh name, opened
    ``O_EXCL``: never a planted link, never another writer's temporary, even in one process)."""
    make_dirs(path.parent)
    descriptor, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=str(path.parent))  # 0600
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
