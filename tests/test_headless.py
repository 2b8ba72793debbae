"""The headless commands never import Textual, and the command registry stays lazy.

cli.py promises both: a command's module is imported only when it runs, and the commands
that print and exit (summary, export, triage, diff, log) keep Textual (and the app) off
their path. Each runs here in a fresh interpreter, as a user runs it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptotui.cli import COMMANDS
from tests.conftest import ROOT
from tests.gitrepos import GIT, commit, git

# The commands that draw with Textual; every other one is headless and runs below.
DRAWN = {"demo", "serve"}

RUNNER = """
import json, sys
out, argv = sys.argv[1], sys.argv[2:]
import ptotui.cli
registry = sorted(name for name in sys.modules if name.startswith("ptotui.commands."))
code = ptotui.cli.main(argv)
loaded = sorted(name for name in sys.modules if name.split(".")[0] in ("textual", "textual_serve", "textual_plotext")
                or name == "ptotui.app" or name.startswith("ptotui.app."))
with open(out, "w") as handle:
    json.dump({"code": code, "registry": registry, "loaded": loaded}, handle)
"""


@pytest.fixture
def repo(sample_bench: Path, tmp_path: Path) -> Path:
    """The samples committed twice, so diff has revisions and log has a change to tell."""
    if GIT is None:
        pytest.skip("git is not installed")
    root = tmp_path / "checkout"
    shutil.copytree(sample_bench, root / "bench")
    git(root, "init", "-q")
    commit(root, "reports", when=1_764_000_000)
    report = root / "bench" / "reports" / "regression_latest.json"
    data = json.loads(report.read_text())
    data["kernels"][0]["variants"][0]["baseline_over_pto_pct"] = 1.0
    report.write_text(json.dumps(data))
    commit(root, "a bench run", when=1_764_000_100)
    return root


def cases(root: Path) -> dict[str, list[list[str]]]:
    bench = str(root / "bench")
    return {
        "summary": [["summary", bench]],
        "export": [["export", bench, "--format", fmt] for fmt in ("json", "csv", "md")],
        "triage": [["triage", bench, "--format", fmt, "--state", str(root / "triage.json")] for fmt in ("md", "json")],
        "diff": [["diff", bench, bench], ["diff", "HEAD~1", "HEAD", "--repo", str(root), "--format", "json"]],
        "log": [["log", bench], ["log", bench, "--kernel", "softmax_online_fused"]],
        "rundiff": [["rundiff", str(_two_runs(root)), "tile_add", RUN1, RUN2]],
        # The fleet of the checkout: the host branch its publish just made.
        "fleet": [["publish", bench, "--host", "h"], ["fleet", str(root)], ["fleet", str(root), "--format", "json"]],
    }


RUN1, RUN2 = "20260401T010000Z", "20260401T011500Z"


def _two_runs(root: Path) -> Path:
    """Two runs of one kernel (the samples have none), for rundiff."""
    from tests.runtree import write_run

    bench = root.parent / "runs" / "bench"
    for stamp in (RUN1, RUN2):
        write_run(bench, "demo", "tile_add", stamp, [(0.1, 0.2)])
    return bench


def test_headless_commands_never_import_textual(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # fleet writes the hosts' trees there
    report = tmp_path / "modules.json"
    # A headless command without a case of its own runs as `ptotui NAME BENCH`.
    known = cases(repo)
    every = {name: known.get(name, [[name, str(repo / "bench")]]) for name in COMMANDS if name not in DRAWN}
    for runs in every.values():
        for argv in runs:
            result = subprocess.run(
                [sys.executable, "-c", RUNNER, str(report), *argv],
                capture_output=True,
                text=True,
                cwd=repo,
                timeout=60,
            )
            assert result.returncode == 0 and report.is_file(), (argv, result.stderr)
            seen = json.loads(report.read_text())
            assert seen["code"] in (0, 1), (argv, result.stderr)  # diff exits 1 on a regression
            assert seen["loaded"] == [], (argv, seen["loaded"])
            # Importing the CLI imports no command but what they all share.
            assert seen["registry"] == ["ptotui.commands.argwords", "ptotui.commands.common"], (argv, seen["registry"])
            report.unlink()


def test_the_runner_sees_textual_when_it_is_imported(repo: Path, tmp_path: Path) -> None:
    """The check above can fail: a command that draws is caught by the same runner."""
    report = tmp_path / "modules.json"
    script = RUNNER.replace("code = ptotui.cli.main(argv)", "import ptotui.app.app\ncode = 0")
    subprocess.run([sys.executable, "-c", script, str(report)], cwd=ROOT, timeout=60, check=True)
    loaded = json.loads(report.read_text())["loaded"]
    assert "textual" in loaded and "ptotui.app.app" in loaded
