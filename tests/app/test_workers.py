"""A worker that raises says so, naming what failed; the app keeps going."""

from __future__ import annotations

from ptotui.model.location import Location
from tests.helpers import build, loaded, until

SIZE = (120, 36)


def _warnings(app) -> list:
    return [n for n in app._notifications if n.severity == "warning"]


async def test_an_error_in_the_history_read_is_a_warning(sample_location: Location, monkeypatch) -> None:
    from ptotui.model.history.snapshots import HistoryReader

    def broken(self, location):
        raise RuntimeError("disk on [bold]fire[/bold]")  # markup in an error is text, not style

    monkeypatch.setattr(HistoryReader, "read", broken)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: any("history" in n.message for n in _warnings(app)))
        [said] = [n for n in _warnings(app) if "history" in n.message]
        assert said.message == "Reading the history failed: RuntimeError: disk on [bold]fire[/bold]"
        assert said.markup is False
        assert app.is_running and app.session.history is None  # the rows stay; no history column data
        await pilot.press("h")  # the app still answers
        await pilot.pause()


async def test_an_error_in_the_compare_with_the_snapshots_is_a_warning(sample_location: Location, monkeypatch) -> None:
    import ptotui.model.history.since as since

    def broken(*args, **kwargs):
        raise ValueError("no such stamp")

    monkeypatch.setattr(since, "since_snapshot", broken)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: any("snapshots" in n.message for n in _warnings(app)))
        said = [n.message for n in _warnings(app) if "snapshots" in n.message]
        assert said == ["Comparing with the snapshots failed: ValueError: no such stamp"]
        assert app.session.since is None and app.is_running


async def test_an_error_reading_a_kernels_report_json_is_a_warning(sample_location: Location, monkeypatch) -> None:
    """The detail screen's worker: its state changes do not bubble to the app, yet it is said."""
    import ptotui.app.screens.detail as detail

    def broken(*args, **kwargs):
        raise OSError("stale NFS handle")

    monkeypatch.setattr(detail, "read_file", broken)
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        name = app.session.reports.kernels[0].name
        app.main.open_detail(name)
        await until(pilot, lambda: any("report.json" in n.message for n in _warnings(app)))
        said = [n.message for n in _warnings(app) if "report.json" in n.message]
        assert said == ["Reading report.json failed: OSError: stale NFS handle"]
        assert app.is_running


async def test_a_worker_is_described_by_its_name_not_by_the_repr_of_what_it_is_given(
    sample_location: Location, monkeypatch
) -> None:
    from ptotui.model.types import ReportSet

    reprs: list[int] = []
    real = ReportSet.__repr__
    monkeypatch.setattr(ReportSet, "__repr__", lambda self: (reprs.append(1), real(self))[1])  # 1.4 s at 10,000 kernels
    app = build(sample_location)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot, 15)
        await until(pilot, lambda: app.session.since is not None and not app.session.since_pending, 10)
        assert reprs == []  # the comparison with the snapshots ran, given the ReportSet


def test_every_worker_of_the_app_is_made_by_thread_worker() -> None:
    from pathlib import Path

    app_dir = Path(__file__).resolve().parents[2] / "ptotui" / "app"
    bare = [str(p) for p in app_dir.rglob("*.py") if "@work(" in p.read_text(encoding="utf-8")]
    assert bare == []  # Textual's own @work would describe each call by repr() of its arguments
