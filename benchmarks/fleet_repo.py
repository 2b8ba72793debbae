"""A shared repository of many bench hosts' publishes, built with ``git fast-import``.

Each host's branch ``ptotui/hosts/host-NN`` holds what ``ptotui publish`` commits: the summary
(``bench/reports/regression_latest.json``, the state matrix and one older snapshot of it) and
every run's ``report.json`` under ``bench/results/<family>/<kernel>/<stamp>/``, in the runner's
format (FORMATS.md). A branch is a chain of a few publishes an hour apart, the newest adding one
run. Invented kernels and numbers; one host in four runs another toolkit, one kernel in fifty is
PTO-blocked on odd hosts only (the hosts disagree there).

Used by benchmarks/bench_fleet.py; run alone it builds one and prints where:
``python benchmarks/fleet_repo.py DIR [--hosts 16] [--kernels 300] [--runs 200]``.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

GIT = shutil.which("git") or "git"
FAMILIES = ("norm", "attention", "matmul", "moe", "posembedding", "conv")
START = 1_735_689_600  # 2025-01-01T00:00:00Z: the first run
RUN_GAP = 3 * 3600  # one run of each kernel every three hours
PUBLISHES = 4  # commits per host branch
PUBLISH_GAP = 3600


def stamp(seconds: int) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(seconds))


def kernel_names(kernels: int) -> list[tuple[str, str]]:
    return [(FAMILIES[n % len(FAMILIES)], f"kernel_{n:04d}") for n in range(kernels)]


def environment(host: int) -> dict[str, Any]:
    toolkit = "9.0.0-beta.1" if host % 4 != 3 else "8.5.0.alpha002"
    return {
        "device": {"soc": "ascend910b", "npu_arch": "dav-2201", "pto_arch": "a3", "toolkit_version": toolkit},
        "bench": {"warmup": 20, "repeat": 100, "statistic": "median"},
    }


def blocked(host: int, kernel: int) -> bool:
    return kernel % 50 == 7 and host % 2 == 1


def medians(host: int, kernel: int, run: int) -> tuple[float, float]:
    """(baseline ms, PTO ms) of one run: a kernel's own level, a host's factor, a little noise."""
    baseline = 0.05 + (kernel % 37) * 0.01
    ratio = 0.2 + (kernel % 9) * 0.09  # baseline / PTO from 20% to 92%
    noise = 1.0 + ((run * 7919 + kernel * 104729 + host * 13) % 21 - 10) / 1000.0
    pto = baseline / ratio * (1.0 + host * 0.01) * noise
    return baseline, pto


def report(host: int, kernel: int, family: str, name: str, run: int, run_stamp: str) -> bytes:
    baseline_ms, pto_ms = medians(host, kernel, run)
    where = f"/home/bench{host:02d}/pto-kernels/bench/results/{family}/{name}/{run_stamp}"
    variant = {"rows": 128, "cols": 256}
    sides: dict[str, Any] = {}
    for side, median, status in (
        ("baseline", baseline_ms, "ok"),
        ("pto", pto_ms, "blocked" if blocked(host, kernel) else "ok"),
    ):
        benchmark: dict[str, Any] = {"status": status, "reason": None}
        if status == "ok":
            timings = {"min": median * 0.98, "median": median, "max": median * 1.3}
            benchmark["timings_ms"] = timings
            benchmark["variant_reports"] = [
                {
                    "variant": variant,
                    "shape_summary": {"x": [128, 256]},
                    "timings_ms": timings,
                    "correctness": {"max_abs_diff": 0.0, "passes": True},
                }
            ]
        else:
            benchmark["reason"] = "PTOAS lowering failed: unsupported op"
        benchmark["correctness"] = {"atol": 0.001, "rtol": 0.001, "max_abs_diff": 0.0, "passes": status == "ok"}
        sides[side] = {"benchmark": benchmark}
    data = {
        "name": name,
        "family": family,
        "artifacts_dir": where,
        "report_path": where + "/report.json",
        **environment(host),
        **sides,
    }
    return json.dumps(data, separators=(",", ":")).encode()


def summary(host: int, kernels: list[tuple[str, str]], runs: int, generated_at: str) -> tuple[bytes, bytes]:
    """regression_latest.json and kernel_state_matrix_latest.json as of the host's last run."""
    rows, states = [], []
    for index, (family, name) in enumerate(kernels):
        baseline_ms, pto_ms = medians(host, index, runs - 1)
        is_blocked = blocked(host, index)
        ratio = None if is_blocked else baseline_ms / pto_ms * 100
        rows.append(
            {
                "name": name,
                "family": family,
                "spec": f"bench/specs/{family}/{name}.yaml",
                "report_path": f"/home/bench{host:02d}/pto-kernels/bench/generated/{family}/{name}/report.json",
                "baseline_status": "ok",
                "pto_status": "blocked" if is_blocked else "ok",
                "baseline_reason": None,
                "pto_reason": "PTOAS lowering failed: unsupported op" if is_blocked else None,
                "variants": [
                    {
                        "variant": {"rows": 128, "cols": 256},
                        "shape_summary": {"x": [128, 256]},
                        "baseline_status": "ok",
                        "pto_status": "blocked" if is_blocked else "ok",
                        "baseline_median_ms": baseline_ms,
                        "pto_median_ms": None if is_blocked else pto_ms,
                        "baseline_over_pto_pct": ratio,
                        "baseline_correct": True,
                        "pto_correct": not is_blocked,
                        "baseline_limitations": [],
                    }
                ],
            }
        )
        states.append(
            {
                "name": name,
                "family": family,
                "wave": 1,
                "phase": "port",
                "inventory_status": "included",
                "primary_class": "blocked by PTOAS lowering" if is_blocked else "green + tile-first",
                "scalar_hot_path": False,
                "scalar_matches": [],
                "gap_ids": [],
                "gap_components": [],
                "baseline_over_pto_range": "n/a" if ratio is None else f"{ratio:.1f}%..{ratio:.1f}%",
                "block_utilization": None,
                "baseline_status": "ok",
                "pto_status": "blocked" if is_blocked else "ok",
                "baseline_reason": None,
                "pto_reason": None,
                "pto_correctness_passes": not is_blocked,
                "report_path": f"/home/bench{host:02d}/pto-kernels/bench/generated/{family}/{name}/report.json",
            }
        )
    regression = {"generated_at": generated_at, "kernels": rows}
    state = {"generated_at": generated_at, "kernels": states}
    return json.dumps(regression, indent=1).encode(), json.dumps(state, indent=1).encode()


