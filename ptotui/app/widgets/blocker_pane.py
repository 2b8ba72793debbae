"""Blocked and gap-carrying kernels grouped by the layer that holds them back."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ptotui.app.render import badge
from ptotui.model.text import clean, one_line
from ptotui.model.tiers import LAYER_LABELS, LAYERS, tier_rank
from ptotui.model.types import Kernel

PER_LAYER = 100  # entries per layer; more is not readable, and slow to lay out at 10k kernels


class BlockerPane(OptionList):
    """One entry per shown kernel under its layer; moving here highlights kernels in the table.

    The pane follows the table's filter, so narrowing the table narrows the pane.
    """

    class Picked(Message):
        """The highlighted entry changed: the kernel and every kernel sharing its gaps."""

        def __init__(self, kernel: str | None, affected: set[str]) -> None:
            super().__init__()
            self.kernel = kernel
            self.affected = affected

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.border_title = "Blockers by layer"
        self._kernels: list[Kernel] = []
        self._by_gap: dict[str, set[str]] | None = None
        self._gaps_of: dict[str, list[str]] = {}
        self._signature: tuple = ()
        self._last: tuple[list[Kernel], dict[str, str]] = ([], {})

    def show(self, kernels: list[Kernel], triage: dict[str, str]) -> None:
        self._last = (kernels, triage)
        self._kernels, self._by_gap = kernels, None  # which kernels share a gap: worked out on demand
        by_layer: dict[str, list[Kernel]] = {layer: [] for layer in LAYERS}
        for kernel in kernels:
            if kernel.blocker_layer in by_layer:
                by_layer[kernel.blocker_layer].append(kernel)
        for members in by_layer.values():
            members.sort(key=lambda k: (tier_rank(k.tier), k.name))
        shown = [k for members in by_layer.values() for k in members]
        # The pane keeps its own order (layer, tier, name), so re-sorting the table leaves
        # it alone; and the loader keeps unchanged kernels as the same objects, so this
        # comparison is mostly identity checks (a rebuild costs ~0.1 s at 10k kernels).
        width = self.scrollable_content_region.width
        signature = (*shown, *[triage.get(k.name) for k in shown], width)
        if signature == self._signature:
            return
        self._signature = signature
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        self._gaps_of = {k.name: k.gap_ids for k in shown}
        options: list[Option | None] = []
        for layer, members in by_layer.items():
            if not members:
                continue
            options.append(Option(Text(f"{LAYER_LABELS[layer]} ({len(members)})", style="bold"), disabled=True))
            text_width = max((width or 60) - 8, 30)
            options += [Option(self._entry(k, triage.get(k.name), text_width), id=k.name) for k in members[:PER_LAYER]]
            if len(members) > PER_LAYER:
                more = Text(
                    f"  … {len(members) - PER_LAYER} more: narrow the table with / or a tier key", style="dim italic"
                )
                options.append(Option(more, disabled=True))
        self.clear_options()
        self.add_options(options)
        if keep is not None and keep in self._gaps_of:
            self.highlighted = self.get_option_index(keep)

    @staticmethod
    def _entry(kernel: Kernel, triage: str | None, width: int) -> Text:
        text = Text("  ")
        text.append_text(badge(kernel.tier))
        text.append(" ")
        text.append(one_line(kernel.name), style="bold")
        if triage:
            text.append(f"  [{triage}]", style="italic")
        for gap in kernel.gap_ids:
            text.append("\n    " + one_line(clean(gap)), style="cyan")
            summary = next((g.summary for g in kernel.gaps if g.id == gap), "")
            if summary:
                text.append("\n      " + one_line(clean(summary), width), style="dim")
        if not kernel.gap_ids:
            reason = kernel.pto_reason if kernel.pto_status == "blocked" else kernel.baseline_reason
            if reason:
                text.append("\n    " + one_line(clean(reason), width), style="dim")
        return text

    def on_resize(self) -> None:
        self.call_after_refresh(self._reshow)

    def _reshow(self) -> None:
        self.show(*self._last)

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        name = event.option.id
        self.post_message(self.Picked(name, self.affected(name)))

    def affected(self, name: str | None) -> set[str]:
        """The kernel and every shown kernel that shares one of its gaps."""
        if name not in self._gaps_of:
            return set()
        if self._by_gap is None:
            self._by_gap = {}
            for kernel in self._kernels:
                for gap in kernel.gap_ids:
                    self._by_gap.setdefault(gap, set()).add(kernel.name)
        return {name}.union(*(self._by_gap.get(gap, set()) for gap in self._gaps_of[name]))
