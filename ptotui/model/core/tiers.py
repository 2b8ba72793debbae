"""Tiers, blocker layers and the derived numbers of a kernel.

The reading follows how the people who use these reports read them: a low ratio
is still a running kernel; a blocked baseline is the host's problem, not PTO's;
a baseline that fails its own correctness check does not demote PTO.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptotui.model.i18n import N_
from ptotui.model.types import Gap, Kernel, shared_if_empty

# Tier keys in display order (best first within the running kernels).
TIERS: tuple[str, ...] = (
    "high",
    "mid",
    "slow",
    "baseline-blocked",
    "correctness-gap",
    "pto-blocked",
    "both-blocked",
)

TIER_LABELS: dict[str, str] = {
    "high": "HIGH",
    "mid": "MID",
    "slow": "SLOW",
    "baseline-blocked": "BASELINE-BLOCKED",
    "correctness-gap": "CORRECTNESS",
    "pto-blocked": "PTO-BLOCKED",
    "both-blocked": "BOTH-BLOCKED",
}

LAYERS: tuple[str, ...] = ("ptodsl", "ptoas", "backend", "host", "correctness")
# The English names (also JSON and CSV values); shown through ``_()`` (model/i18n.py).
LAYER_LABELS: dict[str, str] = {
    "ptodsl": N_("PTODSL surface"),
    "ptoas": N_("PTOAS lowering"),
    "backend": N_("pto-isa/backend capability"),
    "host": N_("host baseline/runtime gap"),
    "correctness": N_("PTO correctness gap"),
}
_CLASS_LAYER = {
    "blocked by PTOAS lowering": "ptoas",
    "blocked by PTODSL surface": "ptodsl",
    "blocked by pto-isa/backend capability": "backend",
    "blocked by PTO correctness gap": "correctness",
    "blocked by host baseline/runtime gap": "host",
}
_COMPONENT_LAYER = {
    "ptodsl": "ptodsl",
    "ptoas": "ptoas",
    "pto-isa": "backend",
    "ptoisa": "backend",
    "runtime": "backend",
    "pto-stack": "backend",
    "backend": "backend",
    "ops-transformer": "host",
    "host": "host",
}


@dataclass(frozen=True)
class Thresholds:
    """Ratio thresholds (percent) for the performance tiers."""

    high: float = 70.0
    mid: float = 30.0


def component_layer(component: str | None) -> str | None:
    """Map a gap-board component (ptodsl, PTOAS, pto-isa, ...) to a blocker layer."""
    if not component:
        return None
    return _COMPONENT_LAYER.get(component.strip().lower())


def _is_blocked(status: str | None) -> bool:
    return (status or "").strip().lower() == "blocked"


def tier_of(kernel: Kernel, thresholds: Thresholds = Thresholds()) -> str:
    """The kernel's tier, by the rules in the order they are read."""
    if _is_blocked(kernel.pto_status):
        return "both-blocked" if _is_blocked(kernel.baseline_status) else "pto-blocked"
    if _is_blocked(kernel.baseline_status):
        return "baseline-blocked"
    if kernel.klass == "blocked by PTO correctness gap":
        return "correctness-gap"
    pto_correct = kernel.pto_correct
    if pto_correct is False:
        return "correctness-gap"
    if pto_correct is None and kernel.klass is None and any(not v.both_correct for v in kernel.variants):
        # Only a combined "blocked/fail" is known and no class says otherwise:
        # flag it rather than hide a possible PTO correctness failure.
        return "correctness-gap"
    ratio = kernel.ratio_median_pct
    if ratio is None:
        return "slow"
    if ratio >= thresholds.high:
        return "high"
    if ratio >= thresholds.mid:
        return "mid"
    return "slow"


def blocker_layer_of(kernel: Kernel) -> str | None:
    """Which layer holds a blocked kernel back; None for a working (HIGH/MID/SLOW) one.

    A working kernel's gap ids are open work, not a blocker (ptotui.model.core.blockers).
    """
    return blocker_layer_and_evidence(kernel)[0]


