"""``ptotui [PATH]``: the live dashboard in this terminal."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ptotui import __version__
from ptotui.commands.common import UsageError, not_a_file, thresholds_of
from ptotui.model.i18n import _
from ptotui.model.options import DashboardOptions

if TYPE_CHECKING:
    from ptotui.model.history.compare import CompareSource

MAX_COMPARE = 3  # --compare sources: more would not fit beside the kernels


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", nargs="?", help=_("reports dir, bench dir or checkout (default ./bench/reports or the samples)")
    )
    DashboardOptions.add_arguments(parser)
    parser.add_argument(
        "--version", action="version", version=f"ptotui {__version__}", help=_("show program's version number and exit")
    )


def compare_sources(specs: Sequence[str], path: str | None) -> list[CompareSource]:
    """The --compare sources, checked before the app starts: a bad one is one line, exit 2."""
    if not specs:
        return []
    if len(specs) > MAX_COMPARE:
        raise UsageError(_("--compare is given {n} times; at most {most}").format(n=len(specs), most=MAX_COMPARE))
    from ptotui.model.history.compare import CompareError, resolve
    from ptotui.model.location import locate

    main = locate(path)
    try:
        return [resolve(spec, main) for spec in specs]
    except CompareError as exc:
        raise UsageError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from ptotui.app.factory import make_app

    options = DashboardOptions.from_args(args)
    not_a_file(options.path)  # a missing PATH is fine: the app waits for it to appear
    thresholds_of(args)  # a --mid above --high: one line, exit 2
    sources = compare_sources(options.compare, options.path)
    # A Textual driver named in the environment draws elsewhere: textual-serve's WebDriver
    # talks to `ptotui serve` over pipes.
    if "TEXTUAL_DRIVER" not in os.environ and not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError(_("the dashboard needs a terminal; without one use `ptotui export` or `ptotui summary`"))
    # The app shows a settings-file warning itself; it turns the collector back on after
    # the first frame, or on exit.
    app = make_app(options.path, options, compare=sources, pause_gc=True, lean_heap=True)
    app.run()
    return app.return_code or 0
