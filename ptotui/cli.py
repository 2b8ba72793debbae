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
from typing import NamedTuple, NoReturn

from ptotui.commands import argwords
from ptotui.commands.common import (
    UsageError,
    add_common_arguments,
    apply_common_arguments,
    checked_path,
    early_language,
    warn,
)
from ptotui.model.i18n import N_, _, set_language
from ptotui.model.options import FLAGS


class Subcommand(NamedTuple):
    """One subcommand: a one-line help and the module that has ``add_arguments`` and ``run``.

    ``one_shot``: reads the reports once, prints and exits. Such a command runs without the
    cyclic garbage collector, whose passes over the freshly built model cost a third of an
    export (benchmarks/bench_scale.py); what little it would free goes at exit anyway.
    """

    help: str
    module: str
    one_shot: bool = False


COMMANDS: dict[str, Subcommand] = {
    "export": Subcommand(N_("The merged model as JSON, CSV or markdown."), "ptotui.commands.export", one_shot=True),
    "summary": Subcommand(
        N_("Kernels by tier and blockers by layer, as text."), "ptotui.commands.summary", one_shot=True
    ),
    "triage": Subcommand(N_("The triage list, as markdown or JSON."), "ptotui.commands.triage", one_shot=True),
    "diff": Subcommand(
        N_("Changes between two report sets; exit 1 on a regression."), "ptotui.commands.diff", one_shot=True
    ),
    "runs": Subcommand(N_("The bench runs, one line per run directory."), "ptotui.commands.runs", one_shot=True),
    "changes": Subcommand(
        N_("When each kernel's speed changed for good, and the code that changed then."),
        "ptotui.commands.changes",
        one_shot=True,
    ),
    "rundiff": Subcommand(
        N_("The code two runs of a kernel benchmarked, as a unified diff."), "ptotui.commands.rundiff"
    ),
    "log": Subcommand(N_("The changelog of the reports from the commits that touched them."), "ptotui.commands.log"),
    "demo": Subcommand(N_("The dashboard over a simulated bench run."), "ptotui.commands.demo"),
    "serve": Subcommand(N_("The dashboard in a browser, one app per tab, behind a token."), "ptotui.commands.serve"),
    "publish": Subcommand(
        N_("This host's reports and runs onto its own git branch, ptotui/hosts/<host>."), "ptotui.commands.publish"
    ),
    "fleet": Subcommand(
        N_("Every bench host's published branch, judged: a row per kernel, a column per host."),
        "ptotui.commands.fleet",
        one_shot=True,
    ),
}
DASHBOARD = Subcommand(N_("Live dashboard for PTO kernel benchmark reports."), "ptotui.commands.dashboard")


class Parser(argwords.Parser):
    def fail(self, message: str) -> NoReturn:  # one line, not argparse's usage dump
        raise UsageError(message)


# -- the table ------------------------------------------------------------------------


def build_parser(command: str | None) -> argparse.ArgumentParser:
    """The parser of ``command`` (None: the dashboard), with the flags all commands share."""
    if command is None:
        spec = DASHBOARD
        parser = Parser(
            prog="ptotui",
            description=_(spec.help),
            epilog=_("Headless commands: {commands} (ptotui COMMAND --help).").format(commands=", ".join(COMMANDS)),
        )
    else:
        spec = COMMANDS[command]
        parser = Parser(prog=f"ptotui {command}", description=_(spec.help))
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
        said = _("{word}: no such command or directory; did you mean {command}?")
        raise UsageError(said.format(word=word, command=close[0]))


def split_command(argv: Sequence[str]) -> tuple[str | None, list[str]]:
    """The command of ``argv`` (None: the dashboard) and the arguments for its parser.

    Every command takes the common flags (``--lang``, ``--config``, …), so they may come before
    the command's name too: ``ptotui --lang zh summary PATH`` is ``ptotui summary PATH --lang zh``.
    Anything else before a command's name is the dashboard's (``ptotui --poll summary``: a PATH).
    """
    common = {flag.flag for flag in FLAGS if flag.common}  # each takes a value
    words, at = list(argv), 0
    while at < len(words) and words[at].partition("=")[0] in common:
        at += 1 if "=" in words[at] else 2
    if at < len(words) and words[at] in COMMANDS:
        return words[at], words[:at] + words[at + 1 :]
    return None, words


def dispatch(argv: Sequence[str]) -> int:
    command, words = split_command(argv)
    set_language(early_language(argv))  # the usage, the help and the errors of the parsing in it too
    if command is None and argv:
        _guess_command(argv[0])
    args = build_parser(command).parse_args(words)
    apply_common_arguments(args)
    if command is not None and args.config_warning:
        warn([args.config_warning])
    spec = COMMANDS[command] if command else DASHBOARD
    if spec.one_shot:
        gc.disable()
    return int(importlib.import_module(spec.module).run(args))


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``argv`` None: the process's own, ``sys.argv``)."""
    try:
        code = dispatch(sys.argv[1:] if argv is None else argv)
    except UsageError as exc:
        from ptotui.model.text import visible  # a PATH or flag value in it may hold an ESC sequence

        print(_("ptotui: error: {message}").format(message=visible(exc)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `ptotui export | head`: the reader left; say nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return code
