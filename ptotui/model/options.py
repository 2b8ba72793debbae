"""What the dashboard is asked for on the command line, as one frozen value.

:class:`DashboardOptions` is what the CLI reads, ``ptotui serve`` passes on to each tab's
process, the factory builds an app from, and the App keeps. Each flag is declared once, in
:data:`FLAGS`: ``add_arguments`` puts it on a parser, ``from_args`` reads it back and
``to_argv`` writes it out again, so ``from_args(parse(to_argv(options))) == options``.

The flags the settings file also sets (``--high``, ``--mid``, ``--lang``) are kept as given
(``None``: not given), so a process they are passed on to reads its own settings file and
comes to the same choice, with the same precedence: the flag, then (for the language)
``$PTOTUI_LANG``, then the settings file, then the default.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Literal

from ptotui.model.config import Config
from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.core.tiers import Thresholds
from ptotui.model.i18n import LANGS, N_, _, choose_language
from ptotui.model.read.safefile import DEFAULT_MAX_FILE_MB

# -- flag types (argparse turns ArgumentTypeError into one usage line) ---------------


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("not a number: {text}").format(text=repr(text))) from None
    if value != value or value in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(_("not a finite number: {text}").format(text=text))
    return value


def positive(text: str) -> float:
    """A finite number above 0 (seconds, percentage points)."""
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(_("must be above 0, not {text}").format(text=text))
    return value


def percent(text: str) -> float:
    """A finite number from 0 to 100."""
    value = _number(text)
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(_("must be from 0 to 100, not {text}").format(text=text))
    return value


# -- the choices the settings file also makes ------------------------------------------


def choose_thresholds(high: float | None, mid: float | None, settings: Config) -> Thresholds:
    """Each threshold from its flag, else the settings file, else 70/30, then the pair checked
    (``config.merge_thresholds``: a settings file's values that do not fit are dropped, with the
    warning given when the file was read); ValueError only when the flags make it wrong."""
    from ptotui.model.config import merge_thresholds

    merged_high, merged_mid, _warning = merge_thresholds(high, mid, settings)
    return Thresholds(high=merged_high, mid=merged_mid)


def choose_lang(lang: str | None, settings: Config, environ: Mapping[str, str] = os.environ) -> str:
    """--lang, else $PTOTUI_LANG, else the settings file, else the locale, else English."""
    return choose_language(lang, environ, settings.lang)


# -- the flags, each declared once -------------------------------------------------------


@dataclass(frozen=True)
class Flag:
    """One dashboard flag. ``kind``: ``value`` takes an argument; ``on`` sets its field true;
    ``off`` sets it false (``--no-git`` sets ``git``); ``many`` may be given again and again.
    ``common`` flags are taken by every command (``ptotui.commands.common`` declares them)."""

    field: str
    flag: str
    help: str
    kind: Literal["value", "on", "off", "many"] = "value"
    type: Callable[[str], Any] = str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    common: bool = False
    path: bool = False  # read as a Path; an empty one is not given

    @property
    def dest(self) -> str:
        return self.flag.lstrip("-").replace("-", "_")

    def add_to(self, parser: argparse.ArgumentParser, default: object) -> None:
        said = _(self.help)  # the parser is built once the language is known
        if "{default}" in self.help:
            said = said.format(default=f"{default:g}")
        if self.kind in ("on", "off"):
            parser.add_argument(self.flag, action="store_true", help=said)
        elif self.kind == "many":
            parser.add_argument(self.flag, action="append", default=[], metavar=self.metavar, help=said)
        else:
            parser.add_argument(
                self.flag, type=self.type, default=default, metavar=self.metavar, choices=self.choices, help=said
            )


FLAGS: tuple[Flag, ...] = (
    Flag("filter", "--filter", N_("start with this filter applied"), metavar="TEXT"),
    Flag("poll", "--poll", N_("poll instead of inotify (NFS, SSHFS, CIFS)"), kind="on"),
    Flag("git", "--no-git", N_("history from the snapshot files only, not from the commits of git"), kind="off"),
    Flag(
        "compare",
        "--compare",
        N_("show another branch (a revision) or host (a reports dir) beside each kernel; up to 3"),
        kind="many",
        metavar="REV_OR_PATH",
    ),
    Flag("state", "--state", N_("triage state file (default: per-user state dir)"), metavar="FILE", path=True),
    Flag(
        "read_only", "--read-only", N_("triage keys off, nothing written (for ptotui serve: in every tab)"), kind="on"
    ),
    Flag(
        "ratio_pp",
        "--ratio-pp",
        N_("a median-ratio move that counts as a change (default 2)"),
        type=positive,
        metavar="PP",
    ),
    Flag(
        "min_change",
        "--min-change",
        N_("the least latency change that is beyond noise, whatever the band (default {default})"),
        type=positive,
        metavar="PCT",
    ),
    Flag(
        "runner",
        "--runner",
        N_("the command R runs for a kernel: {spec} {kernel} {family} {root} (default: [runner] in the settings file)"),
        metavar="CMD",
    ),
    Flag(
        "runs",
        "--no-runs",
        N_("R starts no runner (ptotui serve sets this unless --allow-runs)"),
        kind="off",
    ),
    Flag("bell", "--no-bell", N_("no terminal bell when a reload or a landed run brings a regression"), kind="off"),
    Flag(
        "on_regression",
        "--on-regression",
        N_(
            "run CMD (via /bin/sh) when a reload or a landed run brings a regression, "
            "`ptotui diff --format json` on its stdin"
        ),
        metavar="CMD",
    ),
    Flag(
        "publish",
        "--publish",
        N_(
            "after each landed run, publish this tree to REMOTE as `ptotui publish` does"
            " (on a worker; a failure is one notice, tried again at the next load)"
        ),
        metavar="REMOTE",
    ),
    Flag(
        "publish_host",
        "--publish-host",
        N_("the host's name for --publish (default: [host] name in the settings file, else this machine's hostname)"),
        metavar="NAME",
    ),
    # Every command's: declared by ptotui.commands.common.add_common_arguments.
    Flag(
        "lang",
        "--lang",
        N_("en or zh (default $PTOTUI_LANG, the settings file, then the locale: LANG=zh_CN.UTF-8 is zh)"),
        choices=LANGS,
        common=True,
    ),
    Flag("high", "--high", N_("ratio of the high tier (default 70)"), type=percent, metavar="PCT", common=True),
    Flag("mid", "--mid", N_("ratio of the mid tier (default 30)"), type=percent, metavar="PCT", common=True),
    Flag(
        "config",
        "--config",
        N_("settings file (default $XDG_CONFIG_HOME/ptotui/config.toml)"),
        metavar="FILE",
        common=True,
        path=True,
    ),
    Flag(
        "max_file_mb",
        "--max-file-mb",
        N_("read no report file larger than this (default {default})"),
        type=positive,
        metavar="MB",
        common=True,
    ),
)
COMMON: tuple[str, ...] = tuple(f.field for f in FLAGS if f.common)
DASHBOARD: tuple[str, ...] = tuple(f.field for f in FLAGS if not f.common)


@dataclass(frozen=True)
class DashboardOptions:
    """The dashboard's flags as given; the defaults are those of no flag at all.

    ``settings`` is the settings file as read (columns, sort, and what --high, --mid and
    --lang leave open) and ``settings_warning`` what was wrong with it; neither is a flag."""

    path: str | None = None
    filter: str = ""
    lang: str | None = None
    poll: bool = False
    git: bool = True
    compare: tuple[str, ...] = ()
    state: Path | None = None
    read_only: bool = False
    ratio_pp: float = 2.0
    min_change: float = FLOOR_PCT
    bell: bool = True
    runner: str | None = None
    runs: bool = True
    on_regression: str | None = None
    publish: str | None = None
    publish_host: str | None = None
    high: float | None = None
    mid: float | None = None
    config: Path | None = None
    max_file_mb: float = DEFAULT_MAX_FILE_MB
    settings: Config = Config()
    settings_warning: str | None = None

    # -- the command line ---------------------------------------------------------------

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser, names: Collection[str] = DASHBOARD) -> None:
        """Put the flags ``names`` (default: the dashboard's own; :data:`COMMON` are every
        command's) on ``parser``, with the defaults of a DashboardOptions()."""
        for flag in FLAGS:
            if flag.field in names:
                flag.add_to(parser, getattr(DEFAULT, flag.field))

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> DashboardOptions:
        """The options in parsed ``args``; a flag the parser does not have keeps its default."""
        values: dict[str, Any] = {"path": getattr(args, "path", None)}
        for flag in FLAGS:
            if not hasattr(args, flag.dest):
                continue
            given = getattr(args, flag.dest)
            if flag.kind == "off":
                values[flag.field] = not given
            elif flag.kind == "many":
                values[flag.field] = tuple(given or ())
            elif flag.path:
                values[flag.field] = Path(given) if given else None
            elif given is not None or getattr(DEFAULT, flag.field) is None:
                values[flag.field] = given
        settings = getattr(args, "settings", None)
        return cls(**values, settings=settings or Config(), settings_warning=getattr(args, "config_warning", None))

    def to_argv(self) -> list[str]:
        """``ptotui``'s arguments for these options: PATH, then each flag that is not at its default."""
        argv = [] if self.path is None else [self.path]
        for flag in FLAGS:
            value = getattr(self, flag.field)
            if value == getattr(DEFAULT, flag.field):
                continue
            if flag.kind in ("on", "off"):
                argv.append(flag.flag)
            elif flag.kind == "many":
                for item in value:
                    argv += [flag.flag, str(item)]
            else:
                argv += [flag.flag, str(value)]
        return argv

    def absolute(self) -> DashboardOptions:
        """The same options with PATH and the files made absolute (``~`` expanded), for a
        process started in another directory."""
        paths: dict[str, Any] = {
            flag.field: Path(value).expanduser().absolute()
            for flag in FLAGS
            if flag.path and (value := getattr(self, flag.field)) is not None
        }
        if self.path is not None:
            paths["path"] = str(Path(self.path).expanduser().absolute())
        return replace(self, **paths)

    # -- what the app uses -------------------------------------------------------------

    @property
    def thresholds(self) -> Thresholds:
        """The tier thresholds: the flags, else the settings file, else 70/30."""
        return choose_thresholds(self.high, self.mid, self.settings)

    @property
    def language(self) -> str:
        """--lang, else $PTOTUI_LANG, else the settings file, else English."""
        return choose_lang(self.lang, self.settings)

    @property
    def unpinned_language(self) -> str:
        """The language with no ``lang`` in the settings file and no --lang: what the
        environment gives ($PTOTUI_LANG, else the locale, else English). Choosing it (``l``)
        takes ``lang`` out of the settings file rather than pinning it."""
        return choose_language(None, os.environ, None)


DEFAULT = DashboardOptions()
FIELDS = frozenset(f.name for f in fields(DashboardOptions))
