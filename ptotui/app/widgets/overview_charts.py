"""Charts of all kernels at once (the overview): tiers per family, the spread of the median ratios."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.binding import Binding
from textual.events import Click
from textual.message import Message
from textual.reactive import reactive
from textual_plotext.plot import Plot

from ptotui.app import render
from ptotui.app.widgets.charts import PALETTE, Chart, floats, headroom, legend, plain_table, tier_rgb
from ptotui.model.core.tiers import TIER_LABELS, TIERS, Thresholds
from ptotui.model.i18n import N_, _
from ptotui.model.present.chartdata import (
    Bucket,
    family_of,
    integer_ticks,
    ratio_buckets,
    tiers_by_family,
)
from ptotui.model.types import Kernel

if TYPE_CHECKING:
    pass


# -- all kernels -----------------------------------------------------------------------


class BarChart(Chart):
    """A chart whose bars can be picked: ``←``/``→`` move, ``enter`` (or a click) posts Picked."""

    can_focus = True
    BINDINGS = [
        Binding("left,h", "move(-1)", N_("Previous bar"), show=False, id="overview.previous"),
        Binding("right,l", "move(1)", N_("Next bar"), show=False, id="overview.next"),
        Binding("enter", "pick", N_("Show in table"), id="overview.pick"),
    ]
    selected: reactive[int] = reactive(0)

    class Changed(Message):
        """Another bar was selected."""

    class Picked(Message):
        """A bar was chosen: show only the kernels ``keep`` accepts, under ``label``."""

        def __init__(self, label: str, keep: Callable[[Kernel], bool]) -> None:
            super().__init__()
            self.label = label
            self.keep = keep

    def __init__(self, kernels: list[Kernel], thresholds: Thresholds, id: str | None = None) -> None:
        super().__init__(id=id)
        self.thresholds = thresholds
        self.kernels = kernels
        self.tally()

    def show(self, kernels: list[Kernel]) -> None:
        self.kernels = kernels
        self.tally()
        self.selected = min(self.selected, max(len(self.bars()) - 1, 0))
        self.refresh()

    def watch_selected(self) -> None:
        self.post_message(self.Changed())

    # The bars are counted once per set of kernels (``tally``, from ``__init__`` and
    # ``show``); a key or a repaint only reads them: at 10k kernels a recount per key,
    # or per kernel, froze the app (benchmarks/bench_overview.py).
    def tally(self) -> None:
        """Count the kernels into bars, for ``bars``, ``count`` and the drawing."""
        raise NotImplementedError

    def bars(self) -> list[str]:
        raise NotImplementedError

    def count(self, index: int) -> int:
        """How many kernels the bar holds: the ones its Picked message keeps."""
        raise NotImplementedError

    def picked(self, index: int) -> Picked:
        raise NotImplementedError

    def action_move(self, step: int) -> None:
        if self.bars():
            self.selected = (self.selected + step) % len(self.bars())

    def action_pick(self) -> None:
        if self.bars():
            self.post_message(self.picked(self.selected))

    def on_click(self, event: Click) -> None:
        """A click on a bar's column picks it (the plot area starts after the y ticks)."""
        bars = self.bars()
        if not bars or not self.charted:
            return
        left = self._plot_left
        span = self.size.width - left - 1
        if span > 0 and event.x >= left:
            index = min(int((event.x - left) / span * len(bars)), len(bars) - 1)
            if self.selected == index:
                self.action_pick()
            self.selected = index

    _plot_left: int = 6

    def label_for(self, index: int, label: str) -> str:
        return f"▸{label}" if index == self.selected and self.has_focus else label

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


