"""Revisions on the command line: ``ptotui diff HEAD~3 HEAD``, ``ptotui log``.

An argument that names an existing file or directory is read from disk, as before;
any other argument is a revision of the repository given by ``--repo`` (default: the
repository of the other, on-disk argument, else of the current directory). Bad
revisions are one line and exit 2 (:class:`ptotui.commands.common.UsageError`).
"""

from __future__ import annotations

from pathlib import Path

from ptotui.commands.common import UsageError
from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.gitreports import GitError, Repository, find_repository
from ptotui.model.i18n import _, speaking
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReportSet


def open_repository(start: str | Path | None, what: str) -> Repository:
    """The repository of ``start`` (default: the current directory), or a UsageError
    that says why ``what`` cannot be read from git."""
    if start is not None and not Path(start).expanduser().exists():
        raise UsageError(_("{start}: no such file or directory").format(start=start))
    found = find_repository(start)
    if found.repository is None:
        where = start if start is not None else _("the current directory")
        reason = found.warning or _("{where} is not in a git repository").format(where=where)
        raise UsageError(_("{what}: {reason}").format(what=what, reason=reason))
    return found.repository


def load_revision(repository: Repository, revision: str, thresholds: Thresholds, lang: str | None = None) -> ReportSet:
    """The reports inside ``revision``, found as PATH resolution finds them in a directory;
    read in ``lang`` (default: the language in force), the usage errors said in the one in force."""
    shown = one_line(clean(revision), 60)
    try:
        commit = repository.resolve(revision)
        place = repository.place(commit)
    except GitError:
        raise UsageError(
            _("{shown}: no such file, directory or revision in {root}").format(shown=shown, root=repository.root)
        ) from None
    except OSError as exc:  # git died under us
        raise UsageError(
            _("{shown}: cannot be read from git: {error}").format(shown=shown, error=one_line(clean(exc), 200))
        ) from None
    if place is None:
        under = repository.prefix or _("the repository root")
        raise UsageError(
            _("{shown}: holds no reports under {under} (looked in bench/reports, reports and itself)").format(
                shown=shown, under=under
            )
        )
    try:
        with speaking(lang):
            reports = repository.load(commit, place, shown, thresholds)
    except OSError as exc:  # git died under us
        raise UsageError(
            _("{shown}: cannot be read from git: {error}").format(shown=shown, error=one_line(clean(exc), 200))
        ) from None
    reports.warnings = repository.first_time(reports.warnings)  # the same blob at HEAD~2 and HEAD~1: once
    return reports
