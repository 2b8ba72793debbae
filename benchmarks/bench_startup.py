"""Time to first rows: ptotui vs VisiData (same data as CSV) vs a minimal Textual app.

Each program is launched in tmux; the clock stops when five kernel names are on
screen. Runs are interleaved so that machine noise hits all three alike.
Run: python benchmarks/bench_startup.py [--runs 9]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from harness import BIN, ROOT, Term, dataset, kernel_names, ptotui_command, scratch, shows_kernels, summary, table

from ptotui.model.read.writers import regression_csv


def ensure_visidata() -> Path | None:
    vd = shutil.which("vd") or (BIN / "vd" if (BIN / "vd").exists() else None)
    if vd is None:
        print("installing visidata from PyPI (for comparison only)...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "visidata"], check=False)
        vd = BIN / "vd" if (BIN / "vd").exists() else shutil.which("vd")
    return Path(vd) if vd else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    label, bench = dataset()
    names = kernel_names(bench)
    work = scratch("ptotui-startup-")
    csv_path = work / "regression_latest.csv"
    csv_path.write_text(regression_csv(json.loads((bench / "reports" / "regression_latest.json").read_text())))
    vd = ensure_visidata()
    commands = {
        "ptotui": ptotui_command(bench),
        "minimal Textual app (floor)": f"exec {sys.executable} {ROOT / 'benchmarks' / 'floor_app.py'} "
        f"{bench / 'reports' / 'regression_latest.json'}",
    }
    if vd is not None:
        commands["VisiData (CSV)"] = f"exec {vd} {csv_path}"
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            with Term(command) as term:
                times[name].append(term.wait(shows_kernels(names)))
    rows = [(name, summary(values)) for name, values in times.items()]
    print(table(f"Time to first rows, {label}, 160x48 tmux", rows, ("program", "time to first rows")))


if __name__ == "__main__":
    main()
