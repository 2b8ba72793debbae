"""Replay a bench run onto a pto-kernels checkout, with the runner's file behaviour, to watch it.

    python scripts/replay_bench_run.py BENCH --stamp 20260316 [--pace 20] [--kernels N]

BENCH is a checkout's ``bench/`` directory (a scratch copy: this script changes it). The runs whose
stamp starts with ``--stamp`` are taken out of ``bench/results/`` and played again, oldest first,
as ``python/pto_kernels/bench/runner.py`` does it: ``mkdir`` of
``results/<family>/<kernel>/<now>/``, a pause while the kernel "compiles and benchmarks"
(``--pace`` seconds), ``report.json`` written
with a plain ``write_text``, then ``rm -rf generated/<family>/<kernel>`` and a ``copytree`` of the
run directory there. The summary in ``bench/reports/`` is left alone, as the runner leaves it; run
the generators afterwards (``scripts/summarize_latest_regression.py``) to see it rewritten.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path


def _runs(results: Path, prefix: str) -> list[Path]:
    found = [p.parent for p in results.glob(f"*/*/{prefix}*/report.json")]
    return sorted(found, key=lambda p: p.name)


def _play(run: Path, bench: Path, pace: float) -> None:
    family, kernel = run.parent.parent.name, run.parent.name
    stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")
    target = bench / "results" / family / kernel / stamp
    latest = bench / "generated" / family / kernel
    target.mkdir(parents=True, exist_ok=True)
    print(f"{time.strftime('%H:%M:%S')} running {family}/{kernel} ({stamp})", flush=True)
    time.sleep(pace)
    report = json.loads((run / "report.json").read_text(encoding="utf-8"))
    report["artifacts_dir"], report["report_path"] = str(target), str(target / "report.json")
    report["latest_artifacts_dir"], report["latest_report_path"] = str(latest), str(latest / "report.json")
    for item in run.iterdir():  # the run's other artefacts first, as the adapters write them
        if item.name != "report.json" and item.is_file():
            shutil.copy2(item, target / item.name)
    (target / "report.json").write_text(json.dumps(report, indent=2, sort_keys=True), encoding="utf-8")
    if latest.exists():
        shutil.rmtree(latest)
    shutil.copytree(target, latest)
    print(f"{time.strftime('%H:%M:%S')} finished {family}/{kernel}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bench", type=Path, help="a scratch checkout's bench/ directory")
    parser.add_argument("--stamp", required=True, help="replay the runs whose stamp starts with this (20260316)")
    parser.add_argument("--pace", type=float, default=20.0, help="seconds each kernel runs (default 20)")
    parser.add_argument("--kernels", type=int, default=0, help="replay only the first N runs (0: all)")
    args = parser.parse_args(argv)
    results = args.bench / "results"
    runs = _runs(results, args.stamp)
    if args.kernels:
        runs = runs[: args.kernels]
    if not runs:
        print(f"no runs under {results} with a stamp starting {args.stamp}", file=sys.stderr)
        return 2
    store = Path(tempfile.mkdtemp(prefix="replay-"))
    held = []
    for run in runs:  # out of the tree first: the replay makes them anew
        kept = store / run.relative_to(results)
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(run, kept)
        held.append(kept)
    print(f"replaying {len(held)} runs at {args.pace:g} s each", flush=True)
    try:
        for run in held:
            _play(run, args.bench, args.pace)
    except KeyboardInterrupt:
        print("stopped: the run directory in progress stays without its report.json", file=sys.stderr)
        return 130
    finally:
        shutil.rmtree(store, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
