"""Noise bands on the real history: how often same code is called a change, and which of
the old rule's regressions the new one keeps.

Reads a pto-kernels checkout (or a git mirror, cloned to a temp dir without checking out),
nothing is written into it:

1. **False positives on same-code repeats.** Every two consecutive runs of a kernel in
   ``bench/results/<family>/<kernel>/<stamp>/report.json`` whose PTO code is the same (the
   same ``kernel.pto`` files in both run directories) measure the same PTO code twice. The
   band is what ptotui would use for the newer run (the runs before it as history, both
   runs' min/median as the reports' spread, else the default; floor 3%), and a false
   positive is "PTO slower beyond its band". The baseline code (the vendor's) never changes
   between runs, so every consecutive pair counts for the baseline side. The parity rounds
   of ``kernel_parity_latest.json`` are the same code measured 3 times: the same question.
2. **What the rule keeps.** ``ptotui diff`` between consecutive report commits (and 889b027
   8582eec, the pair of issue 21), by the old
   rule (``--rule ratio``) and the new one: the regressed kernels of each.

Run: python benchmarks/bench_noise.py [--repo PATH] (default: the mirror in /work/.mirror)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from ptotui.cli import main as ptotui_main
from ptotui.model.bench.noisedata import DiskTree, side_timings
from ptotui.model.core.noise import FLOOR_PCT, SideNoise, change_pct

MIRROR = Path("/work/.mirror/PTO-ISA+pto-kernels/repo")
REPORT_COMMITS = ("df0f418", "889b027", "a204f02", "8582eec")
SIDES = ("pto", "baseline")


def code_of(run: Path) -> str | None:
    """A hash of the run's PTO code (its kernel.pto files); None when it has none (blocked)."""
    files = sorted(run.rglob("kernel.pto"))
    if not files:
        return None
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(run)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def runs_of(bench: Path) -> dict[str, list[tuple[str, str | None, dict]]]:
    tree = DiskTree(bench)
    out: dict[str, list[tuple[str, str | None, dict]]] = {}
    for report in sorted(bench.glob("results/*/*/*/report.json")):
        run = report.parent
        data = tree.read(str(report.relative_to(bench)))
        try:
            parsed = json.loads(data or b"")
        except ValueError:
            continue  # a run with NaN timings or a torn file: the same warning the diff gives
        timings = {side: side_timings(parsed, side) for side in SIDES}
        out.setdefault(run.parent.name, []).append((run.name, code_of(run), timings))
    return out


def false_positives(runs: dict[str, list[tuple[str, str | None, dict]]], floor: float) -> dict[str, tuple[int, int]]:
    found = {side: [0, 0] for side in SIDES}
    sources: dict[str, int] = {}
    for sequence in runs.values():
        for index in range(1, len(sequence)):
            (_, code_a, a), (_, code_b, b) = sequence[index - 1], sequence[index]
            for side in SIDES:
                if side == "pto" and (code_a is None or code_a != code_b):
                    continue
                old = {k: m for k, (_, m) in a[side].items()}
                new = {k: m for k, (_, m) in b[side].items()}
                change = change_pct(old, new)
                if change is None:
                    continue
                history = [{k: m for k, (_, m) in run[2][side].items()} for run in sequence[:index]]
                spreads = [[(lo, m) for lo, m in run[side].values() if lo is not None] for run in (a, b)]
                band = SideNoise([h for h in history if h], [], spreads).band(floor)
                sources[f"{side}:{band.source}"] = sources.get(f"{side}:{band.source}", 0) + 1
                found[side][1] += 1
                if change > band.pct:
                    found[side][0] += 1
    print("  bands used:", ", ".join(f"{k} {v}" for k, v in sorted(sources.items())))
    return {side: (hits, total) for side, (hits, total) in found.items()}


def parity_rounds(bench: Path, floor: float) -> tuple[int, int, list[str]]:
    """Each round against the one before, with the band of the other rounds left out (report default)."""
    data = json.loads((bench / "reports" / "kernel_parity_latest.json").read_text())
    hits = total = 0
    spreads: list[str] = []
    for record in data["kernels"]:
        for side in SIDES:
            points = [
                {json.dumps(r.get("variant"), sort_keys=True): r[f"{side}_median_ms"] for r in rnd["variant_rows"]}
                for rnd in record["rounds"]
            ]
            changes = [change_pct(a, b) for i, a in enumerate(points) for b in points[i + 1 :]]
            changes = [c for c in changes if c is not None]
            spreads.append(f"{record['name']}/{side} {max(abs(c) for c in changes):.1f}%")
            for change in changes:
                total += 1
                hits += abs(change) > SideNoise([], [], []).band(floor).pct
    return hits, total, spreads


def diff_kernels(checkout: Path, old: str, new: str, rule: str) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        ptotui_main(["diff", old, new, "--repo", str(checkout), "--format", "json", "--rule", rule])
    return json.loads(out.getvalue())["regressed_kernels"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", type=Path, default=MIRROR, help="a pto-kernels checkout or git mirror")
    parser.add_argument("--min-change", type=float, default=FLOOR_PCT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-noise-") as temp:
        checkout = Path(temp) / "pto-kernels"
        git = shutil.which("git") or "git"
        subprocess.run([git, "clone", "-q", "--shared", str(args.repo), str(checkout)], check=True)
        subprocess.run([git, "-C", str(checkout), "checkout", "-q", REPORT_COMMITS[-1]], check=True)
        bench = checkout / "bench"
        runs = runs_of(bench)
        print(f"runs read: {sum(len(v) for v in runs.values())} of {len(runs)} kernels")
        for side, (hits, total) in false_positives(runs, args.min_change).items():
            print(f"  same-code consecutive runs, {side}: slower beyond the band {hits}/{total} = {hits / total:.1%}")
        hits, total, spreads = parity_rounds(bench, args.min_change)
        print(f"  parity rounds (same code, 3 rounds): beyond the default band {hits}/{total}")
        print("  largest change between two rounds:", "; ".join(spreads))
        pairs = [*zip(REPORT_COMMITS, REPORT_COMMITS[1:], strict=False), ("889b027", "8582eec")]
        for old, new in pairs:
            before = diff_kernels(checkout, old, new, "ratio")
            after = diff_kernels(checkout, old, new, "side")
            print(f"diff {old} {new}: --rule ratio {len(before)}, the new rule {len(after)}")
            print(f"  kept: {', '.join(k for k in before if k in after) or '-'}")
            print(f"  dropped: {', '.join(k for k in before if k not in after) or '-'}")
            print(f"  added: {', '.join(k for k in after if k not in before) or '-'}")


if __name__ == "__main__":
    main()
