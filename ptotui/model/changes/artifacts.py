"""What changed between two run directories of one kernel: the code that was benchmarked.

A run directory keeps, beside its report.json, what the runner compiled: ``kernel.pto``
(the PTO IR), ``kernel.cpp`` and ``caller.cpp``, ``kernel.so``, at the top or per stage and
shape (``q16_k16_d16/stage2_softmax/kernel.pto``), and each side's ``*_benchmark.json``.
The report and the benchmark JSONs are measurements, not code: they are left out. A file
that is not UTF-8 text (``kernel.so``), or past :data:`MAX_TEXT_BYTES`, is compared by its
bytes and listed as binary. Symlinks are not followed.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from ptotui.model.i18n import N_, _
from ptotui.model.read import safefile
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReadWarning

MAX_TEXT_BYTES = 4 * 1024 * 1024  # a real kernel.cpp is under 100 KB
MAX_FILES = 10_000  # files looked at in one run directory
MODIFIED, ADDED, REMOVED = "modified", "added", "removed"
STATUS_WORDS = {MODIFIED: N_("modified"), ADDED: N_("added"), REMOVED: N_("removed")}  # shown translated


def is_measurement(relative: str) -> bool:
    """report.json and the sides' benchmark JSONs: the numbers, not the code."""
    name = relative.rsplit("/", 1)[-1]
    return name == "report.json" or name.endswith("_benchmark.json")


@dataclass(frozen=True, slots=True)
class Artifact:
    """One file that differs: its path relative to the run directory, modified, added or
    removed, and the lines added and removed (None for a binary file)."""

    path: str
    status: str
    added: int | None
    removed: int | None

    @property
    def binary(self) -> bool:
        return self.added is None

    def as_dict(self) -> dict[str, object]:
        return {"path": self.path, "status": self.status, "added": self.added, "removed": self.removed}


@dataclass(frozen=True, slots=True)
class ArtifactDiff:
    """The files that differ between two run directories, by path; ``notes`` say what could
    not be compared (a directory holding only report.json, a file that could not be read)."""

    files: tuple[Artifact, ...]
    notes: tuple[ReadWarning, ...] = field(default=())


def code_files(run_dir: str, warnings: list[ReadWarning] | None = None) -> dict[str, str]:
    """The run directory's files that are code, as {relative path with '/': full path}."""
    out: dict[str, str] = {}

    def failed(error: OSError) -> None:
        if warnings is not None:
            said = _("cannot be read: {error}").format(error=clean(error.strerror or error))
            warnings.append(ReadWarning(str(error.filename or run_dir), said))

    for root, dirs, files in os.walk(run_dir, onerror=failed):
        dirs.sort()
        for name in sorted(files):
            full = os.path.join(root, name)
            relative = os.path.relpath(full, run_dir).replace(os.sep, "/")
            if is_measurement(relative) or os.path.islink(full):
                continue
            out[relative] = full
            if len(out) >= MAX_FILES:
                return out
    return out


def _read(path: str, notes: list[ReadWarning]) -> bytes | None:
    try:
        return safefile.read_bytes(path)
    except safefile.FileRefused as exc:
        notes.append(ReadWarning(path, exc.message))
    except OSError as exc:
        notes.append(ReadWarning(path, _("cannot be read: {error}").format(error=clean(exc.strerror or exc))))
    return None


def text_of(data: bytes) -> str | None:
    """The file as text, or None when it is binary (a NUL, not UTF-8, or too large)."""
    if len(data) > MAX_TEXT_BYTES or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _counts(old: str, new: str) -> tuple[int, int]:
    added = removed = 0
    for line in difflib.unified_diff(old.splitlines(), new.splitlines(), n=0, lineterm=""):
        if line.startswith("+") and not line.startswith("+++"):
            added += 1
        elif line.startswith("-") and not line.startswith("---"):
            removed += 1
    return added, removed


def _only_report(run_dir: str, files: dict[str, str], notes: list[ReadWarning]) -> None:
    if not files and os.path.isdir(run_dir):
        notes.append(ReadWarning(run_dir, _("the run directory holds only report.json: no code to compare")))


def _pairs(
    before_dir: str, after_dir: str, pattern: str | None, notes: list[ReadWarning]
) -> Iterator[tuple[str, bytes | None, bytes | None]]:
    """(shown path, old bytes, new bytes) of each code file that differs; None: not in that run."""
    old_files, new_files = code_files(before_dir, notes), code_files(after_dir, notes)
    _only_report(before_dir, old_files, notes)
    _only_report(after_dir, new_files, notes)
    for relative in sorted(old_files.keys() | new_files.keys()):
        if pattern is not None and not fnmatch.fnmatchcase(relative, pattern):
            continue
        old_path, new_path = old_files.get(relative), new_files.get(relative)
        old = _read(old_path, notes) if old_path else None
        new = _read(new_path, notes) if new_path else None
        if (old_path and old is None) or (new_path and new is None) or old == new:
            continue  # unreadable (the note says so), or the same bytes
        yield one_line(clean(relative)), old, new


def compare(before_dir: str, after_dir: str, pattern: str | None = None) -> ArtifactDiff:
    """Every code file that differs between the two run directories (``pattern``: only the
    paths that match this glob, as ``*.pto`` or ``stage2*/kernel.pto``)."""
    notes: list[ReadWarning] = []
    out: list[Artifact] = []
    for shown, old, new in _pairs(before_dir, after_dir, pattern, notes):
        status = MODIFIED if old is not None and new is not None else ADDED if new is not None else REMOVED
        old_text = text_of(old) if old is not None else ""
        new_text = text_of(new) if new is not None else ""
        if old_text is None or new_text is None:
            out.append(Artifact(shown, status, None, None))
        else:
            out.append(Artifact(shown, status, *_counts(old_text, new_text)))
    return ArtifactDiff(tuple(out), tuple(notes))


@dataclass(frozen=True, slots=True)
class FileDiff:
    """One file's part of a unified diff: its run-relative path and its lines."""

    path: str
    lines: tuple[str, ...]


def file_diffs(
    before_dir: str, after_dir: str, pattern: str | None = None, notes: list[ReadWarning] | None = None
) -> Iterator[FileDiff]:
    """A git-style unified diff of the two run directories' code, file by file (``a/``, ``b/``
    paths relative to the run directory), one line for a binary file; lines without their
    line ends, cleaned of control sequences (the files are not ours). Git's format in every
    language."""
    said: list[ReadWarning] = [] if notes is None else notes
    for shown, old, new in _pairs(before_dir, after_dir, pattern, said):
        a = f"a/{shown}" if old is not None else "/dev/null"
        b = f"b/{shown}" if new is not None else "/dev/null"
        lines = [f"diff --git a/{shown} b/{shown}"]
        if old is None:
            lines.append("new file")
        elif new is None:
            lines.append("deleted file")
        old_text = text_of(old) if old is not None else ""
        new_text = text_of(new) if new is not None else ""
        if old_text is None or new_text is None:
            lines.append(f"Binary files {a} and {b} differ")
        else:
            diff = difflib.unified_diff(old_text.splitlines(), new_text.splitlines(), a, b, lineterm="")
            lines.extend(clean(line) for line in diff)
        yield FileDiff(shown, tuple(lines))


def unified(
    before_dir: str, after_dir: str, pattern: str | None = None, notes: list[ReadWarning] | None = None
) -> Iterator[str]:
    """:func:`file_diffs` as one stream of lines."""
    for part in file_diffs(before_dir, after_dir, pattern, notes):
        yield from part.lines
