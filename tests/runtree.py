"""Invented bench runs in the runner's format, and the real pto-kernels tree when it is here.

Our kernels, numbers and reasons; the layout and field names are the runner's
(``python/pto_kernels/bench/runner.py``): ``bench/results/<family>/<kernel>/<stamp>/report.json``.
"""

from __future__ import annotations

import calendar
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

MIRROR = Path(os.environ.get("PTOTUI_MIRROR", "/work/.mirror/PTO-ISA+pto-kernels/repo"))
REAL = "8582eec"


def variant_report(params: dict[str, Any], shape: dict[str, Any], median: float, passes: bool | None = None) -> dict:
    report: dict[str, Any] = {
        "variant": params,
        "shape_summary": shape,
        "timings_ms": {"min": median * 0.97, "median": median, "max": median * 1.4},
        "correctness": {"max_abs_diff": 0.0},
    }
    if passes is not None:
        report["correctness"]["passes"] = passes
    return report


def make_report(
    name: str,
    family: str,
    shapes: list[tuple[float | None, float | None]],
    baseline_status: str = "ok",
    pto_status: str = "ok",
    pto_passes: bool = True,
    pto_reason: str | None = None,
    run_dir: str = "",
) -> dict[str, Any]:
    """A report.json with one variant per (baseline median, PTO median); None: that side has none."""
    sides: dict[str, Any] = {}
    for side, status, index, passes in (
        ("baseline", baseline_status, 0, True),
        ("pto", pto_status, 1, pto_passes),
    ):
        variants = []
        for number, pair in enumerate(shapes):
            median = pair[index]
            if median is None:
                continue
            params = {"rows": 16 << number, "cols": 64, "seed": number}
            variants.append(variant_report(params, {"x": [16 << number, 64]}, median))
        medians = [pair[index] for pair in shapes if pair[index] is not None]
        benchmark: dict[str, Any] = {
            "status": status,
            "reason": pto_reason if side == "pto" else None,
            "variant_reports": variants,
            "correctness": {"atol": 0.001, "rtol": 0.001, "max_abs_diff": 0.0, "passes": passes},
        }
        if medians:
            benchmark["timings_ms"] = {
                "min": min(medians),
                "median": sorted(medians)[len(medians) // 2],
                "max": max(medians),
            }
        sides[side] = {"benchmark": benchmark}
    return {
        "name": name,
        "family": family,
        "artifacts_dir": f"/home/someone/pto-kernels/bench/results/{family}/{name}/{run_dir}",
        "report_path": f"/home/someone/pto-kernels/bench/results/{family}/{name}/{run_dir}/report.json",
        **sides,
    }


def write_run(
    bench: Path, family: str, name: str, stamp: str, shapes: list[tuple[float | None, float | None]], **kwargs: Any
) -> Path:
    """A finished run as the runner leaves it: the run directory, then the copy in generated/."""
    run_dir = bench / "results" / family / name / stamp
    run_dir.mkdir(parents=True, exist_ok=True)
    report = run_dir / "report.json"
    report.write_text(json.dumps(make_report(name, family, shapes, run_dir=stamp, **kwargs)), encoding="utf-8")
    # Modified a day after the run started, as a checkout made later leaves it (the reader caps
    # what a run took at the next run's start): what it compares with the summary's stamp is
    # then the tree's own time, never this machine's clock.
    try:
        finished = calendar.timegm(time.strptime(stamp, "%Y%m%dT%H%M%SZ")) + 86_400
    except ValueError:  # a stamp that is no real time (a test of that): left as written
        finished = None
    if finished is not None:
        os.utime(report, (finished, finished))
    generated = bench / "generated" / family / name
    shutil.rmtree(generated, ignore_errors=True)
    shutil.copytree(run_dir, generated)
    return report


def need_mirror() -> None:
    if not (MIRROR / "HEAD").exists() or shutil.which("git") is None:
        pytest.skip("the pto-kernels mirror is not on this machine")


def extract(target: Path, *pathspecs: str, commit: str = REAL) -> Path:
    """Files of the real tree at ``commit`` into ``target`` (skips when the mirror is absent)."""
    need_mirror()
    target.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(
        ["git", f"--git-dir={MIRROR}", "archive", "--format=tar", commit, "--", *pathspecs],
        capture_output=True,
        check=True,
    )
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def generator_root(target: Path) -> Path:
    """The summary generators and their package, runnable offline (``PYTHONPATH=python``)."""
    return extract(
        target,
        "python/pto_kernels/__init__.py",
        "python/pto_kernels/config.py",
        "scripts/summarize_latest_regression.py",
        "scripts/generate_kernel_state_matrix.py",
    )


def run_generator(root: Path, script: str = "summarize_latest_regression.py") -> None:
    env = {**os.environ, "PYTHONPATH": str(root / "python")}
    subprocess.run([sys.executable, str(root / "scripts" / script)], cwd=root, env=env, check=True, capture_output=True)


def specs(root: Path, kernels: list[tuple[str, str]]) -> None:
    """bench/regression_kernels.yaml and one spec per (family, name), as the generator reads them."""
    lines = []
    for family, name in kernels:
        spec = root / "bench" / "specs" / family / f"{name}.yaml"
        spec.parent.mkdir(parents=True, exist_ok=True)
        spec.write_text(f"name: {name}\nfamily: {family}\n", encoding="utf-8")
        lines.append(f"- bench/specs/{family}/{name}.yaml")
    (root / "bench" / "regression_kernels.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
