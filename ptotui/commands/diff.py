"""``ptotui diff OLD NEW``: changes between two report directories, snapshot files or
revisions of a git repository (``ptotui diff HEAD~3 HEAD``, ``ptotui diff v1 bench/reports``).

Exit 1 when PTO regressed, so it can gate CI; 0 otherwise; 2 for bad input. What counts
is the README's "What counts as a regression": every ratio or tier move is put down to the
side whose latency moved beyond its noise band, and only PTO's count.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.commands.common import UsageError, add_change_arguments, checked_path, thresholds_of, warn
from ptotui.model.core.diff import (
    BASELINE_MOVED,
    BETTER,
    NEUTRAL,
    RULES,
    WORSE,
    Change,
    baseline_kernels,
    change_mark,
    diff,
    payload,
    regressed_kernels,
)
from ptotui.model.core.fmt import md_cell
from ptotui.model.core.noise import FLOOR_PCT
from ptotui.model.history.gitreports import GitError
from ptotui.model.i18n import _, ngettext, speaking
from ptotui.model.location import SNAPSHOT, Location, locate
from ptotui.model.read.loader import load_file
from ptotui.model.text import clean, one_line
from ptotui.model.types import ReadWarning, ReportSet

if TYPE_CHECKING:
    from ptotui.model.bench.noisedata import Tree
    from ptotui.model.history.gitreports import Repository


@dataclass
class Side:
    """One argument read: its reports, and the bench tree its repeated measurements are in
    (None for a single snapshot file), with the reports directory relative to that tree."""

    reports: ReportSet
    tree: Tree | None = None
    reports_dir: str = "reports"
    location: Location | None = None  # a directory on disk: its runs can be read


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", help=_("old reports dir, snapshot file or git revision"))
    parser.add_argument("new", help=_("new reports dir, snapshot file or git revision"))
    parser.add_argument(
        "--repo", metavar="PATH", help=_("repository of the revisions (default: the current directory's)")
    )
    parser.add_argument("--format", choices=("md", "json"), default="md")
    add_change_arguments(parser)
    parser.add_argument(
        "--rule",
        choices=RULES,
        default="side",
        help=_(
            "side: a regression is PTO slower beyond its noise (default); ratio: the median ratio fell by --ratio-pp"
        ),
    )


def _load(path: str, args: argparse.Namespace, other: str, repositories: dict[Path | None, Repository]) -> Side:
    from ptotui.model.bench.noisedata import DiskTree

    target = checked_path(path, missing_ok=True) if path else Path(path)
    if not path or not target.exists():
        if not path:
            raise UsageError(_("an empty argument is neither a path nor a revision"))
        return _load_revision(path, args, other, repositories)
    if target.is_file():
        with speaking(json_words(args)):
            return Side(load_file(target, thresholds_of(args)))
    location = locate(target)
    try:
        reports_dir = location.reports.relative_to(location.bench).as_posix()
    except ValueError:
        reports_dir = "reports"
    from ptotui.model.verdict import newest_state

    with speaking(json_words(args)):
        # Its newest state, runs newer than its summary included, as the dashboard shows it.
        reports = newest_state(location, thresholds_of(args), clock=time.time)[0]
    return Side(reports, DiskTree(location.bench), reports_dir, location)


def json_words(args: argparse.Namespace) -> str | None:
    """The language the reports are read in: English for the JSON (the same in every language,
    its warnings too; they are then said on stderr as the JSON holds them), else the one in force."""
    return "en" if args.format == "json" else None


def _load_revision(
    revision: str, args: argparse.Namespace, other: str, repositories: dict[Path | None, Repository]
) -> Side:
    """``revision`` of --repo, else of the other argument's repository when that is on
    disk and in one (``ptotui diff v1 ./bench/reports``), else of the current directory's
    (``ptotui diff v1 /tmp/host-b-reports``: a copy outside git, compared with this checkout's v1)."""
    from ptotui.commands.revisions import load_revision, open_repository
    from ptotui.model.history.gitreports import find_repository

    start = Path(args.repo).expanduser() if args.repo else None
    if start is None and other and Path(other).expanduser().exists():
        start = Path(other).expanduser()
        start = start.parent if start.is_file() else start
        if start not in repositories and find_repository(start).repository is None:
            start = None
    if start not in repositories:  # both sides of HEAD~3 HEAD share one git cat-file
        repositories[start] = open_repository(start, revision)
    repository = repositories[start]
    reports = load_revision(repository, revision, thresholds_of(args), json_words(args))
    return Side(reports, *_revision_tree(repository, revision))


def _revision_tree(repository: Repository, revision: str) -> tuple[Tree | None, str]:
    """The bench tree of a revision load_revision has read (so it resolves), for the noise bands."""
    from ptotui.model.bench.noisedata import GitTree

    try:
        commit = repository.resolve(revision)
        place = repository.place(commit)
    except (GitError, OSError):
        return None, "reports"
    if place is None:
        return None, "reports"
    prefix = f"{place.bench}/" if place.bench else ""
    inside = place.reports[len(prefix) :] if place.reports.startswith(prefix) else "reports"
    return GitTree(repository, commit, place.bench, one_line(clean(revision), 60)), inside or "."


def _usable(reports: ReportSet, side: str, argument: str, snapshot_file: bool) -> ReportSet:
    """A side with no kernels, or whose regression summary could not be read (only the
    state matrix's names came through), would turn into "every kernel changed" or
    "nothing changed": say so and exit 2 instead."""
    shown = one_line(clean(argument), 80)
    first = f" ({one_line(clean(reports.warnings[0]), 160)})" if reports.warnings else ""
    if not reports.kernels:
        raise UsageError(
            _("{side} {shown}: no kernels could be read{first}").format(side=side, shown=shown, first=first)
        )
    if not snapshot_file and not any(k.variants for k in reports.kernels):
        raise UsageError(
            _("{side} {shown}: its regression summary could not be read{first}").format(
                side=side, shown=shown, first=first
            )
        )
    return reports


def _rule_line(rule: str, ratio_pp: float, floor: float) -> str:
    if rule == "ratio":
        return _("Rule: a median-ratio drop of {pp} pp or more, a tier down, ok -> blocked (--rule ratio).").format(
            pp=f"{ratio_pp:g}"
        )
    return _(
        "Rule: PTO slower beyond its noise band (at least {floor}%), PTO blocked, correctness lost, a kernel gone;"
        " a side that moved is told from its latencies."
    ).format(floor=f"{floor:g}")


def to_markdown(
    old: ReportSet,
    new: ReportSet,
    changes: list[Change],
    rule: str = "side",
    ratio_pp: float = 2.0,
    floor: float = FLOOR_PCT,
) -> str:
    regressions = [c for c in changes if c.regression]
    kernels = regressed_kernels(changes)

    def side(word: str, reports: ReportSet) -> str:
        n = len(reports.kernels)
        return word.format(
            source=md_cell(reports.source),
            at=md_cell(reports.generated_at or _("n/a")),
            kernels=ngettext("{n} kernel", "{n} kernels", n).format(n=n),
        )

    counted = ngettext("{n} change", "{n} changes", len(changes)).format(n=len(changes))
    regressed = ngettext("{n} regression", "{n} regressions", len(kernels)).format(n=len(kernels))
    moved = baseline_kernels(changes)
    baseline = [c for c in changes if not c.regression and c.kernel in moved]
    rest = [c for c in changes if not c.regression and c.kernel not in moved]
    lines = [
        "# ptotui diff",
        "",
        side(_("Old: {source} ({at}), {kernels}"), old) + "  ",
        side(_("New: {source} ({at}), {kernels}"), new),
        "",
        # regressions: kernels, each once
        _("{changes}, {regressions}.").format(changes=counted, regressions=regressed),
        _("{n} kernel(s) where only the baseline moved (not counted).").format(n=len(moved)),
        _rule_line(rule, ratio_pp, floor),
    ]
    groups = (
        (_("Regressions"), regressions),
        (_("The baseline moved (not counted)"), baseline),
        (_("Other changes"), rest),
    )
    mark = {WORSE: "▼", BETTER: "▲", BASELINE_MOVED: "◇", NEUTRAL: "•"}
    for title, group in groups:
        if group:
            lines += ["", f"## {title}", ""]
            # The arrow is ours: a lone > opens no tag, so it may read as typed.
            lines += [f"- {mark[change_mark(c)]} {md_cell(c.describe()).replace(' -&gt; ', ' -> ')}" for c in group]
    return "\n".join(lines) + "\n"


def _snapshot_against_tree(
    args: argparse.Namespace, old: Side, new: Side
) -> tuple[ReportSet, list[Change], list[ReadWarning]] | None:
    """``diff SNAPSHOT TREE``: the snapshot judged as the dashboard judges it against the
    tree (:func:`ptotui.model.history.since.against_snapshot`): its re-measured kernels get
    the latencies of their runs at the snapshot's stamp, and the bands are the tree's. Without
    it a snapshot has ratio ranges only, and every ratio's move was counted, the baseline's
    too. None where that does not apply (two directories, a revision, ``--rule ratio``)."""
    from ptotui.model.bench.noisedata import bench_noise
    from ptotui.model.bench.runs import RunsReader
    from ptotui.model.history.since import against_snapshot, runs_at

    argument = Path(args.old).expanduser()
    if args.rule != "side" or new.location is None or old.tree is not None or not argument.is_file():
        return None
    runs = RunsReader(new.location.bench, clock=time.time).read(history=False).runs
    if not runs:
        return None
    match = SNAPSHOT.match(argument.name)
    stamp = match.group(1) if match else old.reports.generated_at
    if not stamp:
        return None
    noise, warnings = bench_noise(new.location, new.reports.kernels, args.min_change)
    judged = against_snapshot(old.reports, stamp, new.reports, args.ratio_pp, noise, runs_at(runs))
    return judged.snapshot or old.reports, list(judged.changes), warnings


def run(args: argparse.Namespace) -> int:
    from ptotui.model.bench.noisedata import collect

    repositories: dict[Path | None, Repository] = {}
    try:
        old = _load(args.old, args, args.new, repositories)
        new = _load(args.new, args, args.old, repositories)
        for side, argument, loaded in ((_("OLD"), args.old, old), (_("NEW"), args.new, new)):
            snapshot_file = bool(argument) and Path(argument).expanduser().is_file()
            _usable(loaded.reports, side, argument, snapshot_file=snapshot_file)
        judged = _snapshot_against_tree(args, old, new)
        if judged is None:
            names = {k.name for k in new.reports.kernels}
            kernels = new.reports.kernels + [k for k in old.reports.kernels if k.name not in names]
            noise, noise_warnings = collect(old.tree, new.tree, kernels, new.reports_dir, args.min_change)
    finally:
        for repository in repositories.values():
            repository.close()
    if judged is None:
        changes = diff(old.reports, new.reports, args.ratio_pp, noise, args.rule)
    else:
        old.reports, changes, noise_warnings = judged
    regressed = regressed_kernels(changes)
    if args.format == "json":
        sys.stdout.write(json.dumps(payload(old.reports, new.reports, changes, args.rule), indent=2) + "\n")
    else:
        sys.stdout.write(to_markdown(old.reports, new.reports, changes, args.rule, args.ratio_pp, args.min_change))
    warn(old.reports.warnings + new.reports.warnings + noise_warnings)
    return 1 if regressed else 0
