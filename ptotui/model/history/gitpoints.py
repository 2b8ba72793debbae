"""The reports' committed versions as history: the versions along a branch, the points taken from git."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.gitreports import (
    REPORT_FILES,
    SHALLOW,
    SHALLOW_FROM,
    Commit,
    Found,
    GitError,
    Place,
    Repository,
    find_repository,
    join,
)
from ptotui.model.i18n import _
from ptotui.model.location import STATE_FILES
from ptotui.model.read import safefile
from ptotui.model.text import one_line
from ptotui.model.types import ReadWarning, ReportSet


@dataclass
class GitHistory:
    """The committed versions of the reports along one branch, oldest first."""

    points: list[tuple[Commit, ReportSet]]
    warnings: list[ReadWarning]
    listed: int  # commits listed, before dropping repeats
    complete: bool = True  # False when the limit may have left older commits out


def report_history(
    repository: Repository,
    place: Place,
    revision: str = "HEAD",
    limit: int = 0,
    thresholds: Thresholds = Thresholds(),
) -> GitHistory:
    """Read the reports at each commit that touched them (the newest ``limit``; 0: all).

    A commit whose files are the very blobs of the point before it adds nothing and is
    dropped. A commit whose committed report is torn or invalid is skipped with its
    warnings (they name the revision and the file). A shallow clone says so once."""
    commits = repository.report_commits(place, revision, limit)
    distinct: list[Commit] = []
    for commit in commits:
        if not distinct or distinct[-1].content != commit.content:
            distinct.append(commit)
    complete = not 0 < limit <= len(commits)
    report_names = {f"{c.short}:{join(place.reports, n)}" for c in distinct for n in REPORT_FILES}
    points: list[tuple[Commit, ReportSet]] = []
    warnings: list[ReadWarning] = []
    for commit in distinct:
        if points and points[-1][0].content == commit.content:
            continue  # back to the files of the last good point (after a torn one): nothing new
        reports = repository.load_blobs(dict(commit.blobs), place, commit.short, thresholds)
        bad = [w for w in reports.warnings if w.file in report_names or not reports.kernels]
        warnings.extend(repository.first_time(reports.warnings))  # a blob kept by many commits: once
        if not bad and reports.kernels:
            points.append((commit, reports))
    if repository.shallow and distinct:
        warnings.insert(
            0,
            ReadWarning(
                str(repository.root),
                _(SHALLOW_FROM).format(commit=distinct[0].short, date=distinct[0].date),
            ),
        )
    return GitHistory(points, warnings, len(commits), complete)


_JSON_RUN = re.compile(rb'"generated_at"\s*:\s*"([^"\\]{1,40})"')
_MD_RUN = re.compile(rb"Generated:\s*`([^`]{1,40})`")


@dataclass(frozen=True)
class GitPoint:
    """One committed version of the reports, for history."""

    stamp: str  # see stamp_of
    reports: ReportSet
    state_run: str | None  # the committed state matrix's generated_at


GIT_POINTS = 50  # committed versions the app's history reads, off the UI thread (benchmarks/bench_git.py)


def stamp_of(commit: Commit) -> str:
    """A history stamp for a commit: its time in the snapshots' format (so stamps sort in
    time order), then the short hash and the subject it is labelled with."""
    when = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(commit.time))
    return f"{when} {commit.short} {one_line(commit.subject, 48)}"


class GitPoints:
    """The committed versions of a reports directory, for the app's history.

    Keeps one repository (one ``git cat-file`` process) open between reads and each
    point's reports by its files' blob ids, so a reread costs one ``git log``. Not in a
    work tree: no points and no warning. Call :meth:`read` off the UI thread."""

    def __init__(self, reports: Path, limit: int = GIT_POINTS) -> None:
        self.reports = reports
        self.limit = limit
        self._found: Found | None = None
        self._said: set[str] = set()
        self._cache: dict[tuple[str, ...], ReportSet] = {}
        self._lock = threading.Lock()

    def read(
        self, thresholds: Thresholds = Thresholds(), give_way: Callable[[], None] | None = None
    ) -> tuple[list[GitPoint], list[ReadWarning]]:
        """The newest committed versions, oldest first, and the warnings not given
        before (git missing, a shallow clone, a torn committed report). ``give_way`` is
        called before each version is parsed (HistoryReader)."""
        with self._lock:
            return self._read(thresholds, give_way)

    def _read(
        self, thresholds: Thresholds, give_way: Callable[[], None] | None
    ) -> tuple[list[GitPoint], list[ReadWarning]]:
        if self._found is None:
            self._found = find_repository(self.reports)
        warnings: list[ReadWarning] = []
        repository = self._found.repository
        if repository is None:
            if self._found.warning:
                warnings.append(ReadWarning(str(self.reports), self._found.warning))
            return [], self._new(warnings)
        try:
            head = repository.resolve("HEAD")
            place = repository.place(head)
            if place is None:
                return [], []
            commits = repository.report_commits(place, head, self.limit)
        except (GitError, OSError):
            return [], []  # no commit yet, or git went away: history from the files alone
        points: list[GitPoint] = []
        # A commit's reports by its files' blobs, kept to the next read: an update after one new
        # commit loads that commit only (the history's update time, benchmarks/bench_git.py).
        cache: dict[tuple[str, ...], ReportSet] = {}
        names = {join(place.reports, n) for n in REPORT_FILES}
        for commit in commits:
            key = commit.content
            if points and points[-1].reports is cache.get(key):
                continue  # the same files as the point before: counted once
            reports = self._cache.get(key) or cache.get(key)
            if reports is None:
                if give_way is not None:
                    give_way()
                try:
                    reports = repository.load_blobs(dict(commit.blobs), place, commit.short, thresholds)
                except OSError:
                    return [], []
                warnings.extend(reports.warnings)
                bad = any(w.file.split(":", 1)[-1] in names for w in reports.warnings)
                if bad or not reports.kernels:
                    continue  # a torn or invalid committed report: that point is skipped
            cache[key] = reports
            points.append(GitPoint(stamp_of(commit), reports, self._state_run(repository, commit, place)))
        self._cache = cache
        if repository.shallow and commits:
            warnings.insert(0, ReadWarning(str(repository.root), _(SHALLOW)))
        return points, self._new(warnings)

    @staticmethod
    def _state_run(repository: Repository, commit: Commit, place: Place) -> str | None:
        """The ``generated_at`` of the committed state matrix: the run a snapshot file
        of the same content is named after."""
        blobs = dict(commit.blobs)
        for name, pattern in zip(STATE_FILES, (_JSON_RUN, _MD_RUN), strict=True):
            blob_id = blobs.get(join(place.reports, name))
            data = repository.blob(blob_id, safefile.max_file_bytes()) if blob_id else None
            match = pattern.search(data[:4096]) if data else None
            if match:
                return match.group(1).decode("ascii", "replace")
        return None

    def _new(self, warnings: list[ReadWarning]) -> list[ReadWarning]:
        fresh = [w for w in warnings if str(w) not in self._said]
        self._said.update(str(w) for w in fresh)
        return fresh

    def close(self) -> None:
        with self._lock:
            if self._found is not None and self._found.repository is not None:
                self._found.repository.close()


def says_shallow(message: str) -> bool:
    """``message`` is the note that the repository is a shallow clone, in the language it was said in."""
    return message == _(SHALLOW) or message.startswith(_(SHALLOW_FROM).partition("{")[0])
