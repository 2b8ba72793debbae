"""``ptotui fleet [REPO] [--remote NAME] [--fetch] [--fetch-every S] [--format table|json]``: every
bench host that publishes to REPO (``ptotui/hosts/*``), a row per kernel and a column per host,
each host's tree judged by the one verdict (:mod:`ptotui.model.fleet`).

In a terminal (and without ``--format``) the fleet view opens (``ptotui/app/fleet_app.py``): it
fetches the remote's host branches every ``--fetch-every`` seconds and reads again the hosts whose
branch moved. Otherwise, and with ``--format``, it prints once; Textual is not imported then.

Exit 0 when shown (warnings on stderr), 2 outside a repository, for an unknown remote or with no
host (the view says "no host branches yet" instead, and keeps fetching)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.commands.common import UsageError, checked_path, settings_of, thresholds_of, warn
from ptotui.model.i18n import _
from ptotui.model.text import clean, visible

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ptotui.model.fleet import Cell, Fleet, Host


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", nargs="?", metavar="REPO", help=_("the shared repository (default: the current one)"))
    parser.add_argument(
        "--remote", metavar="NAME", help=_("also the host branches fetched from this remote (refs/remotes/NAME/…)")
    )
    parser.add_argument("--fetch", action="store_true", help=_("fetch the remote's host branches first"))
    parser.add_argument(
        "--fetch-every",
        type=positive_seconds,
        default=60.0,
        metavar="S",
        help=_("the view: fetch the remote's host branches every S seconds (default 60)"),
    )
    parser.add_argument(
        "--format",
        choices=("table", "json"),
        help=_("print once, as a table or JSON (default in a terminal: the fleet view)"),
    )


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(_("{value}: not a number of seconds above 0").format(value=visible(text)))
    return value


def environment_words(host: Host) -> str:
    from ptotui.model.core.environment import FIELDS

    parts = [f"{_(label)} {host.environment[label]}" for _s, _k, label in FIELDS if label in host.environment]
    return ", ".join(parts) if parts else _("environment unknown")


def _cell(cell: Cell | None, comparable: bool) -> Text:
    from rich.text import Text

    from ptotui.model.core.fmt import TIER_STYLES, ms, pct
    from ptotui.model.core.tiers import TIER_LABELS

    if cell is None:
        return Text("—", style="dim")
    text = Text()
    if cell.regressed:
        text.append("▼ ", style="bold red")
    text.append(TIER_LABELS.get(cell.tier, clean(cell.tier)), style=TIER_STYLES.get(cell.tier, ""))
    text.append(f" {pct(cell.ratio_median_pct)}")
    if cell.pto_ms is not None:
        text.append(f" {ms(cell.pto_ms)} ms", style="" if comparable else "dim")
    return text


def render(fleet: Fleet, console: Console, now: float) -> None:
    from rich.console import Group, RenderableType
    from rich.table import Table
    from rich.text import Text

    from ptotui.model.fleetview import age
    from ptotui.model.i18n import ngettext

    split = fleet.environments > 1
    lines: list[RenderableType] = []
    title = ngettext("{n} bench host", "{n} bench hosts", len(fleet.hosts)).format(n=len(fleet.hosts))
    if split:
        title += " " + _("in {n} environments").format(n=fleet.environments)
    lines.append(Text(title, style="bold"))
    for host in fleet.hosts:
        line = Text("  ")
        line.append(host.name, style="bold")
        if split and host.group:
            line.append(" ≠env", style="bold yellow")
        line.append("  " + environment_words(host))
        published = _("published {age} ago").format(age=age(now - host.published_at))
        line.append("  " + published + f" ({host.commit[:12]})", style="dim")
        if host.reference_words is not None:
            said = _("since {reference}: {n} regression(s)").format(
                reference=host.reference_words, n=len(host.regressed)
            )
            line.append("  " + said, style="bold red" if host.regressed else "")
        lines.append(line)
    if split:
        main = ", ".join(h.name for h in fleet.hosts if h.group == 0)
        said = _("≠env: another environment than {hosts}; ratios compare across hosts, its PTO ms do not")
        lines.append(Text(said.format(hosts=main), style="yellow"))
    table = Table(title_justify="left")
    table.add_column("≠", justify="center")
    table.add_column(_("Kernel"))
    for host in fleet.hosts:
        heading = host.name + (" ≠env" if split and host.group else "")
        table.add_column(heading)
    for row in fleet.rows:
        cells = [_cell(row.cells.get(host.name), not (split and host.group)) for host in fleet.hosts]
        mark = Text("≠", style="bold yellow") if row.disagree else Text("")
        table.add_row(mark, Text(clean(row.name)), *cells)
    lines.append(table)
    legend = _("▼ PTO regressed on that host (its verdict); ≠ the hosts differ in tier or a status")
    lines.append(Text(legend, style="dim"))
    group = Group(*lines)
    if console.is_terminal:
        console.print(group)
        return
    with console.capture() as captured:
        console.print(group)
    console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def run(args: argparse.Namespace) -> int:
    from ptotui.model.fleet import FleetError, read_fleet

    if args.remote is not None and (not args.remote or args.remote.startswith("-")):
        raise UsageError(_("--remote {remote}: not a remote").format(remote=visible(args.remote)))
    if args.fetch and args.remote is None:
        raise UsageError(_("--fetch needs --remote NAME"))
    repository = checked_path(args.repo) if args.repo is not None else Path.cwd()
    if args.format is None and sys.stdout.isatty() and sys.stdin.isatty():
        return view(repository, args)
    try:
        fleet = read_fleet(repository, args.remote, args.fetch, thresholds_of(args), clock=time.time)
    except FleetError as exc:
        raise UsageError(str(exc)) from None
    if args.format == "json":
        sys.stdout.write(json.dumps(fleet.as_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n")
    else:
        from ptotui.commands.summary import console_for

        render(fleet, console_for(), time.time())
    warn(fleet.warnings)
    warn(f"{host.name}: {warning}" for host in fleet.hosts for warning in host.warnings)
    return 0


def view(repository: Path, args: argparse.Namespace) -> int:
    """The fleet view, in this terminal, until ``q``."""
    import gc

    from ptotui.model.fleet import FleetError

    gc.enable()  # (a one-shot command runs without the collector: this one stays open)
    from ptotui.app.factory import make_fleet_app

    try:
        app = make_fleet_app(
            repository,
            args.remote,
            args.fetch_every,
            thresholds_of(args),
            settings=settings_of(args),
            settings_warning=getattr(args, "config_warning", None),
        )
    except FleetError as exc:
        raise UsageError(str(exc)) from None
    app.run()
    return 0
