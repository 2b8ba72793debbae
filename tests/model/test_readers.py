"""Each reader on the sample reports, and on bad input."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from ptotui.model.location import Location, bundled_samples, locate
from ptotui.model.read import readers, sidefiles, values
from ptotui.model.read.loader import load
from tests.conftest import SAMPLES

REPORTS = SAMPLES / "reports"


def test_regression_json_sample():
    data, warnings = readers.read_regression_json((REPORTS / "regression_latest.json").read_text(), "r.json")
    assert warnings == []
    assert data["generated_at"] == "20261126T074512Z"
    kernels = {k.name: k for k in data["kernels"]}
    assert len(kernels) == 15
    gather = kernels["paged_kv_gather"]
    assert gather.baseline_status == "blocked" and gather.pto_status == "ok"
    assert "\n[ERROR]" in gather.baseline_reason  # raw newlines and brackets kept literally
    assert len(kernels["softmax_online_fused"].variants) == 3


def test_regression_md_sample_keeps_multiline_reason_and_family():
    data, warnings = readers.read_regression_md((REPORTS / "regression_latest.md").read_text(), "r.md")
    assert warnings == []
    kernels = {k.name: k for k in data["kernels"]}
    assert kernels["paged_kv_gather"].family == "cache"
    assert kernels["paged_kv_gather"].baseline_reason.count("\n") == 3
    assert kernels["paged_kv_gather"].pto_reason is None  # the literal "None"
    assert kernels["int4_weight_dequant_gemm"].limitations
    assert kernels["grouped_conv2d_nhwc"].variants[0].shape is None


def test_regression_csv_sample_matches_json():
    csv_data, warnings = readers.read_regression_csv((REPORTS / "regression_latest.csv").read_text(), "r.csv")
    json_data, _ = readers.read_regression_json((REPORTS / "regression_latest.json").read_text(), "r.json")
    assert warnings == []
    assert [k.name for k in csv_data["kernels"]] == [k.name for k in json_data["kernels"]]
    by_name = {k.name: k for k in csv_data["kernels"]}
    assert by_name["int4_weight_dequant_gemm"].baseline_correct is False
    assert by_name["int4_weight_dequant_gemm"].pto_correct is True


def test_csv_columns_any_case_and_extra_columns():
    text = "KERNEL,baseline,Pto,Baseline / PTO,extra\nk1,ok,ok,42.0%,x\nk1,ok,ok,44.0%,y\n"
    data, warnings = readers.read_regression_csv(text, "x.csv")
    assert warnings == []
    assert data["kernels"][0].name == "k1" and len(data["kernels"][0].variants) == 2


def test_truncated_csv_drops_the_partial_line_and_says_so():
    text = "Kernel,Baseline,PTO,Baseline / PTO\nk1,ok,ok,42.0%\nk2,ok,o"
    data, warnings = readers.read_regression_csv(text, "x.csv")
    assert [k.name for k in data["kernels"]] == ["k1"]
    assert "truncated" in warnings[0].message and warnings[0].file == "x.csv"


def test_state_json_and_md_agree_on_sample():
    from_json, w1 = readers.read_state_json((REPORTS / "kernel_state_matrix_latest.json").read_text(), "s.json")
    from_md, w2 = readers.read_state_md((REPORTS / "kernel_state_matrix_latest.md").read_text(), "s.md")
    assert w1 == w2 == []
    keys = (
        "name",
        "wave",
        "klass",
        "scalar_hot_path",
        "scalar_matches",
        "gap_ids",
        "block_use",
        "state_ratio_range",
        "baseline_status",
        "pto_status",
        "family",
    )
    for a, b in zip(from_json["kernels"], from_md["kernels"], strict=True):
        assert [getattr(a, k) for k in keys] == [getattr(b, k) for k in keys]


def test_gap_board_and_inventory():
    gaps, w1 = sidefiles.read_gap_board((SAMPLES / "gap_board.yaml").read_text(), "g.yaml")
    inventory, w2 = sidefiles.read_inventory((SAMPLES / "kernel_inventory.yaml").read_text(), "i.yaml")
    assert w1 == w2 == []
    assert gaps["ptoas-sparse-block-index-lowering"].component == "PTOAS"
    assert gaps["ptoas-residual-fusion-sync"].status == "resolved"
    assert inventory["moe_capacity_drop"]["status"] == "planned"


def test_kernel_report_facts():
    path = SAMPLES / "generated" / "norm" / "layernorm_gated" / "report.json"
    facts, warnings = sidefiles.read_kernel_report(path.read_text(), str(path))
    assert warnings == []
    assert facts["pto"]["timings_ms"]["median"] > 0
    assert facts["device"]["soc"] == "ascend910b"
    assert facts["baseline"]["atol"] == 0.002


def test_bad_inputs_become_warnings_naming_the_file():
    cases = {
        "": "empty",
        '{"kernels": [{"name": "a"': "truncated",
        "[1, 2]": "expected a JSON object",
        '{"kernels": 3}': 'no "kernels" list',
        '{"kernels": [{"nom": 1}]}': "has no name",
    }
    for text, fragment in cases.items():
        data, warnings = readers.read_regression_json(text, "/r/regression_latest.json")
        assert data["kernels"] == [], text
        assert warnings and warnings[0].file == "/r/regression_latest.json", text
        assert fragment in warnings[0].message, (text, warnings)


def test_markdown_cut_mid_row_keeps_complete_rows():
    text = (REPORTS / "regression_latest.md").read_text()
    cut = text[: text.index("| topk_router_softmax") + 30]
    data, warnings = readers.read_regression_md(cut, "r.md")
    names = [k.name for k in data["kernels"]]
    assert "chunked_cross_entropy" in names and "topk_router_softmax" not in names
    assert any(w.line and "cut off" in w.message for w in warnings)


def test_bad_yaml_names_line_and_keeps_what_it_can():
    gaps, warnings = sidefiles.read_gap_board("gaps:\n  - id: a\n   bad: [\n", "gap_board.yaml")
    assert list(gaps) == ["a"]  # the entry's id is still readable line by line
    assert len(warnings) == 1 and warnings[0].file == "gap_board.yaml" and warnings[0].line == 2


def test_hostile_text_is_kept_literal_but_stripped_of_escapes():
    text = (
        '{"kernels": [{"name": "k\\u001b]2;pwn\\u0007", "baseline_status": "ok", "pto_status": "blocked", '
        '"pto_reason": "[/] [ERROR] [@click=app.quit]x[/] \\u001b[31mred\\u202e"}]}'
    )
    data, warnings = readers.read_regression_json(text, "r.json")
    kernel = data["kernels"][0]
    assert kernel.name == "k"
    assert kernel.pto_reason == "[/] [ERROR] [@click=app.quit]x[/] red"


def test_empty_reports_dir_gives_zero_kernels_and_says_what_was_looked_for(tmp_path):
    reports = load(Location(tmp_path, tmp_path.parent))
    assert reports.kernels == []
    assert "regression_latest.json" in reports.warnings[-1].message


def test_undecodable_bytes_warn_and_keep_going(sample_location):
    path = sample_location.reports / "regression_latest.json"
    path.write_bytes(path.read_bytes().replace(b"Baseline gather", b"Baseline \xff\xfe gather", 1))
    reports = load(sample_location)
    assert len(reports.kernels) == 15
    assert any("UTF-8" in w.message and w.file == str(path) for w in reports.warnings)


def test_locate_variants(tmp_path, sample_bench):
    assert locate(sample_bench).reports == sample_bench / "reports"
    assert locate(sample_bench / "reports").bench == sample_bench
    checkout = sample_bench.parent
    assert locate(checkout).reports == sample_bench / "reports"
    empty = tmp_path / "elsewhere"
    empty.mkdir()
    assert locate(None, cwd=empty).reports == bundled_samples() / "reports"
    assert locate(None, cwd=checkout).reports == sample_bench / "reports"


def test_report_path_of_another_host_resolves_locally(sample_location):
    kernel = load(sample_location).by_name()["layernorm_gated"]
    assert kernel.report_path.startswith("/srv/bench/")
    local = sample_location.local_report(kernel.report_path)
    assert local == sample_location.bench / "generated" / "norm" / "layernorm_gated" / "report.json"
    assert local.is_file()
    assert sample_location.local_report("/x/bench/generated/../../etc/passwd") is None


def test_an_integer_too_big_for_a_float_is_no_number_not_an_unreadable_file():
    """One 400-digit latency made the whole regression JSON "could not be read". It is an
    absurd number (issue 24): one warning says so, and the rest of the file is read."""
    text = '{"kernels": [{"name": "k", "variants": [{"baseline_median_ms": 1' + "0" * 400 + ', "pto_status": "ok"}]}]}'
    result, warnings = readers.read_regression_json(text, "regression_latest.json")
    assert [w.message for w in warnings] == [
        "1 invalid number(s) (not finite, negative or absurd) read as missing: k: baseline ms 401-digit integer"
    ]
    (kernel,) = result["kernels"]
    assert kernel.variants[0].baseline_ms is None and kernel.pto_status == "ok"


def _regression(*variants: str) -> str:
    rows = ", ".join(
        '{"baseline_status": "ok", "pto_status": "ok", "baseline_correct": true, "pto_correct": true, ' + v + "}"
        for v in variants
    )
    return '{"kernels": [{"name": "k", "baseline_status": "ok", "pto_status": "ok", "variants": [' + rows + "]}]}"


def test_non_finite_and_absurd_numbers_are_invalid_input_read_as_missing():
    """Issue 24: ratios of 1e308 gave HIGH, a 309-digit number and "median inf%"."""
    from ptotui.model.core.explain import explain
    from ptotui.model.core.tiers import classify
    from ptotui.model.present.export import kernel_dict

    cases = {
        "huge": _regression('"baseline_over_pto_pct": 1e308', '"baseline_over_pto_pct": 1e308'),
        "infinite": _regression('"baseline_over_pto_pct": Infinity', '"baseline_over_pto_pct": 1e400'),
        "nan": _regression('"baseline_over_pto_pct": NaN'),
        "negative": _regression('"baseline_over_pto_pct": -40.0', '"pto_median_ms": -0.5, "baseline_median_ms": 1.0'),
        "derived": _regression('"baseline_median_ms": 1e300, "pto_median_ms": 1e-300'),
    }
    for case, text in cases.items():
        result, warnings = readers.read_regression_json(text, "regression_latest.json")
        assert len(warnings) == 1, (case, warnings)
        assert warnings[0].file == "regression_latest.json" and "invalid" in warnings[0].message, case
        (kernel,) = result["kernels"]
        classify(kernel, {})
        assert kernel.ratio_median_pct is None and kernel.tier != "high", case
        assert all(v.ratio_pct is None for v in kernel.variants), case
        assert kernel.pto_ms is None or kernel.pto_ms >= 0, case
        assert kernel_dict(kernel)["ratio_median_pct"] is None, case
        told = explain(kernel, "en")
        assert "inf" not in " ".join([told.verdict, *told.reading, *told.next_steps]), case


def test_absurd_numbers_in_markdown_and_csv_warn_once_too():
    md = (
        "# Latest Regression Summary\n\n"
        "| Kernel | Input Shape | Baseline | PTO | Baseline ms | PTO ms | Baseline / PTO | Correctness | Latest |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
        "| k | `null` | ok | ok | n/a | n/a | inf% | pass | n/a |\n"
        "| k | `[2]` | ok | ok | n/a | n/a | 1e308% | pass | n/a |\n"
    )
    result, warnings = readers.read_regression_md(md, "regression_latest.md")
    assert [w.file for w in warnings] == ["regression_latest.md"]
    assert all(v.ratio_pct is None for v in result["kernels"][0].variants)
    csv = (
        "Kernel,Input Shape,Baseline,PTO,Baseline ms,PTO ms,Baseline / PTO,Correctness\n"
        "k,null,ok,ok,-1.0,0.5,50%,pass\n"
    )
    result, warnings = readers.read_regression_csv(csv, "regression_latest.csv")
    assert [w.file for w in warnings] == ["regression_latest.csv"]
    assert result["kernels"][0].variants[0].baseline_ms is None


def test_an_absurd_state_matrix_range_is_missing_with_a_warning():
    text = (
        '{"kernels": [{"name": "k", "baseline_status": "ok", "pto_status": "ok",'
        ' "baseline_over_pto_range": "1e308%..1e308%"}]}'
    )
    result, warnings = readers.read_state_json(text, "kernel_state_matrix_latest.json")
    assert [w.file for w in warnings] == ["kernel_state_matrix_latest.json"]
    assert result["kernels"][0].state_ratio_range is None


def test_shapes_and_parameters_are_held_as_their_compact_json_and_read_back_as_parsed():
    """A variant's shape and parameters are ~500 bytes as Python objects, ~150 as text; they
    read back as the report wrote them (key order kept), and nesting too deep is refused."""
    record = {
        "name": "k",
        "variants": [
            {"shape_summary": {"x": [128, 256], "out": [1, 2]}, "variant": {"rows": 128, "dtype": "float16"}},
            {"shape_summary": "a text", "variant": {"big": 2**70, "f": 0.1}},
        ],
    }
    kernel = readers._regression_kernel(json.loads(json.dumps(record)))
    one, two = kernel.variants
    assert one.shape_json == '{"x":[128,256],"out":[1,2]}' and one.params_json == '{"rows":128,"dtype":"float16"}'
    assert one.shape == {"x": [128, 256], "out": [1, 2]} and list(one.params or {}) == ["rows", "dtype"]
    assert two.shape == "a text" and two.params == {"big": 2**70, "f": 0.1}  # past 64 bits: still exact
    assert one.as_dict()["shape"] == record["variants"][0]["shape_summary"]
    assert replace(one, pto_ms=1.0).shape == one.shape and replace(one) == one
    deep: object = 1
    for _ in range(values.MAX_DEPTH + 1):
        deep = [deep]
    odd = readers._regression_kernel({"name": "k", "variants": [{"shape_summary": deep, "variant": {"a": deep}}]})
    assert odd.variants[0].params is None and odd.variants[0].shape == values.bounded(deep)


def test_kernels_without_limitations_gaps_or_matches_share_one_empty_list_that_cannot_change():
    """211,000 empty lists were 12 MB at 10,000 kernels x 50 runs: one is shared. It equals
    [] (diff, export, equality are as before) and raises when changed in place."""
    import orjson

    from ptotui.model.core.tiers import classify
    from ptotui.model.types import NO_ITEMS

    record = {"name": "k", "variants": [{"baseline_limitations": [], "pto_status": "ok"}], "gap_ids": []}
    kernel = readers._regression_kernel(record)
    classify(kernel, {})
    empties = (kernel.limitations, kernel.scalar_matches, kernel.gap_ids, kernel.gaps, kernel.variants[0].limitations)
    assert all(items is NO_ITEMS for items in empties) and kernel.limitations == []
    assert orjson.loads(orjson.dumps({"gaps": kernel.gaps})) == {"gaps": []}
    with pytest.raises(TypeError):
        kernel.gap_ids.append("G1")
    kernel.gap_ids = ["G1"]  # assigning a new list is how every field changes
    assert NO_ITEMS == [] and readers._regression_kernel(record).gap_ids is NO_ITEMS


@pytest.mark.parametrize("tree", ["samples", "reference"])
def test_the_headless_source_reads_what_the_text_source_reads(tree, request):
    """``ptotui export`` reads through read_source (JSON parsed from its bytes, kernels merged
    in place): the same kernels, tiers and warnings as the plain text source gives."""
    from ptotui.model.read.loader import read_file, read_source

    bench = SAMPLES if tree == "samples" else request.getfixturevalue("reference_bench")
    location = locate(bench)
    headless, plain = load(location, source=read_source), load(location, source=read_file)
    assert headless.kernels == plain.kernels
    assert headless.warnings == plain.warnings


def test_a_kernels_status_is_the_worst_said_and_a_shape_too_deep_is_not_kept():
    from ptotui.model.core.merge import kernel_status

    assert kernel_status([None, "", "ok", "ok"]) == "ok" and kernel_status([None, ""]) is None
    assert kernel_status(["ok", "fail", "blocked"]) == "blocked" and kernel_status(iter(["ok", "fail"])) == "fail"
    assert values.bounded([[[]]], 3) == [[[]]] and isinstance(values.bounded([[[]]], 2), str)
    assert isinstance(values.bounded({"a": [1, {"b": []}]}, 2), str)
    assert values.bounded({"a": [1, {"b": 2}]}, 3) == {"a": [1, {"b": 2}]}
