"""What every command shares: usage errors, flag checks, PATH checks and the warning printer.

Kept light (no pandas, no Textual): the model modules it imports are those every command reads with.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.config import Config
from ptotui.model.i18n import LANGS, _
from ptotui.model.options import COMMON, DashboardOptions, choose_lang, choose_thresholds
from ptotui.model.options import percent as percent  # the flag types, for the commands
from ptotui.model.options import positive as positive

if TYPE_CHECKING:
    from ptotui.model.core.tiers import Thresholds
    from ptotui.model.location import Location


class UsageError(Exception):
    """A bad flag or PATH: one line on stderr and exit 2."""


def warn(warnings: Iterable[object]) -> None:
    """Print read warnings on stderr, one line each, after the output. A control character
    (in a path given on the command line, say) is shown as an escape, never sent to the terminal;
    ``ptotui.cli.main`` does the same for the usage errors of every command."""
    from ptotui.model.text import visible

    for warning in warnings:
        print(_("ptotui: warning: {message}").format(message=visible(warning)), file=sys.stderr)


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags every command takes (--high, --mid, --config, --max-file-mb)."""
    DashboardOptions.add_arguments(parser, COMMON)


def apply_common_arguments(args: argparse.Namespace) -> None:
    """Set the file-size cap and read the settings file into ``args.settings``; a problem
    with that file becomes ``args.config_warning`` (the dashboard shows it, commands print it)."""
    from ptotui.model.config import default_path, merge_thresholds, read_config
    from ptotui.model.i18n import language, set_language
    from ptotui.model.read.safefile import set_max_file_mb

    set_max_file_mb(args.max_file_mb)
    path = Path(args.config).expanduser() if args.config else default_path()
    before = language()
    args.settings, args.config_warning = read_config(path)
    set_language(lang_of(args))  # every message from here on, headless or not
    if args.config_warning and language() != before:
        # The file was read to learn the language (its ``lang``): its problems are said
        # again, now in that language. A settings file is a few lines.
        args.config_warning = read_config(path)[1]
    # The thresholds merged here, so that a settings file whose values do not fit the flags
    # (or the defaults) is part of the one warning, shown before any output.
    try:
        warning = merge_thresholds(args.high, args.mid, args.settings)[2]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if warning:
        args.config_warning = f"{args.config_warning}; {warning}" if args.config_warning else warning


def settings_of(args: argparse.Namespace) -> Config:
    return getattr(args, "settings", None) or Config()


def thresholds_of(args: argparse.Namespace) -> Thresholds:
    """The flags, else the settings file, else 70/30."""
    try:
        return choose_thresholds(args.high, args.mid, settings_of(args))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def early_language(argv: Sequence[str]) -> str:
    """The language of the command line ``argv`` before it is parsed, so that the parsing
    (``--help``, a usage error) speaks it: ``--lang`` as written there, ``$PTOTUI_LANG``,
    the ``lang`` of the settings file (``--config`` or the default one), the locale."""
    from ptotui.model.config import default_path, read_config

    given: dict[str, str] = {}
    words = list(argv)
    for index, word in enumerate(words):
        if word == "--":
            break
        name, equals, value = word.partition("=")
        if name in ("--lang", "--config"):
            if not equals:
                value = words[index + 1] if index + 1 < len(words) else ""
            given[name] = value
    if given.get("--lang") in LANGS:
        return given["--lang"]
    config = given.get("--config")
    settings = read_config(Path(config).expanduser() if config else default_path())[0]
    return choose_lang(None, settings)


def lang_of(args: argparse.Namespace) -> str:
    """--lang, else $PTOTUI_LANG, else the settings file, else the locale (LC_ALL,
    LC_MESSAGES, LANG, LANGUAGE: zh* is Chinese), else English."""
    return choose_lang(getattr(args, "lang", None), settings_of(args))


# -- PATH checks ---------------------------------------------------------------------


def checked_path(path: str, missing_ok: bool = False) -> Path:
    """``path`` as a Path, or a UsageError for a NUL, an over-long name, a symlink loop
    or (unless ``missing_ok``) a path that does not exist."""
    if "\0" in path:
        raise UsageError(_("{path!r}: a path cannot hold a NUL byte").format(path=path))
    target = Path(path).expanduser()
    for part in target.parts:
        if len(os.fsencode(part)) > 255:
            raise UsageError(_("{part}: a file name is at most 255 bytes").format(part=_short(part)))
    try:
        os.stat(target)
    except OSError as exc:
        if exc.errno == errno.ENOENT and missing_ok:
            return target
        if exc.errno == errno.ELOOP:
            raise UsageError(
                _("{path}: too many levels of symbolic links (a symlink loop?)").format(path=path)
            ) from None
        raise UsageError(_("{path}: {error}").format(path=_short(path), error=exc.strerror or exc)) from None
    return target


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:60] + "…" + text[-10:]


def not_a_file(path: str | None) -> None:
    if path is not None and checked_path(path, missing_ok=True).is_file():
        raise UsageError(
            _("{path} is a file: give a reports directory, a bench/ directory or a checkout").format(path=path)
        )


def existing_location(path: str | None) -> Location:
    from ptotui.model.location import locate

    if path is not None:
        checked_path(path)
    not_a_file(path)
    return locate(path)


def add_change_arguments(parser: argparse.ArgumentParser) -> None:
    """--ratio-pp and --min-change: what a move must be to show and to count (diff, log)."""
    from ptotui.model.core.noise import FLOOR_PCT

    parser.add_argument(
        "--ratio-pp",
        type=positive,
        default=2.0,
        metavar="PP",
        help=_("a median-ratio move that is shown, and counts when no latency says which side moved (default 2)"),
    )
    parser.add_argument(
        "--min-change",
        type=positive,
        default=FLOOR_PCT,
        metavar="PCT",
        help=_("the least latency change that is beyond noise, whatever the band (default {default})").format(
            default=f"{FLOOR_PCT:g}"
        ),
    )


def bench_dir(path: str | None) -> Path:
    """The bench directory of PATH for the commands that read its runs: one with ``results``
    (a checkout's ``bench/``, or PATH itself) even where there are no reports, else the
    bench directory the reports' location gives."""
    if path is not None:
        target = checked_path(path)
        not_a_file(path)
        for candidate in (target / "bench", target):
            if (candidate / "results").is_dir():
                return candidate
    elif (Path.cwd() / "bench" / "results").is_dir():
        return Path.cwd() / "bench"
    return existing_location(path).bench
