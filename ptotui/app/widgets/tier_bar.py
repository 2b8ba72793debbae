"""The row of tier badges with counts; clicking one filters to that tier."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Container
from textual.message import Message
from textual.widgets import Static

from ptotui.app.render import SHORT_LABELS, TIER_WORDS, tier_style, update_if_changed
from ptotui.model.core.tiers import TIER_LABELS, TIERS
from ptotui.model.i18n import _
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

    def show(self, count: int, active: bool, short: bool = False) -> None:
        """``short``: the table shows short badges, so this badge is also their legend
        (``4 BBLK baseline-blocked 9``) where the short form is not the word itself."""
        label = Text(f"{self.key}", style="dim")
        style = tier_style(self.tier) + (" underline" if active else "")
        word, code = TIER_LABELS[self.tier], SHORT_LABELS.get(self.tier, "")
        if short and code and code != word:
            label.append(f" {code} {_(TIER_WORDS[self.tier])} {count} ", style=style)
            label.stylize("bold", 2, 2 + len(code))
        else:
            label.append(f" {word} {count} ", style=style)
        update_if_changed(self, label)
        self.set_class(active, "-active")

    def on_click(self) -> None:
        self.post_message(self.Picked(self.tier))


class TierBar(Container):
    """Badges for every tier and the untriaged count; the legend of the short badges
    while the table shows them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._short = False
        self._shown: tuple[list[Kernel], Collection[str], int] = ([], (), 0)

    @property
    def short(self) -> bool:
        return self._short

    @short.setter
    def short(self, value: bool) -> None:
        if value != self._short:
            self._short = value
            self.show(*self._shown)

    def compose(self) -> ComposeResult:
        for index, tier in enumerate(TIERS, start=1):
            yield TierBadge(tier, index)
        yield Static("", id="untriaged", markup=False)

    def show(self, kernels: list[Kernel], active: Collection[str], untriaged: int) -> None:
        """``active``: the tiers the table is narrowed to (none: every tier is shown)."""
        self._shown = (kernels, active, untriaged)
        counts = Counter(k.tier for k in kernels)
        for badge in self.query(TierBadge):
            badge.show(counts.get(badge.tier, 0), badge.tier in active, self._short)
        text = Text(" " + _("untriaged {n}").format(n=untriaged) + " ", style="bold" if untriaged else "dim")
        update_if_changed(self.query_one("#untriaged", Static), text)
