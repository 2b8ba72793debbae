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

On every exit (the end, Ctrl+C, SIGTERM, SIGHUP) the runs taken out are put back where they were,
beside the replayed ones: the script adds runs to the scratch copy and never loses one.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
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


class Stopped(Exception):
    """SIGTERM or SIGHUP (a closed tmux window): stop as Ctrl+C does, through the ``finally``."""


def _stop(signum: int, _frame: object) -> None:
    raise Stopped(signal.Signals(signum).name)


def _hold(runs: list[Path], results: Path, store: Path, held: list[tuple[Path, Path]]) -> None:
    """Move ``runs`` into ``store`` (on the tree's own file system: a rename, never a copy), each
    noted in ``held`` as soon as it is moved, so that an interrupt in the middle restores those."""
    for run in runs:  # out of the tree first: the replay makes them anew
        kept = store / run.relative_to(results)
        kept.parent.mkdir(parents=True, exist_ok=True)
        run.rename(kept)
        held.append((run, kept))


def _restore(held: list[tuple[Path, Path]], store: Path) -> list[Path]:
    """Every run moved away back where it was; those that cannot go back (their place taken)
    stay in ``store``, which is removed only when empty. Returns what stayed."""
    stayed = []
    for original, kept in held:
        if original.exists() or not kept.exists():
            stayed.append(kept)
            continue
        original.parent.mkdir(parents=True, exist_ok=True)
        kept.rename(original)
    for directory in sorted((p for p in store.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
        with contextlib.suppress(OSError):
            directory.rmdir()  # only the empty ones
    with contextlib.suppress(OSError):
        store.rmdir()
    return [kept for kept in stayed if kept.exists()]


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
    # Beside results/, not in /tmp: a rename on the same file system, and a run left there by a
    # SIGKILL is found next to the tree it came from. ptotui reads only results/, reports/, generated/.
    store = Path(tempfile.mkdtemp(prefix=".replay-held-", dir=args.bench))
    held: list[tuple[Path, Path]] = []
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    status = 0
    try:
        _hold(runs, results, store, held)
        print(f"replaying {len(held)} runs at {args.pace:g} s each", flush=True)
        for _original, kept in held:
            _play(kept, args.bench, args.pace)
    except (KeyboardInterrupt, Stopped) as exc:
        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else f"stopped by {exc}"
        print(f"{why}: the run directory in progress stays without its report.json", file=sys.stderr)
        status = 130 if isinstance(exc, KeyboardInterrupt) else 143
    finally:
        # The runs moved away go back on every exit; a second Ctrl+C must not cut that short.
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        stayed = _restore(held, store)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        print(f"restored {len(held) - len(stayed)} of {len(held)} runs to {results}", file=sys.stderr)
        for kept in stayed:
            print(f"not restored (its place is taken): {kept}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
