"""``ptotui changes`` and ``ptotui rundiff`` as a user runs them."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ptotui.cli import main
from tests.changetree import noisy, pto_code, stamp, write_history

GOLDEN = Path(__file__).parent / "golden" / "changes.json"


def _tree(tmp_path: Path) -> Path:
    """A checkout with bench/results and no bench/reports: a PTO step at run 18 with a split
    of the kernel into two stages, a baseline step at run 8 with no code change."""
    bench = tmp_path / "checkout" / "bench"
    baseline = [v * (0.8 if i >= 8 else 1.0) for i, v in enumerate(noisy(30, None, 0.0, 0.01, seed=4))]
    pto = noisy(30, 18, 0.25, 0.01, seed=11)
    write_history(bench, "demo", "tile_add", pto, baseline, code=lambda i: pto_code(i, 18))
    write_history(bench, "demo", "flat_mul", noisy(30, None, 0.0, 0.01, seed=12))
    return bench


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_is_the_schema_of_the_issue_and_the_golden_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _tree(tmp_path)
    code, out, err = _run(capsys, "changes", str(bench.parent), "--format", "json")
    assert code == 0, err
    document = json.loads(out)
    assert list(document) == ["schema", "changes", "warnings"]
    assert document["schema"] == "ptotui.changes/1"
    keys = ["kernel", "family", "side", "shape", "label", "before", "after", "before_ms", "after_ms", "change_pct"]
    keys += ["pvalue", "runs_before", "runs_after", "pending", "environment", "artifacts"]
    assert all(list(change) == keys for change in document["changes"])
    assert [(c["kernel"], c["side"], c["after"]) for c in document["changes"]] == [
        ("tile_add", "baseline", stamp(8)),
        ("tile_add", "pto", stamp(18)),
    ]
    assert document["changes"][0]["artifacts"] == []
    if os.environ.get("PTOTUI_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(out, encoding="utf-8")
    assert out == GOLDEN.read_text(encoding="utf-8")


def test_json_is_the_same_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _tree(tmp_path)
    english = _run(capsys, "changes", str(bench), "--format", "json")[1]
    chinese = _run(capsys, "changes", str(bench), "--format", "json", "--lang", "zh")[1]
    assert english == chinese


def test_kernel_side_shapes_and_min_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _tree(tmp_path)

    def found(*flags: str) -> list[tuple[str, str, str | None]]:
        document = json.loads(_run(capsys, "changes", str(bench), "--format", "json", *flags)[1])
        return [(c["kernel"], c["side"], c["shape"]) for c in document["changes"]]

    assert found("--side", "pto") == [("tile_add", "pto", None)]
    assert found("--kernel", "flat_mul") == []
    assert found("--min-change", "30") == []
    assert set(found("--shapes", "--side", "pto")) == {
        ("tile_add", "pto", None),
        ("tile_add", "pto", '{"x":[16,64]}'),
        ("tile_add", "pto", '{"x":[32,64]}'),
    }


def test_table_and_csv(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = _tree(tmp_path)
    code, out, _err = _run(capsys, "changes", str(bench))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["After", "Kernel", "Side"]
    assert "PTO slower" in out and "baseline faster" in out
    assert any(line.split() == ["added", "+3", "-0", "stage1/kernel.pto"] for line in lines)
    assert any(line.split() == ["removed", "binary", "kernel.so"] for line in lines)
    rows = list(csv.DictReader(io.StringIO(_run(capsys, "changes", str(bench), "--format", "csv")[1])))
    assert [(r["side"], r["files_changed"], r["lines_added"], r["lines_removed"]) for r in rows] == [
        ("baseline", "0", "0", "0"),
        ("pto", "5", "6", "4"),
    ]
    chinese = _run(capsys, "changes", str(bench), "--lang", "zh")[1]
    assert "PTO 变慢" in chinese and "新增" in chinese


def test_a_tree_without_runs_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bench" / "results").mkdir(parents=True)
    code, out, err = _run(capsys, "changes", str(tmp_path / "bench"))
    assert code == 0 and out == "no change points\n"
    assert "no run directories with a report.json" in err


def test_rundiff_is_a_git_style_diff_with_binaries_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bench = _tree(tmp_path)
    code, out, err = _run(capsys, "rundiff", str(bench), "tile_add", stamp(17), stamp(18))
    assert code == 0, err
    assert out.splitlines()[:5] == [
        "diff --git a/kernel.pto b/kernel.pto",
        "deleted file",
        "--- a/kernel.pto",
        "+++ /dev/null",
        "@@ -1,4 +0,0 @@",
    ]
    assert "Binary files a/kernel.so and /dev/null differ" in out
    assert "demo_tile_add_benchmark.json" not in out and "report.json" not in out
    assert "\x1b[" not in out  # not a terminal: plain
    only = _run(capsys, "rundiff", str(bench), "tile_add", stamp(17), stamp(18), "--file", "stage2/*")[1]
    assert [line for line in only.splitlines() if line.startswith("diff")] == [
        "diff --git a/stage2/kernel.pto b/stage2/kernel.pto"
    ]
    assert _run(capsys, "rundiff", str(bench), "tile_add", stamp(1), stamp(2))[1] == ""


def test_rundiff_exit_2_names_an_unknown_kernel_or_stamp(tmp_path: Path) -> None:
    bench = _tree(tmp_path)

    def rundiff(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "ptotui", "rundiff", str(bench), *argv]
        return subprocess.run(command, capture_output=True, text=True, timeout=60)

    result = rundiff("no_such", stamp(1), stamp(2))
    assert result.returncode == 2 and "no_such" in result.stderr
    result = rundiff("tile_add", stamp(1), "20990101T000000Z")
    assert result.returncode == 2 and "20990101T000000Z" in result.stderr


def test_rundiff_colours_a_terminal() -> None:
    from ptotui.commands.rundiff import coloured

    assert coloured("+new") == "\x1b[32m+new\x1b[0m"
    assert coloured("-old") == "\x1b[31m-old\x1b[0m"
    assert coloured(" same") == " same"


def test_a_step_with_fewer_than_three_runs_after_it_is_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The real tree's fused_infer_attention_score baseline +14.5% with 1 run after it: listed
    as a change point before; now apart, with ``--pending`` only."""
    bench = tmp_path / "bench"
    write_history(bench, "demo", "tile_add", [*noisy(24, None, 0.0, 0.01, seed=3), 1.4, 1.41])
    assert _run(capsys, "changes", str(bench))[1] == "no change points\n"
    document = json.loads(_run(capsys, "changes", str(bench), "--pending", "--format", "json")[1])
    assert [(c["after"], c["runs_after"], c["pending"]) for c in document["changes"]] == [(stamp(24), 2, True)]
    table = _run(capsys, "changes", str(bench), "--pending")[1].splitlines()
    assert table[1] == "" and table[2].startswith("Pending: possible steps with fewer than 3 runs after them")
    assert table[3].split()[:3] == [stamp(24), "tile_add", "PTO"]
    rows = list(csv.DictReader(io.StringIO(_run(capsys, "changes", str(bench), "--pending", "--format", "csv")[1])))
    assert [r["pending"] for r in rows] == ["true"]
    write_history(bench, "demo", "tile_add", [1.4], first=26)  # its third run after: a change point
    document = json.loads(_run(capsys, "changes", str(bench), "--format", "json")[1])
    assert [(c["after"], c["runs_after"], c["pending"]) for c in document["changes"]] == [(stamp(24), 3, False)]
