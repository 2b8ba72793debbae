"""Plain-words reading of a kernel's status, in the language in force (the catalogue: ptotui/locale).

This is the knowledge the people who read these reports carry: a low ratio is
not a failure, a blocked baseline is the host's problem, a green kernel can
still be scalar-heavy, and each blocker belongs to one layer.

Every sentence must be true of the kernel it describes, so each one is chosen
by the facts it states: a latency is only quoted when there is one, a layer's
paragraph only for that layer, "the class says" only when there is a class,
"usable" only for a kernel whose PTO side runs and is not known to be wrong, and
a working kernel's gaps are open work, never a blocker layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptotui.model.core.blockers import open_gap_ids
from ptotui.model.core.fmt import ratio_range
from ptotui.model.core.tiers import LAYER_LABELS, Thresholds, blocker_layer_and_evidence
from ptotui.model.i18n import N_, _, language
from ptotui.model.types import Kernel

WORKING = ("high", "mid", "slow")


@dataclass(frozen=True)
class Explanation:
    verdict: str  # one line: is this a failure?
    reading: list[str]  # why, in plain words
    next_steps: list[str]  # what to look at next


_MESSAGES = {
    # verdicts
    "high.v": N_("Not a failure: PTO runs at or near the vendor baseline's speed."),
    "mid.v": N_("Not a failure: PTO runs, with headroom left."),
    "slow.v": N_("Not a failure: PTO runs, but slowly."),
    "noratio.v": N_("PTO runs, but the report gives no Baseline / PTO ratio, so its speed is not known."),
    "baseline-blocked.v": N_("Not a PTO failure: the host has no usable baseline."),
    "baseline-blocked-wrong.v": N_("The host has no usable baseline, and PTO fails its own correctness check."),
    "pto-blocked.v": N_("A PTO blocker: the baseline runs, PTO does not yet."),
    "pto-partly.v": N_("A PTO blocker: the baseline runs; PTO is blocked on {blocked} of {shapes} shapes."),
    "both-blocked.v": N_("Blocked on both sides: nothing to compare yet."),
    "correctness-gap.v": N_("A PTO correctness failure: it runs, but its output is wrong."),
    "correctness-unknown.v": N_(
        "Possibly a PTO correctness failure: a shape failed its check, and the summary does not say which side."
    ),
    "correctness-class.v": N_("A PTO correctness gap, by the state matrix's class."),
    # readings
    "high.r": N_("Baseline / PTO is {ratio}, median {median} (at or above {high:.0f}%)."),
    "high.slower": N_("PTO takes somewhat longer than the hand-written operator."),
    "high.faster": N_("PTO is at least as fast as the hand-written operator."),
    "mid.r": N_(
        "Baseline / PTO is {ratio}, median {median} ({mid:.0f}–{high:.0f}%): PTO is stable but takes clearly longer than the baseline."
    ),
    "slow.r": N_(
        "Baseline / PTO is {ratio}, median {median} (under {mid:.0f}%). A low ratio is still a working kernel; such kernels are often the clearest teaching and triage material."
    ),
    "noratio.r": N_(
        "Without a ratio the tier cannot say how fast PTO is; it is listed with SLOW until a ratio is reported."
    ),
    "correct": N_("PTO's output matches the reference on every shape."),
    "baseline-blocked.ms": N_(
        "PTO is written and runs ({pto_ms} ms median); the vendor baseline cannot run on this host, so there is no ratio."
    ),
    "latency-stands": N_("PTO's own latency still stands, only the comparison is missing."),
    "baseline-blocked.noms": N_(
        "PTO is reported as running, but this report has no PTO latency for it; the vendor baseline cannot run on this host, so there is no ratio either."
    ),
    "baseline-blocked.nopto": N_(
        "The report does not say whether PTO runs; the vendor baseline cannot run on this host, so there is no ratio."
    ),
    "pto-wrong": N_(
        "PTO's output does not match the reference on {failed} of {shapes} shapes: fix that before its latency counts."
    ),
    "pto-blocked.r": N_("The baseline works on this host, so the gap is on the PTO side."),
    "pto-blocked-host.r": N_(
        "The baseline works on this host, yet the class puts what stops PTO in the host's runtime."
    ),
    "both-blocked.r": N_("Neither the baseline nor PTO runs here."),
    "layer.ptodsl": N_("The blocker is in the PTODSL surface: the kernel cannot be expressed in the Python DSL yet."),
    "layer.ptoas": N_("The blocker is in PTOAS lowering: the .pto exists, but lowering it fails."),
    "layer.backend": N_(
        "The blocker is in the pto-isa/backend capability: it can sit below the DSL and the compiler, in the runtime, the backend contract or the hardware's capability."
    ),
    "layer.host": N_("The blocker is in the host baseline/runtime layer."),
    "layer.correctness": N_("The blocker is a PTO correctness gap."),
    "why.class": N_("The state matrix's class says so: {klass}."),
    "why.gap": N_("The open gaps say so: {gaps}."),
    "why.reason": N_("No state-matrix class or PTO-side gap names the layer; the PTO reason mentions PTOAS."),
    "why.default": N_(
        "No state-matrix class or PTO-side gap names the layer, and the PTO reason does not mention PTOAS; it is taken to be the backend until one does."
    ),
    "correctness-gap.r": N_(
        "PTO's output does not match the reference within tolerance on {failed} of {shapes} shapes."
    ),
    "correctness-unknown.r": N_(
        "A shape where both sides ran failed a correctness check, and the report does not say which side; with no state-matrix class or per-side result to say otherwise, it is counted against PTO."
    ),
    "correctness-class.r": N_("The state matrix classes it as blocked by a PTO correctness gap: {klass}."),
    "correctness-classed.r": N_(
        "A shape failed a correctness check and the report does not say which side; the state matrix's class ({klass}) is taken to mean PTO's output is right."
    ),
    "speed.ratio": N_("Its speed ({ratio}) does not count until the output is right."),
    "speed.none": N_("Its speed does not count until the output is right."),
    "scalar.usable": N_(
        "Scalar-heavy: the hot path still has load_scalar / store_scalar / scalar_select. Usable, but not yet a clean tile-first migration."
    ),
    "scalar.blocked": N_(
        "Scalar-heavy as well: the hot path still has load_scalar / store_scalar / scalar_select, so once PTO works it will still not be a clean tile-first migration."
    ),
    "baseline_incorrect": N_(
        "The baseline fails its own correctness check on this host. That does not demote PTO: the tier is read from PTO's side."
    ),
    "stale_class": N_("The state matrix still classes it as {klass}, but the regression report shows PTO running."),
    "open_gaps": N_("Open work, not a blocker: {gaps}."),
    # next steps
    "high.n": N_("Keep it as a reference port; watch the ratio history for regressions."),
    "mid.n": N_("Compare the per-variant ratios: a shape that lags the others usually points at tiling or block use."),
    "slow.n": N_("Look at the scalar hot path and block use first; then the open gaps, if any."),
    "noratio.n": N_("Check the per-variant latencies in report.json; the ratio is baseline ms / PTO ms."),
    "baseline-blocked.n": N_(
        "Read the baseline reason: it is a host or runtime problem (entrypoint, format, driver), not PTO's."
    ),
    "pto-blocked.n": N_("Read the PTO reason and the gap board entries; the owner is the {layer} layer."),
    "both-blocked.n": N_(
        "If the PTO reason says the port waits for the baseline, unblock the baseline first; the PTO side's owner is the {layer} layer."
    ),
    "correctness-gap.n": N_("Check max_abs_diff against atol/rtol in report.json, per variant, and the gap ids."),
}

# The labels of the detail screen's facts table.
FACT_LABELS = {
    "tier": N_("tier"),
    "class": N_("class"),
    "layer": N_("layer"),
    "family": N_("family / wave / phase"),
    "status": N_("baseline / PTO"),
    "ratio": N_("Baseline / PTO ratio"),
    "median": N_("median"),
    "ms": N_("baseline ms / PTO ms"),
    "ms_note": N_("median over variants"),
    "correctness": N_("correctness (baseline / PTO)"),
    "block_use": N_("block use"),
    "inventory": N_("inventory status"),
    "open_gaps": N_("open gaps"),
}


def fact_labels(lang: str | None = None) -> dict[str, str]:
    """The facts table's labels in ``lang`` (default: the language in force)."""
    return {key: _(label, lang) for key, label in FACT_LABELS.items()}


