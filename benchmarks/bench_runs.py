"""The bench run at scale: 10,000 kernels x 50 runs in bench/results, read by ptotui.

Measures, on a tree from make_scale.py plus run directories in the runner's format:
- the reader in a bare process: the newest run of every kernel (what the table shows), then
  the history behind them, and the RSS of the process holding it all; a read when nothing
  changed, and one after one run landed (only that directory is read);
- end to end through the live loader (ReportWatcher, inotify): when the newest runs joined,
  when the history was read; from a run's report.json written to a ReportSet that shows the
  kernel from that run, N times while the history is still being read and N times after:
  the medians; the RSS of that process (the summary's 10,000 kernels and every run);
- with --app, the real app in tmux (160x48): key presses (`?`) to screen while it reads the
  history, a landed run to its `·run` row on screen, and its RSS once the history is read.

- with --steps, the real app with the Step column on: `?` to screen while every kernel's
  change points are searched (and searched again as the history grows), and once quiet.

Run: python benchmarks/bench_runs.py [--kernels 10000] [--runs 50] [--landings 15] [--app] [--steps]
(TMPDIR=/dev/shm keeps the 500,000 files off the disk; flock /tmp/ptotui-bench.lock, and
note `uptime`'s load beside the figures).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import make_scale  # noqa: E402

from ptotui.model.bench.runs import RunsReader  # noqa: E402
from ptotui.model.live.watcher import ReportWatcher  # noqa: E402
from ptotui.model.location import Location  # noqa: E402


def _rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y%m%dT%H%M%SZ")


def _report(name: str, family: str, factor: float) -> str:
    sides = {}
    for side, base in (("baseline", 0.1), ("pto", 0.25)):
        variants = [
            {
                "variant": {"rows": 32 << i, "seed": i},
                "shape_summary": {"x": [32 << i, 64]},
                "timings_ms": {"min": base * factor * 0.98, "median": base * factor, "max": base * factor * 1.3},
                "correctness": {"max_abs_diff": 0.0},
            }
            for i in range(3)
        ]
        sides[side] = {
            "benchmark": {
                "status": "ok",
                "variant_reports": variants,
                "correctness": {"atol": 1e-3, "rtol": 1e-3, "max_abs_diff": 0.0, "passes": True},
            }
        }
    return json.dumps({"name": name, "family": family, **sides})


def build_runs(bench: Path, names: list[tuple[str, str]], runs: int, start: float, steps: bool = False) -> None:
    """``runs`` runs of every kernel, PTO 0.1% slower each run; with ``steps``, as real ones
    look to the change points instead: 2% noise on both sides, and every tenth kernel's PTO
    20% slower from its run ``runs * 3 // 5`` on."""
    import random

    rng = random.Random(5)  # noqa: S311 - a reproducible noise
    for index, (family, name) in enumerate(names):
        for number in range(runs):
            run_dir = bench / "results" / family / name / _stamp(start + number * 86_400 + index)
            run_dir.mkdir(parents=True)
            factor = 1.0 + number / 1000
            if steps:
                factor = (1.2 if index % 10 == 0 and number >= runs * 3 // 5 else 1.0) * (1 + rng.gauss(0, 0.02))
            (run_dir / "report.json").write_text(_report(name, family, factor), encoding="utf-8")


COMPILE_S = 5.0  # a run directory's life before its report.json, in this benchmark


def _landing(bench: Path, family: str, name: str, stamp: str, factor: float) -> float:
    """The runner's steps for one kernel: mkdir the run directory (it compiles meanwhile),
    then write report.json (plain write_text); returns the perf_counter time of the write."""
    run_dir = bench / "results" / family / name / stamp
    run_dir.mkdir()
    # The runner compiles and benchmarks (seconds to many minutes); the rescan (every 2 s) finds
    # the directory meanwhile and watches it, so the report.json is an event, not the next rescan.
    time.sleep(COMPILE_S)
    written = time.perf_counter()
    (run_dir / "report.json").write_text(_report(name, family, factor), encoding="utf-8")
    return written


def bare(bench: Path, names: list[tuple[str, str]], summary_at: float) -> None:
    gc.collect()
    rss_before = _rss_mb()
    reader = RunsReader(bench)
    reader.keep_after = _stamp(summary_at)  # as the loader does: the summary's stamp
    began = time.perf_counter()
    log = reader.read(history=False)
    newest = time.perf_counter() - began
    print(f"newest runs: {len(log.runs)} kernels in {newest:.1f} s; RSS {rss_before:.0f} -> {_rss_mb():.0f} MB")
    del log  # as the loader does: it keeps no log of its own, the view is the reader's (else both columns stay)
    began = time.perf_counter()
    reader.read_history(None)
    history = time.perf_counter() - began
    log = reader.read()
    gc.collect()
    rss = _rss_mb()
    per_run = (rss - rss_before) * 1024 * 1024 / max(len(log.runs), 1)
    print(
        f"history: {len(log.runs)} runs in {history:.1f} s ({history / max(len(log.runs), 1) * 1000:.2f} ms a run); "
        f"RSS {rss_before:.0f} -> {rss:.0f} MB ({per_run:.0f} bytes a run)"
    )
    times = []
    for _ in range(5):
        began = time.perf_counter()
        reader.read()
        times.append(time.perf_counter() - began)
    print(f"read, nothing changed: median {statistics.median(times) * 1000:.0f} ms")
    family, name = names[len(names) // 2]
    run_dir = bench / "results" / family / name / _stamp(summary_at + 60)
    run_dir.mkdir()
    (run_dir / "report.json").write_text(_report(name, family, 1.5), encoding="utf-8")
    began = time.perf_counter()
    log = reader.read()
    print(f"read after one run landed: {(time.perf_counter() - began) * 1000:.0f} ms, landed {len(log.landed)}")


def live(bench: Path, names: list[tuple[str, str]], summary_at: float, landings: int) -> None:
    location = Location(bench / "reports", bench)
    arrived: dict[str, float] = {}
    event = threading.Event()
    wanted: list[str] = []

    def on_load(reports) -> None:
        if wanted:
            kernel = reports.by_name().get(wanted[-1])
            if kernel is not None and kernel.from_run is not None and wanted[-1] not in arrived:
                arrived[wanted[-1]] = time.perf_counter()
                event.set()

    watcher = ReportWatcher(location, on_load)
    watcher.start()
    began = time.perf_counter()
    while watcher._runs_loaded < 0 and time.perf_counter() - began < 900:  # noqa: SLF001 - the newest runs read
        time.sleep(0.1)
    print(f"live: each kernel's newest run on screen {time.perf_counter() - began:.1f} s after start (rows before)")
    during: list[float] = []
    after: list[float] = []
    number = 0
    history_done: float | None = None
    while len(after) < landings and time.perf_counter() - began < 3600:
        runs = watcher.runs
        reading = runs is not None and not runs.complete
        if not reading and history_done is None:
            history_done = time.perf_counter() - began
            print(f"live: the history read {history_done:.0f} s after start")
        if reading and len(during) >= landings:
            time.sleep(1.0)  # enough of those: wait for the history to be read
            continue
        family, name = names[(number * 997) % len(names)]
        stamp = _stamp(summary_at + 3600 + number)
        number += 1
        event.clear()
        wanted.append(name)
        written = _landing(bench, family, name, stamp, 1.4)
        delay = arrived[name] - written if event.wait(10) else float("inf")
        (during if reading else after).append(delay)
    print(f"live: RSS of the loader's process with every run read: {_rss_mb():.0f} MB")
    watcher.stop()
    for label, delays in (("while the history was read", during), ("after", after)):
        if delays:
            print(
                f"live: a landed run in the model {label}: median {statistics.median(delays) * 1000:.0f} ms, "
                f"max {max(delays) * 1000:.0f} ms ({len(delays)} runs)"
            )


def _settled_rss(term, timeout: float = 1800.0) -> float:
    """The app's RSS once its CPU falls quiet (the loads and the run history read)."""
    from harness import cpu_seconds, rss_mb

    pid, quiet, began = term.pid(), 0, time.perf_counter()
    while quiet < 3 and time.perf_counter() - began < timeout:
        before = cpu_seconds(pid)
        time.sleep(2.0)
        quiet = quiet + 1 if cpu_seconds(pid) - before < 0.1 else 0
    return rss_mb(pid)


def app_without_runs(bench: Path, names: list[tuple[str, str]]) -> None:
    """The same app on the same summary before any run directory exists: what the runs add."""
    from harness import Term, ptotui_command

    with Term(ptotui_command(bench)) as term:
        term.wait(lambda screen: any(name in screen for _f, name in names[:200]), timeout=120)
        print(f"app without runs: RSS {_settled_rss(term):.0f} MB")


def app(bench: Path, names: list[tuple[str, str]], summary_at: float, landings: int) -> None:
    from harness import Term, ptotui_command, summary

    with Term(ptotui_command(bench)) as term:
        term.wait(lambda screen: any(name in screen for _f, name in names[:200]), timeout=120)
        print(f"app: first rows {term.wait(lambda s: True):.1f} s after launch")
        presses = _presses(term, count=landings)  # while the history is read (for minutes at this scale)
        print(f"app: `?` to screen while the history is read: {summary(presses)}")
        family, name = names[7]
        term.keys("/", *name, "Enter")
        term.wait(lambda s: name in s, timeout=30)
        written = _landing(bench, family, name, _stamp(summary_at + 7200), 1.4)
        shown = term.wait(lambda s: any(name in line and "·run" in line for line in s.splitlines()), 60, written)
        print(f"app: a landed run's ·run row on screen after {shown * 1000:.0f} ms")
        began = time.perf_counter()
        rss = _settled_rss(term)
        print(f"app: RSS with every run read: {rss:.0f} MB (quiet {time.perf_counter() - began:.0f} s after that)")
        delays = []
        family, name = names[7]
        for number in range(landings):  # the history read: landings on screen, told by their PTO ms
            factor = 1.3 + number / 100
            written = _landing(bench, family, name, _stamp(summary_at + 7300 + number), factor)
            wanted = f"{factor * 0.25:.4f}"
            delays.append(
                term.wait(lambda s, w=wanted: any(name in ln and w in ln for ln in s.splitlines()), 60, written)
            )
        print(f"app: a landed run on screen once the history is read: {summary(delays)}")


def _presses(term, until=None, count: int = 0) -> list[float]:
    """``?`` every half second, timed to the help on screen, then ``escape``: ``count`` of
    them, or until ``until()``."""
    out: list[float] = []
    while (until is not None and not until()) or len(out) < count:
        time.sleep(0.5)
        sent = time.perf_counter()
        term.keys("?")
        out.append(term.wait(lambda s: "Keys" in s and "does" in s, timeout=30, since=sent))
        term.keys("Escape")
        term.wait(lambda s: "Keys" not in s, timeout=30)
    return out


def app_steps(bench: Path, names: list[tuple[str, str]], presses_after: int = 60, during_s: float = 240.0) -> None:
    """The real app with the Step column on (a settings file that shows it): every kernel's
    change points are searched on a worker as the run history is read, and again as it grows
    (ptotui/model/changes/live.py keeps what did not change). ``?`` pressed every half second
    meanwhile for ``during_s`` seconds, timed to the screen; then, the app left alone until its
    CPU falls quiet (the history read), ``presses_after`` more."""
    from harness import Term, ptotui_command, scratch, summary

    config = scratch("ptotui-settings-")
    (config / "ptotui").mkdir(parents=True)
    columns = '[table]\ncolumns = ["tier", "kernel", "ratio", "pto_ms", "step"]\n'
    (config / "ptotui" / "config.toml").write_text(columns)
    with Term(f"export XDG_CONFIG_HOME={config}; " + ptotui_command(bench)) as term:
        term.wait(lambda screen: any(name in screen for _f, name in names[:200]), timeout=120)
        print(f"app, Step column on: first rows {term.wait(lambda s: True):.1f} s after launch")
        began = time.perf_counter()
        busy = _presses(term, until=lambda: time.perf_counter() - began > during_s)
        print(f"app: `?` to screen in the {during_s:.0f} s after the first rows: {summary(busy)}")
        print(f"app: over 100 ms: {sorted(round(b * 1000) for b in busy if b > 0.1)}")
        rss = _settled_rss(term)
        settled = time.perf_counter() - began
        cells = _step_cells(term.screen())
        print(f"app: quiet {settled:.0f} s after the first rows, RSS {rss:.0f} MB; Step cells on screen: {cells}")
        after = _presses(term, count=presses_after)
        print(f"app: over 100 ms once quiet: {sorted(round(b * 1000) for b in after if b > 0.1)}")
        print(f"app: `?` to screen once quiet: {summary(after)}")


def _step_cells(screen: str) -> int:
    import re

    return len(re.findall(r"[+-]\d+% \d+d", screen))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kernels", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--landings", type=int, default=15)
    parser.add_argument("--app", action="store_true", help="also the real app in tmux")
    parser.add_argument("--steps", action="store_true", help="the real app with the Step column on (keys meanwhile)")
    parser.add_argument("--skip", default="", help="parts to leave out: bare,live")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-runs-") as tmp:
        bench = make_scale.build(Path(tmp), args.kernels)
        summary = json.loads((bench / "reports" / "regression_latest.json").read_text())
        names = [(k.get("family") or "fam", k["name"]) for k in summary["kernels"]]
        summary_at = datetime.strptime(summary["generated_at"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
        if args.app:
            app_without_runs(bench, names)
        began = time.perf_counter()
        build_runs(bench, names, args.runs, summary_at - (args.runs + 1) * 86_400, args.steps)  # all older than it
        print(f"tree: {len(names)} kernels x {args.runs} runs written in {time.perf_counter() - began:.0f} s")
        skip = set(args.skip.split(","))
        if "bare" not in skip:
            bare(bench, names, summary_at)
        if "live" not in skip:
            live(bench, names, summary_at + 100, args.landings)
        if args.app:
            app(bench, names, summary_at + 200, args.landings)
        if args.steps:
            app_steps(bench, names)
        print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
