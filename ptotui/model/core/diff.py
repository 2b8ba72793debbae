"""What changed between two loads of the reports, and which changes are regressions.

A regression is something PTO did: PTO slower beyond its noise band, PTO blocked,
correctness lost, a kernel gone, a tier lost because PTO slowed. The ratio is
Baseline / PTO, so it also falls when the baseline gets faster: every ratio or tier move
is attributed to the side that moved (:func:`movement`), each side's latency change
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

from ptotui.model.core.fmt import ms, pct
from ptotui.model.core.noise import Band, Noise, change_pct, no_noise, shape_key
from ptotui.model.core.tiers import median
from ptotui.model.i18n import N_, _
from ptotui.model.location import STAMP
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from ptotui.model.changes.points import Change as Step

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
BASELINE_CAUSES = ("baseline-faster", "baseline-slower", "both")
# A kernel's net mark: worse (a regression), better, only the baseline moved, or neither.
WORSE, BETTER, BASELINE_MOVED, NEUTRAL = -1, 1, 2, 0


_VERDICTS = {
    "pto-slower": N_("a PTO regression"),
    "pto-faster": N_("PTO got faster"),
    "baseline-faster": N_("the baseline got faster: not a PTO regression"),
    "baseline-slower": N_("the baseline got slower: not a PTO improvement"),
    "both": N_("both sides moved alike (the host changed): not a PTO regression"),
    "unknown": N_("counted by the ratio (the old rule)"),
    "environment": N_("the runs ran in different environments: not compared"),
}


@dataclass(frozen=True)
class Movement:
    """How each side of one kernel moved, over the shapes both loads have."""

    pto_ms: tuple[float | None, float | None]
    baseline_ms: tuple[float | None, float | None]
    pto_change_pct: float | None  # + slower, − faster
    baseline_change_pct: float | None
    pto_band: Band
    baseline_band: Band
    cause: str
    shapes: int  # shapes matched on the side with most
    # What differs between where the reference's run and the judged run ran: (field, old, new).
    environment: tuple[tuple[str, str, str], ...] = ()

    def explain(self) -> str:
        """The sides in words: ``baseline 38.7% faster, PTO 1.4% faster``."""
        if self.cause == "environment":
            from ptotui.model.core.environment import describe

            return _("{sides}; the environment changed ({what})").format(
                sides=self._sides(), what=describe(list(self.environment))
            )
        if self.cause == "unknown":
            if self.pto_change_pct is not None and self.baseline_change_pct is not None:
                return _("the latencies do not account for the ratio's move, so which side moved cannot be told")
            return _("a side without latencies (a snapshot), so which side moved cannot be told")
        return self._sides()

    def _sides(self) -> str:
        parts = [
            _side_words(label, change, band)
            for label, change, band in (
                ("PTO", self.pto_change_pct, self.pto_band),
                (_("baseline"), self.baseline_change_pct, self.baseline_band),
            )
            if change is not None
        ]
        if self.cause in BASELINE_CAUSES:  # the side that moved first
            parts.reverse()
        return ", ".join(parts)

    def verdict(self) -> str:
        if self.cause == "noise":
            return _("neither side moved beyond its noise") + self._larger()
        return _(_VERDICTS[self.cause])

    def _larger(self) -> str:
        """Within noise, whose move is the larger part of the ratio's (a ratio moved by one side)."""
        pto, baseline = self.pto_change_pct, self.baseline_change_pct
        if pto is None or baseline is None or max(abs(pto), abs(baseline)) < 0.05:
            return ""
        return " " + (
            _("(the larger move: the baseline's)") if abs(baseline) > abs(pto) else _("(the larger move: PTO's)")
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "cause": self.cause,
            "pto_ms": list(self.pto_ms),
            "baseline_ms": list(self.baseline_ms),
            "pto_change_pct": _rounded(self.pto_change_pct),
            "baseline_change_pct": _rounded(self.baseline_change_pct),
            "band_pct": {"pto": round(self.pto_band.pct, 3), "baseline": round(self.baseline_band.pct, 3)},
            "band_source": {"pto": self.pto_band.source, "baseline": self.baseline_band.source},
            "pto_band": self.pto_band.as_dict(),
            "baseline_band": self.baseline_band.as_dict(),
            "pto_beyond_band": _beyond(self.pto_change_pct, self.pto_band),
            "baseline_beyond_band": _beyond(self.baseline_change_pct, self.baseline_band),
            "environment": [{"field": f, "old": old, "new": new} for f, old, new in self.environment],
        }


