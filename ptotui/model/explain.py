"""Plain-words reading of a kernel's status, in English and Chinese.

This is the knowledge the people who read these reports carry: a low ratio is
not a failure, a blocked baseline is the host's problem, a green kernel can
still be scalar-heavy, and each blocker belongs to one layer.
"""

from __future__ import annotations

from dataclasses import dataclass

from ptotui.model.export import ratio_range
from ptotui.model.tiers import LAYER_LABELS, Thresholds
from ptotui.model.types import Kernel

LANGS = ("en", "zh")


@dataclass(frozen=True)
class Explanation:
    verdict: str  # one line: is this a failure?
    reading: list[str]  # why, in plain words
    next_steps: list[str]  # what to look at next


_TEXT = {
    "en": {
        "high.v": "Not a failure: PTO runs close to the vendor baseline.",
        "high.r": "Baseline / PTO is {ratio}, median {median} (at or above {high:.0f}%): PTO takes little more time than the hand-written operator.",
        "high.n": "Keep it as a reference port; watch the ratio history for regressions.",
        "mid.v": "Not a failure: PTO runs, correct, with headroom left.",
        "mid.r": "Baseline / PTO is {ratio}, median {median} ({mid:.0f}–{high:.0f}%): PTO is correct and stable but takes clearly longer than the baseline.",
        "mid.n": "Compare the per-variant ratios: a shape that lags the others usually points at tiling or block use.",
        "slow.v": "Not a failure: PTO runs and is correct, but slowly.",
        "slow.r": "Baseline / PTO is {ratio}, median {median} (under {mid:.0f}%). A low ratio is still a working, correct kernel; such kernels are often the clearest teaching and triage material.",
        "slow.n": "Look at the scalar hot path and block use first; then the gaps, if any.",
        "baseline-blocked.v": "Not a PTO failure: the host has no usable baseline.",
        "baseline-blocked.r": "PTO is written and runs ({pto_ms} ms); the vendor baseline cannot run on this host, so there is no ratio. PTO's own latency still stands, only the comparison is missing.",
        "baseline-blocked.n": "Read the baseline reason: it is a host or runtime problem (entrypoint, format, driver), not PTO's.",
        "pto-blocked.v": "A PTO blocker: the baseline runs, PTO does not yet.",
        "pto-blocked.r": "The baseline works on this host, so the gap is on the PTO side. The class says the layer: {layer}. When it is the backend, the blocker can sit below the DSL and the compiler, in the runtime contract.",
        "pto-blocked.n": "Read the PTO reason and the gap board entries; the owner is the {layer} layer.",
        "both-blocked.v": "Blocked on both sides: nothing to compare yet.",
        "both-blocked.r": "Neither the baseline nor PTO runs here. Often the PTO port is deliberately waiting for a reproducible baseline contract; the class says which layer holds it: {layer}.",
        "both-blocked.n": "Unblock the baseline first when the PTO reason says the port waits on it.",
        "correctness-gap.v": "A PTO correctness failure: it runs, but its output is wrong.",
        "correctness-gap.r": "PTO's output does not match the reference within tolerance for at least one shape. Its speed ({ratio}) does not count until the output is right.",
        "correctness-gap.n": "Check max_abs_diff against atol/rtol in report.json, per variant, and the gap ids.",
        "scalar": "Scalar-heavy: the hot path still has load_scalar / store_scalar / scalar_select. Usable, but not yet a clean tile-first migration.",
        "baseline_incorrect": "The baseline fails its own correctness check on this host. That does not demote PTO: the tier is read from PTO's side.",
        "unknown_correctness": "The summary only says one side failed its check without saying which (markdown/CSV); the tier assumes it was PTO until a state matrix or JSON says otherwise.",
        "no_ratio": "n/a",
    },
    "zh": {
        "high.v": "不是失败：PTO 已接近厂商基线性能。",
        "high.r": "Baseline / PTO 比值为 {ratio}，中位 {median}（不低于 {high:.0f}%）：PTO 耗时仅略多于手写算子。",
        "high.n": "可作为参考移植；关注比值历史，防止回退。",
        "mid.v": "不是失败：PTO 可运行且正确，仍有优化空间。",
        "mid.r": "比值为 {ratio}，中位 {median}（{mid:.0f}–{high:.0f}%）：PTO 正确且稳定，但耗时明显多于基线。",
        "mid.n": "对比各输入形状的比值：落后的形状通常指向切分（tiling）或核（block）利用问题。",
        "slow.v": "不是失败：PTO 可运行且正确，只是较慢。",
        "slow.r": "比值为 {ratio}，中位 {median}（低于 {mid:.0f}%）。比值低仍是可用、正确的算子；这类算子往往是最好的教学与排查材料。",
        "slow.n": "先看标量热路径和核利用，再看关联的缺口（gap）。",
        "baseline-blocked.v": "不是 PTO 的失败：本机没有可用的基线。",
        "baseline-blocked.r": "PTO 已实现并可运行（{pto_ms} ms）；厂商基线在本机无法运行，因此没有比值。PTO 自身的时延依然有效，只是缺少对比。",
        "baseline-blocked.n": "查看基线原因：这是主机或运行时问题（入口、格式、驱动），不是 PTO 的问题。",
        "pto-blocked.v": "PTO 阻塞：基线可运行，PTO 暂不可运行。",
        "pto-blocked.r": "基线在本机可用，因此缺口在 PTO 一侧。分类给出所在层：{layer}。若在后端，阻塞可能位于 DSL 和编译器之下的运行时契约。",
        "pto-blocked.n": "查看 PTO 原因和缺口看板条目；负责层为 {layer}。",
        "both-blocked.v": "两侧均阻塞：暂无可比较的数据。",
        "both-blocked.r": "基线和 PTO 在此均无法运行。PTO 移植常常是在等待可复现的基线契约；分类给出阻塞所在层：{layer}。",
        "both-blocked.n": "若 PTO 原因说明移植在等待基线，请先解决基线问题。",
        "correctness-gap.v": "PTO 正确性失败：能运行，但输出错误。",
        "correctness-gap.r": "至少一个输入形状下 PTO 输出超出参考容差。在输出正确之前，其速度（{ratio}）不作数。",
        "correctness-gap.n": "在 report.json 中逐个形状对比 max_abs_diff 与 atol/rtol，并查看缺口编号。",
        "scalar": "标量偏重：热路径仍有 load_scalar / store_scalar / scalar_select。可用，但还不是干净的 tile-first 迁移。",
        "baseline_incorrect": "基线在本机未通过其自身的正确性检查。这不会降低 PTO 的等级：等级按 PTO 一侧判定。",
        "unknown_correctness": "汇总（markdown/CSV）只说明有一侧未通过检查而未指明哪一侧；在状态矩阵或 JSON 给出结论之前，按 PTO 失败处理。",
        "no_ratio": "无",
    },
}
_LAYER_ZH = {
    "ptodsl": "PTODSL 表达层",
    "ptoas": "PTOAS 降级（lowering）",
    "backend": "pto-isa/后端能力",
    "host": "主机基线/运行时",
    "correctness": "PTO 正确性",
}


