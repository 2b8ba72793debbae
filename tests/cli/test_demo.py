"""ptotui demo: its own triage file unless --state says otherwise, and no temporary tree left behind."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from ptotui.cli import main
from tests.cli.test_signals import app_in_a_pty, read_until


class _FakeApp:
    return_code = 0

    def run(self) -> None:
        pass


def test_demo_keeps_triage_out_of_the_users_file_unless_told(monkeypatch, tmp_path):
    seen: list[Path] = []

    def make_app(location, options, **kwargs):
        seen.append(options.state)
        assert location.reports.is_dir()
        return _FakeApp()

    monkeypatch.setattr("ptotui.app.factory.make_app", make_app)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR is read again
    assert main(["demo"]) == 0
    assert seen[0].name == "triage.json" and seen[0].parent.name.startswith("ptotui-demo-")
    assert main(["demo", "--state", str(tmp_path / "mine.json")]) == 0
    assert seen[1] == tmp_path / "mine.json"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("ptotui-demo-")]  # removed on the way out


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_removes_the_demo_tree(signum, tmp_path):
    temp = tmp_path / "tmp"
    temp.mkdir()
    # the user's triage file must stay untouched: the state directory is tmp_path's
    env = {"TMPDIR": str(temp), "XDG_STATE_HOME": str(tmp_path / "state")}
    with app_in_a_pty(tmp_path, ["-m", "ptotui", "demo", "--interval", "0.5"], env) as (process, master):
        assert [p.name for p in temp.iterdir() if p.name.startswith("ptotui-demo-")]
        process.send_signal(signum)
        read_until(master, lambda out: False, 3)
        assert process.wait(timeout=30) == 128 + signum
        assert not [p for p in temp.iterdir() if p.name.startswith("ptotui-demo-")]
        assert not (tmp_path / "state").exists()


@pytest.mark.slow
def test_every_story_step_writes_the_ratio_of_a_variant_with_both_latencies(tmp_path):
    """After "layernorm_gated lowers again" both sides have latencies: the ratio and the
    state matrix's range must be there too, as the generator writes them."""
    import json
    import shutil

    from ptotui.commands.demo import STORY, BenchSimulator
    from ptotui.model.location import Location, bundled_samples
    from ptotui.model.read.loader import load

    bench = tmp_path / "bench"
    shutil.copytree(bundled_samples(), bench)
    simulator = BenchSimulator(bench)
    for label, _ in STORY:
        simulator.rewrite()
        reg = json.loads((bench / "reports" / "regression_latest.json").read_text())
        state = json.loads((bench / "reports" / "kernel_state_matrix_latest.json").read_text())
        rows = {row["name"]: row for row in state["kernels"]}
        for kernel in reg["kernels"]:
            pcts = []
            for variant in kernel["variants"]:
                baseline, pto = variant.get("baseline_median_ms"), variant.get("pto_median_ms")
                if baseline and pto:
                    assert variant.get("baseline_over_pto_pct") == pytest.approx(baseline / pto * 100), (label, kernel)
                    pcts.append(variant["baseline_over_pto_pct"])
            if pcts and kernel["name"] in rows:
                expected = f"{min(pcts):.1f}%..{max(pcts):.1f}%"
                assert rows[kernel["name"]]["baseline_over_pto_range"] == expected, (label, kernel["name"])
        if label == "layernorm_gated lowers again":
            reports = load(Location(bench / "reports", bench))
            assert reports.by_name()["layernorm_gated"].ratio_median_pct is not None
