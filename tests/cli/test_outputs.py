"""Outputs other programs read: strict JSON, CSV a spreadsheet will not run, markdown for PR
comments, summary in a pipe, and diff's exit codes."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptotui.cli import main

HOSTILE_NAME = '=HYPERLINK("http://evil")|<img src=x>`rm`'


def _strict(text: str):
    def refuse(constant: str):
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def _rewrite(bench: Path, change) -> None:
    path = bench / "reports" / "regression_latest.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))  # Python's json writes NaN and Infinity literals
    for twin in ("regression_latest.md", "regression_latest.csv"):
        (bench / "reports" / twin).unlink()


def test_export_json_is_strict(sample_bench, capsys):
    def nan_shapes(data):
        variant = data["kernels"][0]["variants"][0]
        variant["shape_summary"] = {"scale": float("nan"), "limit": float("inf"), "floor": float("-inf")}
        variant["variant"]["eps"] = float("nan")

    _rewrite(sample_bench, nan_shapes)
    assert main(["export", str(sample_bench), "--format", "json"]) == 0
    payload = _strict(capsys.readouterr().out)
    variant = payload["kernels"][0]["variants"][0]
    assert variant["shape"] == {"scale": None, "limit": None, "floor": None}
    assert variant["params"]["eps"] is None


def test_export_json_with_a_huge_integer_stays_strict(sample_bench, capsys):
    def huge(data):
        data["kernels"][0]["variants"][0]["variant"]["seed"] = 2**80
        data["kernels"][0]["variants"][0]["shape_summary"] = {"x": float("nan")}

    _rewrite(sample_bench, huge)
    assert main(["export", str(sample_bench), "--format", "json"]) == 0
    variant = _strict(capsys.readouterr().out)["kernels"][0]["variants"][0]
    assert variant["params"]["seed"] == 2**80 and variant["shape"] == {"x": None}


def _hostile(data):
    kernel = data["kernels"][0]
    kernel["family"] = "@SUM(A1:A9)"
    kernel["pto_reason"] = "-2+3 | `code` <script>alert(1)</script> \\| done"
    kernel["name"] = HOSTILE_NAME


def test_csv_text_cells_are_not_formulas_and_numbers_stay_numbers(sample_bench, capsys):
    _rewrite(sample_bench, _hostile)
    assert main(["export", str(sample_bench), "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    row = next(r for r in rows if "HYPERLINK" in r["name"])
    assert row["name"].startswith("'=") and row["family"] == "'@SUM(A1:A9)" and row["pto_reason"].startswith("'-2")
    for cell in (c for r in rows for c in r.values()):
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        if cell.startswith("-"):
            float(cell)  # only a number may start with a minus
    assert float(row["ratio_median_pct"]) > 0


def _md_cells(line: str) -> list[str]:
    """Split a markdown table row the way GitHub does: on | not escaped by a backslash."""
    cells, current, escaped = [], "", False
    for char in line.strip()[1:-1]:
        if char == "|" and not escaped:
            cells.append(current)
            current = ""
        else:
            current += char
        escaped = char == "\\" and not escaped
    return [*cells, current]


def test_export_and_triage_markdown_escape_report_text(sample_bench, tmp_path, capsys):
    _rewrite(sample_bench, _hostile)
    assert main(["export", str(sample_bench), "--format", "md"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "HYPERLINK" in line)
    assert len(_md_cells(row)) == 11  # the | in the name did not open a new cell
    assert "<img" not in out and "`rm`" not in out and "&lt;img src=x&gt;" in row and "\\`rm\\`" in row
    state = tmp_path / "triage.json"
    key = str((sample_bench / "reports").resolve())
    note = "see <a href=x>this</a> | `x` \\| y"
    state.write_text(json.dumps({"reports": {key: {HOSTILE_NAME: {"state": "acknowledged", "note": note}}}}))
    assert main(["triage", str(sample_bench), "--state", str(state), "--format", "md"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "HYPERLINK" in line)
    assert len(_md_cells(row)) == 8
    assert "<a" not in out and "<img" not in out and "`x`" not in out


def test_summary_in_a_pipe_never_cuts_names_or_gap_ids(sample_bench):
    long_name = "moe_token_unpermute_with_routing_map_and_padded_probs_" + "x" * 60
    long_gap = "host-" + "y" * 120

    def long_names(data):
        data["kernels"][-1]["name"] = long_name

    _rewrite(sample_bench, long_names)
    state = sample_bench / "reports" / "kernel_state_matrix_latest.json"
    data = json.loads(state.read_text())
    data["kernels"] = [k for k in data["kernels"] if k["name"] != "ragged_all_to_all"]
    state.write_text(json.dumps(data).replace("host-grouped-conv-nhwc-format", long_gap))
    (sample_bench / "reports" / "kernel_state_matrix_latest.md").unlink()
    board = sample_bench / "gap_board.yaml"
    board.write_text(board.read_text().replace("host-grouped-conv-nhwc-format", long_gap))
    result = subprocess.run(
        [sys.executable, "-m", "ptotui", "summary", str(sample_bench)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "80"},
    )
    assert result.returncode == 0, result.stderr
    assert long_name in result.stdout and long_gap in result.stdout and "…" not in result.stdout
    assert all(line == line.rstrip() for line in result.stdout.splitlines())  # no titles padded with blanks


# -- diff ------------------------------------------------------------------------------


def _diff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ptotui", "diff", *args], capture_output=True, text=True, timeout=60)


def _one_line_2(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode == 2, (result.returncode, result.stdout)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("ptotui: error:"), result.stderr


def test_diff_refuses_a_new_side_that_is_empty_torn_or_not_reports(sample_bench, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    not_reports = tmp_path / "src"
    (not_reports / "pkg").mkdir(parents=True)
    (not_reports / "pkg" / "main.py").write_text("print()\n")
    torn = tmp_path / "torn"
    shutil.copytree(sample_bench, torn)
    for name in ("regression_latest.md", "regression_latest.csv"):
        (torn / "reports" / name).unlink()
    json_file = torn / "reports" / "regression_latest.json"
    json_file.write_text(json_file.read_text()[:500])
    for new in (empty, not_reports, torn):
        _one_line_2(_diff(str(sample_bench), str(new)))
        _one_line_2(_diff(str(new), str(sample_bench)))


def test_diff_a_vanished_kernel_is_a_regression_and_a_kernel_counts_once(sample_bench, tmp_path):
    new = tmp_path / "new"
    shutil.copytree(sample_bench, new)
    for name in ("regression_latest.md", "regression_latest.csv", "kernel_state_matrix_latest.md"):
        (new / "reports" / name).unlink()
    reg = json.loads((new / "reports" / "regression_latest.json").read_text())
    reg["kernels"] = [k for k in reg["kernels"] if k["name"] != "rotary_embedding_3d"]
    for kernel in reg["kernels"]:
        if kernel["name"] == "layernorm_gated":  # goes blocked: tier, status and ratio all move
            kernel["pto_status"] = "blocked"
            for variant in kernel["variants"]:
                variant.update(pto_status="blocked", pto_median_ms=None, baseline_over_pto_pct=None)
    (new / "reports" / "regression_latest.json").write_text(json.dumps(reg))
    state = json.loads((new / "reports" / "kernel_state_matrix_latest.json").read_text())
    state["kernels"] = [k for k in state["kernels"] if k["name"] != "rotary_embedding_3d"]
    (new / "reports" / "kernel_state_matrix_latest.json").write_text(json.dumps(state))
    result = _diff(str(sample_bench), str(new), "--format", "json")
    assert result.returncode == 1, result.stderr
    payload = json.loads(result.stdout)
    assert payload["regressions"] == 2
    assert sorted(payload["regressed_kernels"]) == ["layernorm_gated", "rotary_embedding_3d"]
    assert sum(c["regression"] for c in payload["changes"] if c["kernel"] == "layernorm_gated") >= 2
    md = _diff(str(sample_bench), str(new))
    assert "2 regressions" in md.stdout and "rotary_embedding_3d: vanished" in md.stdout


@pytest.mark.parametrize("side", ["old", "new"])
def test_diff_only_a_kernel_vanishing_exits_1(sample_bench, tmp_path, side):
    other = tmp_path / "other"
    shutil.copytree(sample_bench, other)
    for name in ("regression_latest.md", "regression_latest.csv", "kernel_state_matrix_latest.md"):
        (other / "reports" / name).unlink()
    for name in ("regression_latest.json", "kernel_state_matrix_latest.json"):
        data = json.loads((other / "reports" / name).read_text())
        data["kernels"] = [k for k in data["kernels"] if k["name"] != "paged_kv_gather"]
        (other / "reports" / name).write_text(json.dumps(data))
    args = (str(sample_bench), str(other)) if side == "new" else (str(other), str(sample_bench))
    assert _diff(*args).returncode == (1 if side == "new" else 0)


MD_PAYLOAD = "[Approve PR](https://evil.example/x) ![x](https://evil.example/p.png) @everyone &lt;script&gt;"


def _inert(out: str) -> None:
    """No link, no remote image, no mention and no entity survives in markdown output."""
    assert not re.search(r"(?<!\\)\]\(https://evil", out) and not re.search(r"(?<!\\)!(?<!\\)\[", out)
    assert "@everyone" not in out and "&lt;script&gt;" not in out
    assert "\\[Approve PR\\]" in out and "\\!\\[x\\]" in out and "&amp;lt;script&amp;gt;" in out


def test_markdown_outputs_make_links_images_mentions_and_entities_inert(sample_bench, tmp_path, capsys):
    """Kernel names and notes reach PR comments through export, triage and diff --format md (issue 24)."""
    old = tmp_path / "old"
    shutil.copytree(sample_bench, old)
    name = "k " + MD_PAYLOAD

    def hostile(data):
        data["kernels"][0]["name"] = name
        data["kernels"][0]["pto_reason"] = MD_PAYLOAD

    _rewrite(sample_bench, hostile)
    assert main(["export", str(sample_bench), "--format", "md"]) == 0
    _inert(capsys.readouterr().out)
    state = tmp_path / "triage.json"
    key = str((sample_bench / "reports").resolve())
    state.write_text(json.dumps({"reports": {key: {name: {"state": "acknowledged", "note": MD_PAYLOAD}}}}))
    assert main(["triage", str(sample_bench), "--state", str(state), "--format", "md"]) == 0
    _inert(capsys.readouterr().out)
    main(["diff", str(old), str(sample_bench), "--format", "md"])
    _inert(capsys.readouterr().out)
