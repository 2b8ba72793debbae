"""One label per shape (ptotui/model/core/shapes.py), on variants and run directories as the
pto-kernels runner writes them (copied from its runs at 8582eec)."""

from __future__ import annotations

from pathlib import Path

from ptotui.model.core import shapes
from ptotui.model.core.shapes import Labeller, compact, dir_labels, is_empty, labels_of, shape_dirs

# fused_infer_attention_score, 20260314T154729Z: report.json's variant_reports (shape_summary, variant)
FUSED = [
    (
        {"attention_out": [1, 1, 16, 16], "block_table": [1, 1], "k_cache": [1, 16, 16], "query": [1, 1, 16, 16],
         "v_cache": [1, 16, 16]},
        {"batch_size": 1, "dtype": "float16", "head_dim": 16, "input_layout": "BNSD", "kv_heads": 1, "kv_seq": 16,
         "q_heads": 1, "q_seq": 16, "seed": 0},
    ),
    (
        {"attention_out": [1, 1, 64, 64], "block_table": [1, 1], "k_cache": [1, 64, 64], "query": [1, 1, 64, 64],
         "v_cache": [1, 64, 64]},
        {"batch_size": 1, "dtype": "float16", "head_dim": 64, "input_layout": "BNSD", "kv_heads": 1, "kv_seq": 64,
         "q_heads": 1, "q_seq": 64, "seed": 1},
    ),
    (
        {"attention_out": [1, 1, 32, 128], "block_table": [1, 1], "k_cache": [1, 128, 128], "query": [1, 1, 32, 128],
         "v_cache": [1, 128, 128]},
        {"batch_size": 1, "dtype": "float16", "head_dim": 128, "input_layout": "BNSD", "kv_heads": 1, "kv_seq": 128,
         "q_heads": 1, "q_seq": 32, "seed": 2},
    ),
]  # fmt: skip
FUSED_DIRS = ["q16_k16_d16", "q32_k128_d128", "q64_k64_d64", "stage1_qk", "stage2_softmax", "stage3_pv"]

# ffn, 20260312T172426Z: two shapes whose ``x`` is 32×128 (the charts labelled both so)
FFN = [
    (
        {"hidden": [32, 256], "output": [32, 128], "weight1": [128, 256], "weight2": [256, 128], "x": [32, 128]},
        {"activation": "relu", "bias": False, "dtype": "float16", "hidden_size": 128, "input_scale": 0.125,
         "intermediate_size": 256, "output_size": 128, "seed": 0, "tokens": 32},
    ),
    (
        {"hidden": [64, 256], "output": [64, 128], "weight1": [128, 256], "weight2": [256, 128], "x": [64, 128]},
        {"activation": "relu", "bias": False, "dtype": "float16", "hidden_size": 128, "input_scale": 0.125,
         "intermediate_size": 256, "output_size": 128, "seed": 1, "tokens": 64},
    ),
    (
        {"hidden": [32, 512], "output": [32, 128], "weight1": [128, 512], "weight2": [512, 128], "x": [32, 128]},
        {"activation": "relu", "bias": False, "dtype": "float16", "hidden_size": 128, "input_scale": 0.125,
         "intermediate_size": 512, "output_size": 128, "seed": 2, "tokens": 32},
    ),
]  # fmt: skip
FFN_DIRS = ["stage1", "stage2_relu", "stage3", "t32_h128_i256_o128", "t32_h128_i512_o128", "t64_h128_i256_o128"]

# apply_rotary_pos_emb, 20260312T061448Z: parameters only, no shape summary, no shape directories
ROPE = [
    (None, {"batch": 1, "dtype": "float16", "head_dim": 128, "heads": 1, "layout": "TND", "rotary_mode": "half",
            "seed": 0, "seq_len": 64, "tokens": 64}),
    (None, {"batch": 2, "dtype": "float16", "head_dim": 128, "heads": 1, "layout": "BSND", "rotary_mode": "half",
            "seed": 0, "seq_len": 32, "tokens": 64}),
]  # fmt: skip


def test_the_run_directory_names_the_shape() -> None:
    assert labels_of(FUSED, FUSED_DIRS) == ["q16_k16_d16", "q64_k64_d64", "q32_k128_d128"]
    assert labels_of(FFN, FFN_DIRS) == ["t32_h128_i256_o128", "t64_h128_i256_o128", "t32_h128_i512_o128"]


