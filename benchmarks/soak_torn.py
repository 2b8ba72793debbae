"""Torn-write soak: 1,000 in-place rewrites while ptotui watches in tmux.

A writer rewrites the regression JSON and markdown in chunks (a reader can see
them half-written) while this script captures the screen as fast as it can.
Every capture must show the full kernel count and a full table; the last must
show the final value.
Run: python benchmarks/soak_torn.py [--rewrites 1000]
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import time

from harness import Term, dataset, kernel_names, ptotui_command, shows_kernels, table, writable_copy

from ptotui.commands.demo import write_chunked
from ptotui.model.read import writers

COUNT = re.compile(r"  (\d+)/(\d+)  ")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rewrites", type=int, default=1000)
    args = parser.parse_args()
    label, source = dataset()
    bench = writable_copy(source)
    reports = bench / "reports"
    names = kernel_names(bench)
    data = json.loads((reports / "regression_latest.json").read_text())
    target = next(
        k
        for k in data["kernels"]
        if all(v.get("baseline_over_pto_pct") for v in k["variants"])
        and 35 < k["variants"][0]["baseline_over_pto_pct"] < 65
    )
    final = ""
    done = threading.Event()

    def writer() -> None:
        nonlocal final
        for step in range(args.rewrites):
            value = 40.0 + (step % 200) * 0.1
            for variant in target["variants"]:
                variant["baseline_over_pto_pct"] = value
            write_chunked(reports / "regression_latest.json", writers.dump_json(data), chunks=4, pause=0.002)
            write_chunked(reports / "regression_latest.md", writers.regression_md(data), chunks=4, pause=0.002)
            final = f"{value:.1f}%"
        done.set()

    captures = bad = header_mid_redraw = 0
    problems: list[str] = []
    visible = 0
    with Term(ptotui_command(bench)) as term:
        term.wait(shows_kernels(names))
        time.sleep(1)
        visible = sum(1 for n in names if any(f" {n} " in line for line in term.screen().splitlines()))
        started = time.perf_counter()
        thread = threading.Thread(target=writer)
        thread.start()
        while not done.is_set():
            screen = term.screen()
            captures += 1
            lines = screen.splitlines()
            rows_shown = sum(1 for n in names if any(f" {n} " in line for line in lines))
            match = COUNT.search(screen)
            if match is None:
                header_mid_redraw += 1  # tmux caught the header line between two writes
            elif match.group(1) != match.group(2) or int(match.group(2)) != len(names):
                bad += 1
                problems.append(screen)
            if rows_shown < visible or not any(" Δ " in line for line in lines):
                bad += 1
                problems.append(screen)
        thread.join()
        elapsed = time.perf_counter() - started
        final_seen = (
            term.wait(lambda s: any(target["name"] in line and final in line for line in s.splitlines()), timeout=10)
            >= 0
        )
    rows = [
        ("rewrites (JSON + markdown, in place, in chunks)", str(args.rewrites)),
        ("screen captures checked", str(captures)),
        ("captures with a partial or empty table, or fewer kernels counted", str(bad)),
        ("captures with the header line mid-redraw (table complete)", str(header_mid_redraw)),
        ("final content shown", "yes" if final_seen else "no"),
        ("wall time", f"{elapsed:.0f} s"),
    ]
    print(table(f"Torn-write soak, {label}", rows, ("check", "result")))
    for problem in problems[:3]:
        print("---- bad capture ----")
        print(problem)
    raise SystemExit(1 if bad or not final_seen else 0)


if __name__ == "__main__":
    main()
