"""Write sample_reports/bench: invented kernels in the real report formats.

Every kernel, number and reason here is made up for ptotui; together they cover
each tier and class, a scalar-heavy kernel, a baseline failing its own check, a
reason with raw newlines and bracketed text, and three state-matrix snapshots.
Run: python scripts/make_samples.py [OUT_DIR]
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ptotui.model.read.writers import write_in_place, write_regression, write_state  # noqa: E402

HOST_ROOT = "/srv/bench/ada/pto-kernels"
# name, family, wave, phase, class, baseline, pto, ratio range (lo, hi) or None, pto ms, gap ids
KERNELS = [
    ("softmax_online_fused", "softmax", "wave1", "phase1", "green + tile-first", "ok", "ok", (88.0, 93.5), 0.142, []),
    ("layernorm_gated", "norm", "wave1", "phase1", "green + tile-first", "ok", "ok", (78.2, 84.1), 0.188, []),
    (
        "rmsnorm_residual_add",
        "norm",
        "wave1",
        "phase1",
        "green + tile-first",
        "ok",
        "ok",
        (70.9, 74.4),
        0.201,
        ["ptoas-residual-fusion-sync"],
    ),
    ("depthwise_conv1d_causal", "conv", "wave2", "phase2", "green + tile-first", "ok", "ok", (48.3, 55.0), 0.317, []),
    ("int4_weight_dequant_gemm", "quant", "wave2", "phase2", "green + tile-first", "ok", "ok", (61.2, 66.0), 0.402, []),
    ("chunked_cross_entropy", "loss", "wave2", "phase2", "green but scalar-heavy", "ok", "ok", (35.4, 39.2), 0.523, []),
    ("topk_router_softmax", "router", "wave2", "phase2", "green + tile-first", "ok", "ok", (22.1, 25.8), 0.611, []),
    ("rotary_embedding_3d", "posemb", "wave1", "phase2", "green + tile-first", "ok", "ok", (27.0, 29.4), 0.296, []),
    (
        "selective_scan_fwd",
        "scan",
        "wave3",
        "phase3",
        "green but scalar-heavy",
        "ok",
        "ok",
        (12.4, 15.1),
        1.874,
        ["dsl-scan-carry-surface"],
    ),
    (
        "paged_kv_gather",
        "cache",
        "wave3",
        "phase3",
        "blocked by host baseline/runtime gap",
        "blocked",
        "ok",
        None,
        0.655,
        ["host-paged-kv-python-binding"],
    ),
    (
        "segmented_argsort",
        "router",
        "wave3",
        "phase3",
        "blocked by PTO correctness gap",
        "ok",
        "ok",
        (9.8, 11.2),
        0.948,
        ["dsl-segmented-sort-primitives"],
    ),
    (
        "block_sparse_flash_decode",
        "attention",
        "wave3",
        "phase3",
        "blocked by PTOAS lowering",
        "ok",
        "blocked",
        None,
        None,
        ["ptoas-sparse-block-index-lowering"],
    ),
    (
        "fp8_blockwise_quant",
        "quant",
        "wave4",
        "phase3",
        "blocked by pto-isa/backend capability",
        "ok",
        "blocked",
        None,
        None,
        ["isa-fp8-e4m3-vector-convert"],
    ),
    (
        "ragged_all_to_all",
        "comm",
        "wave4",
        "phase3",
        "blocked by PTODSL surface",
        "blocked",
        "blocked",
        None,
        None,
        ["dsl-ragged-collective-surface", "host-ragged-a2a-entrypoint"],
    ),
    (
        "grouped_conv2d_nhwc",
        "conv",
        "wave4",
        "phase3",
        "blocked by host baseline/runtime gap",
        "blocked",
        "blocked",
        None,
        None,
        ["host-grouped-conv-nhwc-format"],
    ),
]
BASELINE_FAILS_OWN_CHECK = {"int4_weight_dequant_gemm"}
SCALAR = {
    "chunked_cross_entropy": [
        "python/pto_kernels/ops/loss/chunked_cross_entropy/kernel.py:load_scalarx4",
        "python/pto_kernels/ops/loss/chunked_cross_entropy/kernel.py:scalar_selectx2",
    ],
    "selective_scan_fwd": [
        "python/pto_kernels/ops/scan/common.py:load_scalarx8",
        "python/pto_kernels/ops/scan/common.py:store_scalarx8",
    ],
}
REASONS = {
    "paged_kv_gather": (
        "Baseline gather needs the paged block-table binding, which this host's torch_npu build does not export.\n"
        "[WARN] 2026-11-20-09:14:02 probe: torch_npu.npu_paged_gather -> AttributeError\n"
        "[ERROR] (PID:41822, Device:3) EZ3002 op type PagedGather is not registered\n"
        "    Re-run bench/tools/probe_host.sh after the runtime upgrade.",
        None,
    ),
    "block_sparse_flash_decode": (
        None,
        "PTO compile failed: ptoas --enable-insert-sync kernel.pto exited 1: "
        "cannot lower tile.gather with a dynamic block index [sparse_idx]",
    ),
    "fp8_blockwise_quant": (
        None,
        "PTO run failed: vector convert f32 -> f8e4m3 is not available on this backend target (a2).",
    ),
    "ragged_all_to_all": (
        "No Python entrypoint for the ragged all-to-all collective on this host.",
        "PTODSL has no ragged send/recv list surface; the port waits on it.",
    ),
    "grouped_conv2d_nhwc": (
        "The NHWC grouped convolution baseline rejects C0=16 storage on this host; "
        "the supported path needs FRACTAL_Z weights.",
        "PTO port waits for a reproducible baseline layout contract.",
    ),
}
LIMITATIONS = {
    "int4_weight_dequant_gemm": [
        "baseline dequant uses a per-tensor scale, so its output drifts past rtol on the group-scaled reference"
    ]
}
GAPS = [
    (
        "dsl-segmented-sort-primitives",
        "ptodsl",
        "open",
        "PTODSL has no segmented bitonic sort; the staged argsort writes ties in the wrong order "
        "for segments longer than one tile.",
        ["segmented_argsort"],
    ),
    (
        "ptoas-sparse-block-index-lowering",
        "PTOAS",
        "open",
        "PTOAS cannot lower a tile gather whose block index is loaded at run time; static indices lower fine.",
        ["block_sparse_flash_decode"],
    ),
    (
        "isa-fp8-e4m3-vector-convert",
        "pto-isa",
        "open",
        "The a2 backend has no vector f32 to f8e4m3 convert; a3 has it behind a runtime flag "
        "that the contract does not expose yet.",
        ["fp8_blockwise_quant"],
    ),
    (
        "dsl-ragged-collective-surface",
        "ptodsl",
        "open",
        "Ragged collectives need list-valued send and receive counts, which the DSL cannot express.",
        ["ragged_all_to_all"],
    ),
    (
        "host-ragged-a2a-entrypoint",
        "ops-transformer",
        "open",
        "The host exposes the ragged all-to-all only through the C++ ACLNN API.",
        ["ragged_all_to_all"],
    ),
    (
        "host-paged-kv-python-binding",
        "ops-transformer",
        "open",
        "The paged KV gather has no Python binding in the installed torch_npu.",
        ["paged_kv_gather"],
    ),
    (
        "host-grouped-conv-nhwc-format",
        "ops-transformer",
        "open",
        "Grouped NHWC convolution on the host needs FRACTAL_Z weight storage that the bench cannot materialise yet.",
        ["grouped_conv2d_nhwc"],
    ),
    (
        "dsl-scan-carry-surface",
        "ptodsl",
        "mitigated",
        "Scan carries go through scalar loads until PTODSL grows a tile-level carry; correct but slow.",
        ["selective_scan_fwd"],
    ),
    (
        "ptoas-residual-fusion-sync",
        "PTOAS",
        "resolved",
        "Residual-add fusion needed an extra sync that PTOAS now inserts itself.",
        ["rmsnorm_residual_add"],
    ),
]
PLANNED = [("moe_capacity_drop", "router", "wave5"), ("flash_prefill_varlen", "attention", "wave5")]
STAMPS = ["20261101T080000Z", "20261115T080000Z", "20261126T080000Z"]
REGRESSION_STAMP = "20261126T074512Z"
# Earlier snapshots: (class, baseline, pto, range) overrides by stamp index.
HISTORY = {
    0: {
        "rotary_embedding_3d": ("green + tile-first", "ok", "ok", (17.5, 19.0)),
        "segmented_argsort": ("blocked by PTODSL surface", "ok", "blocked", None),
        "softmax_online_fused": ("green + tile-first", "ok", "ok", (66.0, 70.2)),
        "chunked_cross_entropy": ("green but scalar-heavy", "ok", "ok", (30.1, 33.3)),
    },
    1: {
        "rotary_embedding_3d": ("green + tile-first", "ok", "ok", (22.4, 24.0)),
        "softmax_online_fused": ("green + tile-first", "ok", "ok", (80.5, 86.0)),
        "fp8_blockwise_quant": ("blocked by PTOAS lowering", "ok", "blocked", None),
    },
}


def shapes(rng: random.Random, count: int) -> list[tuple[dict, dict]]:
    out = []
    for seed in range(count):
        rows, cols = rng.choice([64, 128, 256]), rng.choice([128, 256, 512])
        variant = {"dtype": rng.choice(["float16", "bfloat16"]), "rows": rows, "cols": cols, "seed": seed}
        out.append((variant, {"x": [rows, cols], "out": [rows, cols]}))
    return out


def regression(rng: random.Random) -> dict:
    kernels = []
    for name, family, _wave, _phase, klass, base, pto, ratio, pto_ms, _gaps in KERNELS:
        blocked = base == "blocked" or pto == "blocked"
        count = 1 if blocked else 3
        base_reason, pto_reason = REASONS.get(name, (None, None))
        variants = []
        for index, (params, shape) in enumerate(shapes(rng, count)):
            pct = (
                None if ratio is None else (ratio[0] if index == 0 else ratio[1] if index == 1 else rng.uniform(*ratio))
            )
            v_pto_ms = None if pto == "blocked" else (pto_ms or 0.5) * rng.uniform(0.97, 1.03)
            v_base_ms = (
                None if base == "blocked" else (v_pto_ms * pct / 100 if pct and v_pto_ms else rng.uniform(0.1, 0.3))
            )
            variant = {
                "variant": params,
                "shape_summary": None if blocked and base == "blocked" else shape,
                "baseline_status": base,
                "pto_status": pto,
                "baseline_median_ms": v_base_ms,
                "pto_median_ms": v_pto_ms,
                "baseline_over_pto_pct": pct,
                "baseline_correct": base == "ok" and name not in BASELINE_FAILS_OWN_CHECK,
                "pto_correct": pto == "ok" and klass != "blocked by PTO correctness gap",
                "baseline_limitations": LIMITATIONS.get(name, []),
            }
            if blocked:
                variant["baseline_reason"] = base_reason
                variant["pto_reason"] = pto_reason
            variants.append(variant)
        kernels.append(
            {
                "name": name,
                "family": family,
                "spec": f"bench/specs/{family}/{name}.yaml",
                "report_path": f"{HOST_ROOT}/bench/generated/{family}/{name}/report.json",
                "baseline_status": base,
                "pto_status": pto,
                "baseline_reason": base_reason,
                "pto_reason": pto_reason,
                "variants": variants,
            }
        )
    return {"generated_at": REGRESSION_STAMP, "kernels": kernels}


def state(stamp_index: int, reg: dict) -> dict:
    overrides = HISTORY.get(stamp_index, {})
    by_name = {k["name"]: k for k in reg["kernels"]}
    rows = []
    for name, family, wave, phase, klass, base, pto, ratio, _ms, gaps in KERNELS:
        klass, base, pto, ratio = overrides.get(name, (klass, base, pto, ratio))
        if ratio is not None and name not in overrides:
            pcts = [v["baseline_over_pto_pct"] for v in by_name[name]["variants"] if v["baseline_over_pto_pct"]]
            ratio = (min(pcts), max(pcts))
        components = [next(g[1] for g in GAPS if g[0] == gap) for gap in gaps]
        rows.append(
            {
                "name": name,
                "family": family,
                "wave": wave,
                "phase": phase,
                "inventory_status": "green" if klass.startswith("green") else "blocked",
                "primary_class": klass,
                "scalar_hot_path": name in SCALAR,
                "scalar_matches": SCALAR.get(name, []),
                "gap_ids": gaps,
                "gap_components": components,
                "baseline_over_pto_range": "n/a"
                if ratio is None or base == "blocked" or pto == "blocked"
                else f"{ratio[0]:.1f}%..{ratio[1]:.1f}%",
                "block_utilization": {"requested_block_dim": 24, "uses_all_blocks": name != "selective_scan_fwd"}
                if klass.startswith("green")
                else None,
                "baseline_status": base,
                "pto_status": pto,
                "baseline_reason": REASONS.get(name, (None, None))[0] if base == "blocked" else None,
                "pto_reason": REASONS.get(name, (None, None))[1] if pto == "blocked" else None,
                "pto_correctness_passes": None if pto == "blocked" else klass != "blocked by PTO correctness gap",
                "report_path": f"{HOST_ROOT}/bench/generated/{family}/{name}/report.json",
            }
        )
    return {"generated_at": STAMPS[stamp_index], "kernels": rows}


def kernel_report(kernel: dict, rng: random.Random) -> dict:
    def side(status: str, ms_key: str, entry: str) -> dict:
        values = [v[ms_key] for v in kernel["variants"] if v[ms_key]]
        timings = (
            {"min": min(values) * 0.96, "median": sorted(values)[len(values) // 2], "max": max(values) * 1.4}
            if values
            else {}
        )
        return {
            "benchmark": {
                "status": status,
                "entrypoint": entry,
                "timings_ms": timings,
                "correctness": {
                    "atol": 0.002,
                    "rtol": 0.001,
                    "max_abs_diff": rng.choice([3.05e-05, 6.1e-05, 0.00049]),
                    "passes": status == "ok",
                },
            },
            "compile": {"status": "ready" if status == "ok" else "failed"},
        }

    name, family = kernel["name"], kernel["family"]
    return {
        "name": name,
        "family": family,
        "status": "green" if kernel["pto_status"] == "ok" else "blocked",
        "device": {"soc": "ascend910b", "npu_arch": "dav-2201", "pto_arch": "a2", "toolkit_version": "9.1.0"},
        "baseline": side(kernel["baseline_status"], "baseline_median_ms", f"torch_npu.npu_{name}"),
        "pto": {
            **side(kernel["pto_status"], "pto_median_ms", f"pto_kernels.ops.{family}.{name}"),
            "meta": {
                "blockers": [g for k in KERNELS if k[0] == name for g in k[9]],
                "seed_variant": {"limits": ["fp16/bf16 only", "rows multiple of 64"]},
            },
        },
    }


def main(out: Path) -> None:
    rng = random.Random(20261126)  # noqa: S311 - invented sample numbers, not secrets
    bench = out / "bench"
    if bench.exists():
        shutil.rmtree(bench)
    reports = bench / "reports"
    reg = regression(rng)
    write_regression(reports, reg)
    for index in range(len(STAMPS)):
        write_state(reports, state(index, reg), snapshot=True)
    gap_board = {
        "updated_for_target": "ascend910b",
        "gaps": [
            {"id": i, "component": c, "status": s, "summary": text, "blocking_kernels": ks}
            for i, c, s, text, ks in GAPS
        ],
    }
    import yaml

    write_in_place(bench / "gap_board.yaml", yaml.safe_dump(gap_board, sort_keys=False, width=100))
    inventory = {
        "target": "ascend910b",
        "included": [
            {
                "name": k[0],
                "family": k[1],
                "wave": k[2],
                "phase": k[3],
                "status": "green" if k[4].startswith("green") else "blocked",
            }
            for k in KERNELS
        ]
        + [{"name": n, "family": f, "wave": w, "phase": "phase4", "status": "planned"} for n, f, w in PLANNED],
    }
    write_in_place(bench / "kernel_inventory.yaml", yaml.safe_dump(inventory, sort_keys=False, width=200))
    for kernel in reg["kernels"]:
        path = bench / "generated" / kernel["family"] / kernel["name"] / "report.json"
        write_in_place(path, json.dumps(kernel_report(kernel, rng), indent=2, sort_keys=True) + "\n")
    print(f"wrote {sum(1 for _ in bench.rglob('*') if _.is_file())} files under {bench}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "sample_reports")
