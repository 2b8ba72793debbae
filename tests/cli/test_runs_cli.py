"""``ptotui runs``: the run log as a user runs it."""

from __future__ import annotations

import calendar
import csv
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tests import runtree
from tests.runtree import write_run

S1, S2, S3 = "20260401T010000Z", "20260401T011500Z", "20260402T013000Z"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ptotui", "runs", *args], capture_output=True, text=True, timeout=60)


def _tree(tmp_path: Path) -> Path:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2), (0.3, 0.3)])
    write_run(bench, "mc", "ring_shuffle", S2, [(None, 0.5)], baseline_status="blocked")
    write_run(bench, "norm", "tile_softmax", S3, [(0.1, 0.25), (0.3, 0.3)])
    (bench / "results" / "norm" / "tile_softmax" / "20260402T020000Z").mkdir()  # running
    (bench / "reports").mkdir()
    return bench


def test_json_lists_every_run_oldest_first_with_the_schema_fields(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    result = run(str(bench), "--format", "json")
    assert result.returncode == 0, result.stderr
    payload = json.loads(result.stdout)
    assert payload["schema"] == "ptotui.runs/1"
    assert [(r["kernel"], r["started"]) for r in payload["runs"]] == [
        ("tile_softmax", S1),
        ("ring_shuffle", S2),
        ("tile_softmax", S3),
    ]
    first = payload["runs"][0]
    assert set(first) == {
        "kernel",
        "family",
        "started",
        "finished",
        "baseline_status",
        "pto_status",
        "baseline_ms",
        "pto_ms",
        "ratio_pct",
        "path",
        "environment",
    }
    assert first["environment"] == {}  # these invented reports name no device: nothing is known
    assert first["baseline_ms"] == 0.2 and first["pto_ms"] == 0.25 and first["ratio_pct"] == 75.0
    assert payload["runs"][1]["baseline_ms"] is None and payload["runs"][1]["baseline_status"] == "blocked"
    assert "1 run directory without report.json" in result.stderr


def test_kernel_and_since_filter_and_csv_and_table(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    result = run(str(bench), "--kernel", "tile_softmax", "--since", "20260402", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [(r["kernel"], r["started"]) for r in rows] == [("tile_softmax", S3)]
    table = run(str(bench.parent)).stdout.splitlines()
    assert table[0].split()[:3] == ["Started", "Finished", "Kernel"] and len(table) == 4
    assert "ring_shuffle" in table[2] and "blocked" in table[2] and "n/a" in table[2]


def test_a_bad_since_is_one_usage_line(tmp_path: Path) -> None:
    result = run(str(_tree(tmp_path)), "--since", "yesterday")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "UTC stamp" in result.stderr


def test_names_from_the_tree_cannot_reach_the_terminal_or_a_spreadsheet(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_run(bench, "norm", "=cmd|x\x1b]2;owned\x07", S1, [(0.1, 0.2)])
    (bench / "reports").mkdir()
    for fmt in ("table", "csv"):
        out = run(str(bench), "--format", fmt).stdout
        assert "\x1b" not in out and "\x07" not in out
    assert "'=cmd" in run(str(bench), "--format", "csv").stdout


def test_runs_does_not_import_pandas(tmp_path: Path) -> None:
    """pandas is imported only when a CSV report is read, which ``runs`` never does: a run-time
    fact (the readers it imports could import pandas). That it imports no Textual is the
    headless commands' import-linter contract (pyproject.toml)."""
    bench = _tree(tmp_path)
    code = (
        "import sys; from ptotui.cli import main; main(['runs', sys.argv[1]]);"
        "print([m for m in ('pandas',) if m in sys.modules], file=sys.stderr)"
    )
    result = subprocess.run([sys.executable, "-c", code, str(bench)], capture_output=True, text=True, timeout=60)
    assert result.stderr.strip().splitlines()[-1] == "[]"


def test_runs_lists_every_committed_run_of_the_real_tree(tmp_path: Path) -> None:
    root = runtree.extract(tmp_path, ":(glob)bench/results/**/report.json", "bench/reports/regression_latest.json")
    payload = json.loads(run(str(root), "--format", "json").stdout)
    in_results = [r for r in payload["runs"] if "/bench/results/" in r["path"]]
    assert len(in_results) == 405


def _padded(report: Path, megabytes: float) -> None:
    """The report.json made ``megabytes`` long by trailing spaces (still the same JSON)."""
    text = report.read_text(encoding="utf-8")
    report.write_text(text + " " * int(megabytes * 1024 * 1024 - len(text)), encoding="utf-8")


def test_runs_honours_max_file_mb_both_ways(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    small = write_run(bench, "norm", "tile_small", S1, [(0.1, 0.2)])
    big = write_run(bench, "norm", "tile_big", S2, [(0.1, 0.2)])
    (bench / "reports").mkdir()
    import shutil

    shutil.rmtree(bench / "generated")  # only the run directories' own report.json files
    _padded(small, 3)
    _padded(big, 20)
    capped = run(str(bench), "--max-file-mb", "1", "--format", "json")
    assert json.loads(capped.stdout)["runs"] == []
    assert capped.stderr.count("larger than the 1 MB cap (--max-file-mb)") == 2
    roomy = run(str(bench), "--max-file-mb", "100", "--format", "json")
    kernels = sorted(r["kernel"] for r in json.loads(roomy.stdout)["runs"])
    assert kernels == ["tile_big", "tile_small"] and "cap" not in roomy.stderr


def test_a_checkout_with_runs_and_no_reports_yet_lists_its_runs(tmp_path: Path) -> None:
    """Issue 33 (2): a new bench host before the generators ran has bench/results, no bench/reports."""
    bench = tmp_path / "checkout" / "bench"
    write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)])
    write_run(bench, "mc", "ring_shuffle", S2, [(None, 0.5)], baseline_status="blocked")
    for path in (tmp_path / "checkout", bench):
        result = run(str(path), "--format", "json")
        assert result.returncode == 0, result.stderr
        assert [r["kernel"] for r in json.loads(result.stdout)["runs"]] == ["tile_softmax", "ring_shuffle"]
        assert "results" not in result.stderr


def test_a_kernel_with_no_runs_at_all_is_a_usage_error_as_in_log(tmp_path: Path) -> None:
    """Issue 33 item 15: ``runs --kernel nosuch`` said "no runs" and exited 0; ``log`` exits 2."""
    bench = _tree(tmp_path)
    result = run(str(bench), "--kernel", "nosuch")
    assert result.returncode == 2, result
    assert result.stdout == "" and "nosuch" in result.stderr and result.stderr.count("ptotui: error:") == 1
    # a kernel that has runs, none of them since STAMP: an empty listing, not an error
    later = run(str(bench), "--kernel", "ring_shuffle", "--since", "20260402")
    assert later.returncode == 0 and "no runs" in later.stdout


def _touch(report: Path, stamp: str) -> None:
    seconds = calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ"))
    os.utime(report, (seconds, seconds))


def test_a_checkouts_time_is_no_runs_finish_in_any_format(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    reports = [
        write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)]),
        write_run(bench, "mc", "ring_shuffle", S2, [(0.5, 0.5)]),
        write_run(bench, "norm", "tile_softmax", S3, [(0.1, 0.25)]),
    ]
    for report in reports:  # a fresh checkout: every file has the checkout's time
        _touch(report, "20260405T120000Z")
    result = run(str(bench), "--format", "json")
    assert [r["finished"] for r in json.loads(result.stdout)["runs"]] == [None, None, None]
    assert "3 runs without a finish time" in result.stderr
    rows = list(csv.DictReader(io.StringIO(run(str(bench), "--format", "csv").stdout)))
    assert [r["finished"] for r in rows] == ["", "", ""]
    table = run(str(bench)).stdout.splitlines()[1:]
    assert [line.split()[1] for line in table] == ["n/a", "n/a", "n/a"]
    assert "20260405T120000Z" not in "".join(table)


def test_a_finish_before_the_next_start_is_kept_and_a_later_run_after_a_checkout_too(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    first = write_run(bench, "norm", "tile_softmax", S1, [(0.1, 0.2)])
    second = write_run(bench, "mc", "ring_shuffle", S2, [(0.5, 0.5)])
    _touch(first, "20260401T011000Z")  # ended before the next run started: its end
    _touch(second, "20260401T012000Z")  # the last run: nothing bounds it
    result = run(str(bench), "--format", "json")
    assert [r["finished"] for r in json.loads(result.stdout)["runs"]] == ["20260401T011000Z", "20260401T012000Z"]
    assert "finish time" not in result.stderr
    # a checkout of both, then a run measured here: the checkout's time is neither old run's end,
    # not even the one it is not later than the next start of; the new run's own time is kept
    for report in (first, second):
        _touch(report, "20260402T000000Z")
    _touch(write_run(bench, "norm", "tile_softmax", S3, [(0.1, 0.25)]), "20260402T014500Z")
    runs = json.loads(run(str(bench), "--format", "json").stdout)["runs"]
    assert [r["finished"] for r in runs] == [None, None, "20260402T014500Z"]
