"""What a blocker is, and the order blockers are listed in.

One definition for the blocker pane, the header's untriaged count, ``t``,
``ptotui triage`` and ``ptotui summary``:

- PTO's side: PTO-BLOCKED, BOTH-BLOCKED and CORRECTNESS, grouped by the layer
  that holds them back (layers with the most blockers first), and inside a layer
  PTO-BLOCKED, BOTH-BLOCKED, CORRECTNESS, then by name.
- The host's side: BASELINE-BLOCKED. PTO runs there; it is not a PTO failure,
  but a host owner still has to act, so it is listed after PTO's side.
- A working kernel (HIGH, MID, SLOW) with gap ids is *not* a blocker: its gaps
  are open work, listed last and never counted as untriaged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ptotui.model.core.tiers import LAYER_LABELS, LAYERS, component_layer, tier_rank
from ptotui.model.i18n import N_
from ptotui.model.types import Gap, Kernel

PTO_SIDE: tuple[str, ...] = ("pto-blocked", "both-blocked", "correctness-gap")
HOST_SIDE: tuple[str, ...] = ("baseline-blocked",)
HOST_SECTION = "host-side"
GAPS_SECTION = "working-gaps"
SECTION_LABELS = {
    HOST_SECTION: N_("host side: baseline blocked, PTO runs"),
    GAPS_SECTION: N_("gaps on working kernels"),
}


def blocker_side(kernel: Kernel) -> str | None:
    """``"pto"``, ``"host"``, or None for a kernel that is not a blocker."""
    if kernel.tier in PTO_SIDE:
        return "pto"
    if kernel.tier in HOST_SIDE:
        return "host"
    return None


def is_blocker(kernel: Kernel) -> bool:
    """The one test every view uses: is someone expected to act on this kernel?"""
    return kernel.tier in PTO_SIDE or kernel.tier in HOST_SIDE


def open_gap_ids(kernel: Kernel) -> list[str]:
    """The kernel's gap ids that the gap board does not call resolved."""
    if not kernel.gap_ids:
        return []  # most kernels: no set to build (the pane asks for 10k kernels a reload)
    resolved = {g.id for g in kernel.gaps if g.status.strip().lower() == "resolved"}
    return [g for g in kernel.gap_ids if g not in resolved]


def has_open_gaps(kernel: Kernel) -> bool:
    """A working kernel that still carries gaps: open work, not a blocker."""
    return not is_blocker(kernel) and bool(open_gap_ids(kernel))


@dataclass(frozen=True)
class Section:
    """One heading of the blocker pane and its kernels, in display order."""

    key: str  # a layer (ptodsl, ptoas, ...), HOST_SECTION or GAPS_SECTION
    label: str
    kernels: tuple[Kernel, ...]

    @property
    def blockers(self) -> bool:
        return self.key != GAPS_SECTION


def _pto_key(kernel: Kernel) -> tuple[int, str]:
    return PTO_SIDE.index(kernel.tier), kernel.name


def blocker_sections(kernels: Iterable[Kernel]) -> list[Section]:
    """PTO's layers (most blockers first), then the host's side, then gaps on working kernels.

    Empty sections are left out.
    """
    layers: dict[str, list[Kernel]] = {}
    host: list[Kernel] = []
    working: list[Kernel] = []
    for kernel in kernels:
        side = blocker_side(kernel)
        if side == "pto":
            layers.setdefault(kernel.blocker_layer or "backend", []).append(kernel)
        elif side == "host":
            host.append(kernel)
        elif has_open_gaps(kernel):
            working.append(kernel)

    def layer_order(layer: str) -> tuple[int, int, str]:
        return -len(layers[layer]), LAYERS.index(layer) if layer in LAYERS else len(LAYERS), layer

    sections = [
        Section(layer, LAYER_LABELS.get(layer, layer), tuple(sorted(layers[layer], key=_pto_key)))
        for layer in sorted(layers, key=layer_order)
    ]
    if host:
        sections.append(Section(HOST_SECTION, SECTION_LABELS[HOST_SECTION], tuple(sorted(host, key=lambda k: k.name))))
    if working:
        ordered = sorted(working, key=lambda k: (tier_rank(k.tier), k.name))
        sections.append(Section(GAPS_SECTION, SECTION_LABELS[GAPS_SECTION], tuple(ordered)))
    return sections


