"""Change points kept true while runs land (ptotui/model/changes/live.py): a kernel searched
again only when its runs changed; a PTO slowdown a landed run made significant told once, and
nothing told for the baseline, a speed-up, noise, the history filling in or a new kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptotui.model.bench.columns import RunView
from ptotui.model.bench.record import Run
from ptotui.model.bench.runs import read_runs
from ptotui.model.changes import live
from ptotui.model.changes.live import Steps
from tests.changetree import noisy, stamp, write_history

STEP_AT = 18


def _runs(tmp_path: Path, pto: list[float], baseline: list[float] | None = None, kernel: str = "tile_add") -> list[Run]:
    bench = tmp_path / "bench"
    write_history(bench, "demo", kernel, pto, baseline)
    return read_runs(bench).runs.of(kernel)


def _land(steps: Steps, runs: list[Run], start: int) -> list[tuple[int, list[str]]]:
    """The runs from ``start`` on landing one at a time: at which landing what was told."""
    steps.newest(RunView.of_runs(runs[:start]))  # the dashboard's first search (the Step column)
    told = []
    for index in range(start, len(runs)):
        found = steps.landed(RunView.of_runs(runs[: index + 1]), [runs[index]])
        if found:
            told.append((index, [c.after for c in found]))
    return told


def test_a_pto_step_is_told_once_when_the_runs_after_it_make_it_significant(tmp_path: Path) -> None:
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    told = _land(Steps(), runs, 12)
    assert len(told) == 1, told
    index, afters = told[0]
    assert afters == [stamp(STEP_AT)]  # the run the step starts at, told once
    assert index == STEP_AT + 2  # at its third run after (pending before: fewer than MIN_AFTER runs after it)


def test_a_blip_of_one_run_is_pending_and_never_told(tmp_path: Path) -> None:
    """A run 40% slower, then the runs as before: before, the first landing told it a step."""
    pto = [*noisy(24, None, 0.0, 0.01, seed=3), 1.4]
    runs = _runs(tmp_path, pto)
    steps = Steps()
    assert _land(steps, runs, 12) == []
    assert steps.newest(RunView.of_runs(runs)) == {}  # nor is it the Step column's step
    changes = steps._search(tuple(runs))
    assert [(c.runs_after, c.pending) for c in changes] == [(1, True)]
    back = [*pto, 1.0, 1.0, 1.0]
    runs = _runs(tmp_path / "again", back)
    assert _land(Steps(), runs, 12) == []


def test_it_is_told_even_when_no_search_ran_before_the_landing(tmp_path: Path) -> None:
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    steps, told = Steps(), []
    for index in range(12, len(runs)):  # (the Step column hidden: newest() never called)
        told += steps.landed(RunView.of_runs(runs[: index + 1]), [runs[index]])
    assert [c.after for c in told] == [stamp(STEP_AT)]


def test_the_same_landing_applied_twice_is_told_once(tmp_path: Path) -> None:
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    steps = Steps()
    ((index, _afters),) = _land(steps, runs[:25], 12)
    view = RunView.of_runs(runs[: index + 1])
    assert steps.landed(view, [runs[index]]) == []  # (a load applied again: the runs reader's last read)
    steps.newest(RunView.of_runs(runs[: index + 1]))  # and the Step column searching meanwhile changes nothing
    assert steps.landed(view, [runs[index]]) == []


@pytest.mark.parametrize(
    ("pto", "baseline"),
    [
        (noisy(30, None, 0.0, 0.01, seed=3), None),  # noise only
        (noisy(30, STEP_AT, -0.25, 0.01, seed=11), None),  # PTO got faster
        (noisy(30, None, 0.0, 0.01, seed=3), noisy(30, STEP_AT, -0.30, 0.01, seed=5)),  # the baseline did
    ],
    ids=["flat", "pto-faster", "baseline-faster"],
)
def test_nothing_is_told_for_noise_a_speed_up_or_the_baseline(tmp_path: Path, pto, baseline) -> None:
    runs = _runs(tmp_path, pto, baseline)
    assert _land(Steps(), runs, 12) == []


def test_older_runs_joining_are_searched_and_not_told(tmp_path: Path) -> None:
    """The history behind each kernel's newest run fills in after the first load: the step it
    shows was there before the dashboard started, so it is no landing."""
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    steps = Steps()
    assert steps.landed(RunView.of_runs(runs[-1:]), []) == []
    assert steps.landed(RunView.of_runs(runs), runs[:-1]) == []  # 29 older runs "landed"
    assert [c.after for c in steps.newest(RunView.of_runs(runs)).values()] == [stamp(STEP_AT)]


def test_a_new_kernel_is_no_landing(tmp_path: Path) -> None:
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    assert Steps().landed(RunView.of_runs(runs), runs) == []


def test_a_step_found_again_a_run_later_is_the_same_step(tmp_path: Path, monkeypatch) -> None:
    """A longer series can move a change point by a run: within NEAR runs it is the one told."""
    runs = _runs(tmp_path, noisy(30, STEP_AT, 0.25, 0.01, seed=11))
    steps = Steps()
    ((index, _afters),) = _land(steps, runs[:25], 12)
    (told,) = [c for c in steps.newest(RunView.of_runs(runs[: index + 1])).values()]
    real = steps._search

    def moved(held: tuple[Run, ...]):
        found = real(held)
        if len(held) <= index + 1:
            return found
        return [c if c.after != told.after else type(c)(**{**_fields(c), "after": stamp(STEP_AT + 1)}) for c in found]

    monkeypatch.setattr(steps, "_search", moved)  # in the longer series the step is found a run later
    assert steps.landed(RunView.of_runs(runs[: index + 2]), [runs[index + 1]]) == []
    monkeypatch.setattr(live, "NEAR", 0)  # (and without NEAR it would be told again: the test can fail)
    steps2 = Steps()
    _land(steps2, runs[: index + 1], 12)
    monkeypatch.setattr(steps2, "_search", moved)
    assert [c.after for c in steps2.landed(RunView.of_runs(runs[: index + 2]), [runs[index + 1]])] == [
        stamp(STEP_AT + 1)
    ]


def _fields(change) -> dict:
    return {name: getattr(change, name) for name in change.__dataclass_fields__}


def test_only_the_kernels_that_landed_are_searched(tmp_path: Path, monkeypatch) -> None:
    bench = tmp_path / "bench"
    write_history(bench, "demo", "tile_add", noisy(20, None, 0.0, 0.01, seed=1))
    write_history(bench, "demo", "tile_mul", noisy(20, None, 0.0, 0.01, seed=2))
    view = read_runs(bench).runs
    steps = Steps()
    steps.newest(view)
    searched: list[str] = []
    real = steps._search
    monkeypatch.setattr(steps, "_search", lambda held: searched.append(held[-1].kernel) or real(held))
    steps.landed(view, [view.of("tile_mul")[-1]])
    assert set(searched) == {"tile_mul"}
    searched.clear()
    steps.newest(view)  # nothing changed since: nothing searched again
    assert searched == []
