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
2. **Calibration** (``--calibrate``): for each kernel with at least ``CALIBRATE_MIN_RUNS``
   runs, each run judged as the dashboard judges a landed run: against the run before it
   (the reference), with the band from the runs at or before that reference only. Counted on
   the PTO side's same-code pairs: the false share (the unchanged run called slower), the
   share caught of the same run with +5/+10/+20% injected into its PTO latencies, and the
   false share of a run re-landed unchanged (a copy of the reference). The baseline side's
   false share over every consecutive pair (the vendor's code never changes). Per kernel,
   and for the kernels whose same-code runs move less than 3% run to run (the robust
   standard deviation of their changes).
3. **What the rule keeps.** ``ptotui diff`` between consecutive report commits (and 889b027
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
from ptotui.model.core.noise import (
    FLOOR_PCT,
    HISTORY_K,
    MAD_SD,
    MIN_HISTORY,
    REPORT_FACTOR,
    SideNoise,
    change_pct,
)
from ptotui.model.core.tiers import median

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


CALIBRATE_MIN_RUNS = 8
INJECTED = (5, 10, 20)
QUIET_PCT = 3.0


def _robust_sd(values: list[float]) -> float:
    middle = median(values)
    return MAD_SD * median([abs(v - middle) for v in values])


def calibrate(runs: dict[str, list[tuple[str, str | None, dict]]], floor: float) -> None:
    """Each run judged against the runs before it, as the product judges a landed run."""
    rows = []
    totals = {"false": [0, 0], "relanded": [0, 0], "baseline": [0, 0], **{f"+{p}": [0, 0] for p in INJECTED}}
    quiet_totals = {f"+{p}": [0, 0] for p in INJECTED}
    # Judged when the runs before it moved less than QUIET_PCT run to run: the band's own
    # estimate of the spread (its width / HISTORY_K), at the time of the judgement.
    settled = {key: [0, 0] for key in ("false", *(f"+{p}" for p in INJECTED))}
    for name, sequence in sorted(runs.items()):
        if len(sequence) < CALIBRATE_MIN_RUNS:
            continue
        counts = {key: [0, 0] for key in totals}
        same: list[float] = []
        for side in SIDES:
            kept = [(stamp, code, {k: m for k, (_, m) in t[side].items()}) for stamp, code, t in sequence]
            kept = [run for run in kept if run[2]]
            noise = SideNoise([run[2] for run in kept], [], [], [run[0] for run in kept])
            for index in range(1, len(kept)):
                (stamp_a, code_a, ref), (_, code_b, judged) = kept[index - 1], kept[index]
                if index < MIN_HISTORY:
                    continue  # too few runs before it: the product falls back to other sources
                band = noise.band(floor, upto=stamp_a).pct  # the runs at or before the reference
                change = change_pct(ref, judged)
                if change is None:
                    continue
                if side == "baseline":
                    counts["baseline"][1] += 1
                    counts["baseline"][0] += change > band
                    continue
                if code_a is None or code_a != code_b:
                    continue  # PTO's code changed: a real move may be there
                same.append(change)
                counts["false"][1] += 1
                counts["false"][0] += change > band
                calm = band / HISTORY_K < QUIET_PCT
                if calm:
                    settled["false"][1] += 1
                    settled["false"][0] += change > band
                counts["relanded"][1] += 1
                counts["relanded"][0] += (change_pct(ref, dict(ref)) or 0.0) > band
                for pct in INJECTED:
                    slowed = {k: v * (1 + pct / 100) for k, v in judged.items()}
                    caught = (change_pct(ref, slowed) or 0.0) > band
                    counts[f"+{pct}"][1] += 1
                    counts[f"+{pct}"][0] += caught
                    if calm:
                        settled[f"+{pct}"][1] += 1
                        settled[f"+{pct}"][0] += caught
        quiet = len(same) >= 3 and _robust_sd(same) < QUIET_PCT
        for key, (hit, total) in counts.items():
            totals[key][0] += hit
            totals[key][1] += total
            if quiet and key in quiet_totals:
                quiet_totals[key][0] += hit
                quiet_totals[key][1] += total
        spread = f"{_robust_sd(same):.1f}%" if len(same) >= 3 else "n/a"
        rows.append((name, len(sequence), spread, quiet, counts))

    def share(pair: list[int]) -> str:
        hit, total = pair
        return f"{hit}/{total} = {hit / total:.1%}" if total else "-"

    print(f"calibration: {len(rows)} kernels with >= {CALIBRATE_MIN_RUNS} runs, floor {floor:g}%")
    header = ["kernel", "runs", "same-code sd", "false", *(f"+{p}% caught" for p in INJECTED), "baseline false"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for name, count, spread, quiet, counts in rows:
        cells = [name + (" (quiet)" if quiet else ""), str(count), spread, share(counts["false"])]
        cells += [share(counts[f"+{p}"]) for p in INJECTED] + [share(counts["baseline"])]
        print("| " + " | ".join(cells) + " |")
    relanded = share(totals["relanded"])
    print(f"  all: PTO same-code called slower {share(totals['false'])}; re-landed unchanged {relanded};")
    print("       " + "; ".join(f"+{p}% caught {share(totals[f'+{p}'])}" for p in INJECTED))
    caught = "; ".join(f"+{p}% caught {share(quiet_totals[f'+{p}'])}" for p in INJECTED)
    print("  quiet kernels (same-code sd < 3%): " + caught)
    caught = "; ".join(f"+{p}% caught {share(settled[f'+{p}'])}" for p in INJECTED)
    print(f"  judged when the runs before moved < 3% run to run: false {share(settled['false'])}; {caught}")
    print(f"  baseline, every consecutive pair: called moved beyond its band (slower) {share(totals['baseline'])}")


def hindsight_bound(runs: dict[str, list[tuple[str, str | None, dict]]]) -> None:
    """The best any single-run rule could do on this history, per kernel: the lowest threshold
    that calls none of the kernel's own same-code PTO runs slower (chosen with hindsight, from
    the very runs it is scored on: no real rule can beat it), and the share of +p% it catches.
    A kernel whose same-code runs once moved −11% (grouped_matmul) cannot have +20% caught
    every time by any threshold that never calls its unchanged runs slower."""
    print("hindsight bound: per kernel, the lowest threshold with no same-code PTO run called slower")
    header = ["kernel", "same-code pairs", "threshold", *(f"+{p}% caught at best" for p in INJECTED)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    quiet_totals = {p: [0, 0] for p in INJECTED}
    for name, sequence in sorted(runs.items()):
        if len(sequence) < CALIBRATE_MIN_RUNS:
            continue
        kept = [(code, {k: m for k, (_, m) in t["pto"].items()}) for _, code, t in sequence]
        kept = [run for run in kept if run[1]]
        pairs = [
            (a, b) for (code_a, a), (code_b, b) in zip(kept, kept[1:], strict=False) if code_a and code_a == code_b
        ]
        scored = [(a, b, c) for a, b in pairs if (c := change_pct(a, b)) is not None]
        if not scored:
            continue
        threshold = max(FLOOR_PCT, max(c for _, _, c in scored))
        quiet = len(scored) >= 3 and _robust_sd([c for _, _, c in scored]) < QUIET_PCT
        cells = []
        for pct in INJECTED:
            caught = sum(
                (change_pct(a, {k: v * (1 + pct / 100) for k, v in b.items()}) or 0.0) > threshold for a, b, _ in scored
            )
            cells.append(f"{caught}/{len(scored)} = {caught / len(scored):.1%}")
            if quiet:
                quiet_totals[pct][0] += caught
                quiet_totals[pct][1] += len(scored)
        print(f"| {name}{' (quiet)' if quiet else ''} | {len(scored)} | {threshold:.1f}% | " + " | ".join(cells) + " |")
    print(
        "  quiet kernels at best: "
        + "; ".join(f"+{p}% {hit}/{total} = {hit / total:.1%}" for p, (hit, total) in quiet_totals.items() if total)
    )


def calibrate_report(runs: dict[str, list[tuple[str, str | None, dict]]], floor: float) -> None:
    """The ``report`` band alone (a kernel with too few runs): each same-code pair (every
    baseline pair) judged by the reference run's own repeated measurements."""
    for side in SIDES:
        hits = total = 0
        for sequence in runs.values():
            for index in range(1, len(sequence)):
                (_, code_a, a), (_, code_b, b) = sequence[index - 1], sequence[index]
                if side == "pto" and (code_a is None or code_a != code_b):
                    continue
                old = {k: m for k, (_, m) in a[side].items()}
                change = change_pct(old, {k: m for k, (_, m) in b[side].items()})
                spread = [[(low, m) for low, m in a[side].values() if low is not None]]
                if change is None or not spread[0]:
                    continue
                band = SideNoise([], [], spread).band(floor)
                total += 1
                hits += change > band.pct
        print(f"  report band alone (x{REPORT_FACTOR:g}), {side}: same code called slower {hits}/{total}")


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
    parser.add_argument("--calibrate", action="store_true", help="only the calibration of the bands")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-noise-") as temp:
        checkout = Path(temp) / "pto-kernels"
        git = shutil.which("git") or "git"
        subprocess.run([git, "clone", "-q", "--shared", str(args.repo), str(checkout)], check=True)
        subprocess.run([git, "-C", str(checkout), "checkout", "-q", REPORT_COMMITS[-1]], check=True)
        bench = checkout / "bench"
        runs = runs_of(bench)
        calibrate(runs, args.min_change)
        calibrate_report(runs, args.min_change)
        hindsight_bound(runs)
        if args.calibrate:
            return
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
