"""Command line: ``ptotui [PATH]`` opens the dashboard; subcommands work headless.

Every command is a module with the same two functions, ``add_arguments(parser)``
and ``run(args) -> int``, listed once in :data:`COMMANDS`. A command's module is
imported only when that command runs, so pandas and Textual stay off the path of
the commands that do not need them.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from ptotui import __version__
from ptotui.model.config import LANGS
from ptotui.usage import (
    UsageError,
    add_common_arguments,
    apply_common_arguments,
    checked_path,
    lang_of,
    not_a_file,
    positive,
    settings_of,
    thresholds_of,
    warn,
)

if TYPE_CHECKING:
    from ptotui.model.compare import Source

MAX_COMPARE = 3  # --compare sources: more would not fit beside the kernels


class Command(NamedTuple):
    """One subcommand: a one-line help and the module that has ``add_arguments`` and ``run``.

    ``one_shot``: reads the reports once, prints and exits. Such a command runs without the
    cyclic garbage collector, whose passes over the freshly built model cost a third of an
    export (benchmarks/bench_scale.py); what little it would free goes at exit anyway.
    """

    help: str
    module: str
    one_shot: bool = False


COMMANDS: dict[str, Command] = {
    "export": Command("the merged model as JSON, CSV or markdown", "ptotui.export_cli", one_shot=True),
    "summary": Command("kernels by tier and blockers by layer, as text", "ptotui.summary", one_shot=True),
    "triage": Command("the triage list, as markdown or JSON", "ptotui.triage_cli", one_shot=True),
    "diff": Command("changes between two report sets; exit 1 on a regression", "ptotui.diff_cli", one_shot=True),
    "log": Command("the changelog of the reports from the commits that touched them", "ptotui.log_cli"),
    "demo": Command("the dashboard over a simulated bench run", "ptotui.demo"),
    "serve": Command("the dashboard in a browser, one app per tab, behind a token", "ptotui.serve"),
}
DASHBOARD = Command("Live dashboard for PTO kernel benchmark reports.", __name__)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage dump
        raise UsageError(message)


# -- the dashboard: this module is its own command ------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", help="reports dir, bench dir or checkout (default ./bench/reports or the samples)"
    )
    parser.add_argument("--filter", default="", metavar="TEXT", help="start with this filter applied")
    parser.add_argument("--lang", choices=LANGS, help="en or zh (default $PTOTUI_LANG, the settings file, en)")
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


# -- the table ------------------------------------------------------------------------


def build_parser(command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (None: the dashboard), with the flags all commands share."""
    if command is None:
        spec = DASHBOARD
        parser = Parser(
            prog="ptotui",
            description=spec.help,
            epilog="Headless commands: " + ", ".join(COMMANDS) + " (ptotui COMMAND --help).",
        )
    else:
        spec = COMMANDS[command]
        parser = Parser(prog=f"ptotui {command}", description=spec.help[:1].upper() + spec.help[1:] + ".")
    importlib.import_module(spec.module).add_arguments(parser)
    add_common_arguments(parser)
    return parser


def _guess_command(word: str) -> None:
    """``ptotui sumary``: a PATH that does not exist but is close to a command name."""
    if word.startswith("-") or os.sep in word:
        return
    try:
        if checked_path(word, missing_ok=True).exists():
            return
    except UsageError:
        return  # the dashboard's own check says what is wrong with it
    import difflib  # only for a PATH that does not exist: off every start-up

    close = difflib.get_close_matches(word, COMMANDS, n=1, cutoff=0.75)
    if close:
        raise UsageError(f"{word}: no such command or directory; did you mean {close[0]}?")


def dispatch(argv: Sequence[str]) -> int:
    command = argv[0] if argv and argv[0] in COMMANDS else None
    if command is None and argv:
        _guess_command(argv[0])
    args = build_parser(command).parse_args(list(argv[1:] if command else argv))
    apply_common_arguments(args)
    if command is not None and args.config_warning:
        warn([args.config_warning])
    spec = COMMANDS[command] if command else DASHBOARD
    if spec.one_shot:
        gc.disable()
    return int(importlib.import_module(spec.module).run(args))


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return dispatch(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        print(f"ptotui: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `ptotui export | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
