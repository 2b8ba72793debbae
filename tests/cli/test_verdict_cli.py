"""summary and export name a landed run's regression."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.model.test_verdict import LANDED, OLD_SNAPSHOT, STEADY, WOBBLE, build_tree, land


def test_summary_and_export_name_the_landed_runs_regression(tmp_path: Path) -> None:
    bench = build_tree(tmp_path)
    land(bench, WOBBLE[-1] * 1.2)

    def ptotui(*args: str) -> subprocess.CompletedProcess[str]:
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(tmp_path), "NO_COLOR": "1"}
        return subprocess.run(
            [sys.executable, "-m", "ptotui", *args], capture_output=True, text=True, env=env, check=False
        )

    summary = ptotui("summary", str(bench))
    assert summary.returncode == 0, summary.stderr
    assert f"Since snapshot {OLD_SNAPSHOT}: 1 regression(s): {STEADY}" in summary.stdout
    exported = json.loads(ptotui("export", str(bench), "--format", "json").stdout)
    assert exported["verdict"]["reference"] == {"kind": "snapshot", "stamp": OLD_SNAPSHOT}
    assert exported["verdict"]["regressed_kernels"] == [STEADY]
    row = next(k for k in exported["kernels"] if k["name"] == STEADY)
    assert row["regression"] is True and row["from_run"] == LANDED
    [change] = [c for c in exported["verdict"]["changes"] if c["kernel"] == STEADY]
    assert change["pto_band"]["source"] == "history" and change["pto_beyond_band"] is True
    assert change["baseline_beyond_band"] is False
