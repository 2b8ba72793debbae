"""One answer to "what regressed since the snapshot": the header's count, the table's ▼
marks, ``ptotui summary`` and ``ptotui diff SNAPSHOT TREE`` name the same kernels, and a
restart with no key pressed shows the same marks (issue: three answers to one question)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ptotui.model.core.diff import WORSE, regressed_kernels
from tests.conftest import ROOT
from tests.helpers import build, loaded, until

pytestmark = pytest.mark.reference


def _copy(reference_bench: Path, tmp_path: Path) -> Path:
    target = tmp_path / "bench"
    shutil.copytree(reference_bench, target)
    for path in [target, *target.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    return target


async def _dashboard(bench: Path, state: Path) -> tuple[str, list[str], dict[str, int]]:
    app = build(bench, state=state)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot)
        session = app.session
        await until(pilot, lambda: session.since is not None and not session.since_pending and session.seen is not None)
        await pilot.pause()
        assert session.since is not None and session.since.stamp is not None
        return session.since.stamp, regressed_kernels(session.since.changes), dict(session.marks)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "ptotui", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.timeout(600)
async def test_header_marks_summary_and_diff_name_the_same_regressions(reference_bench, tmp_path):
    bench = _copy(reference_bench, tmp_path)
    state = tmp_path / "state" / "triage.json"
    stamp, header, marks = await _dashboard(bench, state)
    assert header, "the reference snapshot has regressions since its previous snapshot"
    assert sorted(k for k, mark in marks.items() if mark == WORSE) == sorted(header)

    summary = _cli("summary", str(bench))
    line = next(row for row in summary.stdout.splitlines() if row.startswith("Since snapshot"))
    named = line.split("regression(s): ", 1)[1].split(" (")[0].split(";")[0].split(", ")
    assert sorted(named) == sorted(header)

    snapshot = bench / "reports" / f"kernel_state_matrix_{stamp}.json"
    diffed = _cli("diff", "--format", "json", str(snapshot), str(bench))
    assert sorted(json.loads(diffed.stdout)["regressed_kernels"]) == sorted(header)

    again = await _dashboard(bench, state)  # restart, nothing pressed in between
    assert again == (stamp, header, marks)
