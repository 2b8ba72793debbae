"""Change points: the method (E-divisive means + t-test), the series, the artifacts' diff."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from ptotui.model.bench.runs import read_runs
from ptotui.model.changes import artifacts
from ptotui.model.changes.edivisive import _Moments, _pooled, _Window, change_points, t_two_sided
from ptotui.model.changes.points import (
    Settings,
    collect,
    for_detail,
    kernel_changes,
    newest_pto_step,
    read_shapes,
    shape_changes,
    step_text,
    with_artifacts,
)
from tests.changetree import invented, noisy, pto_code, stamp, write_history

# the pto-kernels tree at 8582eec (a checkout elsewhere: PTOTUI_PK_TREE=/path/to/it)
REAL = Path(os.environ.get("PTOTUI_PK_TREE", "/work/trees/pk-8582eec")) / "bench"

# -- the method ---------------------------------------------------------------------------


def t_test(left: np.ndarray, right: np.ndarray) -> tuple[float, float, float]:
    """The reference the running sums are checked against: (mean left, mean right, p) of the
    pooled t-test computed from the arrays themselves (Otava's population deviations)."""
    m1, m2 = float(left.mean()), float(right.mean())
    v1 = float(left.var()) if len(left) >= 2 else 0.0
    v2 = float(right.var()) if len(right) >= 2 else 0.0
    return m1, m2, _pooled(len(left), m1, v1, len(right), m2, v2)


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [(2.228, 10, 0.05), (3.169, 10, 0.01), (4.587, 10, 0.001), (12.706, 1, 0.05), (1.962, 1000, 0.05), (0.0, 5, 1.0)],
)
def test_t_tail_matches_the_tables(t: float, df: int, p: float) -> None:
    assert t_two_sided(t, df) == pytest.approx(p, rel=2e-3, abs=1e-12)


def test_t_test_pools_population_variances_as_otava_does() -> None:
    left, right = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0, 7.0])
    m1, m2, p = t_test(left, right)
    # by hand: var (ddof 0) 2/3 and 5/4, pooled (2*2/3 + 3*5/4)/5, t = -3.5 / sqrt(pooled * (1/3 + 1/4))
    pooled = (2 * 2 / 3 + 3 * 5 / 4) / 5
    t = (m1 - m2) / np.sqrt(pooled * (1 / 3 + 1 / 4))
    assert (m1, m2) == (2.0, 5.5)
    assert p == pytest.approx(t_two_sided(float(t), 5))
    assert t_test(np.array([2.0, 2.0]), np.array([2.0, 2.0]))[2] == 1.0
    assert t_test(np.array([2.0, 2.0]), np.array([3.0, 3.0]))[2] == 0.0


@pytest.mark.parametrize("seed", range(3))
def test_the_running_sums_test_as_the_arrays_do(seed: int) -> None:
    x = 0.25 + np.random.default_rng(seed).normal(scale=0.01, size=30)
    moments = _Moments(x)
    for start, index, stop in ((0, 1, 30), (0, 15, 30), (4, 9, 11), (10, 28, 30)):
        assert moments.test(start, index, stop) == pytest.approx(t_test(x[start:index], x[index:stop]), rel=1e-9)
    constant = _Moments(np.array([2.0, 2.0, 2.0, 3.0, 3.0]))
    assert constant.test(0, 3, 5)[2] == 0.0 and constant.test(0, 2, 3)[2] == 1.0


def _q_brute(x: np.ndarray, start: int, tau: int, kappa: int) -> float:
    a, b = x[start:tau], x[tau:kappa]
    n, m = len(a), len(b)
    between = np.abs(a[:, None] - b[None, :]).sum()
    within_a = np.abs(a[:, None] - a[None, :]).sum() / 2
    within_b = np.abs(b[:, None] - b[None, :]).sum() / 2
    q = 2 / (m + n) * between
    if n > 1:
        q -= 2 * m / (m + n) / (n - 1) * within_a
    if m > 1:
        q -= 2 * n / (m + n) / (m - 1) * within_b
    return float(q)


@pytest.mark.parametrize("seed", range(5))
def test_the_q_hat_search_is_the_brute_force_one(seed: int) -> None:
    x = np.random.default_rng(seed).normal(size=23) + np.r_[np.zeros(11), np.ones(12) * 0.8]
    window = _Window(x)
    for start, stop in ((0, 23), (5, 19), (0, 3)):
        best = max(
            ((tau, kappa) for tau in range(start + 1, stop) for kappa in range(tau + 1, stop + 1)),
            key=lambda pair: _q_brute(x, start, *pair),
        )
        found = window.best(start, stop)
        assert found is not None
        assert found[0] == best[0]
        assert found[1] == pytest.approx(_q_brute(x, start, *best))


