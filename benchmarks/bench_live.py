"""Change-to-screen latency, idle CPU, memory, and memory growth over many reloads.

ptotui runs in tmux on a writable copy of the data. Each rewrite changes one
kernel's ratio in regression_latest.json and its markdown twin, in place like the
generators; the clock runs from the end of the rewrite until the new value is on
screen. Idle CPU and RSS are read from /proc for the app's process.
The growth is measured twice: over rewrites that only move a ratio, and over rewrites that
alternate a regression (one kernel's PTO side blocked) with the original, so that every
reload rings, shows a toast and adds to the changes pane.
A part whose count is 0 is skipped (--rewrites 0 --idle 0 --reloads 0: the regressions only).
Run: python benchmarks/bench_live.py [--rewrites 30] [--idle 60] [--reloads 1000]
     [--regressions 1000] [--warm-regressions 250] [--every 100]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from harness import (
    Term,
    cpu_seconds,
    dataset,
    kernel_names,
    ptotui_command,
    rss_mb,
    shows_kernels,
    summary,
    table,
    writable_copy,
)

from ptotui.model.read import writers


class Rewriter:
    """Rewrites one kernel's ratio the way the generators write: in place, JSON then markdown."""

    def __init__(self, bench: Path) -> None:
        self.reports = bench / "reports"
        self.data = json.loads((self.reports / "regression_latest.json").read_text())
        mids = [k for k in self.data["kernels"] if all(v.get("baseline_over_pto_pct") for v in k["variants"])]
        # A kernel that stays in the mid tier (on screen, same row) whatever we write.
        self.kernel = next(k for k in mids if 35 < k["variants"][0]["baseline_over_pto_pct"] < 65)
        self.count = 0

    def shown(self, expected: str):
        """The new value on the kernel's own line."""
        name = self.kernel["name"]
        return lambda screen: any(name in line and expected in line for line in screen.splitlines())

    def rewrite(self) -> str:
        self.count += 1
        value = 40.0 + (self.count % 200) * 0.1 + 0.01
        for variant in self.kernel["variants"]:
            variant["baseline_over_pto_pct"] = value
        writers.write_in_place(self.reports / "regression_latest.json", writers.dump_json(self.data))
        writers.write_in_place(self.reports / "regression_latest.md", writers.regression_md(self.data))
        return f"{value:.1f}%"


class Regressor:
    """Alternates a regression_latest.json in which one kernel's PTO side is blocked with the
    original, in place: every second reload brings a regression, the one between clears it."""

    def __init__(self, bench: Path, kernel: str) -> None:
        self.path = bench / "reports" / "regression_latest.json"
        good = json.loads(self.path.read_text())
        bad = json.loads(self.path.read_text())
        self.kernel = kernel
        entry = next(k for k in bad["kernels"] if k["name"] == kernel)
        entry.update(pto_status="blocked", pto_reason="benchmark: blocked on purpose")
        for variant in entry["variants"]:
            variant.update(pto_status="blocked", pto_median_ms=None, baseline_over_pto_pct=None, pto_correct=False)
        self.texts = (writers.dump_json(bad), writers.dump_json(good))
        self.count = 0

    def rewrite(self) -> bool:
        """Write the next version; whether it is the blocked one."""
        blocked = self.count % 2 == 0
        self.count += 1
        writers.write_in_place(self.path, self.texts[0 if blocked else 1])
        return blocked

    def shown(self, blocked: bool):
        """The kernel's own line shows its PTO side blocked (or no longer)."""
        name = self.kernel

        def check(screen: str) -> bool:
            line = next((line for line in screen.splitlines() if name in line), "")
            return bool(line) and any(label in line for label in ("PTO-BLOCKED", "PBLK")) == blocked

        return check


