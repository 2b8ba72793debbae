"""``G``: every kernel at a glance, tiers per family and a histogram of median ratios.
``enter`` on a bar shows only its kernels in the table."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Footer, Static

from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.charts import BarChart, FamilyTierChart, RatioHistogram
from ptotui.model.types import Kernel


class OverviewScreen(PtoScreen[None]):
    """Charts over all kernels; follows reloads while it is open."""

    DEFAULT_CSS = """
    OverviewScreen > Vertical { height: 1fr; }
    OverviewScreen #overview-hint { height: 1; color: $text-muted; }
    OverviewScreen BarChart:focus { background-tint: $foreground 4%; }
    """
    BINDINGS = [
        Binding("escape,q,G", "app.pop_screen", "Back"),
    ]
    HELP_EXTRA = [
        ("← → (h l)", "pick a bar; enter (or a second click) shows only its kernels in the table"),
        ("tab", "the other chart"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._shown: object = None

    def compose(self) -> ComposeResult:
        kernels, thresholds = self._kernels(), self.app.thresholds
        with Vertical():
            yield FamilyTierChart(kernels, thresholds, id="family-chart")
            yield RatioHistogram(kernels, thresholds, id="ratio-chart")
        yield Static("", id="overview-hint", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Overview"
        self._shown = self.app.main.reports
        self.query_one(FamilyTierChart).focus()
        self.set_interval(1.0, self._follow_reloads)

    def _kernels(self) -> list[Kernel]:
        reports = self.app.main.reports
        return list(reports.kernels) if reports is not None else []

    def _follow_reloads(self) -> None:
        if self.app.main.reports is not self._shown:
            self._shown = self.app.main.reports
            for chart in self.query(BarChart):
                chart.show(self._kernels())
            self._hint()

    def on_descendant_focus(self) -> None:
        self._hint()

    @on(BarChart.Changed)
    def _hint(self) -> None:
        focused = self.focused
        if not isinstance(focused, BarChart) or not focused.bars():
            self.query_one("#overview-hint", Static).update("")
            return
        label = focused.bars()[focused.selected]
        count = sum(1 for k in self._kernels() if focused.picked(focused.selected).keep(k))
        self.query_one("#overview-hint", Static).update(
            f" {label}: {count} kernel(s) · enter: only these in the table · ← → another bar · tab: other chart"
        )

    @on(BarChart.Picked)
    def _picked(self, event: BarChart.Picked) -> None:
        self.app.main.show_only(event.label, event.keep)
        self.app.pop_screen()
