"""scripts/replay_bench_run.py puts back the runs it takes out, however it ends (issue 33 item 14)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runtree import write_run

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "replay_bench_run.py"
STAMPS = ("20260316T010000Z", "20260316T020000Z", "20260316T030000Z")


def _tree(tmp_path: Path) -> tuple[Path, set[Path]]:
    bench = tmp_path / "bench"
    for number, stamp in enumerate(STAMPS):
        write_run(bench, "norm", f"tile_softmax_{number}", stamp, [(0.1, 0.2)])
    write_run(bench, "norm", "tile_softmax_0", "20260301T000000Z", [(0.1, 0.2)])  # not replayed
    return bench, _reports(bench)


def _reports(bench: Path) -> set[Path]:
    return {p.relative_to(bench) for p in (bench / "results").glob("*/*/*/report.json")}


def _default_sigint() -> None:
    """In the child before exec: SIGINT as at a terminal. A shell without job control starts
    ``pytest &`` with SIGINT ignored, the child inherits that, and Python then never raises
    KeyboardInterrupt: the Ctrl+C test would wait on a replay that cannot hear it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _replay(bench: Path, pace: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(SCRIPT), str(bench), "--stamp", "20260316", "--pace", pace],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )


def _left_over(bench: Path) -> list[Path]:
    return [p for p in bench.iterdir() if p.name not in ("results", "generated", "reports")]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_an_interrupted_replay_puts_every_run_back(tmp_path: Path, sig: signal.Signals) -> None:
    bench, before = _tree(tmp_path)
    replay = _replay(bench, "600")
    try:
        assert replay.stdout is not None
        while "running" not in (line := replay.stdout.readline()):  # the first kernel "runs": the others are held
            assert line, replay.stderr.read() if replay.stderr else ""
        replay.send_signal(sig)
        _out, err = replay.communicate(timeout=60)
    finally:  # a replay that did not stop is not left behind (it holds runs for 600 s each)
        if replay.poll() is None:
            replay.kill()
            replay.communicate()
    assert replay.returncode in (130, 143), err
    after = _reports(bench)
    assert before <= after, sorted(before - after)  # the originals, every one, where they were
    assert not _left_over(bench), _left_over(bench)
    assert "restored 3 of 3 runs" in err


def test_a_replay_that_ends_keeps_the_originals_beside_the_replayed_runs(tmp_path: Path) -> None:
    bench, before = _tree(tmp_path)
    replay = _replay(bench, "0")
    _out, err = replay.communicate(timeout=60)
    assert replay.returncode == 0, err
    after = _reports(bench)
    assert before <= after and len(after) == len(before) + 3
    assert not _left_over(bench)