def layer_name(layer: str | None, lang: str | None = None) -> str:
    if not layer:
        return "—"
    return _(LAYER_LABELS[layer], lang) if layer in LAYER_LABELS else layer


def explain(kernel: Kernel, lang: str | None = None, thresholds: Thresholds = Thresholds()) -> Explanation:
    """The verdict, the reading and the next step for ``kernel``, each sentence true of it,
    in ``lang`` (default: the language in force)."""
    return _Reading(kernel, thresholds, lang or language()).build()


class _Reading:
    """Picks the sentences for one kernel; each method adds the ones its facts allow."""

    def __init__(self, kernel: Kernel, thresholds: Thresholds, lang: str) -> None:
        self.k = kernel
        self.lang = lang
        self.layer, self.evidence = blocker_layer_and_evidence(kernel)
        self.shapes = len(kernel.variants)
        self.blocked = sum(1 for v in kernel.variants if v.pto_status == "blocked")
        self.values: dict[str, object] = {
            "ratio": ratio_range(kernel) if kernel.ratio_min_pct is not None else "",
            "median": f"{kernel.ratio_median_pct:.1f}%" if kernel.ratio_median_pct is not None else "",
            "high": thresholds.high,
            "mid": thresholds.mid,
            "pto_ms": f"{kernel.pto_ms:.4f}" if kernel.pto_ms is not None else "",
            "layer": layer_name(self.layer, lang),
            "klass": kernel.klass or "",
            "shapes": self.shapes,
            "blocked": self.blocked,
            "failed": sum(1 for v in kernel.variants if v.pto_correct is False),
            "gaps": ", ".join(open_gap_ids(kernel)),
        }
        self.lines: list[str] = []

    def say(self, key: str) -> str:
        return _(_MESSAGES[key], self.lang).format(**self.values)

    def add(self, key: str) -> None:
        self.lines.append(self.say(key))

    def build(self) -> Explanation:
        tier = self.k.tier
        if tier in WORKING:
            verdict, step = self._working()
        elif tier == "baseline-blocked":
            verdict, step = self._baseline_blocked()
        elif tier == "correctness-gap":
            verdict, step = self._correctness()
        else:
            verdict, step = self._blocked()
        self._common()
        return Explanation(verdict, self.lines, [step])

    def _working(self) -> tuple[str, str]:
        k, tier = self.k, self.k.tier
        if k.ratio_median_pct is None:
            self.add("noratio.r")
            verdict, step = self.say("noratio.v"), self.say("noratio.n")
        else:
            self.add(f"{tier}.r")
            if tier == "high":
                self.add("high.faster" if k.ratio_median_pct >= 100 else "high.slower")
            verdict, step = self.say(f"{tier}.v"), self.say(f"{tier}.n")
        if k.pto_correct is True:
            self.add("correct")
        elif k.pto_correct is None and any(not v.both_correct for v in k.variants):
            self.add("correctness-classed.r")  # only the class kept it out of CORRECTNESS
        if (k.klass or "").startswith("blocked by"):
            self.add("stale_class")
        if open_gap_ids(k):
            self.add("open_gaps")
        return verdict, step

    def _baseline_blocked(self) -> tuple[str, str]:
        k = self.k
        if k.pto_status != "ok":
            self.add("baseline-blocked.nopto")
        else:
            self.add("baseline-blocked.ms" if k.pto_ms is not None else "baseline-blocked.noms")
        wrong = k.pto_correct is False
        if wrong:
            self.add("pto-wrong")
        elif k.pto_status == "ok" and k.pto_ms is not None:
            self.add("latency-stands")
        verdict = self.say("baseline-blocked-wrong.v" if wrong else "baseline-blocked.v")
        return verdict, self.say("baseline-blocked.n")

    def _correctness(self) -> tuple[str, str]:
        k = self.k
        if k.pto_correct is False:
            kind = "correctness-gap"
        elif k.klass == "blocked by PTO correctness gap":
            kind = "correctness-class"
        else:
            kind = "correctness-unknown"
        self.add(f"{kind}.r")
        self.add("speed.ratio" if k.ratio_min_pct is not None else "speed.none")
        return self.say(f"{kind}.v"), self.say("correctness-gap.n")

    def _blocked(self) -> tuple[str, str]:
        tier = self.k.tier
        self.add("pto-blocked-host.r" if tier == "pto-blocked" and self.layer == "host" else f"{tier}.r")
        if self.layer:
            self.add(f"layer.{self.layer}")
        if self.evidence in ("class", "gap", "reason", "default"):
            if self.evidence != "gap" or self.values["gaps"]:
                self.add(f"why.{self.evidence}")
        partly = tier == "pto-blocked" and 0 < self.blocked < self.shapes
        verdict = self.say("pto-partly.v" if partly else f"{tier}.v")
        return verdict, self.say(f"{tier}.n")

    def _common(self) -> None:
        k = self.k
        if k.scalar_heavy:
            self.add("scalar.usable" if self._usable() else "scalar.blocked")
        if k.baseline_correct is False and k.baseline_status == "ok":
            self.add("baseline_incorrect")

    def _usable(self) -> bool:
        """PTO runs and is not known to be wrong: what "usable" claims."""
        k = self.k
        if k.tier in WORKING:
            return True
        return k.tier == "baseline-blocked" and k.pto_status == "ok" and k.pto_correct is not False
