"""``ptotui export``: the merged model as JSON (a stable interface), CSV or markdown."""

from __future__ import annotations

import argparse
import sys

from ptotui.usage import existing_location, thresholds_of, warn


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help="reports dir, bench dir or checkout")
    parser.add_argument("--format", choices=("json", "csv", "md"), default="json")


def run(args: argparse.Namespace) -> int:
    from ptotui.model import export
    from ptotui.model.loader import load

    reports = load(existing_location(args.path), thresholds_of(args))
    render = {"json": export.to_json, "csv": export.to_csv, "md": export.to_markdown}[args.format]
    sys.stdout.write(render(reports))
    warn(reports.warnings)
    return 0
