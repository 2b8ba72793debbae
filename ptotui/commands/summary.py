"""``ptotui summary``: a Rich table by tier and the blockers by layer, for SSH and CI logs."""

from __future__ import annotations

import argparse
import time
from collections import Counter
from typing import TYPE_CHECKING

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from ptotui.commands.common import existing_location, thresholds_of, warn
from ptotui.model.core.blockers import blocker_sections
from ptotui.model.core.diff import baseline_kernels, regressed_kernels
from ptotui.model.core.fmt import TIER_STYLES, ratio_range
from ptotui.model.core.tiers import TIER_LABELS, TIERS
from ptotui.model.i18n import _, ngettext
from ptotui.model.text import one_line
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.model.history.since import SinceSnapshot

UNCUT_WIDTH = 100_000  # columns of a console that is not a terminal: tables size to their content


def tier_table(reports: ReportSet) -> Table:
    counts = Counter(k.tier for k in reports.kernels)
    table = Table(title=_("Kernels by tier"), title_justify="left")
    table.add_column(_("Tier"))
    table.add_column(_("Kernels"), justify="right")
    table.add_column(_("Scalar-heavy"), justify="right")
    table.add_column(_("Examples (best ratio first)"))
    for tier in TIERS:
        members = sorted(
            (k for k in reports.kernels if k.tier == tier),
            key=lambda k: -(k.ratio_median_pct if k.ratio_median_pct is not None else -1),
        )
        examples = ", ".join(
            f"{k.name} {ratio_range(k)}" if k.ratio_min_pct is not None else k.name for k in members[:3]
        )
        if len(members) > 3:
            examples += ", " + _("+{n} more").format(n=len(members) - 3)
        table.add_row(
            Text(TIER_LABELS[tier], style=TIER_STYLES[tier]),
            str(counts.get(tier, 0)),
            str(sum(1 for k in members if k.scalar_heavy)),
            Text(examples),
        )
    table.add_section()
    table.add_row(_("total"), str(len(reports.kernels)), str(sum(k.scalar_heavy for k in reports.kernels)), "")
    return table


def blocker_table(reports: ReportSet, gap_limit: int = 80) -> Table:
    """Blockers in the blocker pane's order; gaps on working kernels are counted, not listed."""
    table = Table(title=_("Blockers by layer"), title_justify="left")
    table.add_column(_("Layer"))
    table.add_column(_("Kernel"))
    table.add_column(_("Tier"))
    table.add_column(_("Gap ids"))
    for section in blocker_sections(reports.kernels):
        if not section.blockers:
            n = len(section.kernels)
            with_gaps = ngettext("{n} working kernel with open gaps", "{n} working kernels with open gaps", n)
            table.add_row(Text(_(section.label)), Text(with_gaps.format(n=n), style="dim"))
            continue
        for index, kernel in enumerate(section.kernels):
            table.add_row(
                Text(_(section.label) if index == 0 else ""),
                Text(kernel.name),
                Text(TIER_LABELS.get(kernel.tier, kernel.tier), style=TIER_STYLES.get(kernel.tier, "")),
                Text(one_line(", ".join(kernel.gap_ids), gap_limit)),
            )
        table.add_section()
    return table


def since_text(since: SinceSnapshot | None) -> Text | None:
    """The regressions since the previous snapshot, as the dashboard's header counts them, and
    the kernels where only the baseline moved (shown, not counted)."""
    if since is None or since.stamp is None:
        return None
    regressed = regressed_kernels(since.changes)
    moved = baseline_kernels(since.changes)
    text = Text(_("Since {reference}: ").format(reference=since.reference()), style="bold")
    said = _("{n} regression(s)").format(n=len(regressed))
    text.append(said, style="bold red" if regressed else "")
    if regressed:
        text.append(_(": {kernels}").format(kernels=", ".join(regressed)))
        # A snapshot is a state matrix: ratio ranges and no latencies, so no side can be named.
        by_ratio = {c.kernel for c in since.changes if c.regression and c.cause == "unknown"}
        if by_ratio:
            said = _(" ({n} by the ratio alone: a snapshot has no latencies)").format(n=len(by_ratio))
            text.append(said, style="dim")
    if moved:
        text.append(_("; the baseline moved (not counted): {kernels}").format(kernels=", ".join(moved)), style="cyan")
    return text


def render(reports: ReportSet, console: Console, since: SinceSnapshot | None = None) -> None:
    """On a terminal the tables fit its width; piped or in cron (another program reads it),
    nothing is cut: no name, no gap id."""
    at = reports.generated_at or _("n/a")
    header = Text(_("{source}  generated {at}").format(source=reports.source, at=at), style="bold")
    cut = 80 if console.is_terminal else 0
    changes = since_text(since)
    parts: list[RenderableType] = [header, *([changes] if changes is not None else []), tier_table(reports)]
    tables = Group(*parts, blocker_table(reports, gap_limit=cut))
    if console.is_terminal:
        console.print(tables)
        return
    with console.capture() as captured:  # no trailing blanks: Rich pads each title to its table's width
        console.print(tables)
    console.file.write("".join(line.rstrip() + "\n" for line in captured.get().splitlines()))


def console_for(stdout_is_terminal: bool | None = None) -> Console:
    """Rich's console; when not a terminal, wide enough that no cell is cut (Rich would
    otherwise lay the tables out for 80 columns and end long names with "…")."""
    console = Console(highlight=False, emoji=False)
    if not (console.is_terminal if stdout_is_terminal is None else stdout_is_terminal):
        console = Console(highlight=False, emoji=False, width=UNCUT_WIDTH)
    return console


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("reports dir, bench dir or checkout"))


def run(args: argparse.Namespace) -> int:
    from ptotui.model.verdict import judge

    location = existing_location(args.path)
    # The newest state (runs newer than the summary included) against the reference, as the
    # dashboard's header counts it: the one verdict (ptotui.model.verdict).
    verdict = judge(location, thresholds_of(args), git=getattr(args, "git", True), clock=time.time)
    render(verdict.reports, console_for(), verdict.since)
    warn(verdict.reports.warnings)
    return 0
