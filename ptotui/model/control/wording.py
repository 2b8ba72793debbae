"""The words of the dashboard's notices: pure functions of an Update (or an error), so what a
user is told is unit-tested without a terminal."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ptotui.model.control.effects import Bell, Effect, Hook, Notice, Severity
from ptotui.model.i18n import _, ngettext
from ptotui.model.session import Update
from ptotui.model.text import clean, one_line


def names(kernels: Iterable[str], shown: int = 6) -> str:
    """Kernel names for a notification: the first few, then how many more."""
    unique = list(dict.fromkeys(one_line(clean(k), 60) for k in kernels))
    if len(unique) <= shown:
        return ", ".join(unique)
    rest = len(unique) - shown
    return ngettext("{names} and {n} more", "{names} and {n} more", rest).format(
        names=", ".join(unique[:shown]), n=rest
    )


def reload_effects(update: Update, bell: bool, on_regression: str | None) -> list[Effect]:
    """A reload brought regressions: say which, ring, run the --on-regression hook once. Only
    the baseline moved: a word, never the bell or the hook (the goalpost moved, PTO did not)."""
    if not update.changes:
        return []
    from ptotui.model.core.diff import baseline_kernels, payload  # (a reload with changes: after the first frame)

    kernels = update.regressed  # counted as diff counts them: a kernel once
    if not kernels:
        moved = baseline_kernels(update.changes)
        if not moved:
            return []
        said = _("only the baseline moved for {kernels}: not a PTO regression").format(kernels=names(moved))
        return [Notice(said, _("Baseline moved"), "information", 6)]
    steps = {c.kernel: step for c in update.changes if (step := c.step) is not None}
    if all(name in steps for name in kernels):  # runs landed and made a step of PTO significant
        told = [f"{k} {steps[k].change_pct:+.0f}% ({steps[k].after})" for k in kernels]
        said = ngettext(
            "{n} kernel's PTO got slower for good (a change point of its runs): {kernels}",
            "{n} kernels' PTO got slower for good (change points of their runs): {kernels}",
            len(kernels),
        ).format(n=len(kernels), kernels=names(told))
    else:
        said = ngettext(
            "{n} kernel regressed on reload: {kernels}", "{n} kernels regressed on reload: {kernels}", len(kernels)
        ).format(n=len(kernels), kernels=names(kernels))
    effects: list[Effect] = [Notice(said, _("Regression"), "error", 12)]
    if bell:
        effects.append(Bell())
    if on_regression and update.previous is not None and update.reports is not None:
        data = json.dumps(payload(update.previous, update.reports, list(update.changes)), indent=2) + "\n"
        effects.append(Hook(on_regression, data))
    return effects


def since_effects(update: Update) -> list[Effect]:
    """The first compare with the snapshots found regressions: say how many and which."""
    since = update.since
    if since is None or not update.since_regressed:
        return []
    # Marked only if not seen since (after m in an earlier session, none are).
    listed = _("C lists them; the table marks those you have not seen.") if update.since_marked else _("C lists them.")
    said = ngettext(
        "{n} regression since {reference}: {kernels}.",
        "{n} regressions since {reference}: {kernels}.",
        since.regressions,
    )
    words = said.format(n=since.regressions, reference=since.reference(), kernels=names(update.since_regressed))
    text = words + " " + listed
    return [Notice(text, _("Regressions"), "warning", 10)]


class Said(Exception):
    """An error whose words are the whole notice (a hook that failed, a file not saved)."""

    def __init__(self, text: str, severity: Severity = "warning") -> None:
        super().__init__(text)
        self.severity = severity


def failure(what: str, error: BaseException) -> Notice:
    """A job that raised: what failed, and the error in one line."""
    if isinstance(error, Said):
        return Notice(one_line(clean(str(error)), 300), None, error.severity, 10)
    detail = one_line(clean(f"{type(error).__name__}: {error}"), 300)
    return Notice(_("{what} failed: {detail}").format(what=what, detail=detail), _("Error"), "warning", 10)
