"""Where tab and shift+tab go on the main screen: the table and the panes shown beside it.

Wide, the blocker pane is a stop (tab shows it when hidden, as ``b`` does) and so is the
changes pane while ``C`` shows it. Narrow (80 columns), a pane covers the table, so the
changes pane, while shown, takes the blocker pane's place in the cycle: tab goes from the
table to it and from it back to the table (closing it, to uncover the table).
"""

from __future__ import annotations

TABLE, BLOCKERS, CHANGES = "table", "blockers", "changes"


def focus_stops(narrow: bool, changes_shown: bool) -> tuple[str, ...]:
    """The stops of the cycle, in tab's order."""
    if not changes_shown:
        return (TABLE, BLOCKERS)
    return (TABLE, CHANGES) if narrow else (TABLE, BLOCKERS, CHANGES)


def next_stop(current: str, step: int, narrow: bool, changes_shown: bool) -> str:
    """The stop after ``current`` (one that is not a stop, such as a hidden pane: the table)."""
    stops = focus_stops(narrow, changes_shown)
    at = stops.index(current) if current in stops else 0
    return stops[(at + step) % len(stops)]
