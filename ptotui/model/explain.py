"""Plain-words reading of a kernel's status, in English and Chinese.

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

from ptotui.model.blockers import open_gap_ids
from ptotui.model.fmt import ratio_range
from ptotui.model.tiers import LAYER_LABELS, Thresholds, blocker_layer_and_evidence
from ptotui.model.types import Kernel

WORKING = ("high", "mid", "slow")


@dataclass(frozen=True)
class Explanation:
    verdict: str  # one line: is this a failure?
    reading: list[str]  # why, in plain words
    next_steps: list[str]  # what to look at next


_EN = {
    # verdicts
    "high.v": "Not a failure: PTO runs at or near the vendor baseline's speed.",
    "mid.v": "Not a failure: PTO runs, with headroom left.",
    "slow.v": "Not a failure: PTO runs, but slowly.",
    "noratio.v": "PTO runs, but the report gives no Baseline / PTO ratio, so its speed is not known.",
    "baseline-blocked.v": "Not a PTO failure: the host has no usable baseline.",
    "baseline-blocked-wrong.v": "The host has no usable baseline, and PTO fails its own correctness check.",
    "pto-blocked.v": "A PTO blocker: the baseline runs, PTO does not yet.",
    "pto-partly.v": "A PTO blocker: the baseline runs; PTO is blocked on {blocked} of {shapes} shapes.",
    "both-blocked.v": "Blocked on both sides: nothing to compare yet.",
    "correctness-gap.v": "A PTO correctness failure: it runs, but its output is wrong.",
    "correctness-unknown.v": "Possibly a PTO correctness failure: a shape failed its check, and the summary does not say which side.",
    "correctness-class.v": "A PTO correctness gap, by the state matrix's class.",
    # readings
    "high.r": "Baseline / PTO is {ratio}, median {median} (at or above {high:.0f}%).",
    "high.slower": "PTO takes somewhat longer than the hand-written operator.",
    "high.faster": "PTO is at least as fast as the hand-written operator.",
    "mid.r": "Baseline / PTO is {ratio}, median {median} ({mid:.0f}–{high:.0f}%): PTO is stable but takes clearly longer than the baseline.",
    "slow.r": "Baseline / PTO is {ratio}, median {median} (under {mid:.0f}%). A low ratio is still a working kernel; such kernels are often the clearest teaching and triage material.",
    "noratio.r": "Without a ratio the tier cannot say how fast PTO is; it is listed with SLOW until a ratio is reported.",
    "correct": "PTO's output matches the reference on every shape.",
    "baseline-blocked.ms": "PTO is written and runs ({pto_ms} ms median); the vendor baseline cannot run on this host, so there is no ratio.",
    "latency-stands": "PTO's own latency still stands, only the comparison is missing.",
    "baseline-blocked.noms": "PTO is reported as running, but this report has no PTO latency for it; the vendor baseline cannot run on this host, so there is no ratio either.",
    "baseline-blocked.nopto": "The report does not say whether PTO runs; the vendor baseline cannot run on this host, so there is no ratio.",
    "pto-wrong": "PTO's output does not match the reference on {failed} of {shapes} shapes: fix that before its latency counts.",
    "pto-blocked.r": "The baseline works on this host, so the gap is on the PTO side.",
    "pto-blocked-host.r": "The baseline works on this host, yet the class puts what stops PTO in the host's runtime.",
    "both-blocked.r": "Neither the baseline nor PTO runs here.",
    "layer.ptodsl": "The blocker is in the PTODSL surface: the kernel cannot be expressed in the Python DSL yet.",
    "layer.ptoas": "The blocker is in PTOAS lowering: the .pto exists, but lowering it fails.",
    "layer.backend": "The blocker is in the pto-isa/backend capability: it can sit below the DSL and the compiler, in the runtime, the backend contract or the hardware's capability.",
    "layer.host": "The blocker is in the host baseline/runtime layer.",
    "layer.correctness": "The blocker is a PTO correctness gap.",
    "why.class": "The state matrix's class says so: {klass}.",
    "why.gap": "The open gaps say so: {gaps}.",
    "why.reason": "No state-matrix class or PTO-side gap names the layer; the PTO reason mentions PTOAS.",
    "why.default": "No state-matrix class or PTO-side gap names the layer, and the PTO reason does not mention PTOAS; it is taken to be the backend until one does.",
    "correctness-gap.r": "PTO's output does not match the reference within tolerance on {failed} of {shapes} shapes.",
    "correctness-unknown.r": "A shape where both sides ran failed a correctness check, and the report does not say which side; with no state-matrix class or per-side result to say otherwise, it is counted against PTO.",
    "correctness-class.r": "The state matrix classes it as blocked by a PTO correctness gap: {klass}.",
    "correctness-classed.r": "A shape failed a correctness check and the report does not say which side; the state matrix's class ({klass}) is taken to mean PTO's output is right.",
    "speed.ratio": "Its speed ({ratio}) does not count until the output is right.",
    "speed.none": "Its speed does not count until the output is right.",
    "scalar.usable": "Scalar-heavy: the hot path still has load_scalar / store_scalar / scalar_select. Usable, but not yet a clean tile-first migration.",
    "scalar.blocked": "Scalar-heavy as well: the hot path still has load_scalar / store_scalar / scalar_select, so once PTO works it will still not be a clean tile-first migration.",
    "baseline_incorrect": "The baseline fails its own correctness check on this host. That does not demote PTO: the tier is read from PTO's side.",
    "stale_class": "The state matrix still classes it as {klass}, but the regression report shows PTO running.",
    "open_gaps": "Open work, not a blocker: {gaps}.",
    # next steps
    "high.n": "Keep it as a reference port; watch the ratio history for regressions.",
    "mid.n": "Compare the per-variant ratios: a shape that lags the others usually points at tiling or block use.",
    "slow.n": "Look at the scalar hot path and block use first; then the open gaps, if any.",
    "noratio.n": "Check the per-variant latencies in report.json; the ratio is baseline ms / PTO ms.",
    "baseline-blocked.n": "Read the baseline reason: it is a host or runtime problem (entrypoint, format, driver), not PTO's.",
    "pto-blocked.n": "Read the PTO reason and the gap board entries; the owner is the {layer} layer.",
    "both-blocked.n": "If the PTO reason says the port waits for the baseline, unblock the baseline first; the PTO side's owner is the {layer} layer.",
    "correctness-gap.n": "Check max_abs_diff against atol/rtol in report.json, per variant, and the gap ids.",
}

_ZH = {
    "high.v": "不是失败：PTO 的速度已达到或接近厂商基线。",
    "mid.v": "不是失败：PTO 可运行，仍有优化空间。",
    "slow.v": "不是失败：PTO 可运行，只是较慢。",
    "noratio.v": "PTO 可运行，但报告没有给出 Baseline / PTO 比值，因此速度未知。",
    "baseline-blocked.v": "不是 PTO 的失败：本机没有可用的基线。",
    "baseline-blocked-wrong.v": "本机没有可用的基线，并且 PTO 未通过其自身的正确性检查。",
    "pto-blocked.v": "PTO 阻塞：基线可运行，PTO 暂不可运行。",
    "pto-partly.v": "PTO 阻塞：基线可运行；PTO 在 {shapes} 个输入形状中有 {blocked} 个阻塞。",
    "both-blocked.v": "两侧均阻塞：暂无可比较的数据。",
    "correctness-gap.v": "PTO 正确性失败：能运行，但输出错误。",
    "correctness-unknown.v": "可能是 PTO 正确性失败：某个输入形状未通过检查，汇总未说明是哪一侧。",
    "correctness-class.v": "按状态矩阵的分类，这是 PTO 正确性缺口。",
    "high.r": "Baseline / PTO 比值为 {ratio}，中位 {median}（不低于 {high:.0f}%）。",
    "high.slower": "PTO 耗时略多于手写算子。",
    "high.faster": "PTO 至少与手写算子一样快。",
    "mid.r": "比值为 {ratio}，中位 {median}（{mid:.0f}–{high:.0f}%）：PTO 稳定，但耗时明显多于基线。",
    "slow.r": "比值为 {ratio}，中位 {median}（低于 {mid:.0f}%）。比值低仍是可运行的算子；这类算子往往是最好的教学与排查材料。",
    "noratio.r": "没有比值，等级无法说明 PTO 有多快；在报告给出比值之前，暂列为 SLOW。",
    "correct": "PTO 在所有输入形状上的输出均与参考一致。",
    "baseline-blocked.ms": "PTO 已实现并可运行（中位 {pto_ms} ms）；厂商基线在本机无法运行，因此没有比值。",
    "latency-stands": "PTO 自身的时延依然有效，只是缺少对比。",
    "baseline-blocked.noms": "报告称 PTO 可运行，但没有给出 PTO 时延；厂商基线在本机无法运行，因此也没有比值。",
    "baseline-blocked.nopto": "报告未说明 PTO 是否可运行；厂商基线在本机无法运行，因此没有比值。",
    "pto-wrong": "在 {shapes} 个输入形状中，有 {failed} 个 PTO 输出与参考不一致：修复之前，其时延不作数。",
    "pto-blocked.r": "基线在本机可用，因此缺口在 PTO 一侧。",
    "pto-blocked-host.r": "基线在本机可用，但分类把阻碍 PTO 的原因归于主机运行时。",
    "both-blocked.r": "基线和 PTO 在此均无法运行。",
    "layer.ptodsl": "阻塞位于 PTODSL 表达层：该算子暂时无法用 Python DSL 表达。",
    "layer.ptoas": "阻塞位于 PTOAS 降级（lowering）：.pto 已生成，但降级失败。",
    "layer.backend": "阻塞位于 pto-isa/后端能力：可能在 DSL 和编译器之下，在运行时、后端契约或硬件能力中。",
    "layer.host": "阻塞位于主机基线/运行时层。",
    "layer.correctness": "阻塞是 PTO 正确性缺口。",
    "why.class": "依据是状态矩阵的分类：{klass}。",
    "why.gap": "依据是未关闭的缺口：{gaps}。",
    "why.reason": "没有状态矩阵分类或 PTO 一侧的缺口指明所在层；PTO 原因中提到了 PTOAS。",
    "why.default": "没有状态矩阵分类或 PTO 一侧的缺口指明所在层，PTO 原因也未提到 PTOAS；在有依据之前，按后端处理。",
    "correctness-gap.r": "在 {shapes} 个输入形状中，有 {failed} 个 PTO 输出超出参考容差。",
    "correctness-unknown.r": "一个两侧都运行了的输入形状未通过正确性检查，报告未说明是哪一侧；在状态矩阵分类或分侧结果给出结论之前，按 PTO 失败处理。",
    "correctness-class.r": "状态矩阵将其归类为 PTO 正确性缺口：{klass}。",
    "correctness-classed.r": "某个输入形状未通过正确性检查，报告未说明是哪一侧；按状态矩阵的分类（{klass}），视为 PTO 输出正确。",
    "speed.ratio": "在输出正确之前，其速度（{ratio}）不作数。",
    "speed.none": "在输出正确之前，其速度不作数。",
    "scalar.usable": "标量偏重：热路径仍有 load_scalar / store_scalar / scalar_select。可用，但还不是干净的 tile-first 迁移。",
    "scalar.blocked": "同时标量偏重：热路径仍有 load_scalar / store_scalar / scalar_select，即使 PTO 跑通，也还不是干净的 tile-first 迁移。",
    "baseline_incorrect": "基线在本机未通过其自身的正确性检查。这不会降低 PTO 的等级：等级按 PTO 一侧判定。",
    "stale_class": "状态矩阵仍将其归类为 {klass}，但回归报告显示 PTO 可运行。",
    "open_gaps": "未关闭的缺口（待办，不是阻塞）：{gaps}。",
    "high.n": "可作为参考移植；关注比值历史，防止回退。",
    "mid.n": "对比各输入形状的比值：落后的形状通常指向切分（tiling）或核（block）利用问题。",
    "slow.n": "先看标量热路径和核利用，再看未关闭的缺口（如有）。",
    "noratio.n": "在 report.json 中查看各输入形状的时延；比值即基线 ms / PTO ms。",
    "baseline-blocked.n": "查看基线原因：这是主机或运行时问题（入口、格式、驱动），不是 PTO 的问题。",
    "pto-blocked.n": "查看 PTO 原因和缺口看板条目；负责层为 {layer}。",
    "both-blocked.n": "若 PTO 原因说明移植在等待基线，请先解决基线问题；PTO 一侧的负责层为 {layer}。",
    "correctness-gap.n": "在 report.json 中逐个形状对比 max_abs_diff 与 atol/rtol，并查看缺口编号。",
}
_TEXT = {"en": _EN, "zh": _ZH}

_LAYER_ZH = {
    "ptodsl": "PTODSL 表达层",
    "ptoas": "PTOAS 降级（lowering）",
    "backend": "pto-isa/后端能力",
    "host": "主机基线/运行时",
    "correctness": "PTO 正确性",
}

# The labels of the detail screen's facts table.
FACT_LABELS = {
    "en": {
        "tier": "tier",
        "class": "class",
        "layer": "layer",
        "family": "family / wave / phase",
        "status": "baseline / PTO",
        "ratio": "Baseline / PTO ratio",
        "median": "median",
        "ms": "baseline ms / PTO ms",
        "ms_note": "median over variants",
        "correctness": "correctness (baseline / PTO)",
        "block_use": "block use",
        "inventory": "inventory status",
        "open_gaps": "open gaps",
    },
    "zh": {
        "tier": "等级",
        "class": "分类",
        "layer": "阻塞层",
        "family": "族 / 批次 / 阶段",
        "status": "基线 / PTO",
        "ratio": "Baseline / PTO 比值",
        "median": "中位",
        "ms": "基线 ms / PTO ms",
        "ms_note": "各输入形状的中位数",
        "correctness": "正确性（基线 / PTO）",
        "block_use": "核利用",
        "inventory": "清单状态",
        "open_gaps": "未关闭的缺口",
    },
}


def fact_labels(lang: str = "en") -> dict[str, str]:
    return FACT_LABELS.get(lang, FACT_LABELS["en"])


def layer_name(layer: str | None, lang: str = "en") -> str:
    if not layer:
        return "—"
    return _LAYER_ZH.get(layer, layer) if lang == "zh" else LAYER_LABELS.get(layer, layer)


def explain(kernel: Kernel, lang: str = "en", thresholds: Thresholds = Thresholds()) -> Explanation:
    """The verdict, the reading and the next step for ``kernel``, each sentence true of it."""
    text = _TEXT.get(lang, _EN)
    reading = _Reading(kernel, text, thresholds, lang)
    return reading.build()


class _Reading:
    """Picks the sentences for one kernel; each method adds the ones its facts allow."""

    def __init__(self, kernel: Kernel, text: dict[str, str], thresholds: Thresholds, lang: str) -> None:
        self.k = kernel
        self.text = text
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
        return self.text[key].format(**self.values)

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
