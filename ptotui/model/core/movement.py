"""Which side of a kernel moved between two states, and by how much against its own noise.

A ratio is Baseline / PTO, so it falls when PTO slows *or* when the baseline speeds up. Each
side's latency change (shapes matched by shape, then the median over the shapes) is held
against that side's band (:mod:`ptotui.model.core.noise`), and the move is put down to the side
that moved beyond it (:func:`attribute`); :mod:`ptotui.model.core.diff` turns the moves into the
changes it counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ptotui.model.core.fmt import pct
from ptotui.model.core.noise import Band, Noise, change_pct, shape_key
from ptotui.model.core.tiers import median
from ptotui.model.i18n import N_, _
from ptotui.model.types import Kernel

BASELINE_CAUSES = ("baseline-faster", "baseline-slower", "both")

VERDICTS = {
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
        return _(VERDICTS[self.cause])

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
    pair = ratio_pair(old, new)
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


def ratio_pair(old: Kernel, new: Kernel) -> tuple[float, float, str, str, str] | None:
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
