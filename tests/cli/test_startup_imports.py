"""What is imported before the first frame: no heavy module, and no more of ptotui's own than
a budget, so that start-up cannot slow down unseen.

Every module on the way to the first rows is start-up time (the loader thread's imports
too: the two threads share one interpreter). ``ptotui PATH`` runs headless in a fresh
interpreter (tests/startup_probe.py) and reports ``sys.modules`` at the app's first-frame
hook. Two checks, neither of which a file split trips over (an exact list of modules did):

- ``HEAVY``: modules that cost 10 ms or more to import on top of what the first frame
  imports anyway, each imported later on purpose. Import a new heavy one after the first
  frame (the watcher's ``runs``, the session's ``Seen``, a screen's ``_status_parts`` show
  how), or, when the first frame really needs it, take it out of the list and say why.
- ``BUDGET``: how many of ptotui's own modules. A small module costs well under a
  millisecond, so the budget is the count when it was set plus a margin for splitting files;
  it fails when a whole feature comes onto the path to the first rows.

The time it all takes is measured in benchmarks/startup_breakdown.py and bench_startup.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, SAMPLES

# Each with what it costs to import after the first frame's own imports (`python -X importtime`,
# best of three, this 2-core machine at a load of 3; each figure includes what it imports in turn).
HEAVY = {
    "pandas": "343 ms: only when a CSV report is read",
    "numpy": "81 ms: the change points (ptotui.model.changes), after the first frame",
    "textual_serve": "264 ms: ptotui serve only",
    "aiohttp": "185 ms: ptotui serve only",
    "jinja2": "21 ms: ptotui serve's page only",
    "markdown_it": "37 ms: Textual's Markdown widget, which no first screen shows",
    "plotext": "25 ms: when the first chart is shown",
    "textual_plotext": "27 ms: when the first chart is shown",
    "watchdog": "12 ms, and a thread: the watch starts after the first frame",
    "tomlkit": "9 ms: only when the settings file is saved",
    "http": "10 ms (http.client): nothing on the way to the first rows goes on the network",
    "ptotui.model.changes.points": "123 ms with numpy: the change points",
    "ptotui.app.widgets.charts": "45 ms: the detail's charts",
    "ptotui.app.rerun": "30 ms: the re-runs (R, L) are made after the first frame",
    "ptotui.model.rerun.queue": "23 ms: the re-runs' queue and command line",
    "ptotui.model.history.since": "16 ms: the compare with the snapshots, after the first frame",
}

# 72 of ptotui's modules were imported before the first frame when this budget was set (the
# CLI, the factory, the loader's first load, the controller and its effects, the App, the main
# screen and what it draws with). The margin of 8 lets a file or two be split (a package
# adds its __init__) without touching this; a new screen, reader or feature on the path goes
# past it. Raise it only with the reason in the commit.
BUDGET = 80


def _probe(*args: str) -> dict:
    """The probe's report (it holds back what start-up defers until the first frame is out,
    however slow the machine)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "startup_probe.py"), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert not report["early"], "start-up work meant for after the first frame ran before it"
    return report


def _loaded(report: dict) -> set[str]:
    """The modules the program imported (not the interpreter's own start)."""
    return set(report["modules"]) - set(report["startup"])


def _under(names: set[str], top: str) -> set[str]:
    """``top`` and the modules inside it."""
    return {m for m in names if m == top or m.startswith(top + ".")}


def test_no_heavy_module_and_ptotuis_own_within_the_budget_before_the_first_frame(tmp_path: Path) -> None:
    app = _probe(str(SAMPLES), "--state", str(tmp_path / "triage.json"))
    assert app["code"] == 0 and app["rows"] == 15  # the first frame has the first load's rows
    loaded = _loaded(app)
    heavy = {name: HEAVY[name] for name in HEAVY if _under(loaded, name)}
    assert not heavy, f"imported before the first frame: {heavy} (tests/cli/test_startup_imports.py)"
    ours = sorted(_under(loaded, "ptotui"))
    assert len(ours) <= BUDGET, (
        f"{len(ours)} of ptotui's modules before the first frame, over the budget of {BUDGET}: "
        f"import the new ones after it, or raise BUDGET with the reason. {ours}"
    )
