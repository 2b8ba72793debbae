"""``ptotui diff OLD NEW``: changes between two report directories or snapshot files.

Exit 1 when something regressed, so it can gate CI; 0 otherwise; 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ptotui.cli import UsageError, thresholds_of
from ptotui.model.diff import Change, diff
from ptotui.model.loader import load, load_file
from ptotui.model.location import locate
from ptotui.model.text import one_line
from ptotui.model.types import ReportSet


def _load(path: str, args: argparse.Namespace) -> ReportSet:
    target = Path(path).expanduser()
    if not target.exists():
        raise UsageError(f"{path}: no such file or directory")
    if target.is_file():
        return load_file(target, thresholds_of(args))
    return load(locate(target), thresholds_of(args))


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


def run_diff(args: argparse.Namespace) -> int:
    old, new = _load(args.old, args), _load(args.new, args)
    changes = diff(old, new, args.ratio_pp)
    if args.format == "json":
        payload = {
            "schema": "ptotui.diff/1",
            "old": {"source": old.source, "generated_at": old.generated_at},
            "new": {"source": new.source, "generated_at": new.generated_at},
            "changes": [c.as_dict() for c in changes],
            "regressions": sum(c.regression for c in changes),
            "warnings": [w.as_dict() for w in old.warnings + new.warnings],
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        sys.stdout.write(to_markdown(old, new, changes))
    for warning in old.warnings + new.warnings:
        print(f"ptotui: warning: {warning}", file=sys.stderr)
    return 1 if any(c.regression for c in changes) else 0
