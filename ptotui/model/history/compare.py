"""Another host's or branch's reports beside the main ones (``ptotui PATH --compare X``).

A source is a revision of the main PATH's repository (read once: a revision does not
change) or another reports directory (reports rsynced from another host: loaded like
the main one, and reloaded when it changes). For each kernel the comparison gives that
source's tier and median ratio and whether the tier or a status differs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.gitreports import GitError, find_repository
from ptotui.model.i18n import _
from ptotui.model.location import REGRESSION_FILES, STATE_FILES, Location, locate
from ptotui.model.read.loader import load
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReportSet

_PATH_MAX = 4096  # longer than any path the system opens: the text is shown whole


class CompareError(Exception):
    """A --compare source that cannot be read: its message is one line."""


@dataclass(frozen=True)
class CompareSource:
    """One --compare source as the user named it."""

    spec: str
    label: str  # short, for a column header
    location: Location | None = None  # a directory: watched like the main one
    revision: str | None = None  # a commit id of the main PATH's repository


@dataclass(frozen=True)
class Side:
    """One kernel as a compared source has it."""

    tier: str | None  # None: the source has no such kernel
    ratio_median_pct: float | None
    differs: bool  # tier, baseline or PTO status not the same as in the main reports


def resolve(spec: str, main: Location) -> CompareSource:
    """The source ``spec`` names: an existing directory, else a revision of the
    repository that holds the main reports. CompareError when it is neither.

    The user's own text is never cut in the message (up to PATH_MAX): a path cut in the
    middle names another file."""
    shown = one_line(clean(spec), _PATH_MAX)
    path = Path(spec).expanduser()
    if path.exists():
        if path.is_file():
            raise CompareError(
                _("--compare {shown}: a file; give a reports directory or a revision").format(shown=shown)
            )
        location = locate(path)
        if not any((location.reports / name).is_file() for name in REGRESSION_FILES + STATE_FILES):
            raise CompareError(
                _(
                    "--compare {shown}: holds no reports (looked in bench/reports, reports and itself);"
                    " give a reports directory or a revision"
                ).format(shown=shown)
            )
        return CompareSource(spec, one_line(clean(path.resolve().name or spec), 16), location=location)
    found = find_repository(main.reports)
    if found.repository is None:
        reason = found.warning or _("no such directory, and {path} is not in a git repository").format(
            path=main.reports
        )
        raise CompareError(_("--compare {shown}: {reason}").format(shown=shown, reason=reason))
    with found.repository as repository:
        try:
            commit = repository.resolve(spec)
            place = repository.place(commit)
        except GitError:
            raise CompareError(
                _("--compare {shown}: no such directory or revision in {root}").format(
                    shown=shown, root=repository.root
                )
            ) from None
        except OSError as exc:  # git died under us
            raise CompareError(
                _("--compare {shown}: git cannot be read: {error}").format(shown=shown, error=one_line(clean(exc), 200))
            ) from None
        if place is None:
            raise CompareError(
                _("--compare {shown}: holds no reports under {value}").format(
                    shown=shown, value=repository.prefix or _("the root")
                )
            )
    return CompareSource(spec, shown[:16], revision=commit)


def read(source: CompareSource, main: Location, thresholds: Thresholds = Thresholds()) -> ReportSet:
    """The reports of ``source`` now. Blocks on files or git: call it off the UI thread."""
    if source.location is not None:
        return load(source.location, thresholds)
    found = find_repository(main.reports)
    if found.repository is None or source.revision is None:
        return ReportSet(source.spec)
    with found.repository as repository:
        place = repository.place(source.revision)
        if place is None:
            return ReportSet(source.spec)
        return repository.load(source.revision, place, source.label, thresholds)


def _differs(kernel: Kernel, other: Kernel | None) -> bool:
    if other is None:
        return True
    return (kernel.tier, kernel.baseline_status, kernel.pto_status) != (
        other.tier,
        other.baseline_status,
        other.pto_status,
    )


def compare(main: ReportSet, other: ReportSet) -> dict[str, Side]:
    """Each kernel of the main reports as ``other`` has it."""
    theirs = other.by_name()
    sides: dict[str, Side] = {}
    for kernel in main.kernels:
        found = theirs.get(kernel.name)
        sides[kernel.name] = Side(
            found.tier if found else None,
            found.ratio_median_pct if found else None,
            _differs(kernel, found),
        )
    return sides
