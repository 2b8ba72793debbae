"""``ptotui rundiff [PATH] KERNEL BEFORE AFTER [--file GLOB]``: what two runs benchmarked, diffed.

A git-style unified diff (``a/`` and ``b/`` paths relative to the run directory) of the code
files of two run directories of one kernel (report.json and the benchmark JSONs left out),
one line per binary file; in colour on a terminal, plain when piped or with ``NO_COLOR``.
BEFORE and AFTER are run stamps (``ptotui runs`` and ``ptotui changes`` print them). Exit 2
naming a kernel or stamp that has no run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from ptotui.commands.common import UsageError, bench_dir, warn
from ptotui.model.bench.record import Run
from ptotui.model.bench.runs import read_runs
from ptotui.model.changes.artifacts import unified
from ptotui.model.changes.points import run_dir
from ptotui.model.i18n import _
from ptotui.model.text import clean
from ptotui.model.types import ReadWarning

_COLOURS = (("diff --git", "1"), ("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"), ("Binary", "33"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("bench dir or checkout with bench/results (default ./bench)"))
    parser.add_argument("kernel", metavar="KERNEL", help=_("the kernel"))
    parser.add_argument("before", metavar="BEFORE", help=_("the earlier run's stamp, e.g. 20260314T152305Z"))
    parser.add_argument("after", metavar="AFTER", help=_("the later run's stamp"))
    parser.add_argument("--file", metavar="GLOB", help=_("only the files whose run-relative path matches GLOB"))


def coloured(line: str) -> str:
    for head, code in _COLOURS:
        if line.startswith(head):
            return f"\x1b[{code}m{line}\x1b[0m"
    return line


def _run(runs: list[Run], kernel: str, stamp: str) -> Run:
    for run in runs:
        if run.started == stamp:
            return run
    raise UsageError(_("{kernel} has no run {stamp}").format(kernel=clean(kernel), stamp=clean(stamp)))


def run(args: argparse.Namespace) -> int:
    log = read_runs(bench_dir(args.path), clock=time.time)
    runs = log.runs.of(args.kernel)
    if not runs:
        raise UsageError(_("no runs of {kernel}").format(kernel=clean(args.kernel)))
    before, after = _run(runs, args.kernel, args.before), _run(runs, args.kernel, args.after)
    colour = sys.stdout.isatty() and not os.environ.get("NO_COLOR")
    notes: list[ReadWarning] = []
    out = sys.stdout
    for line in unified(run_dir(before), run_dir(after), args.file, notes):
        out.write((coloured(line) if colour else line) + "\n")
    warn(dict.fromkeys(notes))
    return 0
