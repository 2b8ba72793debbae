"""What is imported before the first frame: pinned, so that start-up cannot slow down unseen.

Every module on the way to the first rows is start-up time (the loader thread's imports
too: the two threads share one interpreter). ``ptotui PATH`` runs headless in a fresh
interpreter (tests/startup_probe.py) and reports ``sys.modules`` at the app's first-frame
hook; the minimal Textual DataTable app of benchmarks/floor_app.py is the yardstick for
what any Textual table costs. A module added to that path makes this test fail: import it
after the first frame (the watcher's ``runs``, the session's ``Seen``, a screen's
``_status_parts`` show how), or, when the first frame really needs it, add it below and say
why in the commit. One that goes away fails too, so the lists only ever shrink on purpose.
The time it all takes is measured in benchmarks/startup_breakdown.py and bench_startup.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, SAMPLES

# ptotui's own modules in the first frame: the CLI, the factory, the loader's first load,
# the controller and its effects, the App, the main screen and what it draws with.
PTOTUI = frozenset(
    {
        "ptotui",
        "ptotui.app",
        "ptotui.app.app",
        "ptotui.app.compat",
        "ptotui.app.context",
        "ptotui.app.factory",
        "ptotui.app.keys",
        "ptotui.app.lifecycle",
        "ptotui.app.messages",
        "ptotui.app.render",
        "ptotui.app.screens",
        "ptotui.app.screens.base",
        "ptotui.app.screens.main",
        "ptotui.app.screens.main_keys",  # (split out of the main screen)
        "ptotui.app.screens.step_cells",
        "ptotui.app.screens.triage_actions",
        "ptotui.app.screens.warnings_box",  # (split out of the main screen)
        "ptotui.app.widgets",
        "ptotui.app.widgets.blocker_pane",
        "ptotui.app.widgets.changes_pane",
        "ptotui.app.widgets.fitted_line",
        "ptotui.app.widgets.kernel_table",
        "ptotui.app.widgets.table_columns",
        "ptotui.app.widgets.tier_bar",
        "ptotui.cli",
        "ptotui.commands",
        "ptotui.commands.argwords",
        "ptotui.commands.common",
        "ptotui.commands.dashboard",
        "ptotui.model",
        "ptotui.model.config",
        "ptotui.model.control",
        "ptotui.model.control.controller",
        "ptotui.model.control.effects",
        "ptotui.model.control.wording",
        "ptotui.model.core",
        "ptotui.model.core.aggregate",
        "ptotui.model.core.blockers",
        "ptotui.model.core.fmt",
        "ptotui.model.core.merge",
        "ptotui.model.core.noise",
        "ptotui.model.core.tiers",
        "ptotui.model.heap",
        "ptotui.model.i18n",
        "ptotui.model.live",
        "ptotui.model.live.activity",
        "ptotui.model.live.pipeline",
        "ptotui.model.live.source",  # (split out of the watcher: the same code as before)
        "ptotui.model.live.watcher",
        "ptotui.model.location",
        "ptotui.model.notices",  # (N's log: every toast from the first is kept; a deque, no imports of its own)
        "ptotui.model.options",
        "ptotui.model.present",
        "ptotui.model.present.focus",  # (Tab's stops: no imports of its own)
        "ptotui.model.present.layout",
        "ptotui.model.present.names",  # the shown names, cut in the middle, are the first rows' (stdlib only)
        "ptotui.model.present.view",
        "ptotui.model.present.warnlist",
        "ptotui.model.read",
        "ptotui.model.read.jsonstream",
        "ptotui.model.read.yamlcache",  # (the side files as parsed before: no PyYAML when unchanged)
        "ptotui.model.private",  # (yamlcache's 0600 writes: stdlib only, 0.1 ms; imported cold or warm alike)
        "ptotui.model.read.loader",
        "ptotui.model.read.readers",
        "ptotui.model.read.sidefiles",  # (split out of the readers)
        "ptotui.model.read.values",  # (split out of the readers)
        "ptotui.model.read.safefile",
        "ptotui.model.reportskey",  # the triage file's key (stdlib only; git is asked on the triage worker)
        "ptotui.model.session",
        "ptotui.model.text",
        "ptotui.model.triage",
        "ptotui.model.types",
    }
)

# Everything else ptotui imports before its first frame that the minimal Textual table
# app does not, each for a reason: the command line (argparse, gettext), the reports
# (orjson, PyYAML for the gap board and the inventory the first time their text is seen,
# hashlib for the files' digests),
# the one C heap (ctypes), the triage file's reader (a thread worker: queue,
# concurrent.futures; getpass: who triaged) and Textual's terminal driver.
OTHERS = frozenset(
    {
        "_blake2",
        "_ctypes",
        "_hashlib",
        "_queue",
        "argparse",
        "concurrent.futures.thread",
        "ctypes",
        "ctypes._endian",
        "encodings.utf_8_sig",
        "gc",
        "getpass",
        "gettext",
        "hashlib",
        "orjson",
        "orjson.orjson",
        "queue",
        "rich._unicode_data.unicode17-0-0",
        "termios",
        "textual._keyboard_protocol",
        "textual._parser",
        "textual._xterm_parser",
        "textual.drivers._writer_thread",
        "textual.drivers.linux_driver",
        "textual.getters",
        "tty",
        "yaml",
        "yaml._yaml",
        "yaml.composer",
        "yaml.constructor",
        "yaml.cyaml",
        "yaml.dumper",
        "yaml.emitter",
        "yaml.error",
        "yaml.events",
        "yaml.loader",
        "yaml.nodes",
        "yaml.parser",
        "yaml.reader",
        "yaml.representer",
        "yaml.resolver",
        "yaml.scanner",
        "yaml.serializer",
        "yaml.tokens",
    }
)


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
    """The modules the program imported (not the interpreter's own start, nor the shims of
    Cython-compiled extensions, whose names carry the Cython version)."""
    shim = ("_cython_", "cython_runtime")
    return {m for m in set(report["modules"]) - set(report["startup"]) if not m.startswith(shim)}


def _differ(what: str, found: set[str], pinned: frozenset[str]) -> str:
    return (
        f"{what} before the first frame changed: added {sorted(found - pinned)}, gone {sorted(pinned - found)}. "
        "Import an added one after the first frame, or pin it here with the reason (tests/cli/test_startup_imports.py)."
    )


def test_the_modules_imported_before_the_first_frame_are_the_pinned_ones(tmp_path: Path) -> None:
    app = _probe(str(SAMPLES), "--state", str(tmp_path / "triage.json"))
    assert app["code"] == 0 and app["rows"] == 15  # the first frame has the first load's rows
    floor = _probe("--floor", str(SAMPLES / "reports" / "regression_latest.json"))
    assert floor["rows"] > 0
    loaded = _loaded(app)
    ours = {m for m in loaded if m == "ptotui" or m.startswith("ptotui.")}
    assert ours == PTOTUI, _differ("ptotui's modules", ours, PTOTUI)
    others = loaded - ours - _loaded(floor)
    assert others == OTHERS, _differ("The other modules (beyond the minimal Textual table's)", others, OTHERS)
    # What the first frame was moved away from stays away (each is tens of ms, or a thread).
    # The re-runs (R, L) are made after the first frame: their run reader and command line too.
    later_ones = ("pandas", "watchdog", "ptotui.model.history.since", "ptotui.model.changes.points", "tomllib")
    for later in (*later_ones, "ptotui.app.rerun", "ptotui.model.rerun.queue", "ptotui.model.bench.record", "shlex"):
        assert later not in loaded


def test_a_start_with_the_side_files_parsed_before_does_not_import_pyyaml(tmp_path: Path) -> None:
    """The gap board and the inventory unchanged since the last start: their parse is read
    back (ptotui/model/read/yamlcache.py), and PyYAML (~45 ms) is not imported before the rows."""
    state = str(tmp_path / "triage.json")
    cold = _probe(str(SAMPLES), "--state", state)
    assert "yaml" in _loaded(cold)
    warm = _probe(str(SAMPLES), "--state", state)
    assert warm["rows"] == 15 and not {m for m in _loaded(warm) if m == "yaml" or m.startswith("yaml.")}
    assert _loaded(cold) - _loaded(warm) == {m for m in OTHERS if m == "yaml" or m.startswith("yaml.")}
