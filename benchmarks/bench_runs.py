"""The bench run at scale: 10,000 kernels x 50 runs in bench/results, read by ptotui.

Measures, on a tree from make_scale.py plus run directories in the runner's format:
- the first full read of every run (RunsReader, what the loader thread does after the first rows),
  and the RSS of the process holding it;
- a read when nothing changed, and one after one run landed (only that directory is read);
- end to end through the live loader (ReportWatcher, inotify): from a run's report.json written
  to a ReportSet that shows the kernel from that run, N times: the median.

Run: python benchmarks/bench_runs.py [--kernels 10000] [--runs 50] [--landings 15]
(flock /tmp/ptotui-bench.lock, and note `uptime`'s load beside the figures).
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

from ptotui.model.live import ReportWatcher  # noqa: E402
from ptotui.model.location import Location  # noqa: E402
from ptotui.model.runs import RunsReader  # noqa: E402


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


def build_runs(bench: Path, names: list[tuple[str, str]], runs: int, start: float) -> None:
    for index, (family, name) in enumerate(names):
        for number in range(runs):
            run_dir = bench / "results" / family / name / _stamp(start + number * 86_400 + index)
            run_dir.mkdir(parents=True)
            (run_dir / "report.json").write_text(_report(name, family, 1.0 + number / 1000), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--kernels", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--landings", type=int, default=15)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory(prefix="bench-runs-") as tmp:
        bench = make_scale.build(Path(tmp), args.kernels)
        summary = json.loads((bench / "reports" / "regression_latest.json").read_text())
        names = [(k.get("family") or "fam", k["name"]) for k in summary["kernels"]]
        summary_at = datetime.strptime(summary["generated_at"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
        began = time.perf_counter()
        build_runs(bench, names, args.runs, summary_at - (args.runs + 1) * 86_400)  # all older than the summary
        print(f"tree: {len(names)} kernels x {args.runs} runs written in {time.perf_counter() - began:.0f} s")

        gc.collect()
        rss_before = _rss_mb()
        reader = RunsReader(bench)
        began = time.perf_counter()
        log = reader.read()
        first = time.perf_counter() - began
        gc.collect()
        print(f"first read: {len(log.runs)} runs in {first:.1f} s; RSS {rss_before:.0f} -> {_rss_mb():.0f} MB")
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
        del reader, log
        gc.collect()

        # End to end: the live loader, from report.json written to a ReportSet showing it.
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
        while watcher._runs_loaded < 0 and time.perf_counter() - began < 600:  # noqa: SLF001 - the runs' first read
            time.sleep(0.1)
        print(f"live: the runs joined the screen {time.perf_counter() - began:.1f} s after start (first rows before)")
        delays = []
        for number in range(args.landings):
            family, name = names[(number * 997) % len(names)]
            run_dir = bench / "results" / family / name / _stamp(summary_at + 3600 + number)
            run_dir.mkdir()
            time.sleep(2.5)  # the runner compiles; the rescan finds the directory meanwhile
            event.clear()
            wanted.append(name)
            written = time.perf_counter()
            (run_dir / "report.json").write_text(_report(name, family, 1.4), encoding="utf-8")
            if event.wait(10):
                delays.append(arrived[name] - written)
            else:
                delays.append(float("inf"))
        watcher.stop()
        print(
            f"live: a landed run in the model after median {statistics.median(delays) * 1000:.0f} ms, "
            f"max {max(delays) * 1000:.0f} ms ({len(delays)} runs)"
        )


if __name__ == "__main__":
    main()
