"""What the controller asks the App to do, as data: the App runs each, in order, and
decides nothing. Tests read them as they are: the notices' words, the bell, the hook's
payload, the jobs and what each one publishes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ptotui.model.session import Update

if TYPE_CHECKING:
    from ptotui.model.control.hook import HookRunner


@dataclass(frozen=True)
class Publish:
    """Tell every screen that the session changed: each draws what it shows from it."""

    update: Update


Severity = Literal["information", "warning", "error"]  # Textual's words


@dataclass(frozen=True)
class Notice:
    """A toast. Its text is plain (never markup), and cleaned where it holds report text."""

    text: str
    title: str | None = None
    severity: Severity = "information"
    timeout: float = 6.0


@dataclass(frozen=True)
class Bell:
    """Ring the terminal's bell (a reload brought a regression and --no-bell was not given)."""


@dataclass(frozen=True)
class Hook:
    """Run the user's --on-regression command with ``data`` (the diff's JSON) on its stdin."""

    command: str
    data: str

    def job(self, runner: HookRunner) -> Job:
        """The hook as a job: on a worker, after the hook before it (``runner`` runs them one
        at a time and stops them on quit), said in one notice if it fails."""
        from ptotui.model.i18n import N_

        return Job(N_("Running --on-regression"), lambda: runner.run(self.command, self.data), group="hook")


@dataclass(frozen=True, eq=False)
class Job:
    """Run ``work`` on a worker thread (after ``delay`` seconds), then ``done`` with its result
    on the UI thread; a job that raises becomes one notice naming ``name`` (the one error path).
    ``group``/``exclusive`` as Textual's workers: a newer exclusive job of a group replaces an older one."""

    name: str  # marked for the catalogue (N_): said in the notice when it fails
    work: Callable[[], Any]
    done: Callable[[Any], list[Effect]] | None = None
    group: str = "default"
    exclusive: bool = False
    delay: float = 0.0


Effect = Publish | Notice | Bell | Hook | Job
