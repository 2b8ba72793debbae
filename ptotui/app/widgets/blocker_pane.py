"""The blockers, by layer or by gap; moving here highlights kernels in the table."""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from ptotui.app.render import badge, clip
from ptotui.model.core.blockers import (
    GAPS_SECTION,
    HOST_SECTION,
    GapImpact,
    Section,
    blocker_sections,
    blocker_side,
    gaps_by_impact,
)
from ptotui.model.i18n import N_, _, language
from ptotui.model.text import clean, one_line
from ptotui.model.triage import Status
from ptotui.model.types import Gap, Kernel

PER_SECTION = 100  # entries per section; more is not readable, and slow to lay out at 10k kernels
PER_GAP = 12  # kernels listed under one gap in the by-gap view
GAPS_SHOWN = 200
VIEWS = ("layer", "gap")
TITLES = {"layer": N_("Blockers by layer  (g: by gap)"), "gap": N_("Gaps by kernels unblocked  (g: by layer)")}


def _fit(text: str | None, cells: int) -> str:
    """Untrusted ``text`` on one line in at most ``cells`` terminal cells (a CJK character
    takes two: cutting by characters would run it past the pane)."""
    return clip(clean(one_line(text, max(cells, 1))), cells)


class BlockerPane(OptionList):
    """Blockers by layer (PTO's side, then the host's, then gaps on working kernels,
    collapsed), or by gap (``g``): each open gap and the kernels it holds back.

    The pane follows the table's filter, so narrowing the table narrows the pane.
    """

    BINDINGS = [
        Binding("j", "cursor_down", "Down", show=False, id="pane.down"),
        Binding("k", "cursor_up", "Up", show=False, id="pane.up"),
    ]

    class Picked(Message):
        """The highlighted entry changed: the kernel and every kernel sharing its gaps."""

        def __init__(self, kernel: str | None, affected: set[str]) -> None:
            super().__init__()
            self.kernel = kernel
            self.affected = affected

    class Opened(Message):
        """Enter on a kernel entry: show its detail."""

        def __init__(self, kernel: str) -> None:
            super().__init__()
            self.kernel = kernel

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.view = "layer"
        self.expanded: set[str] = set()  # collapsible sections the user opened
        self.border_title = _(TITLES[self.view])
        self._kernels: list[Kernel] = []
        self._board: dict[str, Gap] = {}
        self._by_gap: dict[str, set[str]] | None = None
        self._kernel_of: dict[str, str] = {}  # option id -> kernel name
        self._affects: dict[str, set[str]] = {}  # option id of a gap -> kernels it holds back
        self._under: dict[str, list[str]] = {}  # option id of a heading -> the kernels listed under it
        self._signature: tuple = ()
        self._entries: dict[str, tuple[tuple, Option]] = {}  # option id -> (what it shows, its Option)
        self._last: tuple[list[Kernel], dict[str, Status], dict[str, Gap]] = ([], {}, {})

    # -- what is highlighted -------------------------------------------------------

    @property
    def highlighted_kernel(self) -> str | None:
        """The kernel of the highlighted entry (None on a heading or a gap)."""
        option = self.highlighted_option
        return self._kernel_of.get(option.id or "") if option is not None else None

    @property
    def highlighted_heading(self) -> list[str] | None:
        """The kernels under the highlighted heading (a layer's, the host's, a gap's), in
        their order; None when the highlighted entry is not a heading."""
        option = self.highlighted_option
        return self._under.get(option.id or "") if option is not None else None

    # -- drawing -------------------------------------------------------------------

    def show(self, kernels: list[Kernel], triage: dict[str, Status], board: dict[str, Gap] | None = None) -> None:
        self._last = (kernels, triage, board or {})
        self._kernels, self._board, self._by_gap = kernels, board or {}, None
        width = self.scrollable_content_region.width
        text_width = max((width or 60) - 8, 30)
        # Rebuilt only when what it shows changed: a rebuild (and the OptionList's layout of
        # it) held the UI thread ~0.2 s a reload at 10k kernels (benchmarks/bench_scale.py),
        # though a 1% rewrite changes working kernels the layer view only counts. The loader
        # keeps unchanged kernels as the same objects, so comparing them is mostly identity.
        labels = [(s.label(), s.entry.note if s.entry else "") for s in triage.values()]
        sections = blocker_sections(kernels) if self.view == "layer" else []
        if self.view == "layer":
            content: tuple = tuple(
                (s.key, len(s.kernels), s.kernels[:PER_SECTION] if s.blockers or s.key in self.expanded else ())
                for s in sections
            )
        else:
            content = tuple(kernels)  # the by-gap view lists every kernel a gap is on
        signature = (language(), self.view, tuple(sorted(self.expanded)), content, *labels, *triage, width)
        if signature == self._signature:
            return
        self._signature = signature
        keep = self.highlighted_option.id if self.highlighted_option is not None else None
        self._kernel_of, self._affects, self._under = {}, {}, {}
        if self.view == "gap":
            options = self._gap_options(kernels, triage, text_width)
        else:
            options = self._layer_options(sections, triage, text_width)
        self.clear_options()
        self.add_options(options)
        # The entry that was highlighted, if it is still there (a filter can take a section's
        # heading away: asking the OptionList for it then raised, and the app died).
        if keep is not None and any(option is not None and option.id == keep for option in options):
            self.highlighted = self.get_option_index(keep)

    def _layer_options(self, sections: list[Section], triage: dict[str, Status], width: int) -> list[Option | None]:
        options: list[Option | None] = []
        reuse, self._entries = self._entries, {}
        if sections and sections[0].blockers and sections[0].key != HOST_SECTION:
            options.append(Option(Text(_("PTO's side"), style="bold underline"), disabled=True))
        for section in sections:
            members = section.kernels
            if section.key == GAPS_SECTION:
                open_ = GAPS_SECTION in self.expanded
                head = Text(f"{'▾' if open_ else '▸'} {_(section.label)} ({len(members)})", style="bold dim")
                hint = "  " + (_("enter: collapse") if open_ else _("enter: expand"))
                if head.cell_len + cell_len(hint) <= width + 8:  # the hint only where it fits on the line
                    head.append(hint, style="dim italic")
                options.append(Option(head, id=f"section:{GAPS_SECTION}"))
                self._under[f"section:{GAPS_SECTION}"] = [k.name for k in members]
                if not open_:
                    continue
            else:
                style = "bold" if section.key != HOST_SECTION else "bold cyan"
                # A heading the cursor stops on: R there re-runs every kernel under it.
                head_id = f"head:{section.key}"
                self._under[head_id] = [k.name for k in members]
                options.append(Option(Text(f"{_(section.label)} ({len(members)})", style=style), id=head_id))
            for kernel in members[:PER_SECTION]:
                option_id = f"k:{kernel.name}"
                self._kernel_of[option_id] = kernel.name
                options.append(self._entry_option(option_id, kernel, triage.get(kernel.name), width, reuse))
            if len(members) > PER_SECTION:
                more = "  … " + _("{n} more: narrow the table with / or a tier key").format(
                    n=len(members) - PER_SECTION
                )
                options.append(Option(Text(more, style="dim italic"), disabled=True))
        if not options:
            options.append(Option(Text(_("no blockers among the shown kernels"), style="dim"), disabled=True))
        return options

    def _gap_options(self, kernels: list[Kernel], triage: dict[str, Status], width: int) -> list[Option | None]:
        impacts = gaps_by_impact(kernels, self._board)
        by_name = {k.name: k for k in kernels}
        options: list[Option | None] = []
        for impact in impacts[:GAPS_SHOWN]:
            option_id = f"g:{impact.id}"
            self._affects[option_id] = set(impact.blocks) | set(impact.working)
            self._under[option_id] = list(dict.fromkeys(impact.blocks + impact.working))
            options.append(Option(self._gap_entry(impact, width), id=option_id))
            for name in (impact.blocks + impact.working)[:PER_GAP]:
                kernel_id = f"g:{impact.id}\0{name}"
                self._kernel_of[kernel_id] = name
                line = Text("    ")
                line.append_text(badge(by_name[name].tier))
                line.append(" " + one_line(clean(name)))
                if name in impact.unblocks:
                    line.append("  " + _("only this gap"), style="italic green")
                status = triage.get(name)
                if status is not None and status.label():
                    line.append(f"  [{status.label()}]", style="italic")
                options.append(Option(line, id=kernel_id))
            hidden = len(impact.blocks) + len(impact.working) - PER_GAP
            if hidden > 0:
                options.append(
                    Option(Text("    … " + _("{n} more").format(n=hidden), style="dim italic"), disabled=True)
                )
        if len(impacts) > GAPS_SHOWN:
            more = "… " + _("{n} more gaps: narrow the table with / or a tier key").format(n=len(impacts) - GAPS_SHOWN)
            options.append(Option(Text(more, style="dim italic"), disabled=True))
        if not options:
            options.append(Option(Text(_("no open gaps among the shown kernels"), style="dim"), disabled=True))
        return options

    @staticmethod
    def _gap_entry(impact: GapImpact, width: int) -> Text:
        text = Text(one_line(clean(impact.id)), style="bold cyan")
        if impact.known:
            text.append(f"  [{one_line(clean(impact.component))}, {one_line(clean(impact.status))}]", style="dim")
        else:
            text.append("  [" + _("not on the gap board") + "]", style="dim")
        counts = _("unblocks {unblocks} · blocks {blocks} · on {working} working").format(
            unblocks=len(impact.unblocks), blocks=len(impact.blocks), working=len(impact.working)
        )
        text.append("\n  " + counts, style="bold" if impact.unblocks else "")
        if impact.summary:
            text.append("\n  " + _fit(impact.summary, width), style="dim")
        return text

    def _entry_option(
        self, option_id: str, kernel: Kernel, status: Status | None, width: int, reuse: dict[str, tuple[tuple, Option]]
    ) -> Option:
        """A kernel's entry, the same Option as last time when nothing it shows changed:
        an Option keeps its laid-out text, so a rebuild lays out only the changed entries."""
        note = status.entry.note if status is not None and status.entry is not None else ""
        key = (status.label() if status is not None else "", note, width, language())
        known = reuse.get(option_id)
        if known is not None and known[0][0] is kernel and known[0][1:] == key:
            option = known[1]
        else:
            option = Option(self._entry(kernel, status, width), id=option_id)
        self._entries[option_id] = ((kernel, *key), option)
        return option

    @staticmethod
    def _entry(kernel: Kernel, status: Status | None, width: int) -> Text:
        """Every line fits the pane (``width`` + 8 cells): a wrapped line would start at the
        left edge, under nothing. A name too long beside its badge and state ends in …"""
        text = Text("  ")
        text.append_text(badge(kernel.tier))
        text.append(" ")
        label = f"  [{status.label()}]" if status is not None and status.label() else ""
        room = width + 7 - text.cell_len - cell_len(label)
        text.append(clip(one_line(clean(kernel.name)), max(room, 2)), style="bold")
        if label:
            text.append(label, style="italic")
        if status is not None and status.entry is not None and status.entry.note:
            text.append(
                "\n    " + _("note: {note}").format(note=_fit(status.entry.note, width - 2)), style="italic yellow"
            )
        if blocker_side(kernel) is not None:
            host = blocker_side(kernel) == "host"
            reason = kernel.baseline_reason if host else (kernel.pto_reason or kernel.baseline_reason)
            if reason:
                text.append("\n    " + _fit(reason, width), style="dim")  # cut first: reasons can be huge
        if kernel.gap_ids:  # ids only: their summaries are in the by-gap view (g) and the detail
            text.append(
                "\n    " + _("gaps: {ids}").format(ids=_fit(", ".join(kernel.gap_ids), width - 6)), style="cyan"
            )
        return text

    def on_resize(self) -> None:
        self.call_after_refresh(self._reshow)

    def _reshow(self) -> None:
        self.show(*self._last)

    # -- keys ----------------------------------------------------------------------

    def on_focus(self) -> None:
        if self.highlighted is None:
            self.action_first()

    def action_first(self) -> None:
        """``home``: the first kernel (a heading above it is one ``up`` away: R there re-runs its kernels)."""
        for index in range(self.option_count):
            if (self.get_option_at_index(index).id or "") in self._kernel_of:
                self.highlighted = index
                return
        super().action_first()

    def language_changed(self) -> None:
        self.border_title = _(TITLES[self.view])
        self._reshow()

    def toggle_view(self) -> None:
        self.view = VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)]
        self.border_title = _(TITLES[self.view])
        self.highlighted = None
        self._reshow()
        super().action_first()  # the first entry: in the by-gap view, the first gap

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id in self._affects:
            self.post_message(self.Picked(None, self._affects[option_id]))
            return
        name = self._kernel_of.get(option_id)
        self.post_message(self.Picked(name, self.affected(name)))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        option_id = event.option.id or ""
        if option_id.startswith("section:"):
            self.expanded ^= {option_id.removeprefix("section:")}
            self._reshow()
        elif option_id in self._kernel_of:
            self.post_message(self.Opened(self._kernel_of[option_id]))

    def affected(self, name: str | None) -> set[str]:
        """The kernel and every shown kernel that shares one of its gaps."""
        if name is None:
            return set()
        if self._by_gap is None:
            self._by_gap = {}
            for kernel in self._kernels:
                for gap in kernel.gap_ids:
                    self._by_gap.setdefault(gap, set()).add(kernel.name)
        gaps = next((k.gap_ids for k in self._kernels if k.name == name), [])
        return {name}.union(*(self._by_gap.get(gap, set()) for gap in gaps))
