"""``ptotui triage``: the triage list, for a stand-up or an issue."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ptotui.commands.common import existing_location, thresholds_of, warn
from ptotui.model.core.fmt import md_cell
from ptotui.model.i18n import _
from ptotui.model.location import Location
from ptotui.model.read.loader import load
from ptotui.model.reportskey import reports_key
from ptotui.model.triage import TriageStore, default_state_file, state_word, triage_rows


def open_store(location: Location, state_file: Path | None) -> TriageStore:
    return TriageStore(state_file or default_state_file(), reports_key(location.reports))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("reports dir, bench dir or checkout"))
    parser.add_argument("--format", choices=("md", "json"), default="md")
    parser.add_argument("--state", metavar="FILE", help=_("triage state file (default: per-user state dir)"))


def run(args: argparse.Namespace) -> int:
    location = existing_location(args.path)
    reports = load(location, thresholds_of(args))
    store = open_store(location, Path(args.state) if args.state else None)
    rows = triage_rows(reports.kernels, store)
    if args.format == "json":
        payload = {
            "schema": "ptotui.triage-list/1",
            "source": reports.source,
            "state_file": str(store.path),
            "entries": rows,
        }
        sys.stdout.write(json.dumps(payload, indent=2) + "\n")
    else:
        heads = [_("Kernel"), _("Tier"), _("Layer"), _("State"), _("Stale"), _("Since"), _("Gap ids"), _("Note")]
        lines = [
            "# " + _("Triage: {source}").format(source=md_cell(reports.source)),
            "",
            _("State file: {path}").format(path=md_cell(store.path)),
            "",
            "| " + " | ".join(heads) + " |",
            "|" + " --- |" * len(heads),
        ]
        for row in rows:
            cells = [
                row["kernel"],
                row["tier"],
                _(row["layer"]) if row["layer"] else "",  # the JSON's English name, shown in the language
                state_word(row["state"]),
                _("yes") if row["stale"] else "",
                row["since"] or "",
                ", ".join(row["gap_ids"]),
                row["note"],
            ]
            lines.append("| " + " | ".join(md_cell(c) for c in cells) + " |")
        sys.stdout.write("\n".join(lines) + "\n")
    warn(reports.warnings + store.warnings)
    return 0
