"""``ptotui export``: the merged model as JSON (a stable interface), CSV or markdown."""

from __future__ import annotations

import argparse
import sys
import time

from ptotui.commands.common import existing_location, thresholds_of, warn
from ptotui.model.i18n import _, speaking


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("reports dir, bench dir or checkout"))
    parser.add_argument("--format", choices=("json", "csv", "md"), default="json")


def run(args: argparse.Namespace) -> int:
    from ptotui.model.present import export
    from ptotui.model.read.loader import load
    from ptotui.model.verdict import judge

    location, thresholds = existing_location(args.path), thresholds_of(args)
    with speaking("en" if args.format == "json" else None):  # JSON: the same in every language
        reports = load(location, thresholds)
        # The newest state and its verdict, as the dashboard's header counts it (ptotui.model.verdict).
        verdict = judge(location, thresholds, git=getattr(args, "git", True), reports=reports, clock=time.time)
    reports, since = verdict.reports, verdict.since
    if args.format == "json":
        write_bytes(export.json_bytes(reports, since))
    else:
        sys.stdout.write({"csv": export.to_csv, "md": export.to_markdown}[args.format](reports, since))
    warn(reports.warnings)
    return 0


def write_bytes(data: bytes) -> None:
    """UTF-8 ``data`` to stdout, past the text layer when it has a binary one beneath."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a stdout replaced by a text-only stream
        sys.stdout.write(data.decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()
