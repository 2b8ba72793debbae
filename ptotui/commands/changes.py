"""``ptotui changes [PATH] [--kernel K] [--side pto|baseline] [--shapes] [--pending] [--min-change PCT]
[--format table|json|csv]``: when each kernel's speed changed for good, and the code that changed.

Over ``bench/results`` (no reports needed): per kernel and side, the change points of the
kernel's series of runs (E-divisive means with a t-test, ``ptotui/model/changes/``), with
``--shapes`` each shape's too (by its label); for each, the code files that differ between
the run before and the run after. Oldest first. A point with fewer than three runs after it
is pending: listed with ``--pending`` only, apart (JSON: ``"pending": true``). Headless:
neither Textual nor pandas is imported.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from typing import Any

from rich.cells import cell_len

from ptotui.commands.common import bench_dir, positive, warn
from ptotui.model.bench.runs import read_runs
from ptotui.model.changes.artifacts import STATUS_WORDS
from ptotui.model.changes.points import (
    MIN_AFTER,
    SCHEMA,
    SIDES,
    ChangePoint,
    Settings,
    collect,
    read_shapes,
    with_artifacts,
)
from ptotui.model.core.environment import describe
from ptotui.model.core.fmt import csv_text, ms
from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.i18n import _
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReadWarning

CSV_FIELDS = (
    "kernel",
    "family",
    "side",
    "shape",
    "label",
    "before",
    "after",
    "before_ms",
    "after_ms",
    "change_pct",
    "pvalue",
    "runs_before",
    "runs_after",
    "pending",
    "environment",
    "files_changed",
    "lines_added",
    "lines_removed",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("bench dir or checkout with bench/results (default ./bench)"))
    parser.add_argument("--kernel", metavar="NAME", help=_("only this kernel's change points"))
    parser.add_argument("--side", choices=SIDES, help=_("only this side's (default both)"))
    parser.add_argument("--shapes", action="store_true", help=_("each shape's series too, not only the kernel's"))
    parser.add_argument(
        "--pending",
        action="store_true",
        help=_("the possible steps with fewer than {n} runs after them too, apart").format(n=MIN_AFTER),
    )
    parser.add_argument(
        "--min-change",
        type=positive,
        default=FLOOR_PCT,
        metavar="PCT",
        help=_("the least change that counts, in percent (default {default})").format(default=f"{FLOOR_PCT:g}"),
    )
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table")


def _text(value: Any) -> str:
    return one_line(clean("" if value is None else value))


def _lines(change: ChangePoint) -> tuple[int, int]:
    files = change.artifacts or ()
    return sum(a.added or 0 for a in files), sum(a.removed or 0 for a in files)


def _pad(text: str, width: int, right: bool) -> str:
    room = " " * (width - cell_len(text))  # terminal cells: a Chinese heading is two a character
    return room + text if right else text + room


def table(changes: list[ChangePoint]) -> str:
    """One line per change point, its changed files indented under it."""
    head: tuple[str, ...] = (_("After"), _("Kernel"), _("Side"), _("Shape"), _("Before ms"), _("After ms"))
    head += (_("Change"), "p", _("Runs"), _("Cause"), _("Files"))
    rows = [
        (
            c.after,
            _text(c.kernel),
            "PTO" if c.side == "pto" else _("baseline"),
            _text(c.label or c.shape) if c.shape is not None else _("all shapes"),
            ms(c.before_ms),
            ms(c.after_ms),
            f"{c.change_pct:+.1f}%",
            f"{c.pvalue:.1e}",
            f"{c.runs_before}|{c.runs_after}",
            c.cause(),
            str(len(c.artifacts or ())),
        )
        for c in changes
    ]
    widths = [max([cell_len(h), *(cell_len(row[i]) for row in rows)]) for i, h in enumerate(head)]
    right = {4, 5, 6, 7, 8, 10}

    def line(row: tuple[str, ...]) -> str:
        return "  ".join(_pad(cell, w, i in right) for i, (cell, w) in enumerate(zip(row, widths, strict=True)))

    out = [line(head).rstrip()]
    said_pending = False
    for change, row in zip(changes, rows, strict=True):
        if change.pending and not said_pending:
            said_pending = True
            out.append("")
            words = _("Pending: possible steps with fewer than {n} runs after them yet (not change points)")
            out.append(words.format(n=MIN_AFTER))
        out.append(line(row).rstrip())
        for artifact in change.artifacts or ():
            counts = _("binary") if artifact.binary else f"+{artifact.added} -{artifact.removed}"
            status = _pad(_(STATUS_WORDS[artifact.status]), 8, False)
            out.append(f"    {status}  {_pad(counts, 10, True)}  {artifact.path}")
    return "\n".join(out) + "\n"


def csv_text_of(changes: list[ChangePoint]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for change in changes:
        record = change.as_dict()
        added, removed = _lines(change)
        record.update(files_changed=len(change.artifacts or ()), lines_added=added, lines_removed=removed)
        record["environment"] = describe(list(change.environment))  # "toolkit 8.5.0 → 9.0.0", or empty
        writer.writerow(
            [
                ""
                if record[f] is None
                else repr(record[f])
                if isinstance(record[f], float)
                else ("true" if record[f] else "false")
                if isinstance(record[f], bool)
                else csv_text(_text(record[f]))
                if isinstance(record[f], str)
                else record[f]
                for f in CSV_FIELDS
            ]
        )
    return out.getvalue()


def run(args: argparse.Namespace) -> int:
    bench = bench_dir(args.path)
    log = read_runs(bench, clock=time.time)
    settings = Settings(min_change_pct=args.min_change)
    sides = (args.side,) if args.side else SIDES
    notes: list[ReadWarning] = list(log.warnings)
    found = collect(log.runs, args.kernel, sides, args.shapes, settings, lambda run: read_shapes(run, notes))
    kept = [c for c in found if not c.pending] + ([c for c in found if c.pending] if args.pending else [])
    changes = [with_artifacts(change, notes) for change in kept]
    notes = list(dict.fromkeys(notes))  # a run directory beside two change points is said once
    if args.format == "json":
        import orjson

        document = {
            "schema": SCHEMA,
            "changes": [c.as_dict() for c in changes],
            "warnings": [n.as_dict() for n in notes],
        }
        sys.stdout.write(orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n")
    elif args.format == "csv":
        sys.stdout.write(csv_text_of(changes))
    else:
        sys.stdout.write(table(changes) if changes else _("no change points") + "\n")
    said: list[object] = list(notes)
    if not log.runs and not log.warnings:
        said.append(_("{path}: no run directories with a report.json").format(path=bench / "results"))
    elif args.kernel and not any(run.kernel == args.kernel for run in log.runs):
        said.append(_("no runs of {kernel}").format(kernel=clean(args.kernel)))
    warn(said)
    return 0
