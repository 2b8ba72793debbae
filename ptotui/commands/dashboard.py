"""``ptotui [PATH]``: the live dashboard in this terminal."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui import __version__
from ptotui.commands.common import (
    UsageError,
    lang_of,
    not_a_file,
    positive,
    settings_of,
    thresholds_of,
)

if TYPE_CHECKING:
    from ptotui.model.compare import Source

MAX_COMPARE = 3  # --compare sources: more would not fit beside the kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", help="reports dir, bench dir or checkout (default ./bench/reports or the samples)"
    )
    parser.add_argument("--filter", default="", metavar="TEXT", help="start with this filter applied")
    parser.add_argument("--poll", action="store_true", help="poll instead of inotify (NFS, SSHFS, CIFS)")
    parser.add_argument(
        "--no-git", action="store_true", help="history from the snapshot files only, not from the commits of git"
    )
    parser.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="REV_OR_PATH",
        help="show another branch (a revision) or host (a reports dir) beside each kernel; up to 3",
    )
    parser.add_argument("--state", metavar="FILE", help="triage state file (default: per-user state dir)")
    parser.add_argument("--read-only", action="store_true", help="triage keys off (as ptotui serve --read-only)")
    parser.add_argument(
        "--ratio-pp",
        type=positive,
        default=2.0,
        metavar="PP",
        help="a median-ratio move that counts as a change (default 2)",
    )
    parser.add_argument("--no-bell", action="store_true", help="no terminal bell when a reload brings a regression")
    parser.add_argument(
        "--on-regression",
        metavar="CMD",
        help="run CMD (via /bin/sh) when a reload brings a regression, `ptotui diff --format json` on its stdin",
    )
    parser.add_argument("--version", action="version", version=f"ptotui {__version__}")


def compare_sources(specs: list[str], path: str | None) -> list[Source]:
    """The --compare sources, checked before the app starts: a bad one is one line, exit 2."""
    if not specs:
        return []
    if len(specs) > MAX_COMPARE:
        raise UsageError(f"--compare is given {len(specs)} times; at most {MAX_COMPARE}")
    from ptotui.model.compare import CompareError, resolve
    from ptotui.model.location import locate

    main = locate(path)
    try:
        return [resolve(spec, main) for spec in specs]
    except CompareError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from ptotui.app.factory import make_app

    not_a_file(args.path)  # a missing PATH is fine: the app waits for it to appear
    thresholds = thresholds_of(args)
    sources = compare_sources(args.compare, args.path)
    # A Textual driver named in the environment draws elsewhere: textual-serve's WebDriver
    # talks to `ptotui serve` over pipes.
    if "TEXTUAL_DRIVER" not in os.environ and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the dashboard needs a terminal; without one use `ptotui export` or `ptotui summary`")
    app = make_app(
        args.path,
        thresholds=thresholds,
        config=settings_of(args),
        config_warning=args.config_warning,  # the dashboard shows it itself
        lang=lang_of(args),
        initial_filter=args.filter,
        poll=args.poll,
        state_file=Path(args.state) if args.state else None,
        ratio_pp=args.ratio_pp,
        read_only=args.read_only,
        bell=not args.no_bell,
        on_regression=args.on_regression,
        pause_gc=True,
        git=not args.no_git,
        compare=sources,
    )  # the app turns the collector back on after the first frame, or on exit
    app.run()
    return app.return_code or 0
