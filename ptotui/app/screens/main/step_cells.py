"""The table's Step column: each kernel's newest PTO step (``+9% 3d``), found on a worker.

Every kernel's change points take seconds at 10,000 kernels x 50 runs
(benchmarks/bench_changepoints.py): they are found on a thread, one search at a time, and
kept in the session (:mod:`ptotui.model.changes.live`), so a later search finds them again
only for the kernels whose runs changed; the column shows the last result until a newer one
is in, and the screen redraws then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text

from ptotui.app import render
from ptotui.model.i18n import N_
from ptotui.model.types import ReportSet

if TYPE_CHECKING:
    from ptotui.app.screens.main.screen import MainScreen
    from ptotui.model.bench.columns import RunView
    from ptotui.model.session import Session


def step_cells(session: Session, runs: RunView, now: float) -> dict[str, Text]:
    """Each kernel's Step cell: red for a PTO slowdown, green for a speed-up. (On the worker:
    the change points and the runs are imported there, not on the way to the first frame.)
    The session's change points are searched again only for the kernels whose runs changed."""
    from ptotui.model.changes.points import step_text

    return {
        name: render.cell(step_text(change, now), "red" if change.slower else "green")
        for name, change in session.steps.newest(runs).items()
    }


class StepCells:
    """The Step cells of the reports last searched, and the search under way (one at a time:
    a search started while one runs waits for it, then runs on the newest runs)."""

    def __init__(self) -> None:
        self._key: tuple[int, int] | None = None  # (the reports, their runs) last asked for
        self._searched: tuple[int, int] | None = None
        self._cells: dict[str, Text] = {}
        self._running = False

    def cells(self, screen: MainScreen, reports: ReportSet | None) -> dict[str, Text]:
        bench = reports.bench_run if reports is not None else None
        if bench is None:
            return {}
        self._key = (id(reports), len(bench.runs))
        if self._key != self._searched and not self._running:
            self._start(screen, bench.runs, self._key)
        return self._cells

    def _start(self, screen: MainScreen, runs: RunView, key: tuple[int, int]) -> None:
        self._running = True
        now, session = screen.ctx.clock(), screen.ctx.session
        done: Callable[[dict[str, Text]], None] = lambda cells: self._finished(screen, key, cells)  # noqa: E731

        def search() -> None:
            cells = step_cells(session, runs, now)  # a kernel's runs at a time, from the reader's view
            screen.app.call_from_thread(done, cells)

        screen.run_worker(search, thread=True, group="steps", exit_on_error=False, name=N_("Finding the steps"))

    def _finished(self, screen: MainScreen, key: tuple[int, int], cells: dict[str, Text]) -> None:
        self._running, self._searched, self._cells = False, key, cells
        screen.refresh_rows()
