"""The kernel table's columns: what each shows of a kernel, how wide it is, the context a row is drawn in."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.text import Text

from ptotui.app import render
from ptotui.app.render import cell
from ptotui.model.core.blockers import is_blocker
from ptotui.model.core.tiers import TIERS
from ptotui.model.i18n import N_, _
from ptotui.model.types import Kernel


@dataclass
class RowContext:
    """Per-reload facts the rows show besides the kernel itself."""

    marks: dict[str, int] = field(default_factory=dict)  # unseen change direction
    flash: set[str] = field(default_factory=set)  # changed in the last reload
    highlighted: set[str] = field(default_factory=set)  # picked in the blocker pane
    triage: Callable[[Kernel], Text] = lambda kernel: cell("")
    entries: dict = field(default_factory=dict)  # triage entries (frozen) by kernel name
    history: dict[str, Text] = field(default_factory=dict)
    steps: dict[str, Text] = field(default_factory=dict)  # the newest PTO step, once found (a worker's)
    compare: list[dict[str, Text]] = field(default_factory=list)  # per --compare source
    reruns: dict[str, str] = field(default_factory=dict)  # "re-run failed 14:02" by kernel

    def key(self) -> tuple:
        """The whole context: when it equals the last one, no row's signature changed.
        Only compared, never hashed: the dicts stand for themselves (``marks`` is the
        screen's copy, triage ``entries`` are replaced, never changed in place), which
        spares sorting 10k marks at every key that redraws the table."""
        return (
            self.marks,
            frozenset(self.flash),
            frozenset(self.highlighted),
            self.entries,
            self.history,
            self.steps,
            tuple(id(cells) for cells in self.compare),
            self.reruns,
        )

    def signature(self, kernel: Kernel) -> tuple:
        """Everything besides the kernel that a row shows: equal means the same cells.

        The triage cell is a function of the kernel and its entry, so the entry stands
        for it: looking it up is cheaper than building the cell for 10k rows a reload.
        """
        name = kernel.name
        return (
            self.marks.get(name),
            name in self.flash,
            name in self.highlighted,
            self.entries.get(name),
            self.history.get(name),
            self.steps.get(name),
            tuple(cells.get(name) for cells in self.compare),
            self.reruns.get(name),
        )


FROM_RUN = " ·run"  # after the name of a kernel shown as its newest run gives it (newer than the summary)


def _name(kernel: Kernel, ctx: RowContext) -> Text:
    style = "bold reverse" if kernel.name in ctx.flash else "bold underline" if kernel.name in ctx.highlighted else ""
    text = render.literal(kernel.name, style=style)
    if kernel.from_run:  # cells are shared between rows and loads (render.cell): a new Text
        text = Text.assemble(text, (FROM_RUN, "cyan"))
    failed = ctx.reruns.get(kernel.name)
    if failed:  # its last re-run failed: said after its toast is gone, until a newer run lands
        text = Text.assemble(text, (" ·" + failed, "bold red"))
    return text


def _name_plain(kernel: Kernel, ctx: RowContext) -> str:
    failed = ctx.reruns.get(kernel.name)
    return render.literal_text(kernel.name) + (FROM_RUN if kernel.from_run else "") + (" ·" + failed if failed else "")


@dataclass(frozen=True)
class Column:
    """A column: its key (also the sort key and the settings file's name), its full and
    narrow header, how to make its cell, and for free text the width past which it is cut.

    Measuring a column over 10k kernels must not build 10k cells (benchmarks/bench_scale.py),
    so a column may say more about its cells: ``width``, the one width every cell has (a
    fixed set of labels); ``plain``, a cell's text without building it; ``same``, what a
    cell is a function of (two kernels with the same ``same`` have equal cells, so one cell
    per value is made: a handful of tiers or statuses).
    """

    key: str
    label: str
    short: str
    make: Callable[[Kernel, RowContext], Text]
    limit: int = 0
    width: int = 0
    plain: Callable[[Kernel, RowContext], str] | None = None
    same: Callable[[Kernel, RowContext], object] | None = None

    def widest(self, kernels: Iterable[Kernel], ctx: RowContext) -> int:
        """The widest cell of this column among ``kernels`` (0 when there are none)."""
        if self.width:
            return self.width if any(True for _kernel in kernels) else 0
        if self.plain is not None:
            plain = self.plain
            return max((cell_len(plain(kernel, ctx)) for kernel in kernels), default=0)
        make = self.make
        if self.same is not None:
            kernels = {self.same(kernel, ctx): kernel for kernel in kernels}.values()
        return max((make(kernel, ctx).cell_len for kernel in kernels), default=0)

    def blank(self, kernels: Iterable[Kernel], ctx: RowContext) -> bool:
        """No cell of this column among ``kernels`` has anything in it (stops at the first that
        has: a column with something in its first rows costs those rows, not every kernel)."""
        if self.width:
            return not any(True for _kernel in kernels)
        if self.plain is not None:
            plain = self.plain
            return not any(plain(kernel, ctx) for kernel in kernels)
        make = self.make
        if self.same is not None:
            kernels = {self.same(kernel, ctx): kernel for kernel in kernels}.values()
        return not any(make(kernel, ctx).cell_len for kernel in kernels)


# Every column, in the order of a row's cells (a row holds them all, shown or not, so
# hiding or moving a column never rebuilds a row). What is shown, and in what order,
# is KernelTable.order.
COLUMNS: tuple[Column, ...] = (
    Column("mark", "Δ", "Δ", lambda k, c: render.mark(c.marks.get(k.name)), width=render.MARK_WIDTH),
    Column("tier", N_("Tier"), N_("Tier"), lambda k, c: render.badge(k.tier), same=lambda k, c: k.tier),
    Column("kernel", N_("Kernel"), N_("Kernel"), _name, plain=_name_plain),
    Column(
        "ratio", N_("Baseline / PTO"), N_("B/PTO"), lambda k, c: render.median(k), same=lambda k, c: k.ratio_median_pct
    ),
    Column(
        "range",
        N_("Range"),
        N_("Range"),
        lambda k, c: render.spread(k),
        same=lambda k, c: (k.ratio_min_pct, k.ratio_max_pct),
    ),
    Column("pto_ms", N_("PTO ms"), N_("PTO ms"), lambda k, c: render.pto_ms(k), same=lambda k, c: k.pto_ms),
    Column("pto", N_("PTO"), N_("PTO"), lambda k, c: render.status(k.pto_status), same=lambda k, c: k.pto_status),
    Column(
        "baseline",
        N_("Baseline"),
        N_("Base"),
        lambda k, c: render.status(k.baseline_status),
        same=lambda k, c: k.baseline_status,
    ),
    # Without an entry, the triage cell is "untriaged" for a blocker and blank otherwise.
    Column(
        "triage",
        N_("Triage"),
        N_("Triage"),
        lambda k, c: c.triage(k),
        limit=24,
        same=lambda k, c: k.name if k.name in c.entries else is_blocker(k),
    ),
    Column(
        "correct",
        N_("Correct"),
        N_("Corr"),
        lambda k, c: render.correctness(k),
        width=render.CORRECT_WIDTH,
    ),
    Column(
        "gaps",
        N_("Gaps"),
        N_("Gaps"),
        lambda k, c: cell(str(len(k.gap_ids)) if k.gap_ids else "", "", "right"),
        same=lambda k, c: len(k.gap_ids),
    ),
    Column(
        "scalar",
        N_("Scalar"),
        N_("Scalar"),
        lambda k, c: cell("scalar", "yellow") if k.scalar_heavy else cell(""),
        same=lambda k, c: k.scalar_heavy,
    ),
    Column("family", N_("Family"), N_("Family"), lambda k, c: render.literal(k.family), limit=20),
    Column("wave", N_("Wave"), N_("Wave"), lambda k, c: render.literal(k.wave), limit=12),
    Column("class", N_("Class"), N_("Class"), lambda k, c: render.literal(k.klass), limit=40),
    Column("history", N_("History"), N_("History"), lambda k, c: c.history.get(k.name, cell(""))),
    Column("step", N_("Step"), N_("Step"), lambda k, c: c.steps.get(k.name, cell(""))),
)


def compare_column(index: int, label: str) -> Column:
    """The ``index``-th --compare source's tier and median ratio."""
    return Column(
        f"compare{index}",
        f"vs {label}",
        f"vs {label}",
        lambda k, c: c.compare[index].get(k.name, cell("")) if index < len(c.compare) else cell(""),
        limit=30,
    )


KEYS = tuple(column.key for column in COLUMNS)
INDEX = {key: index for index, key in enumerate(KEYS)}
TIER = INDEX["tier"]
KERNEL = INDEX["kernel"]


def header_width(column: Column, compact: bool, sorted_key: str | None) -> int:
    """Cells a column's header takes: its full or short label, and the sort arrow when sorted by it."""
    return cell_len(_(column.short if compact else column.label)) + (2 if column.key == sorted_key else 0)


def data_width(column: Column, kernels: Iterable[Kernel], ctx: RowContext) -> int:
    """The widest cell of a column over ``kernels``, at least its short header."""
    return max(column.widest(kernels, ctx), cell_len(_(column.short)))


_TIER_OF_BADGE = {render.badge(tier).plain: tier for tier in TIERS}


def short_badge_of(badge: Text) -> Text:
    """The four-letter badge for a full one (drawn as it is now: in colour, or for NO_COLOR)."""
    tier = _TIER_OF_BADGE.get(badge.plain)
    return badge if tier is None else render.short_badge(tier)


Row = tuple[Text, ...]