def layer_name(layer: str | None, lang: str = "en") -> str:
    if not layer:
        return "—"
    return _LAYER_ZH.get(layer, layer) if lang == "zh" else LAYER_LABELS.get(layer, layer)


def explain(kernel: Kernel, lang: str = "en", thresholds: Thresholds = Thresholds()) -> Explanation:
    text = _TEXT.get(lang, _TEXT["en"])
    tier = kernel.tier if f"{kernel.tier}.v" in text else "slow"
    values = {
        "ratio": ratio_range(kernel) if kernel.ratio_min_pct is not None else text["no_ratio"],
        "median": f"{kernel.ratio_median_pct:.1f}%" if kernel.ratio_median_pct is not None else text["no_ratio"],
        "high": thresholds.high,
        "mid": thresholds.mid,
        "pto_ms": f"{kernel.pto_ms:.4f}" if kernel.pto_ms is not None else text["no_ratio"],
        "layer": layer_name(kernel.blocker_layer, lang),
    }
    reading = [text[f"{tier}.r"].format(**values)]
    if kernel.scalar_heavy:
        reading.append(text["scalar"])
    if kernel.baseline_correct is False and kernel.baseline_status == "ok":
        reading.append(text["baseline_incorrect"])
    if kernel.tier == "correctness-gap" and kernel.pto_correct is None and kernel.klass is None:
        reading.append(text["unknown_correctness"])
    return Explanation(text[f"{tier}.v"], reading, [text[f"{tier}.n"].format(**values)])