def build(root: Path, hosts: int = 16, kernels: int = 300, runs: int = 200) -> float:
    """A bare repository at ``root`` with the host branches; seconds taken."""
    started = time.perf_counter()
    subprocess.run([GIT, "init", "-q", "--bare", str(root)], check=True)
    names = kernel_names(kernels)
    importer = subprocess.Popen([GIT, "-C", str(root), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    assert importer.stdin is not None
    out = importer.stdin
    last_run = START + (runs - 1) * RUN_GAP
    for host in range(hosts):
        ref = f"refs/heads/ptotui/hosts/host-{host:02d}".encode()
        for publish in range(PUBLISHES):
            when = last_run + 3600 + publish * PUBLISH_GAP - host * 60
            stream = io.BytesIO()
            stream.write(b"commit %s\ncommitter ptotui publish <ptotui@localhost> %d +0000\n" % (ref, when))
            message = b"ptotui publish host-%02d" % host
            stream.write(b"data %d\n%s\n" % (len(message), message))

            def inline(path: str, payload: bytes, into: io.BytesIO = stream) -> None:
                into.write(b"M 100644 inline %s\ndata %d\n" % (path.encode(), len(payload)))
                into.write(payload + b"\n")

            if publish == 0:
                for index, (family, name) in enumerate(names):
                    for run in range(runs):
                        run_stamp = stamp(START + run * RUN_GAP + index)
                        path = f"bench/results/{family}/{name}/{run_stamp}/report.json"
                        inline(path, report(host, index, family, name, run, run_stamp))
                generated_at = stamp(last_run + 1800)
                regression, state = summary(host, names, runs, generated_at)
                older = json.loads(state)
                older["generated_at"] = stamp(last_run - 10 * RUN_GAP)
                inline("bench/reports/regression_latest.json", regression)
                inline("bench/reports/kernel_state_matrix_latest.json", state)
                inline(f"bench/reports/kernel_state_matrix_{generated_at}.json", state)
                inline(f"bench/reports/kernel_state_matrix_{older['generated_at']}.json", json.dumps(older).encode())
            else:  # a later publish: one more run of one kernel
                index = (publish * 31 + host) % kernels
                family, name = names[index]
                run_stamp = stamp(when - 600)
                path = f"bench/results/{family}/{name}/{run_stamp}/report.json"
                inline(path, report(host, index, family, name, runs - 1, run_stamp))
            stream.write(b"\n")
            out.write(stream.getvalue())
    out.close()
    if importer.wait() != 0:
        raise SystemExit("git fast-import failed")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--hosts", type=int, default=16)
    parser.add_argument("--kernels", type=int, default=300)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    taken = build(args.dir, args.hosts, args.kernels, args.runs)
    print(f"{args.dir}: {args.hosts} hosts x {args.kernels} kernels x {args.runs} runs in {taken:.1f} s")


if __name__ == "__main__":
    main()
