"""The suite's own guard: a test that never returns fails within the per-test limit, with the
stacks of the threads, and the run goes on (pyproject's pytest-timeout settings)."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_a_test_that_never_returns_fails_with_a_stack_dump(tmp_path):
    (tmp_path / "test_hangs.py").write_text(
        textwrap.dedent(
            """
            import threading

            def test_waits_for_ever():
                threading.Event().wait()

            def test_after_it():
                pass
            """
        )
    )
    run = subprocess.run(
        # the project's settings (-c), with the limit shortened to keep this test short
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path)]
        + ["-p", "no:cacheprovider", "-n", "0", "--timeout", "2", str(tmp_path / "test_hangs.py")],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "Timeout" in out and "test_waits_for_ever" in out
    assert "1 failed, 1 passed" in out  # the run went on to the next test
