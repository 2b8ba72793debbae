"""Start-up and export against their floors, side by side, interleaved, in one run.

Time to first rows, each program launched in tmux (160x48), the clock stopped when five
kernel names are on screen: ptotui (a start with its state directory kept from the start
before, as most are, and a first start with a new one), VisiData on the same rows as CSV, and a minimal Textual
DataTable app (benchmarks/floor_app.py: one row per kernel, the rows ptotui draws), on the reference snapshot
(or the samples; PTOTUI_REFERENCE names the snapshot's bench directory elsewhere) and on a
generated tree of --kernels kernels x 3 variants (benchmarks/make_scale.py). Then
``ptotui export --format json`` on that tree against its floor (benchmarks/export_floor.py:
orjson reads the two files and writes one JSON), wall time and CPU time (user + system).

Every round runs each program once, in turn, so that the machine's noise (2 cores shared
with others) hits all of them alike; the medians, the ratios the targets are set on and the
load average during the run are printed. VisiData is installed into its own virtualenv
(under the temporary directory) when ``vd`` is not on PATH.
Run: python benchmarks/bench_startup.py [--runs 9] [--kernels 10000] [--skip scale]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness import (
    BIN,
    ROOT,
    SAMPLES,
    Term,
    dataset,
    kernel_names,
    ptotui_command,
    scratch,
    shows_kernels,
    table,
    this_checkout,
)
from make_scale import build

from ptotui.model.read.writers import regression_csv

FLOOR_APP = ROOT / "benchmarks" / "floor_app.py"
EXPORT_FLOOR = ROOT / "benchmarks" / "export_floor.py"


def ensure_visidata() -> Path | None:
    """``vd`` from PATH, else from a virtualenv of its own (made and filled from PyPI once)."""
    found = shutil.which("vd")
    if found:
        return Path(found)
    venv = Path(tempfile.gettempdir()) / "ptotui-bench-visidata"
    vd = venv / "bin" / "vd"
    if not vd.exists():
        print(f"installing visidata from PyPI into {venv} (for comparison only)...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=False)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "visidata"], check=False)
    return vd if vd.exists() else None


def csv_of(bench: Path, out: Path) -> Path:
    """The regression summary as CSV, for VisiData (it reads no JSON summary of ours)."""
    out.write_text(regression_csv(json.loads((bench / "reports" / "regression_latest.json").read_text())))
    return out


def first_rows(bench: Path, vd: Path | None, work: Path) -> dict[str, str]:
    """``ptotui``: a start as most are, its state directory kept from a start before (the
    side files' parse read back, what was seen remembered); ``ptotui, first start``: a new
    state directory each time."""
    # An empty settings directory: the user's settings file (columns, language) is not measured.
    settings = f"export XDG_CONFIG_HOME={scratch('ptotui-settings-')}; "
    kept = scratch("ptotui-state-") / "triage.json"
    commands = {
        "ptotui": settings + ptotui_command(bench, state=kept),
        "ptotui, first start": settings + ptotui_command(bench),
        "minimal Textual table": f"exec {sys.executable} {FLOOR_APP} {bench / 'reports' / 'regression_latest.json'}",
    }
    if vd is not None:
        commands["VisiData (CSV)"] = f"exec {vd} {csv_of(bench, work / (bench.parent.name + '.csv'))}"
    return commands


def scale_rows(bench: Path) -> Callable[[str], bool]:
    """Five rows of kernels on screen: make_scale names them after the sample kernels, and a
    narrow column may cut a name (VisiData's does), so a row is a line with a name's start."""
    starts = {name[:12] for name in kernel_names(SAMPLES)}
    return lambda screen: sum(1 for line in screen.splitlines() if any(s in line for s in starts)) >= 5


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def export_commands(bench: Path) -> dict[str, list[str]]:
    return {
        "ptotui export --format json": [str(BIN / "ptotui"), "export", str(bench), "--format", "json"],
        "floor (orjson in, orjson out)": [sys.executable, str(EXPORT_FLOOR), str(bench)],
    }


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def describe(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):.0f} ms, min {min(ms):.0f}, max {max(ms):.0f} (n={len(ms)})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--kernels", type=int, default=10_000)
    parser.add_argument("--skip", default="", help="comma-separated: snapshot, scale, export")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    label, bench = dataset()
    work = scratch("ptotui-startup-")
    vd = ensure_visidata()
    big = build(scratch("ptotui-scale-"), args.kernels) if not {"scale", "export"} <= skip else None

    # name -> (command, screen predicate, timeout); each a shell command for tmux, or an argv list
    shown: dict[str, tuple[str, Callable[[str], bool], float]] = {}
    if "snapshot" not in skip:
        for name, command in first_rows(bench, vd, work).items():
            shown[f"{label}: {name}"] = (command, shows_kernels(kernel_names(bench)), 30.0)
    if big is not None and "scale" not in skip:
        for name, command in first_rows(big, vd, work).items():
            shown[f"{args.kernels:,} kernels: {name}"] = (command, scale_rows(big), 90.0)
    exports = export_commands(big) if big is not None and "export" not in skip else {}

    times: dict[str, list[float]] = {name: [] for name in [*shown, *exports]}
    cpu: dict[str, list[float]] = {name: [] for name in exports}
    loads: list[float] = []
    private = {"XDG_CONFIG_HOME": str(scratch("ptotui-settings-"))}
    for name, (command, ready, timeout) in shown.items():  # the kept state directories' start before
        if name.endswith(": ptotui"):
            with Term(command) as term:
                term.wait(ready, timeout=timeout)
                time.sleep(1.0)  # (what was seen is saved on the way out; the side files' parse at once)
    uptime_before = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    for _ in range(args.runs):
        for name, (command, ready, timeout) in shown.items():
            with Term(command) as term:
                times[name].append(term.wait(ready, timeout=timeout))
            loads.append(os.getloadavg()[0])
        for name, argv in exports.items():
            started, used = time.perf_counter(), _children_cpu()
            subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env={**this_checkout(), **private})
            times[name].append(time.perf_counter() - started)
            cpu[name].append(_children_cpu() - used)
            loads.append(os.getloadavg()[0])
    uptime_after = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()

    rows = [(name, describe(values)) for name, values in times.items()]
    rows += [(f"{name}: CPU (user + system)", describe(values)) for name, values in cpu.items()]
    print(table(f"Start-up and export, 160x48 tmux, interleaved ({args.runs} rounds)", rows, ("what", "time")))

    ratios = []

    def ratio(what: str, one: str, other: str, target: str, in_cpu: bool = False) -> None:
        source = cpu if in_cpu else times
        if one in source and other in source:
            ratios.append((what, f"{median_ms(source[one]) / median_ms(source[other]):.2f}x", target))

    for prefix, vs_vd, vs_floor in ((f"{label}: ", "<= 1", "<= 1.15"), (f"{args.kernels:,} kernels: ", "", "<= 1")):
        ratio(prefix + "ptotui / VisiData", prefix + "ptotui", prefix + "VisiData (CSV)", vs_vd)
        ratio(prefix + "ptotui / minimal table", prefix + "ptotui", prefix + "minimal Textual table", vs_floor)
        ratio(prefix + "ptotui, first start / VisiData", prefix + "ptotui, first start", prefix + "VisiData (CSV)", "")
        first = prefix + "ptotui, first start"
        ratio(prefix + "ptotui, first start / minimal table", first, prefix + "minimal Textual table", "")
    names = list(exports)
    if names:
        ratio("export / its floor, wall", names[0], names[1], "<= 2")
        ratio("export / its floor, CPU", names[0], names[1], "", in_cpu=True)
    print(table("Ratios of the medians", ratios, ("ratio", "measured", "target")))
    print(
        f"load average (1 min) during the run: min {min(loads):.2f}, median {statistics.median(loads):.2f}, "
        f"max {max(loads):.2f} on {os.cpu_count()} cores"
    )
    print(f"uptime before: {uptime_before}\nuptime after:  {uptime_after}")
    if statistics.median(loads) > (os.cpu_count() or 1):
        print("the machine was busy elsewhere (load above its cores): the ratios say more than the times, and little")


if __name__ == "__main__":
    main()
