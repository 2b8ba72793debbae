"""The dashboard counts and announces the regressions the runs are blamed for."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import runtree


@pytest.mark.slow
async def test_the_dashboard_counts_and_announces_the_runs_attributed_regressions_only(tmp_path: Path) -> None:
    """The first rows come before the runs; the count since the snapshot waits for them, so the
    notification never says 13 first and 3 later."""
    from ptotui.model.location import Location
    from tests.helpers import build, loaded, until

    bench = runtree.extract(tmp_path / "real", "bench") / "bench"
    app = build(Location(bench / "reports", bench), state=tmp_path / "state" / "triage.json")
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.since is not None)
        await pilot.pause()
        header = str(app.main.query_one("#header").render())
        assert "3 regressions since snapshot 20260314T170132Z" in header
        said = [str(n.message) for n in app._notifications if "since snapshot" in str(n.message)]
        assert len(said) == 1 and said[0].startswith("3 regressions since snapshot 20260314T170132Z")
