"""Reports in git at scale: a repository with 10,000 report commits.

Builds the repository with ``git fast-import`` in a temp dir (each commit rewrites
regression_latest.json with one kernel's ratio moved and a new stamp, as a bench run
would), then times what ptotui asks of git: finding the repository, listing the
commits with their blob ids, and reading the newest points through one
``git cat-file --batch``; and, with --frames, the app's first rows in tmux with and
without git history.
Run: python benchmarks/bench_git.py [--commits 10000] [--runs 5] [--frames]
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import subprocess
import time
from pathlib import Path

from harness import Term, dataset, kernel_names, ptotui_command, scratch, shows_kernels, summary, table

from ptotui.model.history.gitpoints import GIT_POINTS, report_history
from ptotui.model.history.gitreports import Place, find_repository

GIT = shutil.which("git") or "git"


def build(root: Path, bench: Path, commits: int) -> float:
    """A repository at ``root`` with ``commits`` commits of bench/reports; seconds taken."""
    started = time.perf_counter()
    subprocess.run([GIT, "init", "-q", str(root)], check=True)
    regression = json.loads((bench / "reports" / "regression_latest.json").read_text())
    state_text = (bench / "reports" / "kernel_state_matrix_latest.json").read_text().encode()
    sides = {name: (bench / name).read_bytes() for name in ("gap_board.yaml", "kernel_inventory.yaml")}
    stream = io.BytesIO()

    def data(payload: bytes) -> None:
        stream.write(b"data %d\n" % len(payload) + payload + b"\n")

    stream.write(b"blob\nmark :1\n")
    data(state_text)
    for mark, payload in enumerate(sides.values(), start=2):
        stream.write(b"blob\nmark :%d\n" % mark)
        data(payload)
    kernels = [k for k in regression["kernels"] if k.get("variants")]
    start = 1_700_000_000
    for index in range(commits):
        kernel = kernels[index % len(kernels)]
        for variant in kernel["variants"]:
            if variant.get("baseline_over_pto_pct") is not None:
                variant["baseline_over_pto_pct"] = 20.0 + (index * 7) % 60
        regression["generated_at"] = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(start + index * 3600))
        blob = json.dumps(regression, indent=2).encode()
        stream.write(b"blob\nmark :%d\n" % (10 + 2 * index))
        data(blob)
        stream.write(b"commit refs/heads/main\nmark :%d\n" % (11 + 2 * index))
        stream.write(b"committer Bench Bot <bench@example.invalid> %d +0000\n" % (start + index * 3600))
        data(b"Refresh migration reports %d" % index)
        if index:
            stream.write(b"from :%d\n" % (9 + 2 * index))
        else:
            stream.write(b"M 100644 :1 bench/reports/kernel_state_matrix_latest.json\n")
            stream.write(b"M 100644 :2 bench/gap_board.yaml\nM 100644 :3 bench/kernel_inventory.yaml\n")
        stream.write(b"M 100644 :%d bench/reports/regression_latest.json\n\n" % (10 + 2 * index))
    subprocess.run([GIT, "-C", str(root), "fast-import", "--quiet"], input=stream.getvalue(), check=True)
    subprocess.run([GIT, "-C", str(root), "checkout", "-q", "main"], check=True)
    return time.perf_counter() - started


def measure(root: Path, runs: int) -> list[tuple[str, str]]:
    find, listing, first, newest = [], [], [], []
    count = 0
    for _ in range(runs):
        started = time.perf_counter()
        found = find_repository(root / "bench" / "reports")
        find.append(time.perf_counter() - started)
        repository = found.repository
        assert repository is not None
        with repository:
            place = Place("bench/reports", "bench")
            started = time.perf_counter()
            count = len(repository.report_commits(place))
            listing.append(time.perf_counter() - started)
            started = time.perf_counter()
            report_history(repository, place, limit=1)
            first.append(time.perf_counter() - started)
            started = time.perf_counter()
            history = report_history(repository, place, limit=GIT_POINTS)
            newest.append(time.perf_counter() - started)
            assert len(history.points) == GIT_POINTS, len(history.points)
    return [
        ("find the repository (git rev-parse)", summary(find)),
        (f"list {count} report commits with blob ids (git log --raw)", summary(listing)),
        ("list + read the newest point (one cat-file --batch)", summary(first)),
        (f"list + read the newest {GIT_POINTS} points (the app's history)", summary(newest)),
    ]


def frames(root: Path, runs: int) -> list[tuple[str, str]]:
    names = kernel_names(root / "bench")
    times: dict[str, list[float]] = {"with git history": [], "--no-git": []}
    for _ in range(runs):
        for label, extra in (("with git history", ()), ("--no-git", ("--no-git",))):
            with Term(ptotui_command(root, *extra)) as term:
                times[label].append(term.wait(shows_kernels(names)))
    return [(label, summary(values)) for label, values in times.items()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--frames", action="store_true", help="also time the app's first rows in tmux")
    args = parser.parse_args()
    label, bench = dataset()
    work = scratch("ptotui-git-")
    try:
        built = build(work / "kernels", bench, args.commits)
        print(f"built {args.commits} commits of {label} in {built:.1f} s\n")
        rows = measure(work / "kernels", args.runs)
        print(table(f"Reports in git, {args.commits} report commits", rows, ("step", "time")))
        if args.frames:
            rows = frames(work / "kernels", args.runs)
            print(table("Time to first rows, 160x48 tmux", rows, ("ptotui", "time to first rows")))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
