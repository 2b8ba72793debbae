"""The row of tier badges with counts; clicking one filters to that tier."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container
from textual.message import Message
from textual.widgets import Static

from ptotui.app.render import TIER_STYLES, update_if_changed
from ptotui.model.tiers import TIER_LABELS, TIERS
from ptotui.model.types import Kernel


class TierBadge(Static):
    """One tier's badge: its key, its word and its count."""

    class Picked(Message):
        def __init__(self, tier: str) -> None:
            super().__init__()
            self.tier = tier

    def __init__(self, tier: str, key: int) -> None:
        super().__init__("", markup=False, id=f"tier-{tier}")
        self.tier = tier
        self.key = key

    def show(self, count: int, active: bool) -> None:
        label = Text(f"{self.key}", style="dim")
        label.append(
            f" {TIER_LABELS[self.tier]} {count} ", style=TIER_STYLES[self.tier] + (" underline" if active else "")
        )
        update_if_changed(self, label)
        self.set_class(active, "-active")

    def on_click(self) -> None:
        self.post_message(self.Picked(self.tier))


class TierBar(Container):
    """Badges for every tier, the untriaged count, and a clear hint."""

    def compose(self) -> ComposeResult:
        for index, tier in enumerate(TIERS, start=1):
            yield TierBadge(tier, index)
        yield Static("", id="untriaged", markup=False)

    def show(self, kernels: list[Kernel], active: Collection[str], untriaged: int) -> None:
        """``active``: the tiers the table is narrowed to (none: every tier is shown)."""
        counts = Counter(k.tier for k in kernels)
        for badge in self.query(TierBadge):
            badge.show(counts.get(badge.tier, 0), badge.tier in active)
        text = Text(f" untriaged {untriaged} ", style="bold" if untriaged else "dim")
        update_if_changed(self.query_one("#untriaged", Static), text)
