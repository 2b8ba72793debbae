"""The one verdict (ptotui.model.verdict): the newest state, one reference, bands from the runs before.

Invented trees in the runner's and the generators' formats: a steady kernel's runs, two state-matrix
snapshots and a summary written together with the newer one, then a run landed after the summary the
way the runner writes it. What ``summary``, ``export`` and the dashboard's compare count must agree.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from ptotui.model.core.diff import diff, reference_stamp
from ptotui.model.core.noise import HISTORY_K, Noise, SideNoise
from ptotui.model.history.snapshots import History, Point
from ptotui.model.location import locate
from ptotui.model.types import Kernel, ReportSet
from ptotui.model.verdict import judge, newest_state
from tests.runtree import write_run

FAMILY = "norm"
STEADY = "rms_steady"
OTHER = "softmax_other"
# PTO's latency of the steady kernel's runs: within ±1% of 1 ms, three shapes each.
WOBBLE = (1.000, 1.008, 0.993, 1.004, 0.997, 1.010, 0.995, 1.002)
OLD_SNAPSHOT = "20201101T090000Z"
SUMMARY = "20201101T100000Z"  # the generators: the summary, the latest state and its snapshot
LANDED = "20201102T080000Z"  # a run after the summary, before the generators run again
# (Stamped years back: the commands pass over a run stamped a day ahead of this machine's clock,
# and what these tests check must not depend on that clock.)


def _shapes(pto: float) -> list[tuple[float | None, float | None]]:
    return [(0.5 * (1 << n), pto * (1 << n)) for n in range(3)]


def _summary_row(name: str, pto: float) -> dict[str, Any]:
    variants = []
    for number, (baseline, pto_ms) in enumerate(_shapes(pto)):
        assert baseline is not None and pto_ms is not None
        variants.append(
            {
                "variant": {"rows": 16 << number, "cols": 64, "seed": number},
                "shape_summary": {"x": [16 << number, 64]},
                "baseline_status": "ok",
                "pto_status": "ok",
                "baseline_median_ms": baseline,
                "pto_median_ms": pto_ms,
                "baseline_over_pto_pct": baseline / pto_ms * 100,
                "baseline_correct": True,
                "pto_correct": True,
                "baseline_limitations": [],
            }
        )
    return {
        "name": name,
        "family": FAMILY,
        "spec": f"bench/specs/{FAMILY}/{name}.yaml",
        "report_path": f"/home/someone/pto-kernels/bench/generated/{FAMILY}/{name}/report.json",
        "baseline_status": "ok",
        "pto_status": "ok",
        "baseline_reason": None,
        "pto_reason": None,
        "variants": variants,
    }


def _state_row(name: str, ratio: float) -> dict[str, Any]:
    return {
        "name": name,
        "family": FAMILY,
        "wave": "w1",
        "phase": "p1",
        "inventory_status": "included",
        "primary_class": "green + tile-first",
        "scalar_hot_path": False,
        "scalar_matches": [],
        "gap_ids": [],
        "gap_components": [],
        "baseline_over_pto_range": f"{ratio:.1f}%..{ratio:.1f}%",
        "block_utilization": None,
        "baseline_status": "ok",
        "pto_status": "ok",
        "baseline_reason": None,
        "pto_reason": None,
        "pto_correctness_passes": True,
        "report_path": f"/home/someone/pto-kernels/bench/generated/{FAMILY}/{name}/report.json",
    }


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def build_tree(root: Path) -> Path:
    """The steady kernel measured 8 times; the other kernel went from 40% to 60% between the two
    snapshots (so the older one is the reference); the summary written with the newer one."""
    bench = root / "bench"
    for index, pto in enumerate(WOBBLE):
        write_run(bench, FAMILY, STEADY, f"20201101T0{index}0000Z", _shapes(pto))
    write_run(bench, FAMILY, OTHER, "20201101T003000Z", [(0.4, 1.0)])
    write_run(bench, FAMILY, OTHER, "20201101T093000Z", [(0.6, 1.0)])
    reports = bench / "reports"
    steady_ratio = 50.0 / WOBBLE[-1]
    old_state = {"generated_at": OLD_SNAPSHOT, "kernels": [_state_row(STEADY, steady_ratio), _state_row(OTHER, 40.0)]}
    new_state = {"generated_at": SUMMARY, "kernels": [_state_row(STEADY, steady_ratio), _state_row(OTHER, 60.0)]}
    _write(reports / f"kernel_state_matrix_{OLD_SNAPSHOT}.json", old_state)
    _write(reports / f"kernel_state_matrix_{SUMMARY}.json", new_state)
    _write(reports / "kernel_state_matrix_latest.json", new_state)
    other = _summary_row(OTHER, 1.0)
    other["variants"] = other["variants"][:1]
    other["variants"][0].update(baseline_median_ms=0.6, pto_median_ms=1.0, baseline_over_pto_pct=60.0)
    summary = {"generated_at": SUMMARY, "kernels": [_summary_row(STEADY, WOBBLE[-1]), other]}
    _write(reports / "regression_latest.json", summary)
    return bench


def land(bench: Path, pto: float, stamp: str = LANDED) -> None:
    """A run of the steady kernel after the summary, as the runner writes it."""
    write_run(bench, FAMILY, STEADY, stamp, _shapes(pto))


def test_a_landed_run_20_percent_slower_is_a_regression_of_the_newest_state(tmp_path: Path) -> None:
    bench = build_tree(tmp_path)
    before = judge(locate(bench), git=False)
    assert before.since is not None and before.since.stamp == OLD_SNAPSHOT
    assert STEADY not in before.since.regressed  # steady: nothing moved beyond its noise
    land(bench, WOBBLE[-1] * 1.2)
    after = judge(locate(bench), git=False)
    steady = after.reports.by_name()[STEADY]
    assert steady.from_run == LANDED  # the state judged is the landed run, as the dashboard shows it
    assert after.since is not None and after.since.stamp == OLD_SNAPSHOT
    assert STEADY in after.since.regressed
    [change] = [c for c in after.since.changes if c.kernel == STEADY and c.kind == "ratio"]
    assert change.cause == "pto-slower" and change.move is not None
    assert change.move.pto_band.source == "history" and change.move.pto_band.pct < 10.0
    assert "PTO +20.0% (beyond its ±" in change.describe()


def test_an_unchanged_run_landed_again_is_no_regression(tmp_path: Path) -> None:
    bench = build_tree(tmp_path)
    land(bench, WOBBLE[-1])  # the same code, the same figures, measured again
    verdict = judge(locate(bench), git=False)
    assert verdict.reports.by_name()[STEADY].from_run == LANDED
    assert verdict.since is not None and STEADY not in verdict.since.regressed


def test_a_slower_run_never_widens_its_own_band(tmp_path: Path) -> None:
    """The band of a judged run comes from the runs at or before the reference: landing a
    much slower run (and more after it) leaves it as it was."""
    bench = build_tree(tmp_path)
    location = locate(bench)
    before = judge(location, git=False).since
    assert before is not None and before.noise is not None
    band = before.noise.band(STEADY, "pto", OLD_SNAPSHOT)
    land(bench, WOBBLE[-1] * 1.4)
    land(bench, WOBBLE[-1] * 1.1, "20201103T080000Z")
    after = judge(location, git=False).since
    assert after is not None and after.noise is not None
    assert after.noise.band(STEADY, "pto", OLD_SNAPSHOT) == band
    assert STEADY in after.regressed


def test_side_noise_takes_only_the_runs_at_or_before_the_reference() -> None:
    steady = [{"s": value} for value in WOBBLE]
    stamps = [f"20201101T0{i}0000Z" for i in range(len(WOBBLE))]
    later = ["20201102T000000Z", "20201103T000000Z", "20201104T000000Z"]
    jumpy = SideNoise([*steady, {"s": 1.6}, {"s": 0.9}, {"s": 1.7}], [], [], [*stamps, *later])
    alone = SideNoise(list(steady), [], [], list(stamps))
    assert jumpy.band(upto=stamps[-1]) == alone.band(upto=stamps[-1])
    assert jumpy.band().pct > alone.band().pct  # all of them: the jumps widen it
    changes = sorted(abs(b / a - 1) * 100 for a, b in zip(WOBBLE, WOBBLE[1:], strict=False))
    assert alone.band(floor=0.0).pct < HISTORY_K * max(changes)


def test_diff_holds_each_kernel_against_the_runs_before_its_reference() -> None:
    """``diff`` passes the reference's stamp to the bands: the run it came from, else its reports'."""
    seen: list[tuple[str, str, str | None]] = []

    class Recording(Noise):
        def band(self, kernel: str, side: str, upto: str | None = None):  # type: ignore[override]
            seen.append((kernel, side, upto))
            return super().band(kernel, side, upto)

    def kernel(pto: float, from_run: str | None = None) -> Kernel:
        from ptotui.model.core.tiers import classify
        from ptotui.model.types import Variant

        made = Kernel("k", baseline_status="ok", pto_status="ok")
        made.variants = [Variant(params={"n": 1}, pto_ms=pto, baseline_ms=0.5, ratio_pct=50 / pto, pto_status="ok")]
        made.from_run = from_run
        return classify(made, {})

    old = ReportSet("old", "20201101T100000Z", [kernel(1.0)])
    new = ReportSet("new", "20201102T100000Z", [kernel(1.3, "20201102T080000Z")])
    diff(old, new, noise=Recording({}))
    assert ("k", "pto", "20201101T100000Z") in seen
    assert reference_stamp(new.kernels[0], new.generated_at) == "20201102T080000Z"
    assert reference_stamp(old.kernels[0], "not a stamp") is None


def test_the_reference_is_a_snapshot_file_before_any_committed_version() -> None:
    def point(stamp: str) -> Point:
        return Point(stamp, None, "ok", "ok", 50.0, 50.0, 50.0, "mid")

    stamps = ["20201101T000000Z", "20201102T000000Z", "20201103T000000Z"]
    history = History(stamps, {"k": [point(s) for s in stamps]}, [], [], committed=frozenset({stamps[1], stamps[2]}))
    assert history.reference_stamps() == [stamps[0]]
    only_git = History(stamps, {}, [], [], committed=frozenset(stamps))
    assert only_git.reference_stamps() == stamps


def _git(repo: Path, *args: str) -> None:
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_SYSTEM": "/dev/null",
        "HOME": str(repo),
        "PATH": "/usr/bin:/bin",
    }
    subprocess.run(
        ["git", "-c", "user.name=Bench", "-c", "user.email=b@example.invalid", "-C", str(repo), *args],
        check=True,
        capture_output=True,
        env=env,
    )


def test_a_git_checkout_and_a_copy_of_it_give_the_same_verdict(tmp_path: Path) -> None:
    """In a checkout the committed versions are history too; the reference is still the snapshot
    file, as in a plain copy of the same tree (the header once counted since a commit there)."""
    copy = build_tree(tmp_path / "copy")
    checkout = build_tree(tmp_path / "checkout")
    _git(checkout.parent, "init", "-q")
    _git(checkout.parent, "add", "-A")
    _git(checkout.parent, "commit", "-qm", "reports")
    land(copy, WOBBLE[-1] * 1.2)
    land(checkout, WOBBLE[-1] * 1.2)
    _git(checkout.parent, "add", "-A")
    _git(checkout.parent, "commit", "-qm", "a run landed")
    plain = judge(locate(copy), git=True)
    in_git = judge(locate(checkout), git=True)
    assert plain.since is not None and in_git.since is not None
    assert (in_git.since.stamp, in_git.since.committed) == (plain.since.stamp, False) == (OLD_SNAPSHOT, False)
    assert in_git.since.regressed == plain.since.regressed == [STEADY]


def test_newest_state_without_results_is_the_summary(tmp_path: Path) -> None:
    bench = build_tree(tmp_path)
    import shutil

    shutil.rmtree(bench / "results")  # generated/ still holds each kernel's newest run: read as runs
    reports, reader = newest_state(locate(bench))
    assert reader is not None and all(k.from_run is None for k in reports.kernels)  # older than the summary
    shutil.rmtree(bench / "generated")
    reports, reader = newest_state(locate(bench))
    assert reader is None and all(k.from_run is None for k in reports.kernels)


def _set_device(report: Path, toolkit: str) -> None:
    data = json.loads(report.read_text())
    data["device"] = {"soc": "ascend910b", "npu_arch": "dav-2201", "toolkit_version": toolkit}
    data["bench"] = {"warmup": 20, "repeat": 100, "statistic": "median"}
    report.write_text(json.dumps(data))


def test_a_run_of_another_environment_is_not_compared_as_ptos_move(tmp_path: Path) -> None:
    """A toolkit upgrade moves every latency: the move is put down to the environment, named, and
    not counted; the band never pools runs of two environments."""
    bench = build_tree(tmp_path)
    for report in (bench / "results" / FAMILY / STEADY).glob("*/report.json"):
        _set_device(report, "8.5.0")
    land(bench, WOBBLE[-1] * 1.2)
    _set_device(bench / "results" / FAMILY / STEADY / LANDED / "report.json", "9.0.0")
    verdict = judge(locate(bench), git=False)
    assert verdict.since is not None and STEADY not in verdict.since.regressed
    [change] = [c for c in verdict.since.changes if c.kernel == STEADY and c.kind == "ratio"]
    assert change.cause == "environment" and not change.regression
    assert "the environment changed (toolkit 8.5.0 → 9.0.0)" in change.describe()
    assert change.as_dict()["environment"] == [{"field": "toolkit", "old": "8.5.0", "new": "9.0.0"}]


def test_a_band_takes_only_the_runs_of_the_reference_environment() -> None:
    from ptotui.model.core.environment import differences, environment_of

    old = environment_of({"device": {"toolkit_version": "8.5"}, "bench": {"repeat": 100}})
    new = environment_of({"device": {"toolkit_version": "9.0", "soc": "ascend910b"}, "bench": {"repeat": 100}})
    unknown = environment_of({"device": {"id": 0}})
    assert differences(old, new) == [("toolkit", "8.5", "9.0")]
    assert differences(unknown, new) == []  # early reports name no toolkit: nothing to differ
    stamps = [f"20201101T0{i}0000Z" for i in range(8)]
    noisy = [{"s": 1.0 + (0.3 if i % 2 else 0.0)} for i in range(4)]  # another environment, and noisy
    steady = [{"s": 1.0 + 0.002 * i} for i in range(4)]
    mixed = SideNoise([*noisy, *steady], [], [], stamps, environments=[old] * 4 + [new] * 4)
    assert mixed.before(stamps[-1]) == steady  # only the reference's environment
    assert mixed.band(upto=stamps[-1]).source != "history"  # 4 runs of it: too few for a history band


def test_a_step_at_a_toolkit_upgrade_is_the_environments_and_never_told_as_ptos(tmp_path: Path) -> None:
    """Issue 41 item 1: change points would fire on a toolkit upgrade and be read as a code change."""
    from ptotui.model.bench.runs import read_runs
    from ptotui.model.changes.live import Steps
    from ptotui.model.changes.points import kernel_changes

    bench = tmp_path / "bench"
    stamps = [f"202011{day:02d}T000000Z" for day in range(1, 19)]
    for index, stamp in enumerate(stamps):
        upgraded = index >= 12
        report = write_run(bench, FAMILY, STEADY, stamp, _shapes((1.2 if upgraded else 1.0) * WOBBLE[index % 8]))
        _set_device(report, "9.0.0" if upgraded else "8.5.0")
    runs = read_runs(bench).runs
    assert runs.of(STEADY)[0].as_dict()["environment"]["toolkit"] == "8.5.0"
    [step] = [c for c in kernel_changes(runs.of(STEADY)) if c.side == "pto"]
    assert step.after == stamps[12] and step.environment == (("toolkit", "8.5.0", "9.0.0"),)
    assert step.cause() == "environment: toolkit 8.5.0 → 9.0.0"
    assert step.as_dict()["environment"] == [{"field": "toolkit", "before": "8.5.0", "after": "9.0.0"}]
    # Landed one by one, as the runner writes them: never announced as a PTO slowdown.
    store, told = Steps(), []
    for count in range(12, len(stamps) + 1):
        view = read_runs(bench).runs.__class__.of_runs(runs.of(STEADY)[:count])
        told += store.landed(view, view.of(STEADY)[-1:])
    assert told == []
