"""What the re-run controller asks of the App, as data: besides the dashboard's own effects (a
notice, a job, what a reload gives: :mod:`ptotui.model.control.effects`), a question, a screen,
the queue's changes and quitting. ``ptotui/app/rerun.py`` carries each out, in order."""

from __future__ import annotations

import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ptotui.model.control.effects import Effect

if TYPE_CHECKING:
    from ptotui.model.rerun.command import RerunCommand
    from ptotui.model.rerun.queue import Event, RerunJob


@dataclass(frozen=True, eq=False)
class Confirm:
    """Ask yes or no: the ``question`` above the ``command`` shown whole and ``where`` it runs,
    then the ``keys``. The answer (``True``: yes) goes to ``answer``, whose effects follow."""

    title: str
    question: str
    command: str
    keys: str
    answer: Callable[[bool], list[RerunEffect]]
    where: str = ""


@dataclass(frozen=True)
class Show:
    """Show this re-run's output, live while it runs (``L``)."""

    job: RerunJob


@dataclass(frozen=True)
class Changed:
    """The re-runs changed (``event``; None: they were just made): the screens that show them redraw."""

    event: Event | None


@dataclass(frozen=True)
class Enqueue:
    """Queue these kernels (each starts when a slot is free), each said as queued."""

    runs: tuple[tuple[str, str, RerunCommand], ...]  # kernel, family, command


@dataclass(frozen=True)
class Cancel:
    """Drop this queued re-run, or stop it when it runs (SIGINT, then SIGTERM, SIGKILL)."""

    job: RerunJob


@dataclass(frozen=True)
class StopAll:
    """Drop every queued re-run and stop every running one."""


@dataclass(frozen=True)
class KillAll:
    """``signum`` to every running runner's process group at once."""

    signum: int = signal.SIGKILL


@dataclass(frozen=True)
class Exit:
    """Quit the app."""


RerunEffect = Effect | Confirm | Show | Changed | Enqueue | Cancel | StopAll | KillAll | Exit