class FamilyTierChart(BarChart):
    """How many kernels of each tier every family has, stacked in tier colours."""

    families: dict[str, Counter[str]]
    _names: list[str]

    def tally(self) -> None:
        self.families = tiers_by_family(self.kernels)
        self._names = list(self.families)

    def bars(self) -> list[str]:
        return self._names

    def count(self, index: int) -> int:
        return sum(self.families[self._names[index]].values())

    def picked(self, index: int) -> BarChart.Picked:
        family = self._names[index]
        return self.Picked(_("family {family}").format(family=family), lambda k: family_of(k) == family)

    def caption(self, compact: bool = False) -> Text:
        items = [("■", TIER_LABELS[tier], tier_rgb(tier, self.app.ansi_theme)) for tier in TIERS]
        return legend(_("Kernels per tier by family"), items, "", compact)

    def draw(self, plt: Plot, width: int, height: int) -> None:
        families, names = self.families, self._names
        if not names:
            return
        tiers = [t for t in TIERS if any(c[t] for c in families.values())]
        xs = list(range(1, len(names) + 1))
        for x, name in zip(xs, names, strict=True):
            # One bar per segment, from the top of the one below: plotext's stacked_bar
            # drew a first segment one row lower when the tiers below it were empty.
            bottom = 0
            for tier in tiers:
                count = families[name][tier]
                if count:
                    plt.bar([x], [bottom + count], width=0.6, color=tier_rgb(tier, self.app.ansi_theme), minimum=bottom)
                    bottom += count
        top = max(sum(c.values()) for c in families.values())
        ticks = integer_ticks(top, max(2, min(6, height // 3)))
        plt.yticks(floats(ticks), [str(tick) for tick in ticks])
        ceiling = ticks[-1] + max((ticks[1] - ticks[0]) * 0.3, headroom(ticks[-1], height, 1.2))
        plt.ylim(0, ceiling)
        self._plot_left = len(str(ticks[-1])) + 1
        # Labels that would touch are moved by plotext in an order that changes from one
        # process to the next (a set): keep a gap between them so nothing has to move.
        slot = max(1, (width - self._plot_left - 2) // len(names) - 2)
        # plotext draws tick labels as given: a label cut without the mark reads as a word
        labels = [render.clip(self.label_for(i, n), slot) for i, n in enumerate(names)]
        plt.xticks(floats(xs), labels)
        plt.xlim(0.5, len(names) + 0.5)
        if self.has_focus:
            plt.text("▼", self.selected + 1, ceiling, alignment="center")  # the top row, above every bar

    def table(self) -> Table:
        families = self.families
        tiers = [t for t in TIERS if any(c[t] for c in families.values())]
        table = plain_table(_("family"), *(TIER_LABELS[t] for t in tiers), _("all"))
        for index, (name, counts) in enumerate(families.items()):
            style = "reverse" if index == self.selected and self.has_focus else ""
            table.add_row(Text(name), *(str(counts[t]) for t in tiers), str(sum(counts.values())), style=style)
        return table


class RatioHistogram(BarChart):
    """How many kernels have their median ratio in each 10 pp bucket, with the thresholds."""

    _buckets: list[Bucket]
    _labels: list[str]
    _without: int

    def tally(self) -> None:
        self._buckets = ratio_buckets(self.kernels)
        self._labels = [b.label for b in self._buckets]
        self._without = sum(1 for k in self.kernels if k.ratio_median_pct is None)

    def buckets(self) -> list[Bucket]:
        return self._buckets

    def bars(self) -> list[str]:
        return self._labels

    def count(self, index: int) -> int:
        return self._buckets[index].count

    def picked(self, index: int) -> BarChart.Picked:
        bucket = self._buckets[index]
        return self.Picked(_("ratio {bucket}").format(bucket=bucket.label), lambda k: k.ratio_median_pct in bucket)

    def caption(self, compact: bool = False) -> Text:
        t = self.thresholds
        items = [("│", f"HIGH ≥ {t.high:g}%", PALETTE["high"]), ("│", f"MID ≥ {t.mid:g}%", PALETTE["mid"])]
        without = self._without
        note = _("{n} without a ratio not counted").format(n=without) if without else ""
        return legend(_("Kernels per 10 pp of median Baseline/PTO ratio"), items, note, compact)

    def draw(self, plt: Plot, width: int, height: int) -> None:
        buckets = self.buckets()
        if not buckets:
            return
        size = 10
        xs = [b.low + size / 2 for b in buckets]
        plt.bar(xs, [b.count for b in buckets], width=0.7, color=PALETTE["ratio"])
        top = max(b.count for b in buckets)
        ticks = integer_ticks(top, max(2, min(6, height // 3)))
        plt.yticks(floats(ticks), [str(tick) for tick in ticks])
        ceiling = ticks[-1] + max((ticks[1] - ticks[0]) * 0.3, headroom(ticks[-1], height, 1.2))
        plt.ylim(0, ceiling)
        self._plot_left = len(str(ticks[-1])) + 1
        right = buckets[-1].low + size
        t = self.thresholds
        for value, color in ((t.high, PALETTE["high"]), (t.mid, PALETTE["mid"])):
            if 0 <= value <= right:
                plt.vline(value, color)
        every = max(1, math.ceil(len(buckets) * 6 / max(width - self._plot_left - 2, 1)))
        edges = [b.low for b in buckets][::every] + ([right] if buckets[-1].high is not None else [])
        plt.xticks(floats(edges), [f"{edge}" if edge < 200 or buckets[-1].high else f"{edge}+" for edge in edges])
        plt.xlim(0, right)
        if self.has_focus:
            chosen = buckets[self.selected]
            plt.text("▼", chosen.low + size / 2, ceiling, alignment="center")

    def table(self) -> Table:
        table = plain_table(_("median ratio"), _("kernels"))
        for index, bucket in enumerate(self.buckets()):
            style = "reverse" if index == self.selected and self.has_focus else ""
            table.add_row(bucket.label, str(bucket.count), style=style)
        return table
