"""Everything known about one kernel, with a plain-words reading at the top."""

from __future__ import annotations

import json
import os
import subprocess
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Group, JustifyMethod, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message

from ptotui.app import render
from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.footer import StableFooter
from ptotui.app.widgets.rendered import RenderedStatic
from ptotui.model.blockers import blocker_side, is_blocker, open_gap_ids
from ptotui.model.explain import explain, fact_labels, layer_name
from ptotui.model.fmt import ms, pct
from ptotui.model.i18n import N_, _
from ptotui.model.loader import read_file
from ptotui.model.longtext import Clipped, clip
from ptotui.model.readers import read_kernel_report
from ptotui.model.since import current_mark, triage_why
from ptotui.model.text import clean
from ptotui.model.tiers import TIER_LABELS
from ptotui.model.types import Kernel


def _fact(value: object) -> str:
    """A number or yes/no read from report.json; ``n/a`` when the report does not say."""
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


HISTORY_LINES = 12  # snapshots listed before ``h`` shows them all
LIMITATIONS_MIN = 30  # cells a Variants column of limitations needs, else they go under the table

HEADINGS = {
    "facts": N_("Facts"),
    "variants": N_("Variants"),
    "reasons": N_("Reasons and limitations"),
    "gaps": N_("Gaps"),
    "scalar": N_("Scalar matches"),
    "report": N_("report.json"),
    "next": N_("Look next"),
    "history": N_("History"),
    "none": N_("none"),
    "missing": N_("not found under {path}"),
    "reading": N_("reading…"),
    "more": N_("{more}: `e` opens it in $PAGER"),
    "triage": N_("Triage"),
    "blocking": N_("What blocks it"),
    "history_of": N_("{shown} of {total} snapshots, then now (h: all)"),
    "history_all": N_("all {total} snapshots, then now (h: fewer)"),
    "history_few": N_("{total} snapshots, then now"),
    "now": N_("now"),
    "untriaged": N_("untriaged: no one has looked at this blocker yet (a i u w on the main screen)"),
}


def headings(lang: str | None = None) -> dict[str, str]:
    """The screen's headings and fixed words in ``lang`` (default: the language in force)."""
    return {key: _(word, lang) for key, word in HEADINGS.items()}


_REPORT_KEYS = 28  # the report's key column, its gap, the screen's padding and scrollbar


def _left_cut(path: str, width: int) -> str:
    """``path`` in ``width`` cells: whole folders cut from the left behind ``…/``, so the
    file name shows; a file name longer than that is left whole (the cell wraps it)."""
    if Text(path).cell_len <= width:
        return path
    parts = path.split("/")
    for start in range(1, len(parts)):
        shorter = "…/" + "/".join(parts[start:])
        if Text(shorter).cell_len <= width:
            return shorter
    return "…/" + parts[-1]


def _indented(body: RenderableType, indent: int = 2) -> Table:
    """``body`` with every line of it indented, the ones it wraps onto too."""
    grid = Table.grid()
    grid.add_column(width=indent)
    grid.add_column()
    grid.add_row("", body)
    return grid


def _kv_table(rows: list[tuple[str, RenderableType]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if not isinstance(value, str) else Text(value))
    return table


def _heading(text: str) -> Text:
    return Text("\n" + text, style="bold underline")


class DetailScroll(VerticalScroll):
    """The detail's scroll: keys jump at once. Textual animates Home, End and the page
    keys for up to a second, redrawing the whole screen at every step of the way."""

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)


# Each reason's screenful, per kernel (dropped with it) by the text's identity and the
# screen size, kept across keys and openings: counting the lines of a 50 MB reason
# took 20 ms. Only the kernel's own reasons are kept (texts joined for the screen
# are new objects each time), and an entry holds its text, so its id stays its own.
_CLIPS: dict[int, tuple[weakref.ref[Kernel], dict[tuple[int, int, int], tuple[str, Clipped]]]] = {}


def _clip(kernel: Kernel, text: str, rows: int, width: int) -> Clipped:
    entry = _CLIPS.get(id(kernel))
    if entry is None or entry[0]() is not kernel:
        entry = _CLIPS[id(kernel)] = (weakref.ref(kernel, _forget(id(kernel))), {})
    clips, key = entry[1], (id(text), rows, width)
    known = clips.get(key)
    if known is not None and known[0] is text:
        return known[1]
    clipped = clip(text, rows, width)
    reasons = (kernel.baseline_reason, kernel.pto_reason)
    if any(text is r for r in reasons) or any(
        text is v.baseline_reason or text is v.pto_reason for v in kernel.variants
    ):
        if len(clips) >= 16:  # other screen sizes: start again
            clips.clear()
        clips[key] = (text, clipped)
    return clipped