def test_a_step_is_found_at_its_run_and_a_flat_series_has_none() -> None:
    stepped = noisy(40, 25, 0.10, 0.01, seed=3)
    found = change_points(stepped, min_magnitude=0.03)
    assert [split.index for split in found] == [25]
    assert found[0].before == 25 and found[0].after == 15
    assert found[0].pvalue < 0.001
    assert change_points(noisy(40, None, 0.0, 0.01, seed=3), min_magnitude=0.03) == []
    # a real step below the least change is not one
    assert change_points(noisy(40, 20, 0.02, 0.002, seed=1), min_magnitude=0.03) == []
    assert [s.index for s in change_points(noisy(40, 20, 0.02, 0.002, seed=1), min_magnitude=0.0)] == [20]


def test_steps_past_one_window_are_each_found() -> None:
    series = noisy(130, None, 0.0, 0.01, seed=7)
    series = [v * (1.2 if 40 <= i < 95 else 1.0) for i, v in enumerate(series)]
    assert [split.index for split in change_points(series, window=50, min_magnitude=0.03)] == [40, 95]


def test_too_short_or_not_finite_series_have_none() -> None:
    assert change_points([1.0, 2.0]) == []
    assert change_points([1.0, 1.0, float("nan"), 5.0, 5.0, 5.0]) == []


# -- the series of a tree ---------------------------------------------------------------------


def _tree(tmp_path: Path, **kwargs: object) -> Path:
    bench = tmp_path / "bench"
    pto = noisy(30, 18, 0.25, 0.01, seed=11)
    write_history(bench, "demo", "tile_add", pto, code=lambda i: pto_code(i, 18), **kwargs)  # type: ignore[arg-type]
    return bench