def test_flash_attention_s_heads_are_n_and_only_the_numbers_tell() -> None:
    # b1_n1_s32_d64: ``n`` is ``heads``; the head_dim and seq_len tell the three apart
    variants = [
        (None, {"batch": 1, "dtype": "float16", "head_dim": d, "heads": 1, "input_layout": "BNSD", "seed": i,
                "seq_len": s})
        for i, (s, d) in enumerate([(32, 64), (64, 64), (32, 128)])
    ]  # fmt: skip
    dirs = ["b1_n1_s32_d128", "b1_n1_s32_d64", "b1_n1_s64_d64", "stage1_qk"]
    assert labels_of(variants, dirs) == ["b1_n1_s32_d64", "b1_n1_s64_d64", "b1_n1_s32_d128"]


def test_a_directory_that_fits_two_variants_names_neither() -> None:
    twins = [(None, {"m": 128, "n": 64, "seed": 0}), (None, {"m": 128, "n": 64, "seed": 1})]
    assert dir_labels(twins, ["m128_n64"]) == {}
    assert dir_labels(FUSED, ["stage1_qk", "q16_k99_d16"]) == {}


def test_without_directories_a_compact_form_and_never_two_alike() -> None:
    # the fields that tell the shapes apart: attention_out does; k_cache, query... split none it left together
    assert labels_of(FUSED) == ["attention_out 1×1×16×16", "attention_out 1×1×64×64", "attention_out 1×1×32×128"]
    assert labels_of(FFN) == ["hidden 32×256", "hidden 64×256", "hidden 32×512"]  # not two "32×128"
    assert labels_of(ROPE) == ["batch 1", "batch 2"]
    assert labels_of(FUSED[:1]) == ["attention_out 1×1×16×16 · block_table 1×1 · k_c…"]  # one shape: all, cut
    assert len(labels_of(FUSED[:1]).pop()) <= shapes.LIMIT
    same = [({"x": [32, 128]}, {"dtype": "bfloat16", "seed": 0}), ({"x": [32, 128]}, {"dtype": "float16", "seed": 1})]
    assert labels_of(same) == ["x 32×128 · dtype bfloat16", "x 32×128 · dtype float16"]  # the parameters say which
    assert labels_of([({"x": [32, 128]}, None), ({"x": [32, 128]}, {})]) == ["x 32×128", "x 32×128 #2"]


def test_an_empty_variant_is_not_a_shape() -> None:
    assert is_empty(None, {}) and is_empty({}, None) and not is_empty(None, {"seed": 0})
    labeller = Labeller()
    labeller.add([(None, {})])
    assert len(labeller) == 0
    assert labels_of([(None, {})]) == [""]


def test_a_newer_run_s_directory_names_a_shape_an_older_run_did_not(tmp_path: Path) -> None:
    labeller = Labeller()
    labeller.add(FUSED, ["stage1_qk"])  # the flat layout of the early runs
    labeller.add(FUSED, FUSED_DIRS)
    assert sorted(labeller.labels().values()) == ["q16_k16_d16", "q32_k128_d128", "q64_k64_d64"]
    assert labeller.labels()[shapes.key(*FUSED[0])] == "q16_k16_d16"


def test_shape_dirs_reads_only_variant_like_directories(tmp_path: Path) -> None:
    for name in [*FUSED_DIRS, "debug_probe"]:
        (tmp_path / name).mkdir()
    (tmp_path / "q1_k1_d1").write_text("a file, not a directory")
    (tmp_path / "q2_k2_d2").symlink_to(tmp_path / "q16_k16_d16")
    assert shape_dirs(tmp_path) == ["q16_k16_d16", "q32_k128_d128", "q64_k64_d64"]
    assert shape_dirs(tmp_path / "missing") == [] and shape_dirs(None) == []


def test_report_text_is_cleaned() -> None:
    label = compact({"x\x1b[31m": [1, 2]}, None)
    assert "\x1b" not in label and label == "x 1×2"
    assert "\x1b" not in compact(None, {"layout": "\x1b]0;title\x07BSND"})
