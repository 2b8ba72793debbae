"""Build git repositories of committed reports in temporary directories, the way the
kernels teams do: commit the reference snapshot, let a "bench run" rewrite the reports,
commit again, and branch for a second host."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REFERENCE

GIT = shutil.which("git")
REPORT_NAMES = (
    "regression_latest.json",
    "regression_latest.md",
    "kernel_state_matrix_latest.json",
    "kernel_state_matrix_latest.md",
)


def git(repo: Path, *args: str, when: int | None = None) -> str:
    """Run git in ``repo`` with a fixed identity (no global configuration needed)."""
    assert GIT is not None
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"{when} +0000"
    result = subprocess.run(
        [
            GIT,
            "-c",
            "user.name=Bench Bot",
            "-c",
            "user.email=bench@example.invalid",
            "-c",
            "init.defaultBranch=main",
            "-C",
            str(repo),
            *args,
        ],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return result.stdout.strip()


def commit(repo: Path, subject: str, when: int) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", subject, when=when)
    return git(repo, "rev-parse", "HEAD")


def reports_dir(repo: Path) -> Path:
    return repo / "bench" / "reports"


def read_json(repo: Path, name: str) -> Any:
    return json.loads((reports_dir(repo) / name).read_text())


def write_json(repo: Path, name: str, data: Any) -> None:
    (reports_dir(repo) / name).write_text(json.dumps(data, indent=2))


def bench_run(repo: Path, stamp: str, ratios: dict[str, float] = {}, blocked: tuple[str, ...] = ()) -> None:  # noqa: B006 - read only
    """Rewrite regression_latest.json as a bench run would: a new stamp, new numbers."""
    data = read_json(repo, "regression_latest.json")
    data["generated_at"] = stamp
    for kernel in data["kernels"]:
        if kernel["name"] in ratios:
            for variant in kernel["variants"]:
                variant["baseline_over_pto_pct"] = ratios[kernel["name"]]
        if kernel["name"] in blocked:
            kernel["pto_status"] = "blocked"
            for variant in kernel["variants"]:
                variant["pto_status"] = "blocked"
                variant["pto_median_ms"] = None
                variant["baseline_over_pto_pct"] = None
    write_json(repo, "regression_latest.json", data)
    state = read_json(repo, "kernel_state_matrix_latest.json")
    state["generated_at"] = stamp
    write_json(repo, "kernel_state_matrix_latest.json", state)


def make_repository(root: Path) -> dict[str, str]:
    """A repository at ``root`` with report history on main and on a second host's branch.

    main:   c1 snapshot ─ c2 bench run (grouped_matmul up to 75%, grouped_matmul_add blocked)
            ─ c3 README only ─ c5 bench run (apply_rotary_pos_emb down to 20%)
    host-b: from c1, b1 bench run (dequant_rope_quant_kvcache up to 80%)
    Returns the commit ids by name.
    """
    if not REFERENCE.is_dir():
        pytest.skip("../shared/reference_reports is not here (only the developers' machines have it)")
    if GIT is None:
        pytest.skip("no git on this machine")
    bench = root / "bench"
    (bench / "reports").mkdir(parents=True)
    for name in REPORT_NAMES:
        shutil.copyfile(REFERENCE / "reports" / name, bench / "reports" / name)
    for name in ("gap_board.yaml", "kernel_inventory.yaml"):
        shutil.copyfile(REFERENCE / name, bench / name)
    git(root, "init", "-q")
    ids = {"c1": commit(root, "Add migration reports", 1_774_000_000)}
    bench_run(root, "20260322T010000Z", {"grouped_matmul": 75.0}, ("grouped_matmul_add",))
    ids["c2"] = commit(root, "Refresh migration reports", 1_774_100_000)
    (root / "README").write_text("kernels\n")
    ids["c3"] = commit(root, "Document the kernels", 1_774_200_000)
    bench_run(root, "20260324T010000Z", {"apply_rotary_pos_emb": 20.0})
    ids["c5"] = commit(root, "Refresh migration reports", 1_774_400_000)
    git(root, "checkout", "-q", "-b", "host-b", ids["c1"])
    bench_run(root, "20260323T010000Z", {"dequant_rope_quant_kvcache": 80.0})
    ids["b1"] = commit(root, "Refresh migration reports on host B", 1_774_150_000)
    git(root, "checkout", "-q", "main")
    return ids
