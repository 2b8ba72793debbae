"""``ptotui publish`` of one new run into a branch of 300 kernels x 200 runs (60,000 runs).

Builds one host's branch with benchmarks/fleet_repo.py (git fast-import), writes its tree out
as the bench host has it, publishes it once (the first publish: every file hashed), then lands
one new run at a time (the runner's way: a run directory with its report.json) and times the
``ptotui publish`` that follows; also a publish with nothing new, then ``publish --full``, which
must find nothing changed (the runs kept whole made the tree a full walk makes). Only the publish
row of benchmarks/bench_fleet.py, without its 16 hosts, fleet view and tmux.

Run: python benchmarks/bench_publish.py [--kernels 300] [--runs 200] [--repeat 7] [--dir D]
(``--dir``: build there and keep it; when built before, measure it again.)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fleet_repo import build

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
GIT = shutil.which("git") or "git"


def ptotui(*args: str, env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([str(BIN / "ptotui"), *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def land(tree: Path, kernel: str, family: str, stamp: str) -> None:
    """A new run of ``kernel``: its newest report copied to a run directory named ``stamp``."""
    kernel_dir = tree / "bench" / "results" / family / kernel
    newest = sorted(kernel_dir.iterdir())[-1]
    data = json.loads((newest / "report.json").read_text())
    run = kernel_dir / stamp
    run.mkdir()
    (run / "report.json").write_text(json.dumps(data))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=300)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--dir", type=Path, help="build here and keep it; when built before, measure it again")
    args = parser.parse_args()
    root = args.dir or Path(tempfile.mkdtemp(prefix="ptotui-publish-"))
    root.mkdir(parents=True, exist_ok=True)
    remote, tree = root / "remote.git", root / "host-00"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    publish = ("publish", str(tree), "--repo", str(remote), "--host", "host-00")
    try:
        print(f"load before: {os.getloadavg()}", flush=True)
        if not remote.is_dir():
            built = build(remote, 1, args.kernels, args.runs)
            print(f"built 1 x {args.kernels} x {args.runs} in {built:.0f} s", flush=True)
        if not tree.is_dir():
            tree.mkdir()
            ref = "ptotui/hosts/host-00"
            archive = subprocess.run(
                [GIT, "-C", str(remote), "archive", "--format=tar", ref, "bench"], capture_output=True, check=True
            )
            subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
            (remote / "ptotui-publish.json").unlink(missing_ok=True)
            print(f"first publish: {ptotui(*publish, env=env):.2f} s", flush=True)
        kernel_dir = next((tree / "bench" / "results").iterdir())
        kernel = sorted(kernel_dir.iterdir())[0]
        took = []
        offset = 0
        for _n in range(args.repeat):
            stamp = ""
            while not stamp or (kernel / stamp).exists():  # a year ahead: newer than every run there
                offset += 1
                stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() + 86400 * 365 + offset))
            land(tree, kernel.name, kernel_dir.name, stamp)
            took.append(ptotui(*publish, env=env))
            print(f"publish of one new run: {took[-1]:.2f} s", flush=True)
        same = ptotui(*publish, env=env)
        print(f"publish with nothing new: {same:.2f} s")
        started = time.perf_counter()  # every run walked and hashed again: the same tree, no commit
        full = subprocess.run([str(BIN / "ptotui"), *publish, "--full"], env=env, check=True, capture_output=True)
        said = full.stdout.decode().strip()
        print(f"publish --full: {time.perf_counter() - started:.2f} s: {said}")
        if "nothing changed" not in said:
            raise SystemExit("publish --full made another tree than the publishes before it")
        print(f"load after: {os.getloadavg()}")
        median, low, high = statistics.median(took), min(took), max(took)
        print(f"publish of one new run: median {median:.2f} s, min {low:.2f}, max {high:.2f} (n={len(took)})")
    finally:
        if args.dir is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
