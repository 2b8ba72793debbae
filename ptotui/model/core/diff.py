"""What changed between two loads of the reports, and which changes are regressions.

A regression is something PTO did: PTO slower beyond its noise band, PTO blocked,
correctness lost, a kernel gone, a tier lost because PTO slowed. The ratio is
Baseline / PTO, so it also falls when the baseline gets faster: every ratio or tier move
is attributed to the side that moved (:func:`ptotui.model.core.movement.movement`), each side's latency change
(shapes matched by shape, then the median over the shapes) held against that side's
noise band (:mod:`ptotui.model.core.noise`). A baseline that moved is shown, never counted.
When one side has no latencies (a state-matrix snapshot) the cause is ``unknown`` and
the old rule decides: a median-ratio drop of ``ratio_pp`` or more, or a tier down.
``rule="ratio"`` keeps the old rule everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ptotui.model.core.fmt import ms
from ptotui.model.core.movement import BASELINE_CAUSES, VERDICTS, Movement, movement, ratio_pair
from ptotui.model.core.noise import Noise, no_noise
from ptotui.model.i18n import N_, _
from ptotui.model.location import STAMP
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from ptotui.model.changes.points import ChangePoint

# Higher is better; used to say whether a tier move is up or down.
TIER_GOODNESS = {
    "high": 6,
    "mid": 5,
    "slow": 4,
    "baseline-blocked": 3,
    "correctness-gap": 2,
    "pto-blocked": 1,
    "both-blocked": 0,
}
WORKING = ("high", "mid", "slow")
# PTO's own state in a tier: running (whatever the baseline does), wrong, not running.
_PTO_STATE = {"correctness-gap": 1, "pto-blocked": 0, "both-blocked": 0}
RULES = ("side", "ratio")
CAUSES = ("pto-slower", "pto-faster", "baseline-faster", "baseline-slower", "both", "noise", "unknown", "environment")
# A kernel's net mark: worse (a regression), better, only the baseline moved, or neither.
WORSE, BETTER, BASELINE_MOVED, NEUTRAL = -1, 1, 2, 0


_KIND_LABELS = {
    "baseline_status": N_("baseline"),
    "pto_status": N_("PTO"),
    "ratio": N_("median ratio"),
    "tier": N_("tier"),
    "class": N_("class"),
    "correctness": N_("correctness"),
}


@dataclass(frozen=True)
class Change:
    """One fact about one kernel that differs between two loads."""

    kernel: str
    kind: str  # added, removed, tier, baseline_status, pto_status, class, ratio, pto_ms, correctness, step
    old: str | None
    new: str | None
    direction: int  # +1 better, -1 worse, 0 neither
    regression: bool
    cause: str | None = None  # for tier, ratio and pto_ms: CAUSES, or "status" for a tier a status moved
    move: Movement | None = None
    label: str | None = None  # "median ratio", or "ratio range" when a side has only a range
    step: ChangePoint | None = None  # kind "step": the change point of the kernel's PTO series (step_change)

    @property
    def pto_better(self) -> bool:
        """Better, by something PTO did (not noise, not the baseline slowing down)."""
        if self.cause == "pto-faster":
            return True
        return self.direction > 0 and not self.baseline_moved and self.cause not in ("noise", "pto-slower")

    @property
    def baseline_moved(self) -> bool:
        """Only the baseline moved (or the host): worth knowing, never counted."""
        if self.kind == "baseline_status":
            return True
        return self.cause in BASELINE_CAUSES or self.cause == "baseline-status"

    def fact(self) -> str:
        """What changed, without the kernel: ``median ratio 62.1% -> 40.2%``."""
        if self.kind == "added":
            return _("new kernel ({tier})").format(tier=self.new)
        if self.kind == "removed":
            return _("vanished from the reports (was {tier})").format(tier=self.old)
        if self.label:  # a code in the JSON ("ratio range"), its words here
            return f"{_(self.label)} {self.old} -> {self.new}"
        label = _(_KIND_LABELS[self.kind]) if self.kind in _KIND_LABELS else _(_LABELS.get(self.kind, self.kind))
        return f"{label} {self.old} -> {self.new}"

    def why(self) -> str:
        """Which side moved and what that makes it: ``baseline 38.7% faster, PTO 1.4% faster:
        the baseline got faster: not a PTO regression``; empty for a change no latency explains."""
        if self.step is not None:
            step = self.step
            return _("a change point of its PTO runs (p {p}, runs before|after it {before}|{after}): {verdict}").format(
                p=f"{step.pvalue:.2g}",
                before=step.runs_before,
                after=step.runs_after,
                verdict=_(VERDICTS["pto-slower"]),
            )
        if self.move is None or self.cause in (None, "status", "baseline-status"):
            return ""
        verdict = self.move.verdict()
        if self.cause == "unknown" and not self.regression:  # the old rule, and by it no regression
            verdict = _("judged by the ratio (the old rule): not a regression")
        why = f"{self.move.explain()}: {verdict}"
        if self.regression and self.cause not in ("pto-slower", "unknown"):
            why += _("; counted by the ratio (--rule ratio)")
        return why

    def describe(self) -> str:
        """``kernel: what -> what``, in the language in force (tiers and statuses as codes), and
        for a latency-attributed move which side moved."""
        why = self.why()
        return f"{self.kernel}: {self.fact()}" + (f": {why}" if why else "")

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kernel": self.kernel,
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "direction": {1: "up", -1: "down", 0: "none"}[self.direction],
            "regression": self.regression,
        }
        if self.kind in ("tier", "ratio", "pto_ms"):
            out.update(self.move.as_dict() if self.move is not None else _no_move())
            out["cause"] = self.cause
        if self.label:
            out["label"] = self.label
        if self.step is not None:
            out["cause"] = self.cause
            out["step"] = {k: v for k, v in self.step.as_dict().items() if k not in ("kernel", "artifacts")}
        return out


def _no_move() -> dict[str, Any]:
    return {
        "pto_ms": [None, None],
        "baseline_ms": [None, None],
        "pto_change_pct": None,
        "baseline_change_pct": None,
        "band_pct": None,
        "band_source": None,
        "pto_band": None,
        "baseline_band": None,
        "pto_beyond_band": None,
        "baseline_beyond_band": None,
        "environment": [],
    }


_LABELS = {
    "baseline_status": N_("baseline"),
    "pto_status": N_("PTO"),
    "ratio": N_("median ratio"),
    "pto_ms": N_("PTO ms"),
}


# -- the changes ----------------------------------------------------------------------


def _status_change(kind: str, name: str, old: str | None, new: str | None, rule: str) -> Change | None:
    if old == new or old is None or new is None:
        return None
    worse = old == "ok" and new == "blocked"
    better = old == "blocked" and new == "ok"
    counted = worse and (kind == "pto_status" or rule == "ratio")  # the baseline's is the host's
    return Change(name, kind, old, new, 1 if better else -1 if worse else 0, counted)


def _tier_change(old: Kernel, new: Kernel, move: Movement | None, ratio_pp: float, rule: str) -> Change:
    name = new.name
    delta = TIER_GOODNESS.get(new.tier, 0) - TIER_GOODNESS.get(old.tier, 0)
    direction = (delta > 0) - (delta < 0)
    if rule == "ratio":
        return Change(name, "tier", old.tier, new.tier, direction, delta < 0, move.cause if move else None, move)
    if old.tier in WORKING and new.tier in WORKING:
        cause = move.cause if move is not None else "unknown"  # no latencies on either side: the old rule
        return Change(
            name, "tier", old.tier, new.tier, direction, delta < 0 and cause in ("pto-slower", "unknown"), cause, move
        )
    pto_delta = _PTO_STATE.get(new.tier, 2) - _PTO_STATE.get(old.tier, 2)
    cause = "status" if pto_delta or old.pto_status != new.pto_status else "baseline-status"
    return Change(name, "tier", old.tier, new.tier, direction, pto_delta < 0, cause, move)


def _ratio_change(old: Kernel, new: Kernel, move: Movement | None, ratio_pp: float, rule: str) -> Change | None:
    pair = ratio_pair(old, new)
    if pair is None:
        return None
    before, after, old_text, new_text, label = pair
    moved = after - before
    direction = 1 if moved > 0 else -1 if moved < 0 else 0
    if rule == "ratio":
        if abs(moved) < ratio_pp:
            return None
        return Change(
            new.name,
            "ratio",
            old_text,
            new_text,
            direction,
            moved < 0,
            move.cause if move else None,
            move,
            label or None,
        )
    cause = move.cause if move is not None and not label else "unknown"
    if abs(moved) < ratio_pp and cause in ("noise", "unknown"):
        return None
    regression = cause == "pto-slower" or (cause == "unknown" and moved <= -ratio_pp)
    shown = _unknown(move) if label else move  # a range has no latencies to set beside it
    return Change(new.name, "ratio", old_text, new_text, direction, regression, cause, shown, label or None)


def _unknown(move: Movement | None) -> Movement | None:
    if move is None:
        return None
    return Movement(move.pto_ms, move.baseline_ms, None, None, move.pto_band, move.baseline_band, "unknown", 0)


def _latency_change(old: Kernel, new: Kernel, move: Movement) -> Change | None:
    """PTO's latency beyond its band where there is no ratio to show it (the baseline blocked)."""
    if move.pto_change_pct is None or move.cause not in ("pto-slower", "pto-faster"):
        return None
    slower = move.cause == "pto-slower"
    return Change(
        new.name, "pto_ms", ms(move.pto_ms[0]), ms(move.pto_ms[1]), -1 if slower else 1, slower, move.cause, move
    )


