"""Shared helpers: the Pilot tests' (the app built as the CLI builds it, waits, cells) and
the report edits any layer uses. Textual and the app are imported by the helpers that use
them, so a model test that edits a report (tests/model) does not import Textual."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.config import Config
from ptotui.model.options import DashboardOptions

if TYPE_CHECKING:
    from ptotui.app.widgets.kernel_table import KernelTable

# How long a test waits for something to happen before it gives up: a guard, not a measure.
# A loaded machine (CI, two xdist workers, a benchmark) can take many seconds for what takes
# a fraction here; a condition that never comes fails at this, below pytest-timeout's limit (pyproject.toml).
PATIENCE = 90.0

FIXED_CLOCK = lambda: 1_764_400_000.0  # noqa: E731 - a fixed "now" for stable screens


async def until(pilot, condition: Callable[[], bool], timeout: float = PATIENCE) -> None:
    """Let the app run until ``condition`` holds (the loader works on its own thread)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await pilot.pause(0.03)


def table(app) -> KernelTable:
    from ptotui.app.widgets.kernel_table import KernelTable

    return app.main.query_one(KernelTable)


def names(app) -> list[str]:
    t = table(app)
    return [t.get_row_at(i)[2].plain for i in range(t.row_count)]  # column 2 is the kernel


SCRATCH: list[Path] = []  # the running test's own temporary directory (conftest sets it)


FACTORY = frozenset({"compare", "watch", "clock", "runs_clock", "pause_gc"})  # make_app's own keywords


def build(location, **kwargs):
    """The app as the CLI makes it, with a fixed clock and a triage file of its own (in
    the test's temporary directory, which pytest removes). ``kwargs``: make_app's own
    keywords and DashboardOptions fields (git history off unless asked for)."""
    kwargs.setdefault("clock", FIXED_CLOCK)
    kwargs.setdefault("runs_clock", None)  # no test depends on this machine's clock (a future-stamp test gives its own)
    if "state" not in kwargs:
        import tempfile

        kwargs["state"] = Path(tempfile.mkdtemp(prefix="state-", dir=SCRATCH[-1])) / "triage.json"
    if isinstance(kwargs.get("config"), Config):  # the settings file as read (config= is also --config's path)
        kwargs["settings"] = kwargs.pop("config")
    factory = {name: kwargs.pop(name) for name in FACTORY & kwargs.keys()}
    kwargs.setdefault("git", False)
    from ptotui.app.factory import make_app

    return make_app(location, DashboardOptions(**kwargs), **factory)


def set_triage(app, kernel, state: str | None, note: str | None = None) -> bool:
    """Triage ``kernel`` as its keys do, at once; whether it took (a publish came of it)."""
    from ptotui.model.control.effects import Publish

    effects = app.controller.triage(kernel, state, note)
    app.run_effects(effects)
    return any(isinstance(e, Publish) for e in effects)


def build_with_settings(location, tmp_path: Path, text: str, **kwargs):
    """The app with a settings file of ``text`` (read as the CLI reads it; no warning)."""
    from ptotui.model.config import read_config

    path = tmp_path / "config.toml"
    path.write_text(text)
    config, warning = read_config(path)
    assert warning is None, warning
    return build(location, config=config, **kwargs)


async def loaded(pilot, count: int | None = None) -> None:
    """The rows are in the table, the footer the main screen mounts after them shows its
    keys and what was seen is read (its marks are drawn), so a test's keys and checks do
    not race that start-up work."""
    from textual.widgets._footer import FooterKey

    from ptotui.app.widgets.kernel_table import KernelTable

    app = pilot.app
    await until(
        pilot,
        lambda: (
            app.main.reports is not None
            and bool(app.main.query(KernelTable))  # (the reports can come before the screen is composed)
            and (count is None or table(app).row_count == count)
        ),
    )
    await until(pilot, lambda: bool(app.main.query(FooterKey)) and app.session.seen is not None)
    await pilot.pause()


def cell_text(app, kernel: str, column: str) -> str:
    return table(app).get_cell(kernel, column).plain


async def hide_blocker_pane(pilot) -> None:
    """``b`` into the pane, ``b`` again to hide it (a wide screen)."""
    await pilot.press("b")
    await pilot.pause()
    await pilot.press("b")
    await pilot.pause()
    assert pilot.app.main.has_class("-hide-blockers")


Edit = Callable[[dict], None]


def rewrite_kernels(reports: Path, edits: dict[str, Edit]) -> None:
    """Change kernels of ``reports/regression_latest.json`` in place, as a generator rewrites it."""
    path = reports / "regression_latest.json"
    data = json.loads(path.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] in edits:
            edits[kernel["name"]](kernel)
    path.write_text(json.dumps(data))


def every_variant(**fields) -> Edit:
    """An edit that sets ``fields`` on each of a kernel's variants."""

    def edit(kernel: dict) -> None:
        for variant in kernel["variants"]:
            variant.update(fields)

    return edit


def scale_side(side: str, factor: float) -> Edit:
    """An edit that makes one side (``pto`` or ``baseline``) ``factor`` times as slow on every
    shape, with the ratio recomputed as the generator computes it (baseline / PTO × 100)."""

    def edit(kernel: dict) -> None:
        for variant in kernel["variants"]:
            key = f"{side}_median_ms"
            if variant.get(key) is not None:
                variant[key] *= factor
            pto, baseline = variant.get("pto_median_ms"), variant.get("baseline_median_ms")
            if pto and baseline:
                variant["baseline_over_pto_pct"] = baseline / pto * 100

    return edit
