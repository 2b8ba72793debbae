"""Listing a bench tree's directories cheaply and safely: no symlink followed, each named once."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ptotui.model.i18n import _
from ptotui.model.text import clean
from ptotui.model.types import ReadWarning


def lstat_or_none(path: str | Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def dir_signature(info: os.stat_result) -> tuple[int, int, int]:
    # A directory's link count moves with its subdirectories: a run directory made within
    # the mtime's tick still changes the signature.
    return info.st_ino, info.st_mtime_ns, info.st_nlink


def subdirs(path: str | Path, what: str, warnings: list[ReadWarning]) -> Iterator[tuple[str, str]]:
    """The subdirectories of ``path`` (symlinks and other files named once each, not followed),
    as (name, path) strings: no pathlib here (it interns every part of every path it parses)."""
    try:
        with os.scandir(path) as listing:
            items = list(listing)
    except FileNotFoundError:
        return
    except OSError as exc:
        warnings.append(ReadWarning(str(path), _("cannot be listed: {error}").format(error=clean(exc.strerror or exc))))
        return
    for item in sorted(items, key=lambda i: i.name):
        try:
            if item.is_symlink():
                said = _("is a symlink; not followed as a {what}").format(what=_(what))
                warnings.append(ReadWarning(item.path, said))
                continue
            if not item.is_dir(follow_symlinks=False):
                continue  # a stray file beside the run directories: nothing to say
        except OSError:
            continue
        yield item.name, item.path
