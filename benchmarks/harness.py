"""Drive programs in a real terminal (tmux) and time what a person would see."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The reference snapshot beside the checkout; PTOTUI_REFERENCE names it elsewhere (a worktree's
# checkout is not beside it).
_BESIDE = ROOT.parent / "shared" / "reference_reports" / "pto-kernels-20260321" / "bench"
REFERENCE = Path(os.environ.get("PTOTUI_REFERENCE") or _BESIDE)
SAMPLES = ROOT / "sample_reports" / "bench"
BIN = Path(sys.executable).parent


def precompile() -> None:
    """Write ptotui's bytecode first, as `pip install .` does: an editable checkout
    under PYTHONDONTWRITEBYTECODE would otherwise be compiled at every launch."""
    import compileall

    compileall.compile_dir(str(ROOT / "ptotui"), quiet=1)


precompile()


def _keep_tmux_alive() -> None:
    """tmux exits with its last session; a new session started in that moment fails.
    One idle session for the whole benchmark keeps the server up."""
    import atexit

    name = f"bench-keepalive-{os.getpid()}"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "sleep 86400"], capture_output=True)
    atexit.register(lambda: subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True))


_keep_tmux_alive()


def scratch(prefix: str) -> Path:
    """A temporary directory that is removed when the benchmark ends (bench trees of
    10,000 kernels or 4,000 snapshots are tens of MB each)."""
    import atexit

    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def dataset() -> tuple[str, Path]:
    """The reference snapshot when it is beside the checkout, else the samples."""
    if REFERENCE.is_dir():
        return "reference snapshot (50 kernels)", REFERENCE
    return "sample reports (15 kernels)", SAMPLES


def writable_copy(bench: Path) -> Path:
    target = scratch("ptotui-bench-") / "bench"
    shutil.copytree(bench, target)
    for path in target.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return target


def ptotui_command(path: Path, *extra: str, state: Path | None = None) -> str:
    """The installed ``ptotui`` entry point, running this checkout's code. The command runs
    in the environment of the tmux server, which may be another checkout's (the server is
    shared and started by whoever came first): PYTHONPATH says which code is measured.
    ``state``: the triage file (beside it, seen.json); default: a new one, as on a first run."""
    state = state or scratch("ptotui-state-") / "triage.json"
    return f"export PYTHONPATH={shlex.quote(str(ROOT))}; exec {BIN / 'ptotui'} {path} --state {state} {' '.join(extra)}"


def this_checkout() -> dict[str, str]:
    """The environment for a ptotui subprocess that runs this checkout's code."""
    return {**os.environ, "PYTHONPATH": str(ROOT)}


class Term:
    """One program in a detached tmux session."""

    def __init__(self, command: str, width: int = 160, height: int = 48) -> None:
        self.name = "bench-" + uuid.uuid4().hex[:8]
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        args = ["tmux", "new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), command]
        self.started = time.perf_counter()
        if subprocess.run(args, env=env, capture_output=True).returncode != 0:
            time.sleep(0.2)
            self.started = time.perf_counter()
            subprocess.run(args, env=env, check=True)

    def screen(self) -> str:
        result = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return result.stdout

    def wait(self, predicate: Callable[[str], bool], timeout: float = 30.0, since: float | None = None) -> float:
        """Seconds from ``since`` (default: launch) until ``predicate(screen)`` holds."""
        start = self.started if since is None else since
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            if predicate(self.screen()):
                return time.perf_counter() - start
            time.sleep(0.003)
        raise TimeoutError(f"screen did not show the expected text in {timeout} s:\n{self.screen()}")

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def pid(self) -> int:
        out = subprocess.run(
            ["tmux", "display-message", "-p", "-t", self.name, "#{pane_pid}"], capture_output=True, text=True
        )
        return int(out.stdout.strip())

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)

    def __enter__(self) -> Term:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def shows_kernels(names: list[str], count: int = 5) -> Callable[[str], bool]:
    """The screen shows at least ``count`` of these kernel names: rows are on screen."""
    return lambda screen: sum(1 for n in names if n in screen) >= count


def kernel_names(bench: Path) -> list[str]:
    data = json.loads((bench / "reports" / "regression_latest.json").read_text())
    return [k["name"] for k in data["kernels"]]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def summary(values: list[float], scale: float = 1000.0, unit: str = "ms") -> str:
    values = [v * scale for v in values]
    return (
        f"median {statistics.median(values):.0f} {unit}, min {min(values):.0f}, max {max(values):.0f} (n={len(values)})"
    )


def table(title: str, rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
