"""The headless commands, run as a user would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

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


def test_without_a_terminal_the_dashboard_refuses_with_one_line(tmp_path):
    """`ptotui PATH </dev/null >file` used to start the TUI, write escape codes into the file and never exit."""
    out = tmp_path / "out.txt"
    with out.open("w") as stdout:
        result = subprocess.run(
            [sys.executable, "-m", "ptotui"],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "export" in result.stderr and "summary" in result.stderr
    assert out.read_text() == ""


def test_max_file_mb_caps_every_report_file(sample_bench):
    """A report over the cap is not read: one warning, and the twins fill in."""
    big = sample_bench / "reports" / "regression_latest.json"
    result = run("export", str(sample_bench), "--max-file-mb", str(big.stat().st_size / 2 / 1024 / 1024))
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["kernels"]) == 15  # from the CSV and markdown twins
    assert "regression_latest.json: is larger than" in result.stderr and "--max-file-mb" in result.stderr
    for bad in ("0", "-1", "nan"):
        refused = run("export", str(sample_bench), "--max-file-mb", bad)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr


def test_export_does_not_hang_on_a_fifo(sample_bench):
    """A FIFO as regression_latest.json made `export` wait for a writer for ever."""
    path = sample_bench / "reports" / "regression_latest.json"
    path.unlink()
    os.mkfifo(path)
    result = run("export", str(sample_bench))  # run() has a timeout: a hang fails, it does not stall the suite
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["kernels"]) == 15
    assert "FIFO" in result.stderr and "Traceback" not in result.stderr


@pytest.fixture
def no_tui(monkeypatch):
    """A usage error must come before the dashboard starts: starting it fails the test instead of hanging."""

    def refuse(*args, **kwargs):
        raise AssertionError("the dashboard would have started")

    monkeypatch.setattr("ptotui.app.factory.make_app", refuse)


def _one_line_exit_2(capsys, argv: list[str]) -> str:
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("ptotui: error:"), err
    assert "terminal" not in err  # refused for what is wrong, not because the tests have no terminal
    return err


def test_nonsense_flags_exit_2_with_one_line(capsys, no_tui):
    for argv in (
        ["--ratio-pp", "0", "/nonexistent"],
        ["diff", "a", "b", "--ratio-pp", "-1"],
        ["log", "--ratio-pp", "0"],
        ["demo", "--interval", "0"],
        ["demo", "--interval", "-2"],
        ["summary", "--high", "101"],
        ["summary", "--mid", "-1"],
        ["export", "--mid", "80"],  # --mid at or above --high (70)
        ["export", "--mid", "50", "--high", "50"],
        ["export", "--high", "nan"],
    ):
        _one_line_exit_2(capsys, argv)


def test_a_misspelt_command_is_not_taken_for_a_directory(capsys, tmp_path, monkeypatch, no_tui):
    monkeypatch.chdir(tmp_path)
    assert "did you mean summary?" in _one_line_exit_2(capsys, ["sumary"])
    assert "did you mean export?" in _one_line_exit_2(capsys, ["exprt", "--format", "csv"])


def test_unusable_paths_exit_2_with_one_line(capsys, tmp_path, no_tui):
    loop_a, loop_b = tmp_path / "a", tmp_path / "b"
    loop_a.symlink_to(loop_b)
    loop_b.symlink_to(loop_a)
    long_name = str(tmp_path / ("x" * 300))
    for path in (str(loop_a), long_name, "rep\0orts"):
        for argv in (
            [path],
            ["summary", path],
            ["export", path],
            ["triage", path],
            ["diff", path, path],
            ["log", path],
        ):
            assert "Traceback" not in _one_line_exit_2(capsys, argv)


def test_commands_share_one_shape():
    import importlib

    from ptotui.cli import COMMANDS, DASHBOARD, build_parser

    for name, command in {**COMMANDS, "": DASHBOARD}.items():
        module = importlib.import_module(command.module)
        assert callable(module.add_arguments) and callable(module.run), name
        parser = build_parser(name or None)
        assert {"--high", "--mid"} <= set(parser._option_string_actions), name


def test_control_characters_in_an_echoed_path_are_escaped(capsys, tmp_path, monkeypatch, no_tui):
    """Issue 24: the error for a PATH that does not exist echoed raw ESC and \\x01 to stderr,
    where a terminal runs them (a colour here; a title or a clipboard write elsewhere)."""
    monkeypatch.chdir(tmp_path)  # short names: diff cuts a long one
    path = "no\x1b[31mred\x01\x9b\u202ex"
    a_file = tmp_path / "a\x1b[2Jfile"
    a_file.write_text("{}")
    for argv in (
        [str(a_file)],
        ["summary", path],
        ["export", path],
        ["triage", path],
        ["diff", path, path],
        ["log", path],
    ):
        err = _one_line_exit_2(capsys, argv)
        assert not any(c in err for c in "\x1b\x01\x9b\u202e"), (argv, err)
        assert "no\\x1b[31mred\\x01\\x9b\\u202ex" in err or "a\\x1b[2Jfile" in err, (argv, err)
    # A warning that echoes a path: a settings file that is a directory.
    odd = tmp_path / "conf\x1b]0;title\x07ig"
    odd.mkdir()
    assert main(["export", "--config", str(odd), "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert "ptotui: warning:" in err and not any(c in err for c in "\x1b\x07"), err
    assert "conf\\x1b]0;title\\x07ig" in err


def test_a_common_flag_before_the_command_is_taken(capsys, sample_bench, no_tui):
    """Issue 33 item 15: ``ptotui --lang zh summary PATH`` said 无法识别的参数：PATH."""
    assert main(["--lang", "zh", "summary", str(sample_bench)]) == 0
    chinese = capsys.readouterr().out
    assert main(["summary", str(sample_bench), "--lang", "zh"]) == 0
    assert capsys.readouterr().out == chinese and "算子" in chinese
    assert main(["--lang=en", "--high", "80", "export", str(sample_bench), "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("name,")
    # a dashboard flag before a command is still the dashboard's: one usage line
    _one_line_exit_2(capsys, ["--poll", "summary", str(sample_bench)])