def blocker_layer_and_evidence(kernel: Kernel) -> tuple[str | None, str | None]:
    """The blocker layer and what names it, so a text about it can say so truly:
    ``class`` (the state matrix), ``tier`` (implied by the tier), ``gap`` (open gaps on
    the gap board or state matrix), ``reason`` (the PTO reason names PTOAS) or
    ``default`` (nothing names it; PTO-blocked defaults to the backend)."""
    if kernel.tier in ("high", "mid", "slow"):
        return None, None
    layer = _CLASS_LAYER.get(kernel.klass or "")
    if layer:
        return layer, "class"
    if kernel.tier == "baseline-blocked":
        return "host", "tier"
    if kernel.tier == "correctness-gap":
        return "correctness", "tier"
    known = [layer for layer in _open_gap_layers(kernel) if layer]
    if kernel.tier in ("pto-blocked", "both-blocked"):
        pto_side = [layer for layer in known if layer != "host"]
        if pto_side:
            return pto_side[0], "gap"
        if "ptoas" in (kernel.pto_reason or "").lower():
            return "ptoas", "reason"
        if known and not kernel.pto_reason:
            return known[0], "gap"
        return "backend", "default"
    return (known[0], "gap") if known else (None, None)


def _open_gap_layers(kernel: Kernel) -> list[str | None]:
    """Layers of the kernel's gaps that are not resolved, in gap-id order.

    The gap board's status wins; the state matrix's component list (aligned with
    gap_ids) only speaks for ids the board does not know.
    """
    board = {g.id: g for g in kernel.gaps}
    layers = []
    for index, gap_id in enumerate(kernel.gap_ids):
        gap = board.get(gap_id)
        if gap is not None:
            if gap.status != "resolved":
                layers.append(component_layer(gap.component))
        elif index < len(kernel.gap_components):
            layers.append(component_layer(kernel.gap_components[index]))
    return layers


def parse_range(text: str | None) -> tuple[float, float] | None:
    """Parse the state matrix's ``42.3%..42.5%`` into (42.3, 42.5)."""
    if not text or ".." not in text:
        return None
    low, _, high = text.partition("..")
    try:
        ends = float(low.strip().rstrip("%")), float(high.strip().rstrip("%"))
    except ValueError:
        return None
    # The readers drop an absurd range with a warning; a range set by hand is held to the same bounds.
    return ends if all(0.0 <= end <= 1e6 for end in ends) else None


def median(values: list[float]) -> float:
    """The median, without importing the statistics module on the start-up path
    (benchmarks/startup_breakdown.py, stage cli+model)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _median(values: list[float]) -> float | None:
    return median(values) if values else None


def classify(kernel: Kernel, gaps: dict[str, Gap], thresholds: Thresholds = Thresholds()) -> Kernel:
    """Fill the derived fields of ``kernel`` in place and return it."""
    ratios = [v.ratio_pct for v in kernel.variants if v.ratio_pct is not None]
    if ratios:
        kernel.ratio_min_pct = min(ratios)
        kernel.ratio_max_pct = max(ratios)
        kernel.ratio_median_pct = median(ratios)
    elif not kernel.variants:  # a state-matrix-only kernel: its range is all we know
        parsed = parse_range(kernel.state_ratio_range)
        if parsed:
            kernel.ratio_min_pct, kernel.ratio_max_pct = parsed
            kernel.ratio_median_pct = (parsed[0] + parsed[1]) / 2
        else:
            kernel.ratio_min_pct = kernel.ratio_max_pct = kernel.ratio_median_pct = None
    else:
        kernel.ratio_min_pct = kernel.ratio_max_pct = kernel.ratio_median_pct = None
    kernel.baseline_ms = _median([v.baseline_ms for v in kernel.variants if v.baseline_ms is not None])
    kernel.pto_ms = _median([v.pto_ms for v in kernel.variants if v.pto_ms is not None])
    kernel.gaps = shared_if_empty([gaps[g] for g in kernel.gap_ids if g in gaps])
    kernel.tier = tier_of(kernel, thresholds)
    kernel.blocker_layer = blocker_layer_of(kernel)
    return kernel


def tier_rank(tier: str) -> int:
    try:
        return TIERS.index(tier)
    except ValueError:
        return len(TIERS)
