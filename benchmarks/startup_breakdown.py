"""Where start-up time goes: each stage's share of the time to the first rows, in-process.

bench_startup.py times what a person sees (tmux, clock stopped when rows are on screen);
this script splits the same path into stages, so a change can be aimed at one of them:

  interpreter   python itself and site (a bare ``python -c pass``)
  cli+model     importing ptotui.cli and the model modules the CLI loads first
  textual+app   importing Textual and the app modules (inside make_app)
  build         make_app: the loader thread starts, the App object is built
  mount         from App.run to the main screen mounted (compose, styles, first layout)
  first rows    from mounted to the first kernel line drawn by the table (the load lands)

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
import tempfile
from pathlib import Path

from harness import ROOT, dataset, table

PROBE = r"""
import time, sys, json
t0 = time.perf_counter()
import ptotui.cli  # noqa: F401
from ptotui.model.location import locate
t1 = time.perf_counter()
import textual.app  # noqa: F401
import ptotui.app.app  # noqa: F401
t2 = time.perf_counter()
from ptotui.app.factory import make_app
from ptotui.app.widgets.kernel_table import KernelTable
from pathlib import Path
app = make_app(locate(sys.argv[1]), pause_gc=True, state_file=Path(sys.argv[2]))
t3 = time.perf_counter()
marks = {}
draw = KernelTable.render_line
def render_line(self, y):
    if "rows" not in marks and self.row_count:
        marks["rows"] = time.perf_counter()
        self.app.call_later(self.app.exit)
    return draw(self, y)
KernelTable.render_line = render_line
def mounted():
    marks.setdefault("mounted", time.perf_counter())
app.call_later(mounted)
app.run(headless=True, size=(160, 48))
print(json.dumps({"cli+model": t1 - t0, "textual+app": t2 - t1, "build": t3 - t2,
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
    state = Path(tempfile.mkdtemp(prefix="ptotui-startup-")) / "triage.json"  # never the user's own
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
