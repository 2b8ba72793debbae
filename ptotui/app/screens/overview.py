"""``G``: every kernel at a glance, tiers per family and a histogram of median ratios.
``enter`` on a bar shows only its kernels in the table."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical

from ptotui.app.render import Part
from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.fitted_line import FittedLine
from ptotui.app.widgets.footer import StableFooter
from ptotui.app.widgets.overview_charts import BarChart, FamilyTierChart, RatioHistogram
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.session import Update
from ptotui.model.text import one_line
from ptotui.model.types import Kernel, ReportSet

# What the overview hands back when a bar is picked: its label and which kernels it holds.
Pick = tuple[str, Callable[[Kernel], bool]]

if TYPE_CHECKING:
    from ptotui.app.context import Context


def hint_parts(label: str, count: int) -> list[Part]:
    """The hint under the charts, as parts that a narrow terminal drops whole: the
    bar and its count stay, then what ``enter`` does, then ``← →``, then ``tab``."""
    kernels = ngettext("{n} kernel", "{n} kernels", count).format(n=count)
    words = [
        (f" {one_line(label, 40)}: {kernels}", None),
        (" · " + _("enter: only these in the table"), " · " + _("enter: only these")),
        (" · " + _("← → another bar"), " · ← →"),
        (" · " + _("tab: other chart"), " · tab"),
    ]
    return [Part(Text(text), rank, None if short is None else Text(short)) for rank, (text, short) in enumerate(words)]


class OverviewScreen(PtoScreen[Pick | None]):
    """Charts over all kernels of the session; follows reloads while it is open. Picking a
    bar dismisses it with the bar (the main screen, which pushed it, shows only those)."""

    DEFAULT_CSS = """
    OverviewScreen > Vertical { height: 1fr; }
    OverviewScreen #overview-hint { height: 1; color: $text-muted; }
    OverviewScreen BarChart:focus { background-tint: $foreground 4%; }
    """
    BINDINGS = [
        Binding("escape,q,G", "dismiss", N_("Back"), id="overview.back"),
    ]
    HELP_EXTRA = [
        (
            "← → (h l)",
            N_("pick a bar; enter (or a second click) shows only its kernels in the table"),
            ("overview.previous", "overview.next"),
        ),
        ("tab", N_("the other chart")),
    ]
    HELP_BINDINGS = BarChart.BINDINGS  # the defaults of the ids HELP_EXTRA names

    def __init__(self, ctx: Context) -> None:
        super().__init__()
        self.ctx = ctx
        self.session = ctx.session
        self._shown: ReportSet | None = None

    def compose(self) -> ComposeResult:
        kernels, thresholds = self._kernels(), self.ctx.thresholds
        with Vertical():
            yield FamilyTierChart(kernels, thresholds, id="family-chart")
            yield RatioHistogram(kernels, thresholds, id="ratio-chart")
        yield FittedLine(id="overview-hint")  # fitted to its own width whenever it is drawn
        yield StableFooter()  # its words from the catalogue, as on the other screens

    def on_mount(self) -> None:
        self.title = _("Overview")
        self._shown = self.session.reports
        self.query_one(FamilyTierChart).focus()
        self.ctx.changed.subscribe(self, self._follow_reloads)

    def _kernels(self) -> list[Kernel]:
        reports = self.session.reports
        return list(reports.kernels) if reports is not None else []

    def _follow_reloads(self, update: Update) -> None:
        """The session changed: charts drawn again only for other reports (triage or the
        history changing redraws nothing here)."""
        if self.session.reports is not self._shown:
            self._shown = self.session.reports
            for chart in self.query(BarChart):
                chart.show(self._kernels())
            self._hint()

    def language_changed(self) -> None:
        self.title = _("Overview")
        for chart in self.query(BarChart):
            chart.show(self._kernels())
        self._hint()

    def on_descendant_focus(self) -> None:
        self._hint()

    @on(BarChart.Changed)
    def _hint(self) -> None:
        hint = self.query_one("#overview-hint", FittedLine)
        focused = self.focused
        if not isinstance(focused, BarChart) or not focused.bars():
            hint.set_parts([])
            return
        # The count comes from the bar itself: counting the kernels again here, with the
        # bar's filter, made every key (and ``G``) cost a pass per kernel.
        label, count = focused.bars()[focused.selected], focused.count(focused.selected)
        hint.set_parts(hint_parts(label, count))

    @on(BarChart.Picked)
    def _picked(self, event: BarChart.Picked) -> None:
        self.dismiss((event.label, event.keep))
