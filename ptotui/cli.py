"""Command line: ``ptotui [PATH]`` opens the dashboard; subcommands work headless."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NoReturn

from ptotui import __version__
from ptotui.model.config import LANGS, Config, default_path, read_config
from ptotui.model.location import Location, locate
from ptotui.model.safefile import DEFAULT_MAX_FILE_MB, set_max_file_mb
from ptotui.model.tiers import Thresholds

COMMANDS = ("export", "summary", "triage", "diff", "log", "demo")


class UsageError(Exception):
    """A bad flag or PATH: one line on stderr and exit 2."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, not argparse's usage dump
        raise UsageError(message)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--high", type=float, metavar="PCT", help="ratio for the high tier (default 70)")
    parser.add_argument("--mid", type=float, metavar="PCT", help="ratio for the mid tier (default 30)")
    parser.add_argument("--config", metavar="FILE", help="settings file (default $XDG_CONFIG_HOME/ptotui/config.toml)")
    parser.add_argument(
        "--max-file-mb",
        type=float,
        default=DEFAULT_MAX_FILE_MB,
        metavar="MB",
        help=f"read no report file larger than this (default {DEFAULT_MAX_FILE_MB:g})",
    )


def build_parser(command: str | None) -> argparse.ArgumentParser:
    if command is None:
        parser = Parser(
            prog="ptotui",
            description="Live dashboard for PTO kernel benchmark reports.",
            epilog="Headless commands: " + ", ".join(COMMANDS) + " (ptotui COMMAND --help).",
        )
        parser.add_argument(
            "path", nargs="?", help="reports dir, bench dir or checkout (default ./bench/reports or the samples)"
        )
        parser.add_argument("--filter", default="", metavar="TEXT", help="start with this filter applied")
        parser.add_argument("--lang", choices=LANGS, help="en or zh (default $PTOTUI_LANG, the settings file, en)")
        parser.add_argument("--poll", action="store_true", help="poll instead of inotify (NFS, SSHFS, CIFS)")
        parser.add_argument("--state", metavar="FILE", help="triage state file (default: per-user state dir)")
        parser.add_argument(
            "--ratio-pp",
            type=float,
            default=2.0,
            metavar="PP",
            help="a median-ratio move that counts as a change (default 2)",
        )
        parser.add_argument("--version", action="version", version=f"ptotui {__version__}")
        _common(parser)
        return parser
    parser = Parser(prog=f"ptotui {command}")
    if command == "diff":
        parser.add_argument("old", help="old reports dir, snapshot file or git revision")
        parser.add_argument("new", help="new reports dir, snapshot file or git revision")
        parser.add_argument(
            "--repo", metavar="PATH", help="repository of the revisions (default: the current directory's)"
        )
        parser.add_argument("--format", choices=("md", "json"), default="md")
        parser.add_argument(
            "--ratio-pp", type=float, default=2.0, metavar="PP", help="ratio move that counts (default 2)"
        )
    elif command == "log":
        from ptotui.log_cli import add_arguments

        add_arguments(parser)
    elif command == "demo":
        parser.add_argument("--interval", type=float, default=2.0, metavar="S", help="seconds between rewrites")
        parser.add_argument("--lang", choices=("en", "zh"), default="en")
    else:
        parser.add_argument("path", nargs="?")
        if command == "export":
            parser.add_argument("--format", choices=("json", "csv", "md"), default="json")
        elif command == "triage":
            parser.add_argument("--format", choices=("md", "json"), default="md")
            parser.add_argument("--state", metavar="FILE")
    _common(parser)
    return parser


def not_a_file(path: str | None) -> None:
    if path is not None and Path(path).expanduser().is_file():
        raise UsageError(f"{path} is a file: give a reports directory, a bench/ directory or a checkout")


def existing_location(path: str | None) -> Location:
    if path is not None and not Path(path).expanduser().exists():
        raise UsageError(f"{path}: no such file or directory")
    not_a_file(path)
    return locate(path)


def read_settings(args: argparse.Namespace) -> str | None:
    """Read the settings file into ``args.settings``; return its one warning, if any."""
    args.settings, warning = read_config(Path(args.config).expanduser() if args.config else default_path())
    return warning


def settings_of(args: argparse.Namespace) -> Config:
    return getattr(args, "settings", None) or Config()


def thresholds_of(args: argparse.Namespace) -> Thresholds:
    """The flags, else the settings file, else 70/30."""
    config = settings_of(args)
    high = args.high if args.high is not None else config.high if config.high is not None else 70.0
    mid = args.mid if args.mid is not None else config.mid if config.mid is not None else 30.0
    if not 0 <= mid <= high:
        raise UsageError("--mid must be between 0 and --high")
    return Thresholds(high=high, mid=mid)


def lang_of(args: argparse.Namespace) -> str:
    """--lang, else $PTOTUI_LANG, else the settings file, else English."""
    env = os.environ.get("PTOTUI_LANG")
    return args.lang or (env if env in LANGS else None) or settings_of(args).lang or "en"


def _print_warnings(warnings: Iterable[object]) -> None:
    for warning in warnings:
        print(f"ptotui: warning: {warning}", file=sys.stderr)


def run_export(args: argparse.Namespace) -> int:
    from ptotui.model import export
    from ptotui.model.loader import load

    reports = load(existing_location(args.path), thresholds_of(args))
    render = {"json": export.to_json, "csv": export.to_csv, "md": export.to_markdown}[args.format]
    sys.stdout.write(render(reports))
    _print_warnings(reports.warnings)
    return 0


def run_summary(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ptotui.model.loader import load
    from ptotui.summary import render

    reports = load(existing_location(args.path), thresholds_of(args))
    render(reports, Console(highlight=False, emoji=False))
    _print_warnings(reports.warnings)
    return 0


def run_app(args: argparse.Namespace, warning: str | None) -> int:
    from ptotui.app.factory import make_app

    not_a_file(args.path)  # a missing PATH is fine: the app waits for it to appear
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the dashboard needs a terminal; without one use `ptotui export` or `ptotui summary`")
    app = make_app(
        args.path,
        thresholds=thresholds_of(args),
        config=settings_of(args),
        config_warning=warning,
        lang=lang_of(args),
        initial_filter=args.filter,
        poll=args.poll,
        state_file=Path(args.state) if args.state else None,
        ratio_pp=args.ratio_pp,
        pause_gc=True,
    )  # the app turns the collector back on after the first frame, or on exit
    app.run()
    return app.return_code or 0


def dispatch(argv: Sequence[str]) -> int:
    command = argv[0] if argv and argv[0] in COMMANDS else None
    args = build_parser(command).parse_args(list(argv[1:] if command else argv))
    if not args.max_file_mb > 0:
        raise UsageError("--max-file-mb must be above 0")
    set_max_file_mb(args.max_file_mb)
    warning = read_settings(args)
    if command is None:
        return run_app(args, warning)  # the dashboard shows the warning itself
    if warning:
        print(f"ptotui: warning: {warning}", file=sys.stderr)
    if command == "export":
        return run_export(args)
    if command == "summary":
        return run_summary(args)
    if command == "triage":
        from ptotui.triage_cli import run_triage

        return run_triage(args, existing_location(args.path), thresholds_of(args))
    if command == "diff":
        from ptotui.diff_cli import run_diff

        return run_diff(args)
    if command == "log":
        from ptotui.log_cli import run

        return run(args)
    from ptotui.demo import run_demo

    return run_demo(args)


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
