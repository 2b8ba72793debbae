"""``L``: a re-run's output as it comes, newest at the bottom (the last 2,000 lines).

The lines are read from the run's ring when the queue says more came (at most every 0.1 s,
however fast the runner writes: ``benchmarks/bench_rerun.py`` measures the keys meanwhile).
The view follows the newest line unless scrolled back; ``end`` follows again.
"""

from __future__ import annotations

import time

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.signal import Signal
from textual.timer import Timer
from textual.widgets import Log, Static

from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.footer import StableFooter
from ptotui.model.bench.benchrun import _elapsed
from ptotui.model.i18n import N_, _
from ptotui.model.rerun.output import RING_LINES, Line
from ptotui.model.rerun.queue import DONE, RUNNING, Event, RerunJob
from ptotui.model.text import clean, one_line


def _shown(line: Line) -> str:
    return ("! " if line.err else "  ") + line.text  # "!": stderr, as in the log file


class FollowingLog(Log):
    """A Log that follows the newest line until the user scrolls back (a key or the wheel),
    and again once they are back at the end. Asking whether the view is at the end when
    lines arrive does not work: a burst of lines moves the end before the scroll to it is
    laid out, and the view stopped following a runner that wrote fast."""

    def _back(self) -> None:
        self.auto_scroll = False

    def _maybe_follow(self) -> None:
        self.call_after_refresh(self._follow_if_at_end)

    def _follow_if_at_end(self) -> None:
        if self.is_vertical_scroll_end:
            self.auto_scroll = True

    def action_scroll_up(self) -> None:
        self._back()
        self.scroll_up(animate=False)

    def action_page_up(self) -> None:
        self._back()
        self.scroll_page_up(animate=False)

    def action_scroll_home(self) -> None:
        self._back()
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.auto_scroll = True
        self.scroll_end(animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)
        self._maybe_follow()

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)
        self._maybe_follow()

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._back()
        super()._on_mouse_scroll_up(event)

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        super()._on_mouse_scroll_down(event)
        self._maybe_follow()


class RerunOutputScreen(PtoScreen[None]):
    """One run's stdout and stderr (stderr lines start with ``!``), live while it runs."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back"), id="output.back"),
        Binding("q", "app.pop_screen", N_("Back"), show=False, id="output.quit"),
    ]

    def __init__(self, job: RerunJob, changed: Signal[Event | None]) -> None:
        super().__init__()
        self.job = job
        self._changed = changed
        self._total = 0  # the ring's total when last drawn
        self._clock: Timer | None = None
        self._behind = False  # output came while another screen was over this one

    def compose(self) -> ComposeResult:
        yield Static("", id="rerun-head")
        yield FollowingLog(max_lines=RING_LINES, auto_scroll=True, id="rerun-log")
        yield StableFooter(eager=True)

    def on_mount(self) -> None:
        self.title = one_line(clean(self.job.kernel), 200)
        self._changed.subscribe(self, self._event)
        self._draw_head()
        self._append()
        log = self.query_one(FollowingLog)
        log.scroll_end(animate=False, immediate=True)
        log.focus()
        if self.job.state != DONE:
            self._clock = self.set_interval(1.0, self._draw_head, name="re-run clock")

    def _event(self, event: Event | None) -> None:
        if event is None or event.job is not self.job:
            return
        if not self.is_current:  # under the help or the palette: caught up when shown again
            self._behind = True
            return
        if event.kind in ("output", "finished"):
            self._append()
        self._draw_head()
        if self.job.state == DONE and self._clock is not None:
            self._clock.stop()
            self._clock = None

    def on_screen_resume(self) -> None:
        if self._behind:
            self._behind = False
            self._append()
            self._draw_head()

    def _append(self) -> None:
        fresh, total = self.job.ring.since(self._total)
        if total == self._total:
            return
        log = self.query_one(FollowingLog)
        if total - self._total > RING_LINES:  # more came than the ring holds: what it holds
            log.clear()
        self._total = total
        pruned = max(log.line_count + len(fresh) - RING_LINES, 0)  # the oldest lines the Log drops
        log.write_lines([_shown(line) for line in fresh])  # to the end while it follows
        if not log.auto_scroll and pruned:  # scrolled back: the lines shown stay put
            log.scroll_to(y=max(log.scroll_y - pruned, 0), animate=False, immediate=True)
        # Textual's Log repaints only the lines it appended, by their index before it pruned
        # the oldest (max_lines): at the end of a full log that is past the view, and the
        # screen kept the old lines. Its lines are drawn on demand, so a repaint is cheap.
        log.refresh()

    def _draw_head(self) -> None:
        job = self.job
        text = Text(one_line(clean(job.kernel), 80), style="bold")
        if job.state == RUNNING:
            elapsed = _elapsed(max(time.time() - (job.started_s or time.time()), 0.0))
            word = _("stopping {elapsed}") if job.stopping else _("running {elapsed}")
            text.append("  " + word.format(elapsed=elapsed), style="bold yellow")
        elif job.outcome is not None:
            ok = job.outcome.ok
            said = _("done") if ok else _("failed: {status}").format(status=job.outcome.status())
            text.append("  " + said, style="bold green" if ok else "bold red")
        elif job.error is not None:
            text.append("  " + _("could not start: {why}").format(why=job.error), style="bold red")
        else:
            text.append("  " + _("queued"), style="dim")
        text.append("\n" + clean(job.command.shown()), style="dim")
        if job.log_path is not None:
            text.append("\n" + _("log: {path}").format(path=clean(str(job.log_path))), style="dim")
        shown = self.job.ring.total
        if shown > RING_LINES:
            text.append("  " + _("(the last {n} of {total} lines)").format(n=RING_LINES, total=shown), style="dim")
        self.query_one("#rerun-head", Static).update(text)

    def language_changed(self) -> None:
        self._draw_head()
