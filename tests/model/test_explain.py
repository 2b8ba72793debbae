"""Every sentence of the detail's plain-words reading is true of the kernel it describes (issue 9).

Kernels are built from facts and classified by the real rules; every tier, every way a
blocker layer is named (class, gap, reason, nothing), scalar-heavy or not, in both
languages. Each check is a claim a sentence makes, tested against the facts.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace

import pytest

from ptotui.model.core.explain import FACT_LABELS, Explanation, explain, fact_labels
from ptotui.model.core.tiers import LAYERS, classify
from ptotui.model.read import readers
from ptotui.model.read.writers import regression_md
from ptotui.model.types import Gap, Kernel, Variant

CLASSES = {
    "ptodsl": "blocked by PTODSL surface",
    "ptoas": "blocked by PTOAS lowering",
    "backend": "blocked by pto-isa/backend capability",
    "host": "blocked by host baseline/runtime gap",
    "correctness": "blocked by PTO correctness gap",
}
GAPS = {
    "ptodsl": Gap("g-dsl", "ptodsl", "open", "dsl gap"),
    "ptoas": Gap("g-as", "PTOAS", "open", "lowering gap"),
    "backend": Gap("g-isa", "pto-isa", "open", "isa gap"),
    "host": Gap("g-host", "host", "open", "host gap"),
}


def v(b: str = "ok", p: str = "ok", ratio: float | None = 50.0, **kw: object) -> Variant:
    fields: dict = dict(
        baseline_status=b,
        pto_status=p,
        baseline_ms=0.1 if b == "ok" else None,
        pto_ms=(0.1 / ratio * 100 if ratio else 0.3) if p == "ok" else None,
        ratio_pct=ratio if b == p == "ok" else None,
        baseline_correct=b == "ok",
        pto_correct=p == "ok",
    )
    fields.update(kw)
    return Variant(**fields)


# name -> variants (and kernel-level statuses follow the variants, as the readers make them)
SHAPES = {
    "high": [v(ratio=85.0), v(ratio=80.0)],
    "high-faster": [v(ratio=110.0)],
    "mid": [v(ratio=50.0), v(ratio=45.0)],
    "slow": [v(ratio=20.0)],
    "working-no-ratio": [v(ratio=None, baseline_ms=None, pto_ms=None)],
    "working-unattributed": [v(ratio=50.0, baseline_correct=None, pto_correct=None)],
    "baseline-blocked": [v(b="blocked")],
    "baseline-blocked-no-ms": [v(b="blocked", pto_ms=None)],
    "baseline-blocked-wrong": [v(b="blocked", pto_correct=False)],
    "correctness": [v(ratio=50.0, pto_correct=False), v(ratio=52.0)],
    "correctness-unattributed": [v(ratio=50.0, baseline_correct=None, pto_correct=None)],
    "pto-blocked": [v(p="blocked"), v(p="blocked")],
    "pto-blocked-partly": [v(p="blocked"), v(ratio=60.0)],
    "both-blocked": [v(b="blocked", p="blocked")],
}
# how the blocker layer is named: by the class, by an open gap, by the PTO reason, or not at all
NAMINGS = [*(f"class:{layer}" for layer in LAYERS), *(f"gap:{layer}" for layer in GAPS), "reason:ptoas", "none"]


def make(shape: str, naming: str, scalar: bool) -> Kernel:
    variants = [replace(x) for x in SHAPES[shape]]
    kernel = Kernel(name="k", variants=variants, scalar_hot_path=scalar, pto_reason="lowering failed")
    kernel.baseline_status = "blocked" if any(x.baseline_status == "blocked" for x in variants) else "ok"
    kernel.pto_status = "blocked" if any(x.pto_status == "blocked" for x in variants) else "ok"
    kind, _, layer = naming.partition(":")
    gaps: dict[str, Gap] = {}
    if kind == "class":
        kernel.klass = CLASSES[layer]
    elif kind == "gap":
        kernel.gap_ids = [GAPS[layer].id]
        gaps = {GAPS[layer].id: GAPS[layer]}
    elif kind == "reason":
        kernel.pto_reason = "ptoas exited 1: cannot lower tile.gather"
    if shape.endswith("unattributed") and shape.startswith("working"):
        kernel.klass = kernel.klass or "green + tile-first"  # a class is what keeps it working
    return classify(kernel, gaps)


CASES = list(itertools.product(SHAPES, NAMINGS, (False, True), ("en", "zh")))


def _all(e: Explanation) -> str:
    return "\n".join([e.verdict, *e.reading, *e.next_steps])


LAYER_SENTENCE = {
    "en": {
        "ptodsl": "The blocker is in the PTODSL surface",
        "ptoas": "The blocker is in PTOAS lowering",
        "backend": "below the DSL and the compiler",
        "host": "The blocker is in the host baseline/runtime layer",
        "correctness": "The blocker is a PTO correctness gap",
    },
    "zh": {
        "ptodsl": "阻塞位于 PTODSL 表达层",
        "ptoas": "阻塞位于 PTOAS 降级",
        "backend": "DSL 和编译器之下",
        "host": "阻塞位于主机基线/运行时层",
        "correctness": "阻塞是 PTO 正确性缺口",
    },
}
CLASS_CLAIMS = {
    "en": ("class says", "classes it", "the class puts", "class ("),
    "zh": ("依据是状态矩阵的分类", "归类为", "分类把", "按状态矩阵的分类"),
}
USABLE = {"en": "Usable, but", "zh": "可用，但还不是"}
BLOCKER_WORDS = {"en": "The blocker is", "zh": "阻塞位于"}


@pytest.mark.parametrize(("shape", "naming", "scalar", "lang"), CASES)
def test_every_sentence_is_true_of_its_kernel(shape, naming, scalar, lang):
    k = make(shape, naming, scalar)
    e = explain(k, lang)
    text = _all(e)
    # Nothing unfilled or empty: no "(n/a ms)", no "median ()", no braces.
    assert "n/a" not in text and "{" not in text and "}" not in text
    assert not re.search(r"\(\s*\)|（\s*）|median\s*[,(（]|中位\s*[，（]|\( ?ms", text), text
    if lang == "zh":
        assert all(re.search(r"[\u4e00-\u9fff]", line) for line in [e.verdict, *e.reading, *e.next_steps]), text
        assert text != _all(explain(k, "en"))
    # Latency and ratio are quoted only when there are some.
    if k.pto_ms is None:
        assert not re.search(r"\d ms", text), text
    if k.ratio_median_pct is None:
        assert not re.search(r"\d%", text.replace("70%", "").replace("30%", "")), text
    # "Usable" only for a PTO side that runs and is not known to be wrong.
    runs = k.tier in ("high", "mid", "slow") or (
        k.tier == "baseline-blocked" and k.pto_status == "ok" and k.pto_correct is not False
    )
    assert (USABLE[lang] in text) == (scalar and runs), (k.tier, text)
    # A layer's paragraph only for that layer, never for a working kernel.
    for layer, words in LAYER_SENTENCE[lang].items():
        claimed = words in text
        expected = k.tier in ("pto-blocked", "both-blocked") and k.blocker_layer == layer
        assert claimed == expected, (layer, k.tier, k.blocker_layer, text)
    if k.tier in ("high", "mid", "slow"):
        assert BLOCKER_WORDS[lang] not in text
        if k.gap_ids:
            assert k.gap_ids[0] in text  # its open gaps are listed as open work instead
    # "The class says" only when there is a class.
    if k.klass is None:
        assert not any(claim in text for claim in CLASS_CLAIMS[lang]), text
    # "does not match the reference" only when PTO's output failed a check.
    if k.pto_correct is False:
        assert "still stands" not in text and "依然有效" not in text  # its latency does not count
    if k.pto_correct is not False:
        assert "does not match" not in text and "不一致" not in text and "超出参考容差" not in text


def test_the_cases_cover_every_tier_and_layer():
    kernels = [make(shape, naming, False) for shape, naming in itertools.product(SHAPES, NAMINGS)]
    assert {k.tier for k in kernels} == {
        "high",
        "mid",
        "slow",
        "baseline-blocked",
        "correctness-gap",
        "pto-blocked",
        "both-blocked",
    }
    blocked_layers = {k.blocker_layer for k in kernels if k.tier in ("pto-blocked", "both-blocked")}
    assert blocked_layers == set(LAYERS)


def test_the_cases_found_by_hand():
    # A PTO-blocked, scalar-heavy kernel is not "usable".
    blocked = explain(make("pto-blocked", "class:ptoas", True))
    assert "Usable" not in _all(blocked) and "Scalar-heavy as well" in _all(blocked)
    # A PTOAS-layer blocker gets the PTOAS paragraph, not the backend one.
    assert "PTOAS lowering" in _all(blocked) and "below the DSL" not in _all(blocked)
    # A baseline-blocked kernel with no PTO latency is not told "(n/a ms)".
    no_ms = explain(make("baseline-blocked-no-ms", "none", False))
    assert "n/a" not in _all(no_ms) and "no PTO latency" in _all(no_ms)
    # A kernel blocked on one of two shapes says so.
    assert "1 of 2 shapes" in explain(make("pto-blocked-partly", "none", False)).verdict
    # Chinese labels for the facts table, every key translated.
    assert fact_labels("en") == FACT_LABELS
    assert all(fact_labels("zh")[key] != FACT_LABELS[key] for key in FACT_LABELS)


def test_a_working_kernel_with_gaps_lists_them_as_open_work():
    k = make("mid", "gap:ptoas", False)
    assert k.tier == "mid" and k.blocker_layer is None
    for lang, words in (("en", "Open work, not a blocker: g-as"), ("zh", "不是阻塞）：g-as")):
        text = _all(explain(k, lang))
        assert words in text and "PTOAS" not in text


def test_a_report_without_a_ratio_but_both_latencies_gets_its_ratio():
    """In `ptotui demo` a kernel with baseline 0.1521 ms and PTO 0.4445 ms showed SLOW, ratio n/a."""
    record = {
        "name": "layernorm_gated",
        "family": "norm",
        "baseline_status": "ok",
        "pto_status": "ok",
        "variants": [
            {
                "shape_summary": None,
                "baseline_status": "ok",
                "pto_status": "ok",
                "baseline_median_ms": 0.1521,
                "pto_median_ms": 0.4445,
                "baseline_over_pto_pct": None,
                "baseline_correct": True,
                "pto_correct": True,
            }
        ],
    }
    data = {"generated_at": "x", "kernels": [record]}
    for reader, text in (
        (readers.read_regression_json, json.dumps(data)),
        (readers.read_regression_md, regression_md(data)),
    ):
        parsed, warnings = reader(text, "r")
        kernel = classify(parsed["kernels"][0], {})
        assert warnings == [] and kernel.tier == "mid"
        assert kernel.ratio_median_pct == pytest.approx(34.2, abs=0.05)
        assert "34.2%" in _all(explain(kernel))
