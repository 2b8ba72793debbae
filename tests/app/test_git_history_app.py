"""Committed report versions in the dashboard: the detail's history, no git, a pull."""

from __future__ import annotations

import pytest

from tests.gitrepos import commit
from tests.helpers import build, loaded, until
from tests.model import test_git_history
from tests.model.test_git_history import Repo

repo = test_git_history.repo  # the fixture (pytest finds it by this name)


async def test_the_app_shows_committed_points_in_the_detail_history(repo: Repo) -> None:
    root, ids = repo
    app = build(str(root), git=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None and len(app.session.history.stamps) == 4)
        app.main.open_detail("grouped_matmul")
        await pilot.pause()
        rendered = "".join(seg.text for seg in app.console.render(app.screen.build("en")))
        assert f"{ids['c2'][:8]} Refresh migration reports" in rendered
        assert "20260314T170132Z" in rendered


async def test_no_git_in_the_app(repo: Repo) -> None:
    root, _ = repo
    app = build(str(root), git=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None)
        assert app.session.history.stamps == ["20260314T170132Z", "20260324T010000Z"]


async def test_a_pull_that_brings_new_reports_refreshes_the_history(repo: Repo) -> None:
    from tests.gitrepos import bench_run, git

    root, ids = repo
    app = build(str(root), git=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None and len(app.session.history.stamps) == 4)
        # Another host's bench run arrives through git: the files change and a commit appears.
        git(root, "checkout", "-q", "-b", "pulled")
        bench_run(root, "20260330T010000Z", {"grouped_matmul": 10.0})
        new = commit(root, "Refresh migration reports from host C", 1_774_950_000)
        await until(pilot, lambda: any(new[:8] in stamp for stamp in app.session.history.stamps))
        assert app.session.history.kernels["grouped_matmul"][-1].tier == "slow"
        assert ids["c1"][:8] in app.session.history.stamps[1]


async def test_git_missing_is_one_notice_and_the_rest_works(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    from ptotui.model.history import gitreports

    root, _ = repo
    monkeypatch.setattr(gitreports.shutil, "which", lambda name: None)
    app = build(str(root), git=True)
    async with app.run_test(size=(140, 40)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: app.session.history is not None)
        assert app.session.history.stamps == ["20260314T170132Z", "20260324T010000Z"]  # the files still make history
        notices = [n.message for n in app._notifications if "git was not found" in n.message]
        assert len(notices) == 1
