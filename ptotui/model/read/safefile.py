"""Open a report file safely: only regular files, and never more than a size cap.

A reports directory is written by other programs and shared by a team, so a
"file" in it can be a FIFO (a plain ``open`` waits for a writer for ever), a
symlink to ``/dev/zero`` (a plain read never ends and eats all memory), a
directory, or simply far bigger than any real report. Every reader of a report
file goes through :func:`read_bytes`: it opens without blocking, checks with
``fstat`` that it got a regular file, and reads at most the cap.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ptotui.model.i18n import N_, _

DEFAULT_MAX_FILE_MB = 512.0
_MB = 1024 * 1024
_max_bytes = int(DEFAULT_MAX_FILE_MB * _MB)
_CHUNK = 1 << 20


class FileRefused(OSError):
    """The path exists but is not something ptotui reads: its message says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def set_max_file_mb(megabytes: float) -> None:
    """Set the cap for every later read (``--max-file-mb``)."""
    global _max_bytes
    if not megabytes > 0:
        raise ValueError("the file size cap must be above 0 MB")
    _max_bytes = int(megabytes * _MB)


def max_file_bytes() -> int:
    return _max_bytes


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, N_("is a directory, not a regular file; not read")),
        (stat.S_ISFIFO, N_("is a FIFO (named pipe), not a regular file; not read")),
        (stat.S_ISCHR, N_("is a character device, not a regular file; not read")),
        (stat.S_ISBLK, N_("is a block device, not a regular file; not read")),
        (stat.S_ISSOCK, N_("is a socket, not a regular file; not read")),
    ):
        if test(mode):
            return _(name)
    return _("is not a regular file; not read")


class FileTooBig(FileRefused):
    """A regular file over the cap."""


def _too_big(limit: int, global_cap: bool) -> FileTooBig:
    """``global_cap``: the limit is the one --max-file-mb sets, not a reader's own."""
    if global_cap:
        said = _("is larger than the {mb} MB cap (--max-file-mb); not read")
    else:
        said = _("is larger than the {mb} MB cap; not read")
    return FileTooBig(said.format(mb=f"{limit / _MB:g}"))


def read_bytes(path: Path | str, max_bytes: int | None = None) -> bytes:
    """The bytes of the regular file at ``path``, at most ``max_bytes`` (default: the cap).

    Raises ``FileNotFoundError`` when it does not exist, :class:`FileRefused` when it
    is not a regular file or is over the cap, and ``OSError`` for other failures.
    Never blocks on a FIFO or a device.
    """
    global_cap = max_bytes is None
    limit = _max_bytes if max_bytes is None else max_bytes
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(_kind(info.st_mode))
        if info.st_size > limit:
            raise _too_big(limit, global_cap)
        chunks: list[bytes] = []
        total = 0
        # First the size fstat gave, and a byte more, in one read: a 25 MB report is not read
        # in chunks and copied again to join them (benchmarks/bench_scale.py, the export).
        size = info.st_size + 1
        while True:  # the file may grow while it is read: stop one byte past the cap
            chunk = os.read(fd, min(size, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise _too_big(limit, global_cap)
            size = _CHUNK
        return b"".join(chunks)  # one chunk: that very object, not a copy
    finally:
        os.close(fd)
