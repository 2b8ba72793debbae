"""The detail screen with hostile input: huge reasons, a FIFO as report.json, and `e` for the full text."""

from __future__ import annotations

import contextlib
import json
import os
import threading

import pytest

from ptotui.app.screens.detail import DetailScreen
from ptotui.model.location import Location
from ptotui.model.read import writers
from tests.helpers import build, loaded, until

SIZE = (120, 36)
KERNEL = "paged_kv_gather"


def set_reason(location: Location, reason: str) -> None:
    path = location.reports / "regression_latest.json"
    data = json.loads(path.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] == KERNEL:
            kernel["baseline_reason"] = reason
            for variant in kernel["variants"]:
                variant["baseline_reason"] = reason
    path.write_text(writers.dump_json(data))


def rendered_lines(app) -> list[str]:
    screen = app.screen
    assert isinstance(screen, DetailScreen)
    return "".join(seg.text for seg in app.console.render(screen.build(app.ctx.lang))).splitlines()


async def open_detail(pilot) -> DetailScreen:
    await loaded(pilot, 15)
    pilot.app.main.open_detail(KERNEL)
    await until(pilot, lambda: isinstance(pilot.app.screen, DetailScreen))
    screen = pilot.app.screen
    await until(pilot, lambda: screen.report is not None)
    return screen


async def test_a_100k_line_reason_shows_one_screenful_and_says_how_much_more(sample_location):
    reason = "\n".join(f"line {i} of a host dump" for i in range(100_000))
    set_reason(sample_location, reason)
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot)
        lines = rendered_lines(app)
        dump = [line for line in lines if "of a host dump" in line]
        assert 5 <= len(dump) <= SIZE[1]  # one screenful, not 100,000 lines
        more = [line for line in lines if "more lines" in line]
        assert more and "99,9" in more[0] and "`e` opens it in $PAGER" in more[0]
        assert len(lines) < 400


@pytest.mark.slow
async def test_a_50mb_single_line_reason_is_cut_too(sample_location):
    set_reason(sample_location, "x" * 50_000_000)
    app = build(sample_location, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot)
        lines = rendered_lines(app)
        assert sum(line.count("x") for line in lines) < 2 * SIZE[0] * SIZE[1]
        assert any("more characters" in line for line in lines)


async def test_e_pipes_the_full_text_into_the_pager(sample_location, tmp_path, monkeypatch):
    reason = "\n".join(f"dump line {i}" for i in range(5_000))
    set_reason(sample_location, reason)
    out = tmp_path / "paged.txt"
    monkeypatch.setenv("PAGER", f"cat > {out}")
    app = build(sample_location, watch=False)
    # headless: there is no terminal to hand over
    monkeypatch.setattr(type(app), "suspend", lambda self: contextlib.nullcontext())
    async with app.run_test(size=SIZE) as pilot:
        await open_detail(pilot)
        await pilot.press("e")
        await until(pilot, out.exists)
    paged = out.read_text()
    assert "dump line 0\n" in paged and "dump line 4999" in paged
    assert not any(p.name.endswith(".tmp") for p in sample_location.reports.iterdir())


async def test_a_fifo_as_report_json_does_not_block_the_keys(sample_location, tmp_path):
    report = sample_location.bench / "generated" / "cache" / KERNEL / "report.json"
    assert report.exists()
    report.unlink()
    os.mkfifo(report)

    def release() -> None:  # let go of a reader stuck in open() (before the fix): the test fails, never hangs
        with contextlib.suppress(OSError):
            os.close(os.open(report, os.O_WRONLY | os.O_NONBLOCK))

    guard = threading.Timer(20, release)
    guard.start()
    try:
        app = build(sample_location, watch=False)
        async with app.run_test(size=SIZE) as pilot:
            screen = await open_detail(pilot)
            assert any("FIFO" in line for line in rendered_lines(app))
            await pilot.press("l")  # the UI thread still answers
            assert app.ctx.lang == "zh"
            await pilot.press("escape")
            assert app.screen is not screen
    finally:
        guard.cancel()
        release()


async def test_facts_the_report_does_not_give_read_n_a_not_none(sample_location):
    """A blocked kernel's report.json has no correctness figures: the detail said
    ``atol None rtol None max_abs_diff None passes None``."""
    from ptotui.app.render.detail_parts import fact as _fact

    assert (_fact(None), _fact(True), _fact(False), _fact(0.001), _fact(3)) == ("n/a", "yes", "no", "0.001", "3")
    path = sample_location.bench / "generated" / "cache" / KERNEL / "report.json"
    data = json.loads(path.read_text())
    del data["baseline"]["benchmark"]["correctness"]
    path.write_text(json.dumps(data))
    app = build(sample_location, watch=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await open_detail(pilot)
        report = "".join(seg.text for seg in app.console.render(screen._report_part("en")))
        assert "atol n/a  rtol n/a  max_abs_diff n/a  passes n/a" in report and "None" not in report
        assert "passes yes" in report  # PTO's side, which has them
