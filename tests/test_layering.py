"""The model layer imports nothing from Textual, and the JSON path stays free of pandas."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

SCRIPT = """
import pkgutil, importlib, sys
import ptotui.model
names = [m.name for m in pkgutil.walk_packages(ptotui.model.__path__, "ptotui.model.")]
assert len(names) > 40, names  # walk_packages goes into the sub-packages; iter_modules would stop at the top
for name in names:
    if name != "ptotui.model.live.watch_events":  # the one module that is watchdog, imported when a watch starts
        importlib.import_module(name)
from ptotui.model.read.loader import load
from ptotui.model.location import locate
from ptotui.model.live.watcher import ReportWatcher
reports = load(locate(None))
assert reports.kernels
print(" ".join(sorted(m for m in ("textual", "pandas", "watchdog") if m in sys.modules)))
"""


def test_model_imports_no_textual_and_json_path_no_pandas():
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == []


def test_app_start_path_does_not_import_pandas():
    script = "import sys\nfrom ptotui.app.factory import make_app\nmake_app(None)\nprint('pandas' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_watch_events_is_the_only_model_module_with_watchdog_and_has_no_textual():
    script = "import sys, ptotui.model.live.watch_events\nprint('textual' in sys.modules, 'watchdog' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.stdout.split() == ["False", "True"], result.stderr
