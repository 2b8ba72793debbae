"""The headless commands, run as a user would run them."""

from __future__ import annotations

import json
import subprocess
import sys

from ptotui.cli import main


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptotui", *args], capture_output=True, text=True, timeout=60)


def test_export_json_schema_on_samples():
    result = run("export", "--format", "json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["schema"] == "ptotui.export/1"
    assert payload["warnings"] == []
    kernel = payload["kernels"][0]
    for key in (
        "name",
        "family",
        "wave",
        "class",
        "tier",
        "scalar_heavy",
        "baseline_status",
        "pto_status",
        "ratio_min_pct",
        "ratio_median_pct",
        "ratio_max_pct",
        "baseline_ms",
        "pto_ms",
        "baseline_reason",
        "pto_reason",
        "gap_ids",
        "gaps",
        "blocker_layer",
        "variants",
    ):
        assert key in kernel, key
    for key in (
        "shape",
        "baseline_status",
        "pto_status",
        "baseline_ms",
        "pto_ms",
        "ratio_pct",
        "baseline_correct",
        "pto_correct",
        "limitations",
    ):
        assert key in kernel["variants"][0], key
    assert isinstance(kernel["ratio_median_pct"], float)


def test_export_csv_and_md(capsys):
    assert main(["export", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("name,family,wave,class,tier") and len(lines) == 16
    assert main(["export", "--format", "md"]) == 0
    assert "| high | softmax_online_fused |" in capsys.readouterr().out


def test_summary_is_plain_when_not_a_tty():
    result = run("summary")
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout
    assert "BASELINE-BLOCKED" in result.stdout and "PTOAS lowering" in result.stdout


def test_missing_path_and_bad_flag_exit_2_with_one_line(tmp_path):
    a_file = tmp_path / "regression_latest.json"
    a_file.write_text("{}")
    for args in (
        ["export", str(tmp_path / "nope")],
        ["summary", "--bogus"],
        ["export", "--format", "xml"],
        ["summary", str(a_file)],
        [str(a_file)],
    ):
        result = run(*args)
        assert result.returncode == 2, args
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("ptotui: error:"), result.stderr
        assert "Traceback" not in result.stderr


def test_warnings_go_to_stderr_with_exit_0(sample_bench):
    (sample_bench / "reports" / "regression_latest.json").write_text('{"kernels": [')
    result = run("export", str(sample_bench))
    assert result.returncode == 0
    assert len(json.loads(result.stdout)["kernels"]) == 15  # the markdown/CSV twins fill in
    assert "regression_latest.json" in result.stderr and "Traceback" not in result.stderr
