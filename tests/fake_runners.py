"""Tiny runner scripts for the re-run tests, written into a test's temporary directory.

``writes``: what the tree's runner does to the tree (``bench/results/<family>/<kernel>/<UTC
stamp>/report.json``, then that directory copied to ``bench/generated/<family>/<kernel>``);
``fails``: a line on stdout, two on stderr, exit 3 after making its run directory (as the
real runner does on a host without torch); ``floods``: 10,000 lines as fast as it can;
``stubborn``: ignores SIGINT (SIGTERM ends it); ``waits``: runs until signalled, or until the
file ``go`` appears beside it.
"""

from __future__ import annotations

import sys
from pathlib import Path

WRITES = """
import json, shutil, sys, time
from datetime import UTC, datetime
from pathlib import Path
family, kernel = sys.argv[1], sys.argv[2]
stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")
run = Path("bench/results") / family / kernel / stamp
run.mkdir(parents=True, exist_ok=True)
print("compiling", kernel, flush=True)
go = Path(sys.argv[3]) if len(sys.argv) > 3 else None
while go is not None and not go.exists():
    time.sleep(0.02)
ok = {"benchmark": {"status": "ok"}}
report = {"name": kernel, "family": family, "baseline": ok, "pto": ok}
(run / "report.json").write_text(json.dumps(report), encoding="utf-8")
latest = Path("bench/generated") / family / kernel
if latest.exists():
    shutil.rmtree(latest)
shutil.copytree(run, latest)
print("wrote", run / "report.json", flush=True)
"""

FAILS = """
import sys
from datetime import UTC, datetime
from pathlib import Path
family, kernel = sys.argv[1], sys.argv[2]
stamp = datetime.now(tz=UTC).strftime("%Y%m%dT%H%M%SZ")
(Path("bench/results") / family / kernel / stamp).mkdir(parents=True, exist_ok=True)
print("starting", flush=True)
print("Traceback (most recent call last):", file=sys.stderr, flush=True)
print("ModuleNotFoundError: No module named 'torch'\\x1b]2;owned\\x07", file=sys.stderr, flush=True)
sys.exit(3)
"""

FLOODS = """
import sys
out = sys.stdout
for i in range(10000):
    out.write(f"line {i}\\n")
out.flush()
"""

STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGINT, signal.SIG_IGN)
print("ready", flush=True)
while True:
    time.sleep(0.05)
"""

WAITS = """
import signal, sys, time
from pathlib import Path
# As a runner started from a terminal: SIGINT raises KeyboardInterrupt. Set here, since
# ``pytest &`` from a shell without job control passes SIGINT down ignored (issue 40 item 18).
signal.signal(signal.SIGINT, signal.default_int_handler)
go = Path(__file__).with_name("go")
try:
    print("ready", flush=True)  # (inside: SIGINT may come as soon as this is read)
    while not go.exists():
        time.sleep(0.02)
except KeyboardInterrupt:
    print("interrupted", file=sys.stderr, flush=True)
    sys.exit(130)
"""

SCRIPTS = {"writes": WRITES, "fails": FAILS, "floods": FLOODS, "stubborn": STUBBORN, "waits": WAITS}


def runner(directory: Path, name: str) -> str:
    """Write the script ``name`` into ``directory``; the ``--runner`` template that runs it."""
    path = directory / f"{name}.py"
    path.write_text(SCRIPTS[name], encoding="utf-8")
    return f"{sys.executable} {path} {{family}} {{kernel}}"


def tree(directory: Path, family: str = "attention", kernel: str = "attention_update") -> Path:
    """A tree root with a spec for one kernel."""
    specs = directory / "bench" / "specs" / family
    specs.mkdir(parents=True)
    (specs / f"{kernel}.yaml").write_text(f"name: {kernel}\nfamily: {family}\n", encoding="utf-8")
    (directory / "bench" / "results").mkdir()
    return directory
