"""The overview (``G``) at scale and in a small terminal: each key costs at most a pass
over the kernels (an N² path froze the app at 10k kernels, benchmarks/bench_overview.py
measures it), and the hint and the bar labels are never cut mid-word without ``…``."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from ptotui.model.location import Location
from ptotui.model.present import chartdata
from ptotui.model.present.chartdata import Bucket, family_of, ratio_buckets
from ptotui.model.types import Kernel
from tests.app.test_charts import open_overview, render_of
from tests.app.test_table_layout import _load_make_scale
from tests.helpers import build, loaded, names, until

KERNELS = 3_000


class Work:
    """Counts how often a kernel is classified: into a family, or into a ratio bucket.
    Past ``cap`` it raises, so a quadratic path fails the test at once instead of
    running for minutes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, cap: int) -> None:
        from ptotui.app.widgets import overview_charts as charts

        self.count, self.cap = 0, cap
        real_family, real_contains = chartdata.family_of, Bucket.__contains__

        def family(kernel: Kernel) -> str:
            self.tick()
            return real_family(kernel)

        def contains(bucket: Bucket, ratio: object) -> bool:
            self.tick()
            return real_contains(bucket, ratio)

        monkeypatch.setattr(chartdata, "family_of", family)
        monkeypatch.setattr(charts, "family_of", family)
        monkeypatch.setattr(Bucket, "__contains__", contains)

    def tick(self) -> None:
        self.count += 1
        if self.count > self.cap:
            raise AssertionError(f"over {self.cap} classifications: a pass per kernel somewhere")

    def since(self, start: int) -> int:
        return self.count - start


@pytest.mark.slow
async def test_overview_keys_cost_at_most_a_pass_over_the_kernels(tmp_path, monkeypatch):
    """3,000 kernels: opening the overview classifies each kernel once per chart, moving
    between bars and charts classifies none, ``enter`` filters the table in a pass or two."""
    from ptotui.app.screens.overview import OverviewScreen
    from ptotui.app.widgets.overview_charts import FamilyTierChart, RatioHistogram

    bench = _load_make_scale().build(tmp_path, KERNELS)
    app = build(Location(bench / "reports", bench))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, KERNELS)
        kernels = list(app.main.reports.kernels)
        work = Work(monkeypatch, cap=20 * KERNELS)
        hint = lambda: str(app.screen.query_one("#overview-hint").render())  # noqa: E731

        await pilot.press("G")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen) and " kernel" in hint())
        assert work.count <= 2 * KERNELS  # a family per kernel, a bucket per ratio
        families = app.screen.query_one(FamilyTierChart)
        per_family = Counter(family_of(k) for k in kernels)
        start, reports = work.count, app.main.reports
        for _ in range(3):
            await pilot.press("right")
            await pilot.pause()
            family = families.bars()[families.selected]
            assert f" {family}: {counted(per_family[family])}" in hint()
        await pilot.press("tab")
        await pilot.press("right", "right", "right")
        await pilot.pause()
        if app.main.reports is reports:  # moving between bars and charts recounts nothing
            assert work.since(start) == 0
        else:  # a reload landed meanwhile: one recount of each chart
            assert work.since(start) <= 2 * KERNELS
        histogram = app.screen.query_one(RatioHistogram)
        assert app.focused is histogram
        bucket = histogram.buckets()[histogram.selected]
        expected = sum(1 for k in kernels if k.ratio_median_pct in bucket)
        assert f" {bucket.label}: {counted(expected)}" in hint()

        start = work.count
        await pilot.press("enter")
        await until(pilot, lambda: app.screen is app.main)
        assert len(names(app)) == expected
        assert work.since(start) <= 3 * KERNELS


@pytest.mark.slow
async def test_overview_follows_a_reload_with_one_recount(tmp_path, monkeypatch):
    """A reload recounts each chart once, not once per kernel or per key."""
    from ptotui.model.session import Update

    bench = _load_make_scale().build(tmp_path, KERNELS)
    app = build(Location(bench / "reports", bench))
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, KERNELS)
        await open_overview(pilot)
        work = Work(monkeypatch, cap=20 * KERNELS)
        app.screen._shown = None  # what a reload does: the reports object the screen showed changed
        app.ctx.changed.publish(Update(app.session.reports))
        await pilot.pause()
        assert 0 < work.count <= 2 * KERNELS


def test_ratio_buckets_in_one_pass_match_counting_each_bucket():
    ratios = [None, math.nan, -3.0, 0.0, 9.99, 10.0, 55.5, 199.99, 200.0, 1e6, 70.0, 69.99999]
    kernels = [Kernel(f"k{i}", ratio_median_pct=r) for i, r in enumerate(ratios)]
    for width, cap in ((10, 200), (10, 205), (7, 100), (25, 60)):
        buckets = ratio_buckets(kernels, width, cap)
        for bucket in buckets:
            assert bucket.count == sum(1 for k in kernels if k.ratio_median_pct in bucket), (width, cap, bucket)


async def test_overview_hint_at_80x24_drops_whole_parts(sample_location):
    """At 80 columns the hint keeps the bar and its count, and leaves out (or shortens)
    whole parts: it was cut as ``… · ← → another bar ·``."""
    from ptotui.app.screens.overview import OverviewScreen, hint_parts
    from ptotui.app.widgets.overview_charts import BarChart

    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await pilot.press("G")
        await until(pilot, lambda: isinstance(app.screen, OverviewScreen))
        for key in ("right", "right", "tab", "right"):
            await pilot.press(key)
            await pilot.pause()
            chart = app.focused
            assert isinstance(chart, BarChart)
            shown = str(app.screen.query_one("#overview-hint").render())
            parts = hint_parts(chart.bars()[chart.selected], chart.count(chart.selected))
            assert len(shown) <= 80, shown
            assert shown.startswith(parts[0].text.plain) and " · enter: only these" in shown
            rest = shown[len(parts[0].text.plain) :]
            wholes = {p.text.plain for p in parts[1:]} | {p.short.plain for p in parts[1:] if p.short}
            while rest:  # what follows the count is a run of whole parts
                piece = max((w for w in wholes if rest.startswith(w)), key=len, default=None)
                assert piece is not None, (shown, rest)
                rest = rest[len(piece) :]
        await pilot.resize_terminal(160, 48)
        await pilot.pause()
        full = "".join(p.text.plain for p in parts)
        assert str(app.screen.query_one("#overview-hint").render()) == full


async def test_family_labels_cut_at_80x24_end_in_an_ellipsis(sample_location):
    """Each family label under the bars is the whole name or a head of it ending in ``…``."""
    from ptotui.app.widgets.overview_charts import FamilyTierChart

    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot, 15)
        await open_overview(pilot)
        chart = app.screen.query_one(FamilyTierChart)
        assert chart.charted
        labels = render_of(chart)[-1].split()
        families = chart.bars()
        assert len(labels) == len(families), labels  # plotext drew every label
        shortened = 0
        for label, family in zip(labels, families, strict=True):
            label = label.removeprefix("▸")
            if label != family:
                assert label.endswith("…") and family.startswith(label[:-1]), (label, family)
                shortened += 1
        assert shortened  # 80 columns are too few for every name: the case is tested


def counted(n: int) -> str:
    return f"{n} kernel" if n == 1 else f"{n} kernels"