def _beyond(change: float | None, band: Band) -> bool | None:
    return None if change is None else abs(change) > band.pct


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _side_words(label: str, change: float, band: Band) -> str:
    """``PTO +4.6% (beyond its ±2.1%)``: the side's move, and its own band."""
    moved = f"{change:+.1f}%".replace("-", "−")  # the minus sign, as + is the plus sign
    if abs(change) > band.pct:
        said = _("{side} {change} (beyond its ±{band}%)")
    else:
        said = _("{side} {change} (within its ±{band}%)")
    return said.format(side=label, change=moved, band=f"{band.pct:.1f}")


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
    step: Step | None = None  # kind "step": the change point of the kernel's PTO series (step_change)

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
                verdict=_(_VERDICTS["pto-slower"]),
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


# -- which side moved ------------------------------------------------------------------


def _latencies(kernel: Kernel, side: str) -> dict[str, float]:
    out = {}
    for variant in kernel.variants:
        value = variant.pto_ms if side == "pto" else variant.baseline_ms
        status = variant.pto_status if side == "pto" else variant.baseline_status
        if value is not None and value > 0 and status != "blocked":
            out[shape_key(variant.params, variant.shape)] = value
    return out


def _matched(old: dict[str, float], new: dict[str, float]) -> tuple[float | None, float | None, int]:
    keys = [key for key in old if key in new]
    if not keys:
        return None, None, 0
    return median([old[k] for k in keys]), median([new[k] for k in keys]), len(keys)


def attribute(pto: float | None, baseline: float | None, pto_band: float, baseline_band: float) -> str:
    """The cause of a move, from each side's latency change (percent, + slower) and band."""
    if pto is None:
        return "unknown"
    pto_moved = pto is not None and abs(pto) > pto_band
    baseline_moved = baseline is not None and abs(baseline) > baseline_band
    if pto_moved and baseline_moved and baseline is not None:
        if (pto > 0) != (baseline > 0):  # opposite ways: PTO's own move is what PTO did
            return "pto-slower" if pto > 0 else "pto-faster"
        # The same way: the host moved both; PTO's part is what it moved beyond the baseline.
        beyond = ((1 + pto / 100) / (1 + baseline / 100) - 1) * 100
        if abs(beyond) > pto_band:
            return "pto-slower" if beyond > 0 else "pto-faster"
        return "both"
    if pto_moved:
        return "pto-slower" if pto > 0 else "pto-faster"
    if baseline_moved and baseline is not None:
        return "baseline-slower" if baseline > 0 else "baseline-faster"
    return "noise"


def explained(old: Kernel, new: Kernel, pto: float | None, baseline: float | None, ratio_pp: float) -> bool:
    """Whether the latencies account for the median ratio's move: the ratio they predict
    (old × baseline change / PTO change) is within ``ratio_pp``, or half the move, of the new
    one. A report whose ratio moved while its latencies did not (edited by hand, or latencies
    from another run than the ratios) cannot say which side moved."""
    if old.ratio_median_pct is None or new.ratio_median_pct is None or range_only(old) or range_only(new):
        return True  # a range is compared as a range, with no latencies
    if pto is None or baseline is None:
        return True
    predicted = old.ratio_median_pct * (1 + baseline / 100) / (1 + pto / 100)
    moved = new.ratio_median_pct - old.ratio_median_pct
    return abs(predicted - new.ratio_median_pct) <= max(ratio_pp, abs(moved) / 2)


