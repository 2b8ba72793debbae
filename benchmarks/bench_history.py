"""History at scale, and the detail screen with a huge reason: memory, update cost, key latency.

1. A bench tree of 50 kernels with 4,000 state-matrix snapshots (JSON, as a bench
   host leaves them after months of runs). In a fresh process: RSS and CPU of the
   first history read, then CPU of the update after one more snapshot arrives
   (targets: under 120 MB, under 0.2 s). Then the app in tmux on the same tree:
   its RSS once the history is read, its CPU for the update, and key press to
   screen while the update runs.
2. The app in tmux on the samples with one kernel's reason 100,000 lines long (and
   once 50 MB on one line): enter (open the detail), l (switch language), PageDown
   and escape, key press to screen (target: no stall over 100 ms).

Run: python benchmarks/bench_history.py [--snapshots 4000] [--runs 3] [--part history|detail]
(``--part`` runs only part 1 or only part 2; part 2 takes several minutes.)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from harness import ROOT, SAMPLES, Term, cpu_seconds, ptotui_command, rss_mb, scratch, summary, table, writable_copy
from make_scale import build

from ptotui.model.read import writers

KERNELS = 50


def snapshot_tree(count: int) -> Path:
    bench = build(scratch("ptotui-history-"), KERNELS)
    reports = bench / "reports"
    state = json.loads((reports / "kernel_state_matrix_latest.json").read_text())
    for index in range(count):
        state["generated_at"] = stamp(index)
        for offset, kernel in enumerate(state["kernels"]):
            low = 20 + (index + offset) % 60
            kernel["baseline_over_pto_range"] = f"{low:.1f}%..{low + 0.4:.1f}%"
        (reports / f"kernel_state_matrix_{stamp(index)}.json").write_text(json.dumps(state))
    return bench


def stamp(index: int) -> str:
    day, hour = divmod(index, 24)
    year, day = divmod(day, 360)
    return f"{2020 + year}{day // 30 + 1:02d}{day % 30 + 1:02d}T{hour:02d}0000Z"


IN_PROCESS = textwrap.dedent(
    """
    import json, resource, sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    from ptotui.model.history.snapshots import HistoryReader
    from ptotui.model.location import locate

    def rss():
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024

    location = locate({bench!r})
    reader = HistoryReader()
    cpu = time.process_time()
    history = reader.read(location)
    first = time.process_time() - cpu
    after_first = rss()
    new = location.reports / "kernel_state_matrix_29991231T230000Z.json"
    new.write_text((location.reports / "kernel_state_matrix_latest.json").read_text())
    cpu = time.process_time()
    history = reader.read(location)
    update = time.process_time() - cpu
    new.unlink()
    print(json.dumps({{"stamps": len(history.stamps), "first": first, "update": update, "rss": after_first,
                      "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
    """
)


def in_process(bench: Path) -> dict:
    code = IN_PROCESS.format(root=str(ROOT), bench=str(bench))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def idle(term: Term, pid: int, quiet: float = 1.0, timeout: float = 300.0) -> None:
    """Until the app used no CPU for ``quiet`` seconds (its history worker is done)."""
    deadline = time.monotonic() + timeout
    last = cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(quiet)
        now = cpu_seconds(pid)
        if now - last < 0.05 * quiet:
            return
        last = now
    raise TimeoutError("the app never went idle")


def new_run(bench: Path, stamp: str) -> Path:
    """What a bench run leaves: a new snapshot, and the latest state matrix rewritten
    (the app reloads on the latest files; the reload lists the snapshots)."""
    reports = bench / "reports"
    latest = reports / "kernel_state_matrix_latest.json"
    state = json.loads(latest.read_text())
    state["generated_at"] = stamp  # new content: a reload of the same bytes changes nothing
    text = json.dumps(state)
    snapshot = reports / f"kernel_state_matrix_{stamp}.json"
    snapshot.write_text(text)
    temporary = reports / ".kernel_state_matrix_latest.json.tmp"
    temporary.write_text(text)
    os.replace(temporary, latest)
    return snapshot


def spread(values: list[float]) -> str:
    """Median, 90th percentile and worst of key latencies, and how many were over 100 ms."""
    ms = sorted(v * 1000 for v in values)
    over = sum(1 for v in ms if v > 100)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return f"median {ms[len(ms) // 2]:.0f} ms, 90% {p90:.0f}, max {ms[-1]:.0f}; {over} of {len(ms)} over 100 ms"


def press_keys(term: Term, seconds: float) -> list[float]:
    """``?`` for ``seconds``, opening and closing the help: key press to screen, each.
    (Not escape: a lone ESC byte waits ESCDELAY, 50 ms, to tell the key from the start
    of an escape sequence; part 2 measures it.)"""
    latencies = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        sent = time.perf_counter()
        term.keys("?")
        latencies.append(term.wait(lambda s: "Keys" in s and "does" in s, timeout=30, since=sent))
        sent = time.perf_counter()
        term.keys("?")
        latencies.append(term.wait(lambda s: not ("Keys" in s and "does" in s), timeout=30, since=sent))
        time.sleep(0.05)
    return latencies


def history_in_app(bench: Path, runs: int) -> list[tuple[str, str, str]]:
    """Per run: ``?`` pressed again and again for 4 s from the first rows on, while the
    app reads the history for the first time (it starts 0.5 s after the first frame);
    the app's CPU for one bench run's files (no key pressed meanwhile);
    then ``?`` for 2 s with nothing changing, and for 3.5 s
    after another run's files, so that some land while the reload and the history
    update run (the watch sees the files at once, or at its rescan within 2 s)."""
    rows = []
    rss, updates, idle_keys, keys, first_keys = [], [], [], [], []
    for run in range(runs):
        with Term(ptotui_command(bench)) as term:
            term.wait(lambda s: "softmax_online_fused_" in s, timeout=60)
            pid = term.pid()
            first_keys += press_keys(term, 4.0)
            idle(term, pid)
            rss.append(rss_mb(pid))
            before = cpu_seconds(pid)
            new = new_run(bench, f"2999122{run}T230000Z")
            time.sleep(3.0)
            idle(term, pid)
            updates.append(cpu_seconds(pid) - before)
            idle_keys += press_keys(term, 2.0)
            idle(term, pid)
            newer = new_run(bench, f"2999123{run}T230000Z")
            keys += press_keys(term, 3.5)
            idle(term, pid)
            new.unlink()
            newer.unlink()
    rows.append(
        (
            "key press to screen, ? (help open, closed), for 4 s from the first rows",
            spread(first_keys),
            "no stall over 100 ms",
        )
    )
    rows.append(("app RSS with the history read", summary(rss, 1, "MB"), "< 120 MB"))
    rows.append(("app CPU for one bench run's files (reload + history update)", summary(updates), "< 200 ms"))
    rows.append(("key press to screen, ? (help open, closed), nothing changing", spread(idle_keys), "(for comparison)"))
    rows.append(("… the same for 3.5 s after a bench run's files", spread(keys), "no stall over 100 ms"))
    return rows


def huge_reason(reason: str | None, label: str, runs: int) -> list[tuple[str, str, str]]:
    """``reason`` None: the kernel's own short reason, for comparison."""
    bench = writable_copy(SAMPLES)
    path = bench / "reports" / "regression_latest.json"
    data = json.loads(path.read_text())
    kernel = next(k for k in data["kernels"] if k["name"] == "paged_kv_gather")
    if reason is not None:
        kernel["baseline_reason"] = reason
        for variant in kernel["variants"]:
            variant["baseline_reason"] = reason
    writers.write_in_place(path, writers.dump_json(data))
    (bench / "reports" / "regression_latest.md").unlink()
    (bench / "reports" / "regression_latest.csv").unlink(missing_ok=True)
    opened, switched, paged, quit_, back = [], [], [], [], []
    with Term(ptotui_command(bench, "--filter", "paged_kv")) as term:
        term.wait(lambda s: "paged_kv_gather" in s, timeout=120)
        time.sleep(2)
        # Each wait looks for text on the first screenful (the kernel is a blocker: its
        # "what blocks it" heading is at the top), or at the very bottom for End.
        for _ in range(runs):
            sent = time.perf_counter()
            term.keys("Enter")
            opened.append(term.wait(lambda s: "Full text" in s and "What blocks it" in s, timeout=60, since=sent))
            time.sleep(0.5)
            for heading in ("阻塞原因", "What blocks it"):  # to Chinese and back
                sent = time.perf_counter()
                term.keys("l")
                switched.append(term.wait(lambda s, h=heading: h in s, timeout=60, since=sent))
                time.sleep(0.5)
            sent = time.perf_counter()
            term.keys("End")
            paged.append(term.wait(lambda s: "report.json" in s, timeout=60, since=sent))
            time.sleep(0.5)
            sent = time.perf_counter()
            term.keys("q")
            quit_.append(term.wait(lambda s: "Full text" not in s and "paged_kv_gather" in s, timeout=60, since=sent))
            time.sleep(0.5)
            sent = time.perf_counter()
            term.keys("Enter")
            opened.append(term.wait(lambda s: "Full text" in s and "What blocks it" in s, timeout=60, since=sent))
            time.sleep(0.5)
            sent = time.perf_counter()
            term.keys("Escape")
            back.append(term.wait(lambda s: "Full text" not in s and "paged_kv_gather" in s, timeout=60, since=sent))
            time.sleep(0.5)
    return [
        (f"{label}: enter (open the detail)", summary(opened), "no stall over 100 ms"),
        (f"{label}: l (switch language)", summary(switched), "no stall over 100 ms"),
        (f"{label}: End (scroll to the bottom)", summary(paged), "no stall over 100 ms"),
        (f"{label}: q (back)", summary(quit_), "no stall over 100 ms"),
        (
            f"{label}: escape (back; includes the wait that tells a lone ESC from a sequence, 50 ms)",
            summary(back),
            "no stall over 100 ms",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snapshots", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--part", choices=("all", "history", "detail"), default="all")
    args = parser.parse_args()
    if args.part in ("all", "history"):
        history_part(args.snapshots, args.runs)
    if args.part in ("all", "detail"):
        detail_part(args.runs)


def history_part(snapshots: int, runs: int) -> None:
    bench = snapshot_tree(snapshots)
    figures = in_process(bench)
    rows = [
        (f"first read of {figures['stamps']:,} snapshots: CPU", f"{figures['first']:.2f} s", "(off the UI thread)"),
        (
            "RSS after the first read (whole process)",
            f"{figures['rss']:.0f} MB (peak {figures['peak']:.0f})",
            "< 120 MB",
        ),
        ("history update after one new snapshot: CPU", f"{figures['update'] * 1000:.0f} ms", "< 200 ms"),
    ]
    rows += history_in_app(bench, runs)
    print(table(f"History: {snapshots:,} snapshots x {KERNELS} kernels", rows, ("measure", "result", "target")))


def detail_part(runs: int) -> None:
    lines = "\n".join(f"[WARN] line {i}: probe output of a host dump" for i in range(100_000))
    rows = huge_reason(None, "short reason", runs)
    rows += huge_reason(lines, "100k-line reason", runs)
    rows += huge_reason("x" * 50_000_000, "50 MB one-line reason", runs)
    print(
        table("Detail screen with a huge reason (120x36 would show one screenful)", rows, ("key", "result", "target"))
    )


if __name__ == "__main__":
    main()