def blocker_order(kernels: Iterable[Kernel]) -> list[Kernel]:
    """Every blocker, in the pane's order (PTO's side by layer, then the host's)."""
    return [k for section in blocker_sections(kernels) if section.blockers for k in section.kernels]


@dataclass(frozen=True)
class GapImpact:
    """One gap id and what fixing it would do."""

    id: str
    component: str
    status: str
    summary: str
    blocks: tuple[str, ...]  # blockers that list this gap
    unblocks: tuple[str, ...]  # blockers of this gap's side for which it is that side's only open gap
    working: tuple[str, ...]  # working kernels that carry it as open work

    @property
    def known(self) -> bool:
        return bool(self.component or self.status or self.summary)


def gap_side(gap_id: str, kernel: Kernel, board: dict[str, Gap]) -> str:
    """``"host"`` for a gap of the host's baseline/runtime layer, else ``"pto"``.

    The gap board's component names the layer; for an id the board does not know, the
    state matrix's component list (aligned with gap_ids). A gap nothing names is PTO's.
    """
    gap = board.get(gap_id)
    if gap is not None:
        component: str | None = gap.component
    else:
        index = kernel.gap_ids.index(gap_id) if gap_id in kernel.gap_ids else -1
        component = kernel.gap_components[index] if 0 <= index < len(kernel.gap_components) else None
    return "host" if component_layer(component) == "host" else "pto"


def gaps_by_impact(kernels: Iterable[Kernel], board: dict[str, Gap]) -> list[GapImpact]:
    """Every open gap on the given kernels, the ones whose fix unblocks most kernels first.

    Ranked by the blockers it alone holds back, then by the blockers it is one of
    several gaps for, then by the working kernels that carry it, then by id.

    A gap unblocks only a blocker of its own side (``gap_side``): a PTO-side gap a
    PTO-BLOCKED, BOTH-BLOCKED or CORRECTNESS kernel, when it is that kernel's only open
    PTO-side gap; a host-side gap a BASELINE-BLOCKED kernel, when it is its only open
    host-side gap. A BASELINE-BLOCKED kernel already runs PTO, so no PTO gap unblocks it.
    """
    kernels = list(kernels)
    blocks: dict[str, list[str]] = {}
    unblocks: dict[str, list[str]] = {}
    working: dict[str, list[str]] = {}
    for kernel in blocker_order(kernels) + [k for k in kernels if has_open_gaps(k)]:
        open_ids = list(dict.fromkeys(open_gap_ids(kernel)))
        side = blocker_side(kernel)
        target = blocks if side is not None else working
        for gap_id in open_ids:
            target.setdefault(gap_id, []).append(kernel.name)
            blocks.setdefault(gap_id, [])
        if side is not None:
            same_side = [gap_id for gap_id in open_ids if gap_side(gap_id, kernel, board) == side]
            if len(same_side) == 1:
                unblocks.setdefault(same_side[0], []).append(kernel.name)
    impacts = []
    for gap_id, blocked in blocks.items():
        gap = board.get(gap_id)
        impacts.append(
            GapImpact(
                gap_id,
                gap.component if gap else "",
                gap.status if gap else "",
                gap.summary if gap else "",
                tuple(blocked),
                tuple(unblocks.get(gap_id, ())),
                tuple(working.get(gap_id, ())),
            )
        )
    impacts.sort(key=lambda g: (-len(g.unblocks), -len(g.blocks), -len(g.working), g.id))
    return impacts