def reference_stamp(kernel: Kernel, generated_at: str | None) -> str | None:
    """When the reference state of ``kernel`` was measured: the run it comes from (a run newer
    than its summary), else its summary's or snapshot's stamp. The runs at or before it are
    the runs before the one judged."""
    return kernel.from_run or (generated_at if generated_at and STAMP.match(generated_at) else None)


def kernel_changes(
    old: Kernel,
    new: Kernel,
    ratio_pp: float = 2.0,
    noise: Noise | None = None,
    rule: str = "side",
    upto: str | None = None,
    judged_at: str | None = None,
) -> list[Change]:
    """``upto``: the reference's stamp (:func:`reference_stamp`), for the bands; ``judged_at``:
    ``new``'s, for where its run ran."""
    changes: list[Change] = []
    name = new.name
    moving = old.variants or new.variants
    move = movement(old, new, noise or no_noise(), ratio_pp, upto, judged_at) if moving else None
    if old.tier != new.tier:
        changes.append(_tier_change(old, new, move, ratio_pp, rule))
    for kind in ("baseline_status", "pto_status"):
        change = _status_change(kind, name, getattr(old, kind), getattr(new, kind), rule)
        if change:
            changes.append(change)
    if old.klass != new.klass and old.klass is not None and new.klass is not None:
        changes.append(Change(name, "class", old.klass, new.klass, 0, False))
    if old.pto_status == "ok" and new.pto_status == "ok":  # a side that did not run has no correctness
        if old.pto_correct is True and new.pto_correct is False:
            changes.append(Change(name, "correctness", "pass", "fail", -1, True))
        elif old.pto_correct is False and new.pto_correct is True:
            changes.append(Change(name, "correctness", "fail", "pass", 1, False))
    ratio = _ratio_change(old, new, move, ratio_pp, rule)
    if ratio is not None:
        changes.append(ratio)
    elif rule == "side" and move is not None and ratio_pair(old, new) is None:
        latency = _latency_change(old, new, move)
        if latency is not None:
            changes.append(latency)
    return changes


