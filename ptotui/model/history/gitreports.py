"""Reports committed to git: find the repository, list the commits that touched the
reports, and read a revision's reports through the ordinary readers.

Git is read with the host's own ``git`` command (no library, nothing to import at
start-up): ``git log`` lists the commits and the blob ids of the report files at each
of them, and ONE long-lived ``git cat-file --batch`` process reads trees and blobs,
which are cached by object id. A revision's files are handed to
:func:`ptotui.model.read.loader.load` as a file source, so a committed report is parsed
by exactly the code that parses a report on disk.

Nothing here raises for bad input; problems come back as one-line messages. The
calls block on git: run them off the UI thread.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import IO

from ptotui.model.core.tiers import Thresholds
from ptotui.model.i18n import N_, _
from ptotui.model.location import REGRESSION_FILES, STATE_FILES, Location
from ptotui.model.read import loader, safefile
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReadWarning, ReportSet

REPORT_FILES = REGRESSION_FILES + STATE_FILES
SIDE_FILES = ("gap_board.yaml", "kernel_inventory.yaml")
SHALLOW = N_("is a shallow clone: history from git goes back only so far")
SHALLOW_FROM = N_("is a shallow clone: history from git starts at {commit} ({date})")
_BLOB_CACHE_BYTES = 64 * 1024 * 1024  # recently read blobs kept in memory, by id
# Git is asked questions, never for a prompt, a pager, a lock or the user's colours.
_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
_HEADER, _FIELD = "\x1e", "\x1f"


def git_command() -> str | None:
    """The full path of the host's ``git``, or None when there is none."""
    return shutil.which("git")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(_ENV)
    return env


class GitError(Exception):
    """A git question that could not be answered: its message is one line for the user."""


@dataclass(frozen=True)
class Commit:
    """A commit that touched the reports, and the blob id of every report file at it."""

    id: str
    time: int  # committer time, seconds since the epoch
    subject: str  # cleaned of escapes and controls, one line
    blobs: tuple[tuple[str, str], ...]  # (path in the repository, blob id), sorted

    @property
    def short(self) -> str:
        return self.id[:8]

    @property
    def date(self) -> str:
        """The committer time in UTC, labelled so (``2026-03-23 01:27 UTC``)."""
        return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(self.time))

    @property
    def content(self) -> tuple[str, ...]:
        """The blob ids of its files: equal content means an equal tuple."""
        return tuple(blob for _, blob in self.blobs)


@dataclass(frozen=True)
class Place:
    """Where the reports are inside a revision (paths relative to the repository root)."""

    reports: str  # "" is the root
    bench: str