def growth(
    term: Term, pid: int, writer: Rewriter | Regressor, warm: int, count: int, every: int = 0
) -> tuple[str, list[tuple[int, float]]]:
    """The RSS growth over ``count`` rewrites by ``writer``, each waited for on screen, after
    ``warm`` of them (caches filled first); and with ``every``, the RSS after every that many
    rewrites from the first (warm-up included), to tell caches still filling, which level
    off, from a climb that goes on."""
    curve = [(0, rss_mb(pid))] if every else []
    for index in range(warm + count):
        if index == warm:
            before, started = rss_mb(pid), time.perf_counter()
        token = writer.rewrite()
        term.wait(writer.shown(token), timeout=10)
        if every and (index + 1) % every == 0:
            curve.append((index + 1, rss_mb(pid)))
    after = rss_mb(pid)
    per_reload = (time.perf_counter() - started) / count * 1000
    return f"{after - before:+.1f} MB ({before:.1f} -> {after:.1f} MB, {per_reload:.0f} ms per reload)", curve


def load() -> str:
    return "load " + " ".join(f"{value:.2f}" for value in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description="Each part runs unless its count is 0.")
    parser.add_argument("--rewrites", type=int, default=30)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--reloads", type=int, default=1000)
    parser.add_argument("--regressions", type=int, default=1000, help="reloads that alternate a regression")
    parser.add_argument("--warm-regressions", type=int, default=250, help="such reloads before measuring")
    parser.add_argument("--every", type=int, default=100, help="print the RSS after every N regression reloads")
    args = parser.parse_args()
    label, source = dataset()
    bench = writable_copy(source)
    names = kernel_names(bench)
    rewriter = Rewriter(bench)
    rows = []
    curve: list[tuple[int, float]] = []
    loads = [load()]
    with Term(ptotui_command(bench)) as term:
        term.wait(shows_kernels(names))
        time.sleep(1.5)  # history read, watch armed
        pid = term.pid()
        latencies = []
        for _ in range(args.rewrites):
            expected = rewriter.rewrite()
            done = time.perf_counter()
            latencies.append(term.wait(rewriter.shown(expected), timeout=10, since=done))
            time.sleep(0.3)
        if latencies:
            rows.append(("change to screen (rewrite in place)", summary(latencies), "median ≤ 150 ms, worst ≤ 300 ms"))
        time.sleep(2)
        rss_start = rss_mb(pid)
        if args.idle > 0:
            cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
            time.sleep(args.idle)
            idle = (cpu_seconds(pid) - cpu0) / (time.perf_counter() - wall0) * 100
            rows.append((f"idle CPU over {args.idle:.0f} s", f"{idle:.2f}% of one core", "≤ 0.5%"))
        rows.append(("RSS after start", f"{rss_start:.1f} MB", "≤ 120 MB"))
        if args.reloads:
            result, _ = growth(term, pid, rewriter, 20, args.reloads)
            rows.append((f"RSS growth over {args.reloads} reloads", result, "≤ 5 MB"))
        if args.regressions:
            # The change log fills up to its 500 entries first (a regression reload adds 3-5): the
            # growth measured after it is what each further reload leaves behind.
            regressor = Regressor(bench, rewriter.kernel["name"])
            result, curve = growth(term, pid, regressor, args.warm_regressions, args.regressions, args.every)
            rows.append(
                (
                    f"RSS growth over {args.regressions} reloads, every second one a regression",
                    result,
                    f"≤ {5 * args.regressions / 1000:.1f} MB (5 MB per 1,000)",
                )
            )
    loads.append(load())
    print(table(f"Live behaviour, {label}, 160x48 tmux", rows, ("measure", "result", "target")))
    if curve:
        print(f"RSS (MB) after N regression reloads, the first {args.warm_regressions} the warm-up:")
        print("  " + ", ".join(f"{n}: {mb:.1f}" for n, mb in curve))
        measured = [(n, mb) for n, mb in curve if n > args.warm_regressions]
        if len(measured) >= 2:  # less swayed than two instants by the brk heap's ±1 MB
            fit = statistics.linear_regression([n for n, _ in measured], [mb for _, mb in measured])
            print(f"  least-squares slope after the warm-up: {fit.slope * 1000:+.2f} MB per 1,000 reloads")
    print(f"{loads[0]} at the start, {loads[1]} at the end ({time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