def test_a_kernel_step_names_its_runs_medians_and_cause(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    runs = read_runs(bench).runs.of("tile_add")
    (change,) = kernel_changes(runs, Settings())
    assert (change.side, change.shape, change.before, change.after) == ("pto", None, stamp(17), stamp(18))
    assert (change.runs_before, change.runs_after) == (18, 12)
    pto = sorted(r.pto_ms for r in runs if r.pto_ms is not None)
    assert change.before_ms == pytest.approx(float(np.median([r.pto_ms for r in runs[:18]])))
    assert change.after_ms > max(pto[:18])
    assert 20 < change.change_pct < 30
    assert change.cause() == "PTO slower"
    assert change.before_dir.endswith(stamp(17)) and change.after_dir.endswith(stamp(18))


def test_each_shape_has_its_own_series(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    runs = read_runs(bench).runs.of("tile_add")
    changes = shape_changes(runs, read_shapes, Settings())
    assert sorted(c.shape or "" for c in changes) == ['{"x":[16,64]}', '{"x":[32,64]}']
    assert {(c.side, c.after) for c in changes} == {("pto", stamp(18))}


def test_the_baseline_side_and_runs_where_a_side_is_blocked(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    pto = [1.0] * 24
    baseline = noisy(24, 12, -0.3, 0.01, seed=2)
    write_history(bench, "demo", "tile_add", pto, baseline)
    broken = bench / "results" / "demo" / "tile_add" / stamp(5) / "report.json"
    report = json.loads(broken.read_text())
    report["pto"]["benchmark"]["status"] = "blocked"
    broken.write_text(json.dumps(report))
    changes = kernel_changes(read_runs(bench).runs.of("tile_add"))
    assert [(c.side, c.after, c.cause()) for c in changes] == [("baseline", stamp(12), "baseline faster")]


def test_the_code_that_changed_between_the_two_runs(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    (change,) = kernel_changes(read_runs(bench).runs.of("tile_add"))
    notes: list = []
    made = with_artifacts(change, notes)
    assert made.artifacts is not None
    assert [a.as_dict() for a in made.artifacts] == [
        {"path": "kernel.pto", "status": "removed", "added": 0, "removed": 4},
        {"path": "kernel.so", "status": "removed", "added": None, "removed": None},
        {"path": "stage1/kernel.pto", "status": "added", "added": 3, "removed": 0},
        {"path": "stage1/kernel.so", "status": "added", "added": None, "removed": None},
        {"path": "stage2/kernel.pto", "status": "added", "added": 3, "removed": 0},
    ]
    assert notes == []
    assert made.as_dict()["artifacts"][0]["path"] == "kernel.pto"


def test_a_modified_file_counts_its_lines_and_only_report_json_is_said(tmp_path: Path) -> None:
    old, new, bare = tmp_path / "old", tmp_path / "new", tmp_path / "bare"
    for target, text in ((old, "a\nb\nc\n"), (new, "a\nB\nc\nd\n")):
        (target / "s1").mkdir(parents=True)
        (target / "s1" / "kernel.cpp").write_text(text)
        (target / "report.json").write_text("{}")
        (target / "same.pto").write_text("x\n")
    bare.mkdir()
    (bare / "report.json").write_text("{}")
    assert artifacts.compare(str(old), str(new)).files == (artifacts.Artifact("s1/kernel.cpp", "modified", 2, 1),)
    diff = artifacts.compare(str(bare), str(new))
    assert [a.status for a in diff.files] == ["added", "added"]
    assert [n.message for n in diff.notes] == ["the run directory holds only report.json: no code to compare"]
    assert artifacts.compare(str(old), str(new), "*.pto").files == ()


def test_the_unified_diff_is_git_style_and_cleaned(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    old.mkdir(), new.mkdir()
    (old / "kernel.pto").write_text("keep\nold\x1b]2;owned\x07\n")
    (new / "kernel.pto").write_text("keep\nnew\n")
    (new / "kernel.so").write_bytes(b"\0\1")
    lines = list(artifacts.unified(str(old), str(new)))
    assert lines == [
        "diff --git a/kernel.pto b/kernel.pto",
        "--- a/kernel.pto",
        "+++ b/kernel.pto",
        "@@ -1,2 +1,2 @@",
        " keep",
        "-old",
        "+new",
        "diff --git a/kernel.so b/kernel.so",
        "new file",
        "Binary files /dev/null and b/kernel.so differ",
    ]


def test_the_step_column(tmp_path: Path) -> None:
    bench = _tree(tmp_path)
    runs = read_runs(bench).runs.of("tile_add")
    changes = kernel_changes(runs)
    step = newest_pto_step(changes)
    assert step is not None
    from ptotui.model.bench.record import stamp_seconds

    three_days = (stamp_seconds(stamp(18)) or 0) + 3 * 86400 + 5
    assert step_text(step, three_days) == f"{step.change_pct:+.0f}% 3d"


def _shape_code(index: int) -> dict[str, str | bytes]:
    """Per-shape directories as the runner writes them (``rows`` ``cols`` of runtree's variants)."""
    return {f"r{16 << n}_c64/stage1/kernel.pto": f"func @s{n}() {{}}\n" for n in range(2)} | {
        "stage1/kernel.pto": "func @k() {}\n"
    }


def test_a_shape_s_points_carry_its_run_directory_s_name(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    write_history(bench, "demo", "tile_add", noisy(30, 18, 0.25, 0.01, seed=11), code=_shape_code)
    changes = shape_changes(read_runs(bench).runs.of("tile_add"), read_shapes)
    assert sorted((c.label, c.shape) for c in changes) == [
        ("r16_c64", '{"x":[16,64]}'),
        ("r32_c64", '{"x":[32,64]}'),
    ]
    assert all(c.as_dict()["label"] == c.label and c.as_dict()["shape"] == c.shape for c in changes)


def test_no_empty_shape_and_no_shape_series_for_a_kernel_of_one_shape(tmp_path: Path) -> None:
    """ffn's first 31 runs have no variants (read as one variant ``{}``), its later ones three
    shapes: its points were each listed twice, once with shape ``{}``."""
    bench = tmp_path / "bench"
    old = invented(2)
    for side in ("pto", "baseline"):
        old[side]["benchmark"].pop("variant_reports")
    pto = noisy(40, 12, 0.5, 0.01, seed=7)
    write_history(bench, "demo", "tile_add", pto[:20], base=old)
    write_history(bench, "demo", "tile_add", pto[20:], first=20)
    runs = read_runs(bench).runs.of("tile_add")
    assert stamp(12) in [c.after for c in kernel_changes(runs)]
    assert all(c.shape != "{}" and c.shape is not None for c in shape_changes(runs, read_shapes))
    assert {c.after for c in shape_changes(runs, read_shapes)} <= {stamp(20)}  # the shapes' series start there

    one = tmp_path / "one" / "bench"
    write_history(one, "demo", "tile_one", noisy(30, 18, 0.25, 0.01, seed=11), base=invented(1))
    runs = read_runs(one).runs.of("tile_one")
    assert [c.after for c in kernel_changes(runs)] == [stamp(18)]
    assert shape_changes(runs, read_shapes) == []  # its one shape's series is the kernel's


def test_a_blip_between_steps_is_no_change_point(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    pto = noisy(30, None, 0.0, 0.01, seed=3)
    pto[12] *= 1.5  # one slow run, then as before
    write_history(bench, "demo", "tile_add", pto)
    assert kernel_changes(read_runs(bench).runs.of("tile_add")) == []


def test_the_detail_s_order_pto_first_the_kernel_first_and_repeats_folded(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    baseline = [v * (0.8 if i >= 8 else 1.0) for i, v in enumerate(noisy(30, None, 0.0, 0.01, seed=4))]
    baseline[-1] *= 1.5  # the newest run: a baseline blip, pending
    write_history(bench, "demo", "tile_add", noisy(30, 18, 0.25, 0.01, seed=11), baseline, code=_shape_code)
    found = collect(read_runs(bench).runs, shapes=True)
    listed, pending = for_detail(found)
    assert [(i.change.side, i.change.label, i.change.after) for i in listed] == [
        ("pto", None, stamp(18)),
        ("baseline", None, stamp(8)),
    ]
    assert sorted(r.label or "" for r in listed[0].repeats) == ["r16_c64", "r32_c64"]
    assert [(i.change.side, i.change.after, i.change.runs_after) for i in pending] == [("baseline", stamp(29), 1)]
    assert all(i.change.pending for i in pending) and not any(i.change.pending for i in listed)


# -- a real report.json's shapes and noise ------------------------------------------------------


def test_steps_in_a_reference_report_are_found_per_shape(tmp_path: Path, reference_bench: Path) -> None:
    base = json.loads(
        (reference_bench / "generated" / "attention" / "flash_attention_score" / "report.json").read_text()
    )
    bench = tmp_path / "bench"
    write_history(bench, "attention", "flash_attention_score", noisy(26, 13, 0.12, 0.01, seed=5), base=base)
    runs = read_runs(bench).runs.of("flash_attention_score")
    assert [c.after for c in kernel_changes(runs)] == [stamp(13)]
    shapes = shape_changes(runs, read_shapes)
    assert len({c.shape for c in shapes}) == 3
    assert {c.after for c in shapes} == {stamp(13)}


# -- the real history ---------------------------------------------------------------------------


@pytest.fixture
def real_copy(tmp_path: Path) -> Path:
    """The two kernels' runs of the tree at 8582eec: from a checkout (PTOTUI_PK_TREE), else from
    the local mirror of the repository (tests/runtree.py); skipped when neither is here."""
    kernels = (("ffn", "ffn"), ("attention", "fused_infer_attention_score"))
    if not (REAL / "results").is_dir():
        from tests import runtree

        paths = [f"bench/{part}/{family}/{kernel}" for family, kernel in kernels for part in ("results", "generated")]
        return runtree.extract(tmp_path / "real", *paths) / "bench"
    bench = tmp_path / "bench"
    for family, kernel in kernels:
        shutil.copytree(REAL / "results" / family / kernel, bench / "results" / family / kernel, symlinks=True)
        # the runner's copy of the newest run: fused_infer_attention_score's is newer than its runs
        shutil.copytree(REAL / "generated" / family / kernel, bench / "generated" / family / kernel, symlinks=True)
    return bench


def test_the_real_history_steps_of_the_issue(real_copy: Path) -> None:
    log = read_runs(real_copy)
    ffn = [c for c in kernel_changes(log.runs.of("ffn")) if c.side == "pto"]
    assert [(c.before, c.after) for c in ffn] == [("20260311T172811Z", "20260311T173434Z")]
    assert ffn[0].change_pct == pytest.approx(79, abs=3)
    split = with_artifacts(ffn[0]).artifacts or ()
    assert {a.path for a in split if a.status == "added"} >= {"stage1/kernel.pto", "stage2_relu/kernel.pto"}
    assert "kernel.pto" in {a.path for a in split if a.status == "removed"}

    fused = [c for c in kernel_changes(log.runs.of("fused_infer_attention_score")) if c.side == "pto"]
    assert [(c.before, c.after) for c in fused] == [("20260314T152305Z", "20260314T152618Z")]
    assert fused[0].change_pct == pytest.approx(9, abs=1.5)
    changed = {a.path for a in with_artifacts(fused[0]).artifacts or () if a.status == "modified"}
    for shape in ("q16_k16_d16", "q32_k128_d128", "q64_k64_d64"):
        assert f"{shape}/stage2_softmax/kernel.pto" in changed


def test_the_real_tree_s_points_of_issue_39(real_copy: Path) -> None:
    """fused_infer_attention_score: the baseline's +14.5% of one run is pending, PTO's +9% the
    first change point, its shapes' folded under it by their directory names; ffn's once."""
    found = collect(read_runs(real_copy).runs, shapes=True)
    assert not any(c.shape == "{}" for c in found)
    ffn = [c for c in found if c.kernel == "ffn"]
    assert all(c.shape is None for c in ffn)  # its points were each listed again with shape {}
    listed, pending = for_detail(c for c in found if c.kernel == "fused_infer_attention_score")
    first = listed[0].change
    assert (first.side, first.shape, first.after) == ("pto", None, "20260314T152618Z")
    assert sorted(r.label or "" for r in listed[0].repeats) == ["q16_k16_d16", "q32_k128_d128", "q64_k64_d64"]
    assert [(i.change.label, i.change.after, i.change.runs_after) for i in pending] == [
        ("q16_k16_d16", "20260320T154925Z", 1)
    ]