def diff(
    old: ReportSet, new: ReportSet, ratio_pp: float = 2.0, noise: Noise | None = None, rule: str = "side"
) -> list[Change]:
    """Every change from ``old`` to ``new``, kernels in the new order, removals last. Each
    kernel's bands come from the runs at or before its state in ``old`` (the reference)."""
    before, after = old.by_name(), new.by_name()
    changes: list[Change] = []
    for kernel in new.kernels:
        previous = before.get(kernel.name)
        if previous is kernel:
            continue  # the live loader hands unchanged kernels back as the same object
        if previous is None:
            changes.append(Change(kernel.name, "added", None, kernel.tier, 0, False))
        else:
            upto = reference_stamp(previous, old.generated_at)
            judged_at = reference_stamp(kernel, new.generated_at)
            changes.extend(kernel_changes(previous, kernel, ratio_pp, noise, rule, upto, judged_at))
    for kernel in old.kernels:
        if kernel.name not in after:  # a kernel that vanished from the reports is a regression
            changes.append(Change(kernel.name, "removed", kernel.tier, None, -1, True))
    return changes


def step_change(step: ChangePoint) -> Change:
    """A slowdown of a kernel's PTO series that its change points found (a run landed and made
    it significant: :mod:`ptotui.model.changes.live`): PTO slower beyond its noise for good,
    so a regression, counted and told as every other one."""
    old, new = f"{ms(step.before_ms)} ms", f"{ms(step.after_ms)} ms ({step.change_pct:+.1f}%, {step.after})"
    return Change(step.kernel, "step", old, new, -1, True, "pto-slower", label=N_("PTO step"), step=step)


def regressed_kernels(changes: Iterable[Change]) -> list[str]:
    """The kernels with at least one regression, each once (going blocked moves its tier,
    its status and its ratio: one kernel, one regression)."""
    return list(dict.fromkeys(c.kernel for c in changes if c.regression))


def baseline_kernels(changes: Iterable[Change]) -> list[str]:
    """The kernels where only the baseline (or the host) moved, each once: shown, never counted."""
    changes = list(changes)
    regressed = set(regressed_kernels(changes))
    return list(dict.fromkeys(c.kernel for c in changes if c.baseline_moved and c.kernel not in regressed))


def direction_of(changes: list[Change]) -> int:
    """The net mark of one kernel's changes: a regression wins, then PTO better, then the
    baseline having moved (BASELINE_MOVED), else NEUTRAL."""
    if any(c.regression for c in changes):
        return WORSE
    if any(c.pto_better for c in changes):
        return BETTER
    if any(c.baseline_moved and c.direction != 0 for c in changes):
        return BASELINE_MOVED
    return NEUTRAL


def change_mark(change: Change) -> int:
    """One change's mark (WORSE, BETTER, BASELINE_MOVED, NEUTRAL), as :func:`direction_of` marks a kernel."""
    return direction_of([change])


def payload(old: ReportSet, new: ReportSet, changes: list[Change], rule: str = "side") -> dict[str, Any]:
    """What ``ptotui diff --format json`` prints (and ``--on-regression`` hooks read)."""
    return {
        "schema": "ptotui.diff/2",
        "rule": rule,
        "old": {"source": old.source, "generated_at": old.generated_at},
        "new": {"source": new.source, "generated_at": new.generated_at},
        "changes": [c.as_dict() for c in changes],
        "regressions": len(regressed_kernels(changes)),  # kernels, each once
        "regressed_kernels": regressed_kernels(changes),
        "baseline_moved_kernels": baseline_kernels(changes),
        "warnings": [w.as_dict() for w in old.warnings + new.warnings],
    }
