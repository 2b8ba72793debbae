"""ptotui diff's exit codes, run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import SAMPLES


def _diff(*args):
    return subprocess.run([sys.executable, "-m", "ptotui", "diff", *args], capture_output=True, text=True, timeout=60)


def test_diff_command_exit_codes(sample_bench, tmp_path):
    reports = SAMPLES / "reports"
    older, newer = (
        reports / "kernel_state_matrix_20261101T080000Z.json",
        reports / "kernel_state_matrix_20261126T080000Z.json",
    )
    improved = _diff(str(older), str(newer))
    assert improved.returncode == 0 and "rotary_embedding_3d" in improved.stdout
    regressed = _diff(str(newer), str(older), "--format", "json")
    assert regressed.returncode == 1
    payload = json.loads(regressed.stdout)
    assert payload["regressions"] >= 1 and any(c["kind"] == "ratio" for c in payload["changes"])
    assert _diff(str(sample_bench), str(sample_bench)).returncode == 0
    missing = _diff(str(tmp_path / "nope"), str(sample_bench))
    assert missing.returncode == 2 and missing.stderr.startswith("ptotui: error:")
