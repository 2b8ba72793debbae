"""Keys while a re-run floods its output: key press to screen, on the main screen and under L.

ptotui runs in tmux on a writable copy of the data with ``--runner`` set to a script that
prints 10,000 lines a second (100 every 10 ms) on stdout and stderr, for as long as the
benchmark takes. ``R`` ``enter`` starts it on the first kernel; then each sample presses a
key and waits until the screen shows what it does: ``?`` (the help) on the main screen,
and ``?`` over the output screen (``L``). The same keys with no runner are the floor.
Run: python benchmarks/bench_rerun.py [--runs 20] [--rate 10000]
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from harness import Term, dataset, ptotui_command, scratch, summary, table, writable_copy

FLOOD = """
import sys, time
rate = int(sys.argv[1])
batch = max(rate // 100, 1)
i = 0
while True:
    start = time.monotonic()
    for _ in range(batch):
        sys.stdout.write(f"compile step {i}: lowering tile {i % 97} of the kernel, nothing wrong\\n")
        i += 1
    sys.stdout.flush()
    sys.stderr.write(f"warning {i}: still fine\\n")
    sys.stderr.flush()
    time.sleep(max(0.01 - (time.monotonic() - start), 0))
"""


def help_shown(screen: str) -> bool:
    return "Keys" in screen and "does" in screen


def press_help(term: Term, back: str = "Escape") -> float:
    sent = time.perf_counter()
    term.keys("?")
    took = term.wait(help_shown, timeout=30, since=sent)
    term.keys(back)
    term.wait(lambda s: not help_shown(s), timeout=30)
    return took


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rate", type=int, default=10000, help="lines a second the runner prints")
    args = parser.parse_args()
    label, source = dataset()
    bench = writable_copy(source)
    script = scratch("ptotui-flood-") / "flood.py"
    script.write_text(FLOOD, encoding="utf-8")
    runner = f"{sys.executable} {script} {args.rate}"
    rows = []
    with Term(ptotui_command(bench, "--runner", shlex.quote(runner))) as term:
        term.wait(lambda s: "by tier" in s, timeout=60)
        time.sleep(3.0)  # start-up work and the first toasts
        floor = [press_help(term) for _ in range(args.runs)]
        term.keys("R")
        term.wait(lambda s: "It runs:" in s, timeout=30)
        sent = time.perf_counter()
        term.keys("Enter")
        started = term.wait(lambda s: "re-running" in s, timeout=30, since=sent)
        time.sleep(2.0)
        flooded = [press_help(term) for _ in range(args.runs)]
        term.keys("L")
        term.wait(lambda s: "compile step" in s, timeout=30)
        time.sleep(1.0)
        under_l = [press_help(term) for _ in range(args.runs)]
        # The output keeps coming: the newest line moves while following.
        first = [line for line in term.screen().splitlines() if "compile step" in line][-1]
        time.sleep(0.5)
        later = [line for line in term.screen().splitlines() if "compile step" in line][-1]
        term.keys("Escape")
        term.wait(lambda s: "by tier" in s, timeout=30)
        term.keys("R")
        term.wait(lambda s: "Stop it" in s, timeout=30)
        sent = time.perf_counter()
        term.keys("Enter")
        stopped = term.wait(lambda s: "re-running" not in s and "stopping" not in s, timeout=30, since=sent)
    rows.append(("enter to the re-running line", summary([started]), "≤ 3 s"))
    rows.append(("? to screen, no runner", summary(floor), "floor"))
    rows.append((f"? to screen, runner at {args.rate:,} lines/s", summary(flooded), "≤ 100 ms"))
    # The first ? over the output screen builds that screen's help (once a session): said apart.
    rows.append(("first ? under L (builds its help)", summary(under_l[:1]), "once"))
    rows.append((f"? to screen under L, runner at {args.rate:,} lines/s", summary(under_l[1:]), "≤ 100 ms"))
    rows.append(("output under L moves while following", "yes" if first != later else "NO", "yes"))
    rows.append(("R enter to stopped (runner obeys SIGINT)", summary([stopped]), "≤ 15 s"))
    print(table(f"Re-run output flood: {label}, 160x48 tmux", rows, ("measure", "result", "target")))


if __name__ == "__main__":
    main()
