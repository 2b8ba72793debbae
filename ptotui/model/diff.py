"""What changed between two loads of the reports, and which changes are regressions."""

from __future__ import annotations

from dataclasses import dataclass

from ptotui.model.fmt import pct
from ptotui.model.i18n import N_, _
from ptotui.model.types import Kernel, ReportSet

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
    kind: str  # added, removed, tier, baseline_status, pto_status, class, ratio, correctness
    old: str | None
    new: str | None
    direction: int  # +1 better, -1 worse, 0 neither
    regression: bool

    def describe(self) -> str:
        """``kernel: what -> what``, in the language in force (tiers and statuses as codes)."""
        if self.kind == "added":
            return f"{self.kernel}: " + _("new kernel ({tier})").format(tier=self.new)
        if self.kind == "removed":
            return f"{self.kernel}: " + _("vanished from the reports (was {tier})").format(tier=self.old)
        label = _(_KIND_LABELS[self.kind]) if self.kind in _KIND_LABELS else self.kind
        return f"{self.kernel}: {label} {self.old} -> {self.new}"

    def as_dict(self) -> dict:
        return {
            "kernel": self.kernel,
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "direction": {1: "up", -1: "down", 0: "none"}[self.direction],
            "regression": self.regression,
        }


def _status_change(kind: str, name: str, old: str | None, new: str | None) -> Change | None:
    if old == new or old is None or new is None:
        return None
    worse = old == "ok" and new == "blocked"
    better = old == "blocked" and new == "ok"
    return Change(name, kind, old, new, 1 if better else -1 if worse else 0, worse)


def kernel_changes(old: Kernel, new: Kernel, ratio_pp: float = 2.0) -> list[Change]:
    changes: list[Change] = []
    name = new.name
    if old.tier != new.tier:
        delta = TIER_GOODNESS.get(new.tier, 0) - TIER_GOODNESS.get(old.tier, 0)
        changes.append(Change(name, "tier", old.tier, new.tier, (delta > 0) - (delta < 0), delta < 0))
    for kind in ("baseline_status", "pto_status"):
        change = _status_change(kind, name, getattr(old, kind), getattr(new, kind))
        if change:
            changes.append(change)
    if old.klass != new.klass and old.klass is not None and new.klass is not None:
        changes.append(Change(name, "class", old.klass, new.klass, 0, False))
    if old.pto_status == "ok" and new.pto_status == "ok":  # a side that did not run has no correctness
        if old.pto_correct is True and new.pto_correct is False:
            changes.append(Change(name, "correctness", "pass", "fail", -1, True))
        elif old.pto_correct is False and new.pto_correct is True:
            changes.append(Change(name, "correctness", "fail", "pass", 1, False))
    if old.ratio_median_pct is not None and new.ratio_median_pct is not None:
        moved = new.ratio_median_pct - old.ratio_median_pct
        if abs(moved) >= ratio_pp:
            changes.append(
                Change(
                    name,
                    "ratio",
                    pct(old.ratio_median_pct),
                    pct(new.ratio_median_pct),
                    1 if moved > 0 else -1,
                    moved < 0,
                )
            )
    return changes


def diff(old: ReportSet, new: ReportSet, ratio_pp: float = 2.0) -> list[Change]:
    """Every change from ``old`` to ``new``, kernels in the new order, removals last."""
    before, after = old.by_name(), new.by_name()
    changes: list[Change] = []
    for kernel in new.kernels:
        previous = before.get(kernel.name)
        if previous is kernel:
            continue  # the live loader hands unchanged kernels back as the same object
        if previous is None:
            changes.append(Change(kernel.name, "added", None, kernel.tier, 0, False))
        else:
            changes.extend(kernel_changes(previous, kernel, ratio_pp))
    for kernel in old.kernels:
        if kernel.name not in after:  # a kernel that vanished from the reports is a regression
            changes.append(Change(kernel.name, "removed", kernel.tier, None, -1, True))
    return changes


def regressed_kernels(changes: list[Change]) -> list[str]:
    """The kernels with at least one regression, each once (going blocked moves its tier,
    its status and its ratio: one kernel, one regression)."""
    return list(dict.fromkeys(c.kernel for c in changes if c.regression))


def direction_of(changes: list[Change]) -> int:
    """The net direction of one kernel's changes: worse wins over better."""
    directions = {c.direction for c in changes}
    if -1 in directions:
        return -1
    return 1 if 1 in directions else 0


def payload(old: ReportSet, new: ReportSet, changes: list[Change]) -> dict:
    """What ``ptotui diff --format json`` prints (and ``--on-regression`` hooks read)."""
    return {
        "schema": "ptotui.diff/1",
        "old": {"source": old.source, "generated_at": old.generated_at},
        "new": {"source": new.source, "generated_at": new.generated_at},
        "changes": [c.as_dict() for c in changes],
        "regressions": len(regressed_kernels(changes)),  # kernels, each once
        "regressed_kernels": regressed_kernels(changes),
        "warnings": [w.as_dict() for w in old.warnings + new.warnings],
    }
