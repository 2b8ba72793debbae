"""``ptotui diff OLD NEW``: changes between two report directories, snapshot files or
revisions of a git repository (``ptotui diff HEAD~3 HEAD``, ``ptotui diff v1 bench/reports``).

Exit 1 when something regressed, so it can gate CI; 0 otherwise; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.commands.common import UsageError, checked_path, positive, thresholds_of, warn
from ptotui.model.diff import Change, diff, payload, regressed_kernels
from ptotui.model.fmt import md_cell
from ptotui.model.i18n import _, ngettext
from ptotui.model.loader import load, load_file
from ptotui.model.location import locate
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.model.gitreports import Repository


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", help="old reports dir, snapshot file or git revision")
    parser.add_argument("new", help="new reports dir, snapshot file or git revision")
    parser.add_argument("--repo", metavar="PATH", help="repository of the revisions (default: the current directory's)")
    parser.add_argument("--format", choices=("md", "json"), default="md")
    parser.add_argument(
        "--ratio-pp", type=positive, default=2.0, metavar="PP", help="a median-ratio move that counts (default 2)"
    )


def _load(path: str, args: argparse.Namespace, other: str, repositories: dict[Path | None, Repository]) -> ReportSet:
    target = checked_path(path, missing_ok=True) if path else Path(path)
    if not path or not target.exists():
        if not path:
            raise UsageError("an empty argument is neither a path nor a revision")
        return _load_revision(path, args, other, repositories)
    if target.is_file():
        return load_file(target, thresholds_of(args))
    return load(locate(target), thresholds_of(args))


def _load_revision(
    revision: str, args: argparse.Namespace, other: str, repositories: dict[Path | None, Repository]
) -> ReportSet:
    """``revision`` of --repo, else of the other argument's repository when that is on
    disk (``ptotui diff v1 ./bench/reports``), else of the current directory's."""
    from ptotui.commands.revisions import load_revision, open_repository

    start = Path(args.repo).expanduser() if args.repo else None
    if start is None and other and Path(other).expanduser().exists():
        start = Path(other).expanduser()
        start = start.parent if start.is_file() else start
    if start not in repositories:  # both sides of HEAD~3 HEAD share one git cat-file
        repositories[start] = open_repository(start, revision)
    return load_revision(repositories[start], revision, thresholds_of(args))


def _usable(reports: ReportSet, side: str, argument: str, snapshot_file: bool) -> ReportSet:
    """A side with no kernels, or whose regression summary could not be read (only the
    state matrix's names came through), would turn into "every kernel changed" or
    "nothing changed": say so and exit 2 instead."""
    shown = one_line(clean(argument), 80)
    first = f" ({one_line(clean(reports.warnings[0]), 160)})" if reports.warnings else ""
    if not reports.kernels:
        raise UsageError(f"{side} {shown}: no kernels could be read{first}")
    if not snapshot_file and not any(k.variants for k in reports.kernels):
        raise UsageError(f"{side} {shown}: its regression summary could not be read{first}")
    return reports


def to_markdown(old: ReportSet, new: ReportSet, changes: list[Change]) -> str:
    regressions = [c for c in changes if c.regression]
    kernels = regressed_kernels(changes)

    def side(word: str, reports: ReportSet) -> str:
        n = len(reports.kernels)
        return word.format(
            source=md_cell(reports.source),
            at=md_cell(reports.generated_at or _("n/a")),
            kernels=ngettext("{n} kernel", "{n} kernels", n).format(n=n),
        )

    counted = ngettext("{n} change", "{n} changes", len(changes)).format(n=len(changes))
    regressed = ngettext("{n} regression", "{n} regressions", len(kernels)).format(n=len(kernels))
    lines = [
        "# ptotui diff",
        "",
        side(_("Old: {source} ({at}), {kernels}"), old) + "  ",
        side(_("New: {source} ({at}), {kernels}"), new),
        "",
        _("{changes}, {regressions}.").format(changes=counted, regressions=regressed),  # regressions: kernels
    ]
    others = [c for c in changes if not c.regression]
    for title, group in ((_("Regressions"), regressions), (_("Other changes"), others)):
        if group:
            lines += ["", f"## {title}", ""]
            mark = {1: "▲", -1: "▼", 0: "•"}
            # The arrow is ours: a lone > opens no tag, so it may read as typed.
            lines += [f"- {mark[c.direction]} {md_cell(c.describe()).replace(' -&gt; ', ' -> ')}" for c in group]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    repositories: dict[Path | None, Repository] = {}
    try:
        old = _load(args.old, args, args.new, repositories)
        new = _load(args.new, args, args.old, repositories)
        for side, argument, reports in (("OLD", args.old, old), ("NEW", args.new, new)):
            _usable(reports, side, argument, snapshot_file=bool(argument) and Path(argument).expanduser().is_file())
    finally:
        for repository in repositories.values():
            repository.close()
    changes = diff(old, new, args.ratio_pp)
    regressed = regressed_kernels(changes)
    if args.format == "json":
        sys.stdout.write(json.dumps(payload(old, new, changes), indent=2) + "\n")
    else:
        sys.stdout.write(to_markdown(old, new, changes))
    warn(old.warnings + new.warnings)
    return 1 if regressed else 0
