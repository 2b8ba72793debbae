"""The key a reports directory's triage entries and what was seen are filed under.

In a git work tree the key is the repository's identity, its root commit (the oldest when
there are several), and the reports' path inside it: ``git:<root commit>:bench/reports``.
Every clone and checkout of one repository, on any host, gives the same key, so a note
follows the reports into another checkout and a shared ``--state`` file is shared. Outside
git the key is the resolved absolute path, as every key was before; that path is also the
``legacy`` key an older ptotui filed the same directory under, from which entries move.

Asking git blocks (a subprocess): call :func:`reports_key` off the UI thread. Each
directory is asked about once per process (the answer is cached: git is a subprocess of
tens of ms, and each triage save and the save of what was seen on quitting need the key; it
serves the time from ``q`` to the shell, not measured by a benchmark).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

GIT_PREFIX = "git:"
_TIMEOUT = 10.0  # seconds: a hung git (a network file system) gives the path key, never a hang
# Git is asked questions, never for a prompt, a pager, a lock or the user's colours.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}


@dataclass(frozen=True)
class ReportsKey:
    """``key``: what entries are filed under now; ``legacy``: the resolved absolute path, the
    key of older files (the same as ``key`` outside git)."""

    key: str
    legacy: str

    @property
    def old(self) -> str | None:
        """The older key entries may still be under, or None when it is the key itself."""
        return self.legacy if self.legacy != self.key else None


_cache: dict[str, ReportsKey] = {}
_lock = threading.Lock()


def reports_key(reports: Path) -> ReportsKey:
    """The key of reports directory ``reports`` (blocks on git: not on the UI thread)."""
    resolved = os.path.realpath(reports)
    with _lock:
        known = _cache.get(resolved)
    if known is not None:
        return known
    found = ReportsKey(_git_key(resolved) or resolved, resolved)
    with _lock:
        return _cache.setdefault(resolved, found)


def _git_key(resolved: str) -> str | None:
    """``git:<root>:<path inside>`` when ``resolved`` is in a git work tree with a commit;
    None otherwise (no git, not a work tree, no commit yet, git refused or failed)."""
    git = shutil.which("git")
    if git is None:
        return None
    start = resolved
    while not os.path.isdir(start):  # reports that do not exist yet: asked from the nearest parent
        parent = os.path.dirname(start)
        if parent == start:
            return None
        start = parent
    top = _ask(git, start, "rev-parse", "--show-toplevel")
    if not top:
        return None
    top = os.path.realpath(top.splitlines()[0])
    inside = os.path.relpath(resolved, top)
    if inside == os.curdir:
        inside = ""
    if inside == os.pardir or inside.startswith(os.pardir + os.sep):
        return None  # (git's top level is not above the path: no key from it)
    roots = _ask(git, top, "log", "--max-parents=0", "--format=%ct %H", "HEAD")
    oldest = min((_root(line) for line in (roots or "").splitlines() if line.strip()), default=None)
    if oldest is None:
        return None
    return f"{GIT_PREFIX}{oldest[1]}:{Path(inside).as_posix() if inside else ''}"


def _root(line: str) -> tuple[int, str]:
    """A root commit as ``git log --format='%ct %H'`` gives it: oldest first, then by id."""
    when, _, commit = line.strip().partition(" ")
    return (int(when) if when.isdigit() else 0, commit)


def _ask(git: str, directory: str, *args: str) -> str | None:
    """Git's answer in ``directory``, or None when it fails."""
    env = dict(os.environ)
    env.update(_ENV)
    try:
        # S603: an argument list to the full path of git; the directory is an argument.
        done = subprocess.run(  # noqa: S603
            [git, "-C", directory, *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=env,
            timeout=_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "surrogateescape").strip() or None