def movement(
    old: Kernel,
    new: Kernel,
    noise: Noise,
    ratio_pp: float = 2.0,
    upto: str | None = None,
    judged_at: str | None = None,
) -> Movement:
    """Each side's latency change from ``old`` to ``new`` and the cause of it.

    ``upto``: the stamp of the reference state ``old`` (:func:`reference_stamp`): each band is
    taken from the runs at or before it, so the run judged never widens its own band.
    ``judged_at``: the stamp of ``new``'s state; when its run ran in another environment than the
    reference's (a toolkit, a SoC, the bench's repeats), the cause is ``environment``: not compared.

    The bands are read only when they can matter: a side moved by more than the floor, or
    the ratio or the tier moved (and the change is shown with them). Otherwise both sides
    are within the floor, noise whatever the bands."""
    sides = {}
    for side in ("pto", "baseline"):
        before, after = _latencies(old, side), _latencies(new, side)
        first, last, count = _matched(before, after)
        sides[side] = (first, last, change_pct(before, after), count)
    pto, baseline = sides["pto"][2], sides["baseline"][2]
    pair = _ratio_pair(old, new)
    needed = (
        old.tier != new.tier
        or (pair is not None and abs(pair[1] - pair[0]) >= ratio_pp)
        or any(change is not None and abs(change) > noise.floor for change in (pto, baseline))
    )
    environment: tuple[tuple[str, str, str], ...] = ()
    if needed:
        pto_band, baseline_band = noise.band(new.name, "pto", upto), noise.band(new.name, "baseline", upto)
        environment = tuple(noise.environment_change(new.name, upto, judged_at))
    else:
        pto_band = baseline_band = noise.floor_band()
    if environment:
        cause = "environment"
    elif explained(old, new, pto, baseline, ratio_pp):
        cause = attribute(pto, baseline, pto_band.pct, baseline_band.pct)
    else:
        cause = "unknown"
    return Movement(
        pto_ms=(sides["pto"][0], sides["pto"][1]),
        baseline_ms=(sides["baseline"][0], sides["baseline"][1]),
        pto_change_pct=pto,
        baseline_change_pct=baseline,
        pto_band=pto_band,
        baseline_band=baseline_band,
        cause=cause,
        shapes=max(sides["pto"][3], sides["baseline"][3]),
        environment=environment,
    )


def range_only(kernel: Kernel) -> bool:
    """A kernel whose ratio is only a range (a state-matrix row): its middle is no median."""
    return (
        not any(v.ratio_pct is not None for v in kernel.variants)
        and kernel.ratio_min_pct is not None
        and kernel.ratio_max_pct is not None
    )


def _ratio_pair(old: Kernel, new: Kernel) -> tuple[float, float, str, str, str] | None:
    """Like with like: two medians, or two ranges (each by its middle) when a side has only one."""
    if old.ratio_median_pct is None or new.ratio_median_pct is None:
        return None
    if not (range_only(old) or range_only(new)):
        return old.ratio_median_pct, new.ratio_median_pct, pct(old.ratio_median_pct), pct(new.ratio_median_pct), ""
    if None in (old.ratio_min_pct, old.ratio_max_pct, new.ratio_min_pct, new.ratio_max_pct):
        return None
    low_old, high_old = old.ratio_min_pct or 0.0, old.ratio_max_pct or 0.0
    low_new, high_new = new.ratio_min_pct or 0.0, new.ratio_max_pct or 0.0
    return (
        (low_old + high_old) / 2,
        (low_new + high_new) / 2,
        _range_text(low_old, high_old),
        _range_text(low_new, high_new),
        N_("ratio range"),
    )


def _range_text(low: float, high: float) -> str:
    return pct(low) if round(low, 1) == round(high, 1) else f"{low:.1f}..{high:.1f}%"


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
    pair = _ratio_pair(old, new)
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
    elif rule == "side" and move is not None and _ratio_pair(old, new) is None:
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


def step_change(step: Step) -> Change:
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
