"""``ptotui log [PATH] [--kernel NAME]``: the changelog of the port, from git.

One line per commit that touched the reports, newest first: the counts by tier and what
regressed or improved since the commit before it. With ``--kernel`` the line is that
kernel's own: its tier, median ratio and statuses, and what changed for it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ptotui.commands.common import UsageError, add_change_arguments, checked_path, thresholds_of, warn
from ptotui.model.bench.noisedata import GitTree, collect
from ptotui.model.core.diff import BASELINE_MOVED, BETTER, WORSE, Change, diff, direction_of
from ptotui.model.core.fmt import pct
from ptotui.model.core.noise import Noise
from ptotui.model.core.tiers import TIERS
from ptotui.model.history.gitpoints import report_history
from ptotui.model.history.gitreports import Commit, GitError, Place, Repository
from ptotui.model.i18n import _, ngettext
from ptotui.model.location import locate
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReadWarning, ReportSet

DEFAULT_COUNT = 30
_NAMES_SHOWN = 6


def kernel_name(text: str) -> str:
    """--kernel's value: a name, as the readers keep it (stripped); an empty one is a usage error,
    not a log that matches nothing and exits 0."""
    name = text.strip()
    if not name:
        raise argparse.ArgumentTypeError(_("a kernel name cannot be empty"))
    return name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", help=_("reports dir, bench dir or checkout in a git work tree (default .)"))
    parser.add_argument(
        "--kernel", type=kernel_name, metavar="NAME", help=_("that kernel's own line per commit that changed it")
    )
    parser.add_argument(
        "-n",
        "--max-count",
        type=int,
        default=DEFAULT_COUNT,
        metavar="N",
        help=_("the newest N commits that touched the reports (default {default}; 0: all)").format(
            default=DEFAULT_COUNT
        ),
    )
    parser.add_argument("--revision", default="HEAD", metavar="REV", help=_("branch to follow (default HEAD)"))
    add_change_arguments(parser)


def _counts(reports: ReportSet) -> str:
    counts = {tier: 0 for tier in TIERS}
    for kernel in reports.kernels:
        counts[kernel.tier] = counts.get(kernel.tier, 0) + 1
    return ", ".join(f"{tier} {n}" for tier, n in counts.items() if n)


def _names(label: str, items: list[str]) -> str:
    shown = ", ".join(items[:_NAMES_SHOWN])
    more = len(items) - _NAMES_SHOWN
    return f"{label}: {shown}" + (" (" + _("+{n} more").format(n=more) + ")" if more > 0 else "")


# How much a change says about a kernel's regression (or improvement): a tier move,
# then a side going blocked (or ok), lost (or regained) correctness, a ratio move.
_WEIGHT = {"tier": 0, "pto_status": 1, "baseline_status": 1, "correctness": 2, "ratio": 3}


def _reason(name: str, group: list[Change], mark: int) -> str:
    """A kernel and the changes that gave it its mark, the weightiest first.

    Only changes that go that way are named: a class change (neither better nor worse)
    never stands as the reason a kernel regressed or improved; a ratio the baseline moved
    is named under "baseline moved", never as a regression."""
    if mark == WORSE:
        moving = [c for c in group if c.regression]
    elif mark == BETTER:
        moving = [c for c in group if c.pto_better]
    else:
        moving = [c for c in group if c.baseline_moved and c.direction != 0]
    moving.sort(key=lambda c: _WEIGHT.get(c.kind, len(_WEIGHT)))
    return f"{name} ({_said(moving)})"


def _said(changes: list[Change]) -> str:
    """The facts, then the side that moved (``baseline 38.7% faster``), said once: a tier
    move and a ratio move of one kernel are one movement of its latencies, not two."""
    facts = [one_line(c.fact()) for c in changes]
    moves = [m for m in dict.fromkeys(_side_moved(c) for c in changes) if m]
    return ", ".join(facts + moves)


def _side_moved(change: Change) -> str:
    """For a latency-attributed move, the sides that moved beyond their bands; else empty."""
    move = change.move
    if move is None or change.cause in (None, "status", "baseline-status", "noise", "unknown", "environment"):
        return ""
    moved = [
        (_("{side} {pct} slower") if value > 0 else _("{side} {pct} faster")).format(
            side=label, pct=f"{abs(value):.1f}%"
        )
        for label, value, band in (
            ("PTO", move.pto_change_pct, move.pto_band),
            (_("baseline"), move.baseline_change_pct, move.baseline_band),
        )
        if value is not None and abs(value) > band.pct
    ]
    return _("{first} and {second}").format(first=moved[0], second=moved[1]) if len(moved) == 2 else "".join(moved)


def _moves(changes: list[Change]) -> str:
    by_kernel: dict[str, list[Change]] = {}
    for change in changes:
        by_kernel.setdefault(change.kernel, []).append(change)
    regressed: list[str] = []
    improved: list[str] = []
    baseline: list[str] = []
    added: list[str] = []
    removed: list[str] = []
    for name, group in by_kernel.items():
        kinds = {c.kind for c in group}
        if "added" in kinds:
            added.append(name)
        elif "removed" in kinds:
            removed.append(name)
        else:
            mark = direction_of(group)
            into = {WORSE: regressed, BETTER: improved, BASELINE_MOVED: baseline}.get(mark)
            if into is not None:
                into.append(_reason(name, group, mark))
    groups = (
        (_("regressed"), regressed),
        (_("improved"), improved),
        (_("baseline moved"), baseline),
        (_("new"), added),
        (_("gone"), removed),
    )
    parts = [_names(label, items) for label, items in groups if items]
    return "; ".join(parts) if parts else _("no change in tiers, statuses or ratios")


def _kernel_state(kernel: Kernel) -> str:
    ratio = pct(kernel.ratio_median_pct) if kernel.ratio_median_pct is not None else _("n/a")
    sides = _("(baseline {baseline}, PTO {pto})").format(
        baseline=kernel.baseline_status or "?", pto=kernel.pto_status or "?"
    )
    return f"{kernel.tier} {ratio} {sides}"


def _title(commit: Commit) -> str:
    return f"{commit.short} {commit.date} {commit.subject}"


NoiseOf = Callable[[Commit, ReportSet, Commit, ReportSet], Noise]


def lines(
    points: list[tuple[Commit, ReportSet]],
    ratio_pp: float,
    kernel: str | None,
    first: bool,
    noise_of: NoiseOf | None = None,
) -> list[str]:
    """The changelog, oldest first; ``first`` when the oldest point has nothing before it.
    ``noise_of(old commit, old reports, new commit, new reports)`` gives the noise bands of
    each step (default: none at hand, the default band)."""
    out: list[str] = []
    before: Commit | None = None
    previous: ReportSet | None = None
    for index, (commit, reports) in enumerate(points):
        if previous is None and index == 0 and not first:
            previous, before = reports, commit  # read only to diff the next one against
            continue
        noise = noise_of(before, previous, commit, reports) if noise_of and previous and before else None
        if kernel is None:
            moves = _("first reports") if previous is None else _moves(diff(previous, reports, ratio_pp, noise))
            n = len(reports.kernels)
            counted = ngettext("{n} kernel", "{n} kernels", n).format(n=n)
            out.append(f"{_title(commit)} — {counted}: {_counts(reports)} — {moves}")
        else:
            now, then = reports.by_name().get(kernel), previous.by_name().get(kernel) if previous else None
            if now is None and then is not None:
                out.append(f"{_title(commit)} — {kernel}: " + _("no longer in the reports"))
            elif now is not None and then is None:
                out.append(f"{_title(commit)} — {kernel}: {_kernel_state(now)}, " + _("first seen"))
            elif now is not None and then is not None:
                changes = diff(ReportSet("", kernels=[then]), ReportSet("", kernels=[now]), ratio_pp, noise)
                if changes:
                    mark = {BETTER: "▲", WORSE: "▼", BASELINE_MOVED: "◇"}.get(direction_of(changes), "•")
                    said = _said(changes)
                    out.append(f"{_title(commit)} — {kernel}: {_kernel_state(now)} {mark} {said}")
        previous, before = reports, commit
    return out


def run(args: argparse.Namespace) -> int:
    from ptotui.commands.revisions import open_repository

    if args.max_count < 0:
        raise UsageError(_("-n must be 0 (all) or more"))
    start = checked_path(args.path) if args.path else Path.cwd()
    if start.is_file():
        raise UsageError(
            _("{path} is a file: give a reports directory, a bench/ directory or a checkout").format(path=args.path)
        )
    location = locate(start)
    looked = location.reports if location.reports.is_dir() else start
    with open_repository(looked, "log") as repository:
        try:
            commit = repository.resolve(args.revision)
            place = repository.place(commit)
            if place is None:
                where = repository.prefix or _("the repository root")
                raise UsageError(
                    _("{revision}: holds no reports under {where}").format(revision=args.revision, where=where)
                )
            limit = args.max_count + 1 if args.max_count else 0
            history = report_history(repository, place, commit, limit, thresholds_of(args))
        except GitError as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(_("git cannot be read: {error}").format(error=one_line(clean(exc), 200))) from None
        if args.kernel is not None and not any(args.kernel in reports.by_name() for _commit, reports in history.points):
            raise UsageError(
                _("{kernel}: no such kernel in the committed reports").format(kernel=one_line(clean(args.kernel), 80))
            )
        # Read one more than asked: the oldest shown is diffed against it, not shown itself.
        first = history.complete and not 0 < args.max_count < len(history.points)
        found: list[list[ReadWarning]] = []
        try:
            shown = lines(history.points, args.ratio_pp, args.kernel, first, _noise_of(repository, place, args, found))
        except OSError as exc:  # git died under us while reading the runs
            raise UsageError(_("git cannot be read: {error}").format(error=one_line(clean(exc), 200))) from None
    for line in reversed(shown):
        sys.stdout.write(line + "\n")
    warn(history.warnings + _once([w for step in found for w in step]))
    return 0


def _once(warnings: list[ReadWarning]) -> list[ReadWarning]:
    """A run file that is bad at every commit is said once, under the first commit that read it."""
    said: set[tuple[str, str]] = set()
    out = []
    for warning in warnings:
        key = (warning.file.partition(":")[2], warning.message)
        if key not in said:
            said.add(key)
            out.append(warning)
    return out


def _noise_of(
    repository: Repository, place: Place, args: argparse.Namespace, found: list[list[ReadWarning]]
) -> NoiseOf:
    """The noise bands of one step, from the two commits' bench trees (as ``diff`` reads them)."""
    prefix = f"{place.bench}/" if place.bench else ""
    inside = place.reports[len(prefix) :] if place.reports.startswith(prefix) else "reports"

    def noise_of(old: Commit, old_reports: ReportSet, new: Commit, new_reports: ReportSet) -> Noise:
        trees = [GitTree(repository, c.id, place.bench, c.short) for c in (old, new)]
        names = {k.name for k in new_reports.kernels}
        kernels = new_reports.kernels + [k for k in old_reports.kernels if k.name not in names]
        noise, warnings = collect(trees[0], trees[1], kernels, inside or ".", args.min_change)
        found.append(warnings)  # filled as the diff reads kernels
        return noise

    return noise_of
