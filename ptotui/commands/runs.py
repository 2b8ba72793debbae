"""``ptotui runs [PATH] [--kernel NAME] [--since STAMP] [--format table|json|csv]``: the run log.

One line per bench run, oldest first: every ``bench/results/<family>/<kernel>/<stamp>/``
with a report.json, and the latest report of a kernel that only ``bench/generated`` still
holds. Its figures are the summary generator's (per-shape medians matched by shape):
``baseline_ms``/``pto_ms`` are the median over shapes of the run's per-shape medians.
Headless: neither Textual nor pandas is imported.
"""

from __future__ import annotations

import argparse
import csv
import io
import re
import sys
import time
from typing import Any

from rich.cells import cell_len as cells

from ptotui.commands.common import UsageError, existing_location, warn
from ptotui.model.bench.benchrun import unlikely_finishes
from ptotui.model.bench.columns import RunLog
from ptotui.model.bench.record import SCHEMA
from ptotui.model.bench.runs import read_runs
from ptotui.model.core.fmt import csv_text, ms, pct
from ptotui.model.i18n import _, ngettext
from ptotui.model.text import clean, one_line

_SINCE = re.compile(r"^\d{8}(T\d{2}(\d{2}(\d{2}Z?)?)?)?$")
FIELDS = (
    "kernel",
    "family",
    "started",
    "finished",
    "baseline_status",
    "pto_status",
    "baseline_ms",
    "pto_ms",
    "ratio_pct",
    "path",
)


def since_stamp(text: str) -> str:
    """A UTC stamp or its head: ``20260316``, ``20260316T03``, ``20260316T031000Z``."""
    if not _SINCE.match(text):
        raise argparse.ArgumentTypeError(
            _("not a UTC stamp such as 20260316T031000Z or 20260316: {text!r}").format(text=text)
        )
    return text


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("bench dir, reports dir or checkout (default ./bench/reports)"))
    parser.add_argument("--kernel", metavar="NAME", help=_("only this kernel's runs"))
    parser.add_argument("--since", type=since_stamp, metavar="STAMP", help=_("only runs started at or after STAMP"))
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")


def _rows(log: RunLog, kernel: str | None, since: str | None, unlikely: set[str]) -> list[dict[str, Any]]:
    rows = []
    for run in log.runs:
        if (kernel is None or run.kernel == kernel) and (since is None or run.started >= since):
            row = run.as_dict()
            if run.path in unlikely:  # a checkout's time, not the run's end: said as unknown
                row["finished"] = None
            rows.append(row)
    return rows


def _text(value: Any) -> str:
    return one_line(clean("" if value is None else value))


def _table(rows: list[dict[str, Any]]) -> str:
    head = (
        _("Started"),
        _("Finished"),
        _("Kernel"),
        _("Family"),
        _("Baseline"),
        "PTO",
        _("Baseline ms"),
        _("PTO ms"),
        _("Baseline / PTO"),
    )
    body = [
        (
            r["started"],
            r["finished"] or "n/a",
            _text(r["kernel"]),
            _text(r["family"]),
            _text(r["baseline_status"]) or "?",
            _text(r["pto_status"]) or "?",
            ms(r["baseline_ms"]),
            ms(r["pto_ms"]),
            pct(r["ratio_pct"]),
        )
        for r in rows
    ]
    widths = [max([cells(h), *(cells(line[i]) for line in body)]) for i, h in enumerate(head)]
    right = {6, 7, 8}

    def pad(text: str, width: int, index: int) -> str:
        room = " " * (width - cells(text))  # terminal cells: a Chinese heading is two a character
        return room + text if index in right else text + room

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(pad(c, w, i) for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip()

    return "\n".join([line(head), *(line(cells) for cells in body)]) + "\n"


def _csv(rows: list[dict[str, Any]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(FIELDS)
    for r in rows:
        writer.writerow(
            ["" if r[f] is None else (repr(r[f]) if isinstance(r[f], float) else csv_text(_text(r[f]))) for f in FIELDS]
        )
    return out.getvalue()


def run(args: argparse.Namespace) -> int:
    location = existing_location(args.path)
    log = read_runs(location.bench, clock=time.time)
    if args.kernel is not None and not any(run.kernel == args.kernel for run in log.runs):
        # as ``log --kernel``: a name no run has is a usage error (a typo), not an empty listing
        warn(log.warnings)
        said = _("{kernel}: no such kernel in the runs").format(kernel=one_line(clean(args.kernel), 80))
        raise UsageError(said)
    unlikely = unlikely_finishes(log.runs)
    rows = _rows(log, args.kernel, args.since, unlikely)
    if args.format == "json":
        import orjson

        sys.stdout.write(orjson.dumps({"schema": SCHEMA, "runs": rows}, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif args.format == "csv":
        sys.stdout.write(_csv(rows))
    else:
        sys.stdout.write(_table(rows) if rows else _("no runs") + "\n")
    notes: list[object] = list(log.warnings)
    if not log.runs and not log.warnings:
        notes.append(_("{path}: no run directories with a report.json").format(path=location.bench / "results"))
    if log.pending:
        said = ngettext(
            "{n} run directory without report.json (running, or the runner stopped): not listed",
            "{n} run directories without report.json (running, or the runner stopped): not listed",
            len(log.pending),
        )
        notes.append(said.format(n=len(log.pending)))
    left_out = sum(1 for r in rows if r["finished"] is None)
    if left_out:
        said = ngettext(
            "{n} run without a finish time: its report.json's modification time cannot be when it ended"
            " (a checkout gives every file the checkout's time)",
            "{n} runs without a finish time: their report.json's modification time cannot be when they ended"
            " (a checkout gives every file the checkout's time)",
            left_out,
        )
        notes.append(said.format(n=left_out))
    warn(notes)
    return 0