def join(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def _parent(directory: str) -> str:
    parent = str(PurePosixPath(directory).parent)
    return "" if parent == "." else parent


@dataclass
class _Batch:
    """The one ``git cat-file --batch`` process of a repository."""

    process: subprocess.Popen[bytes]
    stdin: IO[bytes]
    stdout: IO[bytes]


@dataclass
class Repository:
    """One git work tree, read through the host's ``git``."""

    git: str
    root: Path
    prefix: str  # where the PATH that found it sits below the root ("" at the root)
    shallow: bool
    _batch: _Batch | None = field(default=None, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _blobs: OrderedDict[str, bytes] = field(default_factory=OrderedDict, repr=False)
    _blob_bytes: int = 0
    _trees: dict[str, dict[str, tuple[str, str]] | None] = field(default_factory=dict, repr=False)
    _blob_of: dict[str, str] = field(default_factory=dict, repr=False)  # a warning's file name -> blob id
    _warned: set[tuple[str, str, int | None]] = field(default_factory=set, repr=False)

    # -- plain git commands ---------------------------------------------------------

    def run(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        # S603: an argument list (never a shell) to the full path of git; revisions
        # are checked by resolve() and paths come after "--".
        return subprocess.run(  # noqa: S603
            [self.git, "-C", str(self.root), "-c", "core.quotePath=false", *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=_env(),
            check=False,
        )

    def resolve(self, revision: str) -> str:
        """The commit id of ``revision``; GitError when there is no such commit."""
        shown = one_line(clean(revision), 60)
        if not revision or revision.startswith("-") or "\n" in revision or "\0" in revision:
            raise GitError(_("{revision}: not a revision").format(revision=shown or _("(empty)")))
        result = self.run("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        commit = result.stdout.decode("ascii", "replace").strip()
        if result.returncode != 0 or not commit:
            raise GitError(_("{revision}: no such revision in {root}").format(revision=shown, root=self.root))
        return commit

    def place(self, commit: str, base: str | None = None) -> Place | None:
        """Where PATH resolution would find the reports in ``commit``, as :func:`locate`
        does in a directory: ``base/bench/reports``, ``base/reports``, then ``base``."""
        base = self.prefix if base is None else base.strip("/")
        candidates = [Place(join(base, "bench/reports"), join(base, "bench"))]
        if PurePosixPath(base).name == "bench":
            candidates.insert(0, Place(join(base, "reports"), base))
        candidates += [Place(join(base, "reports"), base), Place(base, _parent(base))]
        for candidate in candidates:
            entries = self.tree(commit, candidate.reports)
            if entries and any(name in entries for name in REPORT_FILES):
                return candidate
        return None

    # -- the cat-file process -------------------------------------------------------

    def _start(self) -> _Batch:
        # S603: as in run(): an argument list to the full path of git.
        process = subprocess.Popen(  # noqa: S603
            [self.git, "-C", str(self.root), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_env(),
        )
        assert process.stdin is not None and process.stdout is not None  # noqa: S101 - PIPE was asked for
        return _Batch(process, process.stdin, process.stdout)

    def _object(self, name: str, limit: int | None = None) -> tuple[str, str, bytes | None] | None:
        """(id, type, bytes) of the object ``name``; bytes None when over ``limit``;
        None when it does not exist. Caller holds the lock."""
        for attempt in range(2):  # a process that died (killed, out of memory) is restarted once
            if self._batch is None or self._batch.process.poll() is not None:
                self._batch = self._start()
            batch = self._batch
            try:
                batch.stdin.write(name.encode("utf-8", "surrogateescape") + b"\n")
                batch.stdin.flush()
                header = batch.stdout.readline().decode("utf-8", "replace").rstrip("\n")
                parts = header.split(" ")
                if len(parts) != 3 or not parts[2].isdigit():
                    if header.endswith((" missing", " ambiguous")):
                        return None
                    said = _("unexpected reply from git cat-file: {reply}")
                    raise OSError(said.format(reply=one_line(clean(header), 80)))
                size = int(parts[2])
                data = _read_exactly(batch.stdout, size, limit)
                batch.stdout.read(1)  # the newline after the contents
                return parts[0], parts[1], data
            except OSError:
                self._batch = None
                batch.process.kill()
                batch.process.wait()
                if attempt:
                    raise
        return None  # not reached

    def blob(self, blob_id: str, limit: int | None = None) -> bytes | None:
        """The bytes of a blob (cached by id: the history's update after a commit reads only
        the new blobs; the history's update time, benchmarks/bench_git.py); None when missing
        or over ``limit``."""
        with self._lock:
            data = self._blobs.get(blob_id)
            if data is not None:
                self._blobs.move_to_end(blob_id)
                return data
            found = self._object(blob_id, limit)
            if found is None or found[1] != "blob" or found[2] is None:
                return None
            data = found[2]
            self._blobs[blob_id] = data
            self._blob_bytes += len(data)
            while self._blob_bytes > _BLOB_CACHE_BYTES and len(self._blobs) > 1:
                _, dropped = self._blobs.popitem(last=False)
                self._blob_bytes -= len(dropped)
            return data

    def tree(self, commit: str, directory: str) -> dict[str, tuple[str, str]] | None:
        """The entries of ``directory`` in ``commit`` as name -> (mode, id); None when absent."""
        key = f"{commit}:{directory}"
        with self._lock:
            if key not in self._trees:
                found = self._object(key)
                entries = None
                if found is not None and found[1] == "tree" and found[2] is not None:
                    entries = _parse_tree(found[2], len(commit) // 2)
                self._trees[key] = entries
            return self._trees[key]

    def close(self) -> None:
        with self._lock:
            batch, self._batch = self._batch, None
        if batch is not None:
            batch.stdin.close()
            try:
                batch.process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                batch.process.kill()
                batch.process.wait()
            batch.stdout.close()

    def __enter__(self) -> Repository:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- warnings -----------------------------------------------------------------------

    def first_time(self, warnings: list[ReadWarning]) -> list[ReadWarning]:
        """The warnings about blobs this repository has not warned about before.

        One committed file at two revisions (``HEAD~2:bench/gap_board.yaml`` and
        ``HEAD~1:bench/gap_board.yaml``) is often the very same blob: its problem is said
        once per command, under the first revision that read it."""
        fresh: list[ReadWarning] = []
        for warning in warnings:
            key = (self._blob_of.get(warning.file, warning.file), warning.message, warning.line)
            if key not in self._warned:
                self._warned.add(key)
                fresh.append(warning)
        return fresh

    # -- commits and revisions --------------------------------------------------------

    def report_commits(self, place: Place, revision: str = "HEAD", limit: int = 0) -> list[Commit]:
        """The commits along ``revision``'s first-parent line that touched the report files
        at ``place`` (the newest ``limit``; 0: all), oldest first, each with the blob ids of
        the report files at it.

        ``git log --raw`` names the blobs a commit wrote without reading them; the files it
        did not touch keep the ids of the commit before. The oldest commit listed starts
        from its own trees, so a limit (or a shallow clone) still knows every file."""
        files = [join(place.reports, n) for n in REPORT_FILES]
        result = self.run(
            "log",
            "--first-parent",
            "-m",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            *([f"--max-count={limit}"] if limit > 0 else []),
            f"--format={_HEADER}%H{_FIELD}%ct{_FIELD}%s",
            revision,
            "--",
            *[f":(literal){path}" for path in files],
        )
        if result.returncode != 0:
            error = one_line(clean(result.stderr.decode("utf-8", "replace")), 200)
            raise GitError(_("git log failed: {error}").format(error=error))
        listed: list[tuple[str, int, str, dict[str, str]]] = []  # newest first, as git prints them
        wanted = set(files)
        for raw in result.stdout.split(b"\n"):
            line = raw.decode("utf-8", "replace")
            if line.startswith(_HEADER):
                parts = line[1:].split(_FIELD, 2)
                if len(parts) == 3 and parts[1].isdigit():
                    listed.append((parts[0], int(parts[1]), one_line(clean(parts[2]), 200), {}))
            elif line.startswith(":") and "\t" in line and listed:
                meta, path = line[1:].split("\t", 1)
                fields = meta.split(" ")
                if path in wanted and len(fields) >= 5:
                    deleted = fields[4].startswith("D") or set(fields[3]) == {"0"}
                    listed[-1][3][path] = "" if deleted else fields[3]
        commits: list[Commit] = []
        state: dict[str, str] = {}
        for index, (commit_id, when, subject, written) in enumerate(reversed(listed)):
            if index == 0:
                entries = self.tree(commit_id, place.reports) or {}
                state = {join(place.reports, n): entries[n][1] for n in REPORT_FILES if n in entries}
            else:
                for path, blob_id in written.items():
                    if blob_id:
                        state[path] = blob_id
                    else:
                        state.pop(path, None)
            commits.append(Commit(commit_id, when, subject, tuple(sorted(state.items()))))
        return commits

    def load(self, commit: str, place: Place, label: str, thresholds: Thresholds = Thresholds()) -> ReportSet:
        """The reports of ``place`` in ``commit``, read by the ordinary loader.

        Files are named ``LABEL:path`` in warnings, so a torn committed report says
        which revision and which file it is."""
        blobs: dict[str, str] = {}
        for directory in {place.reports, place.bench}:
            for name, (mode, blob_id) in (self.tree(commit, directory) or {}).items():
                if not mode.startswith("16") and not mode.startswith("4"):  # not a submodule or a tree
                    blobs[join(directory, name)] = blob_id
        return self.load_blobs(blobs, place, label, thresholds)

    def load_blobs(
        self, blobs: dict[str, str], place: Place, label: str, thresholds: Thresholds = Thresholds()
    ) -> ReportSet:
        """The reports whose files have these blob ids (path in the repository -> id)."""
        prefix = f"{label}:"
        location = Location(Path(prefix + (place.reports or ".")), Path(prefix + (place.bench or ".")))
        by_name = {str(location.reports / n): join(place.reports, n) for n in REPORT_FILES}
        by_name.update({str(location.bench / n): join(place.bench, n) for n in SIDE_FILES})
        for name, repo_path in by_name.items():
            if repo_path in blobs:
                self._blob_of[name] = blobs[repo_path]

        def source(path: Path, warnings: list[ReadWarning]) -> str | None:
            repo_path = by_name.get(str(path))
            blob_id = blobs.get(repo_path) if repo_path is not None else None
            if blob_id is None:
                return None
            limit = safefile.max_file_bytes()
            try:
                data = self.blob(blob_id, limit)
            except OSError as exc:
                warnings.append(ReadWarning(str(path), _("cannot be read from git: {error}").format(error=clean(exc))))
                return None
            if data is None:
                warnings.append(
                    ReadWarning(str(path), _("is over the size cap (--max-file-mb) or unreadable; not read"))
                )
                return None
            return loader.decode(data, str(path), warnings)

        reports = loader.load(location, thresholds, source=source)
        reports.source = f"{label}:{place.reports or '.'}"
        return reports


def _read_exactly(stream: IO[bytes], size: int, limit: int | None) -> bytes | None:
    """``size`` bytes of ``stream``; over ``limit`` they are read and dropped (None)."""
    keep = limit is None or size <= limit
    chunks: list[bytes] = []
    left = size
    while left:
        chunk = stream.read(min(left, 1 << 20))
        if not chunk:
            raise OSError(_("git cat-file ended in the middle of an object"))
        left -= len(chunk)
        if keep:
            chunks.append(chunk)
    return b"".join(chunks) if keep else None


def _parse_tree(data: bytes, id_bytes: int) -> dict[str, tuple[str, str]]:
    """A raw tree object: entries of ``mode name\\0<id>``."""
    entries: dict[str, tuple[str, str]] = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        mode = data[at:space].decode("ascii", "replace")
        name = data[space + 1 : nul].decode("utf-8", "surrogateescape")
        entries[name] = (mode, data[nul + 1 : nul + 1 + id_bytes].hex())
        at = nul + 1 + id_bytes
    return entries


@dataclass
class Found:
    """What looking for a repository found: the repository (or None) and at most one warning."""

    repository: Repository | None
    warning: str | None = None


def find_repository(path: str | Path | None = None, git: str | None = None) -> Found:
    """The git work tree that holds ``path`` (default: the current directory).

    Not in a repository: no repository and no warning. No git on this host: no
    repository and one warning. A PATH that does not exist yet is looked up from
    its nearest existing parent.
    """
    git = git or git_command()
    if git is None:
        return Found(None, _("git was not found on PATH: reports in git are not read"))
    start = Path(path).expanduser() if path else Path.cwd()
    start = start if start.is_absolute() else Path.cwd() / start
    while not start.is_dir():
        if start.parent == start:
            return Found(None)
        start = start.parent
    try:
        # S603: an argument list to the full path of git; the directory is an argument.
        result = subprocess.run(  # noqa: S603
            [git, "-C", str(start), "rev-parse", "--show-toplevel", "--show-prefix", "--is-shallow-repository"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            env=_env(),
            check=False,
        )
    except OSError as exc:
        return Found(None, _("git could not be run ({error}): reports in git are not read").format(error=clean(exc)))
    if result.returncode != 0:
        error = result.stderr.decode("utf-8", "replace")
        if "dubious ownership" in error:
            said = _("git refuses {directory} (owned by another user; see git's safe.directory)")
            return Found(None, said.format(directory=start))
        return Found(None)  # not a work tree (or a bare repository): simply no git history
    lines = result.stdout.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 3 or not lines[0]:
        return Found(None)
    return Found(Repository(git, Path(lines[0]), lines[1].strip("/"), lines[2].strip() == "true"))
