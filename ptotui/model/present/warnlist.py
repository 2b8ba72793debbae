"""Every current warning, for the main screen's warnings box and the ``W`` screen.

The box under the table has room for a few lines; what it cannot show it counts, and ``W``
lists them all: the reports' (summary, state matrix, gap board, snapshots), the bench runs',
the triage file's and the settings file's. Textual-free: the screens only draw these.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from pathlib import Path

from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.text import visible
from ptotui.model.types import ReadWarning

BOX_LINES = 5  # the warnings box's height at most (ptotui.tcss, #warnings)

WarningKey = tuple[str, int | None, str]  # a warning's file, line and message

REPORTS, RUNS, TRIAGE, SETTINGS = N_("reports"), N_("bench runs"), N_("triage"), N_("settings")


@dataclass(frozen=True)
class WarningEntry:
    """One warning as the ``W`` screen lists it: where it comes from (``origin``, one of
    :data:`REPORTS`, :data:`RUNS`, :data:`TRIAGE`, :data:`SETTINGS`), and since when it stands."""

    origin: str
    file: str
    message: str
    line: int | None = None
    since: float | None = None

    @property
    def key(self) -> WarningKey:
        """What a dismissed warning is known by: a warning whose text differs is a new one."""
        return (self.file, self.line, self.message)

    def where(self) -> str:
        """The file (and line) as it can be found: a control character in its name is written
        as an escape (``debug\\x1b]0;``), never sent to the terminal nor cleaned away."""
        return f"{visible(self.file)}:{self.line}" if self.line else visible(self.file)


def _origin(file: str, bench: Path | None) -> str:
    """A warning about a file under ``bench/results`` or ``bench/generated`` is the runs'."""
    if bench is not None:
        for part in ("results", "generated"):
            inside = str(bench / part)
            if file == inside or file.startswith(inside + "/"):
                return RUNS
    return REPORTS


def current_warnings(
    reports: Iterable[ReadWarning],
    triage: Iterable[ReadWarning] = (),
    settings: str | None = None,
    since: Mapping[str, float] | None = None,
    bench: Path | None = None,
    settings_file: str = "",
) -> list[WarningEntry]:
    """Every warning now standing, in the order the box shows them: the reports' and runs' (as
    loaded), the triage file's, then the settings file's. ``since``: when each file was first
    warned of (the session's ``warned_since``)."""
    since = since or {}
    out = [WarningEntry(_origin(w.file, bench), w.file, w.message, w.line, since.get(w.file)) for w in reports]
    out.extend(WarningEntry(TRIAGE, w.file, w.message, w.line, since.get(w.file)) for w in triage)
    if settings:
        out.append(WarningEntry(SETTINGS, settings_file, settings))
    return out


def standing(entries: list[WarningEntry], dismissed: Set[WarningKey]) -> list[WarningEntry]:
    """The warnings the box shows: every one not dismissed (``W`` lists those too)."""
    return [entry for entry in entries if entry.key not in dismissed] if dismissed else entries


def box_count(total: int, lines: int = BOX_LINES) -> int:
    """How many warnings the box shows, one line each: all when they fit, else one line fewer,
    for the line that says how many are not shown."""
    return total if total <= lines else max(lines - 1, 0)


def more_line(hidden: int, key: str) -> str:
    """``… and 2 more not shown: W lists every warning``."""
    said = ngettext(
        "… and {n} more not shown: {key} lists every warning",
        "… and {n} more not shown: {key} lists every warning",
        hidden,
    )
    return said.format(n=f"{hidden:,}", key=key)


def title(entries: list[WarningEntry]) -> str:
    """The ``W`` screen's heading: how many, and from where."""
    counts: dict[str, int] = {}
    for entry in entries:
        counts[entry.origin] = counts.get(entry.origin, 0) + 1
    head = ngettext("{n} warning", "{n} warnings", len(entries)).format(n=f"{len(entries):,}")
    if not counts:
        return _("No warnings")
    parts = ", ".join(f"{_(origin)} {n:,}" for origin, n in counts.items())
    return f"{head} ({parts})"