def _forget(key: int) -> Callable[[weakref.ref[Kernel]], None]:
    def drop(_: weakref.ref[Kernel]) -> None:
        _CLIPS.pop(key, None)

    return drop


def _shape(value: object) -> str:
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (ValueError, RecursionError):  # nested too deep for the encoder
        return "(shape nested too deep to show)"


class DetailScreen(PtoScreen[None]):
    """The detail of one kernel; ``l`` switches between English and Chinese.

    Every text field shows at most a screenful (``e`` pages the full texts), and
    report.json is read on a worker thread: a FIFO or a huge file there must not
    stop the keys.
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", N_("Back")),
        Binding("l", "switch_language", N_("中文/English")),
        Binding("e", "page_full_text", N_("Full text")),
        Binding("g", "toggle_charts", N_("Charts")),
        Binding("h", "toggle_full_history", N_("All history")),
        Binding("q", "app.pop_screen", N_("Back"), show=False),
    ]
    HELP_EXTRA = [("y", "on the charts (g): log or linear latency axis")]
    # The footer's keys left out first when they do not all fit (StableFooter); ``?`` lists them all.
    FOOTER_DROP = ("page_full_text", "switch_language", "toggle_full_history", "toggle_log", "toggle_charts")

    class ReportRead(Message):
        """report.json was read (or not) on the worker thread."""

        def __init__(self, result: tuple[Path | None, str | None, dict[str, Any], list]) -> None:
            super().__init__()
            self.result = result

    def __init__(self, kernel: Kernel) -> None:
        super().__init__()
        self.kernel = kernel
        self.report: tuple[Path | None, str | None, dict[str, Any], list] | None = None
        self._clipped = False
        self.full_history = False
        self._led_with: str | None = None  # the reason the blocker section already showed

    def compose(self) -> ComposeResult:
        # The report is drawn apart: when it arrives, only its lines are measured again.
        with DetailScroll(id="detail-scroll"):
            yield RenderedStatic("", id="detail", markup=False)
            yield RenderedStatic("", id="detail-report", markup=False)
        yield StableFooter(eager=True)

    def on_mount(self) -> None:
        self.title = self.kernel.name
        self.redraw()
        self.query_one("#detail-scroll").focus()
        self.run_worker(self._read_report, thread=True, exclusive=True, group="report", exit_on_error=False)

    def _read_report(self) -> None:
        """On a worker thread: the file may be a FIFO, a device or very large."""
        path = self.app.location.local_report(self.kernel.report_path)
        warnings: list = []
        text = read_file(path, warnings) if path is not None else None
        facts, problems = read_kernel_report(text, str(path)) if text is not None else ({}, [])
        self.post_message(self.ReportRead((path, text, facts, warnings + problems)))

    def on_detail_screen_report_read(self, message: ReportRead) -> None:
        self.report = message.result
        self.query_one("#detail-report", RenderedStatic).show(self._report_part(self.app.lang))

    def _fit(self, text: str, style: str = "") -> Text:
        """``text`` cut to one screenful, with a line saying how much more there is."""
        size = self.app.size
        clipped = _clip(self.kernel, text, max(size.height - 4, 5), max(size.width - 4, 20))
        shown = Text(clean(clipped.shown), style=style, overflow="fold")
        if clipped.cut:
            self._clipped = True
            words = headings(self.app.lang)
            shown.append("\n" + words["more"].format(more=clipped.note()), style="italic yellow")
        return shown

    def full_text(self) -> str:
        """Every long field of the kernel, whole: what ``e`` pages."""
        k = self.kernel
        parts = [f"{k.name}\n"]
        for label, value in (("baseline reason", k.baseline_reason), ("PTO reason", k.pto_reason)):
            if value:
                parts.append(f"{label}:\n{value}\n")
        if k.limitations:
            parts.append("limitations:\n" + "\n".join(k.limitations) + "\n")
        for index, v in enumerate(k.variants):
            for label, value in (("baseline reason", v.baseline_reason), ("PTO reason", v.pto_reason)):
                if value and value not in (k.baseline_reason, k.pto_reason):
                    parts.append(f"variant {index + 1} {label}:\n{value}\n")
        for gap in k.gaps:
            parts.append(f"gap {gap.id}:\n{gap.summary}\n")
        if k.scalar_matches:
            parts.append("scalar matches:\n" + "\n".join(k.scalar_matches) + "\n")
        return "\n".join(parts)

    def action_page_full_text(self) -> None:
        """Suspend the app and pipe the full texts into $PAGER (default ``less``): no temp file."""
        pager = os.environ.get("PAGER") or "less"
        data = clean(self.full_text()).encode("utf-8", "replace")
        try:
            with self.app.suspend():
                # $PAGER is the user's own command line (e.g. "less -R"), run as git and man run it.
                subprocess.run(pager, shell=True, input=data, check=False)  # noqa: S602 - the user's $PAGER
        except SuspendNotSupported:
            self.notify(_("the pager needs a terminal"), severity="warning", markup=False)
        except OSError as exc:
            self.notify(
                _("could not run {pager}: {why}").format(pager=pager, why=clean(exc)), severity="error", markup=False
            )

    def action_toggle_charts(self) -> None:
        from ptotui.app.widgets.charts import KernelCharts  # imports plotext: only when first shown

        KernelCharts.toggle(self, self.kernel, self.query_one("#detail-scroll"))

    def _history_points(self) -> int:
        history = self.app.history
        return 0 if history is None else len(history.kernels.get(self.kernel.name, []))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_full_history":  # offered only when it shows more, or fewer
            return self._history_points() > HISTORY_LINES
        return True

    def action_toggle_full_history(self) -> None:
        """``h``: every snapshot in the history list, or the newest few again."""
        self.full_history = not self.full_history
        self.redraw()

    def action_switch_language(self) -> None:
        self.app.action_switch_language()  # the whole app; it calls language_changed here

    def language_changed(self) -> None:
        self.redraw()

    def redraw(self) -> None:
        self._clipped = False
        lang = self.app.lang
        self.query_one("#detail", RenderedStatic).show(self._main_part(lang))
        self.query_one("#detail-report", RenderedStatic).show(self._report_part(lang))

    def build(self, lang: str) -> Group:
        """Everything the screen shows, in ``lang``, as one renderable."""
        return Group(self._main_part(lang), self._report_part(lang))

    def _report_part(self, lang: str) -> Group:
        words = headings(lang)
        return Group(_heading(words["report"]), self._report(words))

    def _main_part(self, lang: str) -> Group:
        k = self.kernel
        self._led_with = None
        words = headings(lang)
        reading = explain(k, lang, self.app.thresholds)
        title = Text()
        title.append_text(render.badge(k.tier))
        title.append(" " + clean(k.name), style="bold")
        if k.scalar_heavy:
            title.append("  scalar-heavy", style="yellow")
        parts: list[RenderableType] = [title, Text("\n" + reading.verdict, style="bold")]
        if is_blocker(k) or self.app.triage_status(k).entry is not None:
            parts += [_heading(words["triage"]), self._triage(words)]
        if is_blocker(k):
            # A blocker leads with what blocks it and the gaps; the rest follows.
            parts += [_heading(words["blocking"]), self._blocking(words)]
            if k.gap_ids:
                parts += [_heading(words["gaps"]), self._gaps(words)]
        parts += [Text("")] + [_indented(Text(line)) for line in reading.reading]
        parts.append(_indented(Text(f"{words['next']}: " + " ".join(reading.next_steps), style="italic")))
        parts += [_heading(words["facts"]), self._facts(lang)]
        history = self._history(words)
        if history is not None:
            parts += [_heading(words["history"]), history]
        parts += [_heading(words["variants"]), self._variants()]
        parts += [_heading(words["reasons"]), self._reasons(words)]
        if not (is_blocker(k) and k.gap_ids):
            parts += [_heading(words["gaps"]), self._gaps(words)]
        if k.scalar_matches:
            parts += [_heading(words["scalar"]), self._fit("\n".join(k.scalar_matches[:10_000]))]
        return Group(*parts)

    def _history(self, words: dict[str, str]) -> Group | None:
        """The kernel across snapshots, one row each, and its current state as the last point.

        A row is a grid row: a class too long for the line wraps in its own column,
        under the class, not back at the screen's left edge."""
        history, k = self.app.history, self.kernel
        if history is None:
            return None
        points = history.kernels.get(k.name, [])
        text = Text(history.sparkline(k.name, width=39) + current_mark(k) + "\n", style="cyan")
        shown = points if self.full_history else points[-HISTORY_LINES:]
        if len(points) <= HISTORY_LINES:
            key = "history_few"  # all shown whatever ``h`` does: it is not offered
        else:
            key = "history_all" if self.full_history else "history_of"
        text.append(words[key].format(shown=len(shown), total=len(points)), style="dim italic")
        rows = [
            (p.stamp, p.tier, p.ratio_min_pct, p.ratio_max_pct, p.baseline_status, p.pto_status, p.klass) for p in shown
        ]
        rows.append((words["now"], k.tier, k.ratio_min_pct, k.ratio_max_pct, k.baseline_status, k.pto_status, k.klass))
        grid = Table.grid(padding=(0, 1))
        for _column in range(5):  # as wide as their values: all rows are in the one grid
            grid.add_column(no_wrap=True)
        grid.add_column(style="dim", overflow="fold")
        for stamp, tier, low, high, base, pto, klass in rows:
            ratio = "n/a" if low is None else f"{pct(low)}..{pct(high)}"
            blocked = "blocked" in (base, pto)
            grid.add_row(
                Text(clean(stamp)),
                "×" if blocked else " ",
                Text(tier),
                ratio,
                Text(f"{base}/{pto}"),
                Text(clean(klass or "")),
            )
        return Group(text, _indented(grid))

    def _triage(self, words: dict[str, str]) -> Text:
        """State, note, who, since, and whether it went stale or was resolved, and why."""
        status = self.app.triage_status(self.kernel)
        entry = status.entry
        if entry is None:
            return Text("  " + words["untriaged"], style="bold yellow")
        text = Text("  ")
        key = "resolved" if status.resolved else entry.state
        text.append(status.label(), style=render.TRIAGE_STYLES.get(key, "") + " bold")
        text.append(f"   by {clean(entry.by) or '?'}   since {clean(entry.since) or '?'}", style="dim")
        if entry.note:
            text.append("\n  note: ", style="bold")
            text.append_text(self._fit(entry.note))
        why = triage_why(entry.blocker, self.kernel)
        if status.resolved:
            text.append("\n  resolved: it no longer blocks (" + why + ")", style="green")
        elif status.stale:
            text.append("\n  stale: the blocker changed since it was triaged (" + why + ")", style="yellow")
        return text

    def _blocking(self, words: dict[str, str]) -> Group:
        """The reason of the side that is blocked: PTO's for PTO's side, the baseline's for the host's."""
        k = self.kernel
        host = blocker_side(k) == "host"
        label, reason = ("baseline reason", k.baseline_reason) if host else ("PTO reason", k.pto_reason)
        if not reason:  # only per variant, or (a correctness gap) only the baseline's
            variant = next((v for v in k.variants if (v.baseline_reason if host else v.pto_reason)), None)
            reason = (variant.baseline_reason if host else variant.pto_reason) if variant else None
        if not reason and not host and k.baseline_reason:
            label, reason = "baseline reason", k.baseline_reason
        if not reason:
            return Group(Text(f"  {label}: " + words["none"], style="dim"))
        self._led_with = reason  # not shown a second time under the reasons
        return Group(Text(label + ":", style="bold"), self._fit(reason))

    def _facts(self, lang: str) -> Table:
        k = self.kernel
        label = fact_labels(lang)
        gaps = open_gap_ids(k)
        # A working kernel has no blocker layer; its gaps are open work (model.blockers).
        layer = (label["open_gaps"], ", ".join(gaps)) if k.blocker_layer is None and gaps else None
        return _kv_table(
            [
                (label["tier"], TIER_LABELS.get(k.tier, k.tier)),
                (label["class"], clean(k.klass or "n/a")),
                layer or (label["layer"], layer_name(k.blocker_layer, lang)),
                (label["family"], " / ".join(clean(v or "n/a") for v in (k.family, k.wave, k.phase))),
                (label["status"], Text.assemble(render.status(k.baseline_status), " / ", render.status(k.pto_status))),
                (label["ratio"], f"{render.ratio(k).plain}  ({label['median']} {pct(k.ratio_median_pct)})"),
                (label["ms"], f"{ms(k.baseline_ms)} / {ms(k.pto_ms)}  ({label['ms_note']})"),
                (
                    label["correctness"],
                    Text.assemble(
                        render.correct(k.baseline_correct, k.baseline_status),
                        " / ",
                        render.correct(k.pto_correct, k.pto_status),
                    ),
                ),
                (label["block_use"], clean(k.block_use or "n/a")),
                (label["inventory"], clean(k.inventory_status or "n/a")),
            ]
        )

    def _variants(self) -> RenderableType:
        """One row per shape. The limitations go in a column when it has room for their words,
        else under the table, one paragraph per variant: a column a few cells wide cut
        every long word in two."""
        variants = self.kernel.variants[:501]
        limits = ["; ".join(v.limitations[:10_000]) for v in variants]
        table = self._variants_table(variants, None)
        if not any(limits):
            return table
        console = self.app.console
        room = max(self.app.size.width - 4, 20)  # the screen's padding and scrollbar
        used = Measurement.get(console, console.options.update_width(room), table).maximum
        if room - used - 3 >= LIMITATIONS_MIN:
            return self._variants_table(variants, limits)
        below: list[RenderableType] = [table, Text("limitations:", style="bold")]
        for index, text in enumerate(limits):
            if text:
                below.append(_indented(Text(f"variant {index + 1}: ", style="dim") + self._fit(text)))
        return Group(*below)

    def _variants_table(self, variants: list, limits: list[str] | None) -> Table:
        table = Table(show_edge=False, pad_edge=False, expand=False)
        columns: list[tuple[str, JustifyMethod]] = [
            ("shape", "left"),
            ("baseline ms", "right"),
            ("PTO ms", "right"),
            ("ratio", "right"),
            ("baseline", "left"),
            ("PTO", "left"),
        ]
        if limits is not None:
            columns.append(("limitations", "left"))
        for label, justify in columns:
            table.add_column(label, justify=justify, overflow="fold")
        for index, v in enumerate(variants):
            cells: list[RenderableType] = [
                Text("null", style="dim") if v.shape is None else self._fit(_shape(v.shape)),
                ms(v.baseline_ms),
                ms(v.pto_ms),
                pct(v.ratio_pct),
                Text.assemble(
                    render.status(v.baseline_status), " ", render.correct(v.baseline_correct, v.baseline_status)
                ),
                Text.assemble(render.status(v.pto_status), " ", render.correct(v.pto_correct, v.pto_status)),
            ]
            if limits is not None:
                cells.append(self._fit(limits[index]))
            table.add_row(*cells)
            if index >= 500:
                table.add_row(Text(f"… {len(self.kernel.variants) - index - 1:,} more variants", style="italic"))
                break
        return table

    def _reasons(self, words: dict[str, str]) -> Group:
        k = self.kernel
        lines: list[RenderableType] = []
        for label, value in (("baseline reason", k.baseline_reason), ("PTO reason", k.pto_reason)):
            if value and value is self._led_with:
                lines.append(Text(f"{label}: shown above", style="dim"))
            elif value:
                lines.append(Text(label + ":", style="bold"))
                lines.append(self._fit(value))  # literal, newlines kept
        if k.limitations:
            lines.append(Text("limitations:", style="bold"))
            lines.append(self._fit("\n".join(k.limitations[:10_000])))
        return Group(*(lines or [Text(words["none"], style="dim")]))

    def _gaps(self, words: dict[str, str]) -> Group:
        k = self.kernel
        if not k.gap_ids:
            return Group(Text(words["none"], style="dim"))
        known = {g.id: g for g in k.gaps}
        lines: list[RenderableType] = []
        for gap_id in k.gap_ids:
            gap = known.get(gap_id)
            head = Text(clean(gap_id), style="bold cyan")
            if gap is not None:
                head.append(f"  [{clean(gap.component)}, {clean(gap.status)}]", style="dim")
                lines += [head, _indented(self._fit(gap.summary))]
            else:
                lines += [head, Text("  not on the gap board", style="dim")]
        return Group(*lines)

    def _report(self, words: dict[str, str]) -> RenderableType:
        if self.report is None:
            return Text(words["reading"], style="dim")
        path, text, facts, problems = self.report
        if path is None or text is None:
            where = render.display_path(path or self.app.location.generated)
            return Text(words["missing"].format(path=where) + "".join(f"\n{w}" for w in problems), style="dim")
        shown = _left_cut(clean(render.display_path(path)), self.app.size.width - _REPORT_KEYS)
        rows: list[tuple[str, RenderableType]] = [("file", Text(shown, overflow="fold"))]
        for side in ("baseline", "pto"):
            info = facts.get(side) or {}
            timings = info.get("timings_ms") or {}
            rows.append(
                (f"{side} timings ms", " / ".join(f"{n} {ms(timings.get(n))}" for n in ("min", "median", "max")))
            )
            rows.append(
                (
                    f"{side} correctness",
                    "  ".join(f"{n} {_fact(info.get(n))}" for n in ("atol", "rtol", "max_abs_diff", "passes")),
                )
            )
            rows.append((f"{side} entrypoint", clean(info.get("entrypoint") or "n/a")))
        device = facts.get("device") or {}
        rows.append(("device", ", ".join(f"{k}={clean(v)}" for k, v in device.items()) or "n/a"))
        for problem in problems:
            rows.append(("warning", str(problem)))
        return _kv_table(rows)
