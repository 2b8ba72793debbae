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

from ptotui.model.diff import Change, diff, payload
from ptotui.model.loader import load, load_file
from ptotui.model.location import locate
from ptotui.model.text import one_line
from ptotui.model.types import ReportSet
from ptotui.usage import UsageError, checked_path, positive, thresholds_of, warn

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
    from ptotui.revisions import load_revision, open_repository

    start = Path(args.repo).expanduser() if args.repo else None
    if start is None and other and Path(other).expanduser().exists():
        start = Path(other).expanduser()
        start = start.parent if start.is_file() else start
    if start not in repositories:  # both sides of HEAD~3 HEAD share one git cat-file
        repositories[start] = open_repository(start, revision)
    return load_revision(repositories[start], revision, thresholds_of(args))


def to_markdown(old: ReportSet, new: ReportSet, changes: list[Change]) -> str:
    regressions = [c for c in changes if c.regression]
    lines = [
        "# ptotui diff",
        "",
        f"Old: `{old.source}` ({old.generated_at or 'n/a'}), {len(old.kernels)} kernels  ",
        f"New: `{new.source}` ({new.generated_at or 'n/a'}), {len(new.kernels)} kernels",
        "",
        f"{len(changes)} change(s), {len(regressions)} regression(s).",
    ]
    for title, group in (("Regressions", regressions), ("Other changes", [c for c in changes if not c.regression])):
        if group:
            lines += ["", f"## {title}", ""]
            mark = {1: "▲", -1: "▼", 0: "•"}
            lines += [f"- {mark[c.direction]} {one_line(c.describe())}" for c in group]
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    repositories: dict[Path | None, Repository] = {}
    try:
        old = _load(args.old, args, args.new, repositories)
        new = _load(args.new, args, args.old, repositories)
    finally:
        for repository in repositories.values():
            repository.close()
    changes = diff(old, new, args.ratio_pp)
    if args.format == "json":
        sys.stdout.write(json.dumps(payload(old, new, changes), indent=2) + "\n")
    else:
        sys.stdout.write(to_markdown(old, new, changes))
    warn(old.warnings + new.warnings)
    return 1 if any(c.regression for c in changes) else 0
