"""Where start-up time goes: each stage's share of the time to the first rows, in-process.

bench_startup.py times what a person sees (tmux, clock stopped when rows are on screen);
this script splits the same path into stages, so a change can be aimed at one of them:

  interpreter   python itself and site (a bare ``python -c pass``)
  cli+model     importing ptotui.cli, the model modules the CLI loads first, the factory
  textual+app   in make_app: the loader thread starts, Textual and the app modules are
                imported (the first load runs on its thread meanwhile)
  build         the rest of make_app: the App object is built
  mount         from App.run to the main screen's on_mount (CSS, compose, styles)
  first rows    from there to the first frame displayed with rows in the table (layout,
                render; a frame rendered inside Textual's start-up batch is not displayed
                and does not count)

Each run is a fresh interpreter running the real app headless at 160x48 on the
reference snapshot (or the samples); the medians of --runs runs are printed.
Run: python benchmarks/startup_breakdown.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from harness import ROOT, dataset, scratch, table

PROBE = r"""
import builtins, functools, time, sys, json
t0 = time.perf_counter()
import ptotui.cli  # noqa: F401
from ptotui.model.location import locate
from ptotui.app.factory import make_app
from ptotui.model.options import DashboardOptions
from pathlib import Path
t1 = time.perf_counter()
# make_app starts the loader thread, then imports Textual and the app: note when that import returns.
marks = {}
real_import = builtins.__import__
def timed_import(name, *args, **kwargs):
    module = real_import(name, *args, **kwargs)
    if name == "ptotui.app.app":
        marks.setdefault("imported", time.perf_counter())
    return module
builtins.__import__ = timed_import
app = make_app(locate(sys.argv[1]), DashboardOptions(state=Path(sys.argv[2]), git=False), pause_gc=True)
builtins.__import__ = real_import
t3 = time.perf_counter()
from textual.app import App
from ptotui.app.widgets.kernel_table import KernelTable
display = App._display
def first_rows(self, screen, renderable):
    # The first frame Textual hands to the terminal with rows in the table. Not the first
    # frame rendered: one rendered inside Textual's start-up batch is never displayed.
    if "rows" not in marks and renderable is not None and not self._batch_count:
        if self.main.is_attached and self.main.query_one(KernelTable).row_count:
            marks["rows"] = time.perf_counter()
            self.call_later(self.exit)
    return display(self, screen, renderable)
App._display = first_rows
screen = type(app.main)
on_mount = screen.on_mount
@functools.wraps(on_mount)
def mounted(self):
    marks.setdefault("mounted", time.perf_counter())
    return on_mount(self)
screen.on_mount = mounted
app.run(headless=True, size=(160, 48))
print(json.dumps({"cli+model": t1 - t0, "textual+app": marks["imported"] - t1, "build": t3 - marks["imported"],
                  "mount": marks["mounted"] - t3, "first rows": marks["rows"] - marks["mounted"]}))
"""


def once(bench: str, state: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, bench, state], capture_output=True, text=True, timeout=60, cwd=ROOT, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def interpreter() -> float:
    import time

    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    label, bench = dataset()
    state = scratch("ptotui-startup-") / "triage.json"  # never the user's own
    stages: dict[str, list[float]] = {}
    for _ in range(args.runs):
        stages.setdefault("interpreter", []).append(interpreter())
        for name, seconds in once(str(bench), str(state)).items():
            stages.setdefault(name, []).append(seconds)
    medians = {name: statistics.median(values) * 1000 for name, values in stages.items()}
    total = sum(medians.values())
    rows = [(name, f"{ms:6.1f} ms", f"{ms / total:5.1%}") for name, ms in medians.items()]
    rows.append(("total", f"{total:6.1f} ms", ""))
    print(
        table(f"Start-up by stage, {label}, headless 160x48, medians of {args.runs}", rows, ("stage", "time", "share"))
    )


if __name__ == "__main__":
    main()
