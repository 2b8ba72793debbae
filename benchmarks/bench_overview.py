"""Overview (`G`) at scale: a generated bench tree of 10,000 kernels x 3 variants.

Times what a person waits for in a real terminal (tmux): from `G` until the hint line
(`… kernel(s) · …`) is on screen, `→` until the hint names the next bar, `tab` until it
names the other chart's bar, and `enter` on a bar until the table says `only …`.
Each key must answer in well under 100 ms of UI work (issue 9: nothing freezes).
Run under the shared lock: flock /tmp/heavy.lock python benchmarks/bench_overview.py
    [--kernels 10000] [--runs 3] [--size 160x48] [--timeout 60]
"""

from __future__ import annotations

import argparse
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

from harness import Term, ptotui_command, scratch, summary, table
from make_scale import build

HINT = "kernel(s)"


def hint_line(screen: str) -> str:
    return next((line for line in screen.splitlines() if HINT in line), "")


def changed_from(before: str) -> Callable[[str], bool]:
    return lambda screen: (line := hint_line(screen)) != "" and line != before


def run_once(bench: Path, width: int, height: int, timeout: float) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"G": [], "→": [], "tab": [], "enter": []}
    with Term(ptotui_command(bench), width, height) as term:
        pid = term.pid()
        try:
            term.wait(lambda s: "softmax_online_fused_" in s, timeout=60)  # rows are on screen
            time.sleep(2.0)  # the first load's follow-up work is done
            sent = time.perf_counter()
            term.keys("G")
            times["G"].append(term.wait(lambda s: HINT in s, timeout=timeout, since=sent))
            for key, name in (("Right", "→"), ("Right", "→"), ("Right", "→"), ("Tab", "tab"), ("Right", "→")):
                before = hint_line(term.screen())
                sent = time.perf_counter()
                term.keys(key)
                times[name].append(term.wait(changed_from(before), timeout=timeout, since=sent))
            sent = time.perf_counter()
            term.keys("Enter")
            times["enter"].append(term.wait(lambda s: "only ratio" in s, timeout=timeout, since=sent))
        finally:
            try:  # a hung UI thread ignores SIGHUP from the closing tmux: do not leave it spinning
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--kernels", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", default="160x48", help="terminal size, WIDTHxHEIGHT")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for each key")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))
    bench = build(scratch("ptotui-overview-"), args.kernels)
    totals: dict[str, list[float]] = {}
    for _ in range(args.runs):
        try:
            for key, values in run_once(bench, width, height, args.timeout).items():
                totals.setdefault(key, []).extend(values)
        except TimeoutError:
            print(f"a key did not answer within {args.timeout:g} s (the app was killed)")
            break
    rows = [
        (f"`{key}` to screen", summary(values) if values else "timed out", "≪ 100 ms of UI work")
        for key, values in totals.items()
    ]
    load = os.getloadavg()
    title = f"Overview: {args.kernels} kernels, {width}x{height} tmux, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    print(table(title, rows, ("measure", "result", "target")))


if __name__ == "__main__":
    main()
