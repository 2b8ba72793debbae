"""The detail of one kernel as Rich renderables: what the detail screen shows, without the screen.

Every input is a value (the kernel, its triage status, the history, the language, the
screen's size), so each part is tested by rendering it, no app running. The screen
(``ptotui/app/screens/detail.py``) keeps the keys, the scrolling and the report.json worker.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from rich.console import Console, Group, JustifyMethod, RenderableType
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from ptotui.app import render
from ptotui.app.render.detail_parts import (
    HISTORY_LINES,
    LIMITATIONS_MIN,
    REPORT_KEYS,
    clip_field,
    fact,
    heading,
    headings,
    indented,
    kv_table,
    left_cut,
    moved_environment,
    ms_spread,
)
from ptotui.model.bench.benchrun import latency_spark
from ptotui.model.bench.record import Run
from ptotui.model.core.blockers import blocker_side, is_blocker, open_gap_ids
from ptotui.model.core.diff import Change
from ptotui.model.core.explain import explain, fact_labels, layer_name
from ptotui.model.core.fmt import ms, pct
from ptotui.model.core.shapes import labels_of
from ptotui.model.core.tiers import TIER_LABELS, Thresholds
from ptotui.model.history.since import current_mark, triage_why
from ptotui.model.history.snapshots import History
from ptotui.model.i18n import ngettext
from ptotui.model.rerun.queue import FailedRun
from ptotui.model.text import clean, one_line, visible
from ptotui.model.triage import Status
from ptotui.model.types import Kernel, ReadWarning

# What moved for the kernel: its changes since the snapshot, its newest reload changes
# (when, change), and the snapshot's stamp.
Moves = tuple[Sequence[Change], Sequence[tuple[float, Change]], str | None]

# report.json as the screen's worker read it: its path (None: not found), its text, its facts, the warnings.
Report = tuple[Path | None, str | None, dict[str, Any], list[ReadWarning]]


def detail(
    kernel: Kernel,
    status: Status,
    history: History | None,
    lang: str,
    width: int,
    *,
    height: int = 24,
    thresholds: Thresholds = Thresholds(),
    full_history: bool = False,
    console: Console | None = None,
    runs: Sequence[Run] = (),
    moves: Moves = ((), (), None),
    failed: Sequence[FailedRun] = (),
    shape_dirs: Sequence[str] = (),
) -> Group:
    """Everything about ``kernel`` but its report.json, in ``lang``, for a ``width`` x ``height``
    screen: each long text cut to a screenful (``e`` on the screen pages them whole); the
    history's newest ``HISTORY_LINES`` snapshots, or all of them with ``full_history``; the
    kernel's bench ``runs`` (bench/results, oldest first), as many, and the run directories its
    ``failed`` re-runs left behind (no report.json: failed, with the exit status). Each shape by
    its label (:mod:`ptotui.model.core.shapes`: its name among ``shape_dirs``, the run
    directory's shape sub-directories, else a compact form)."""
    drawing = _Detail(kernel, status, history, lang, width, height, thresholds, full_history, console)
    drawing.runs, drawing.moves, drawing.failed = runs, moves, failed
    drawing.shape_dirs = shape_dirs
    return drawing.build()


def report_part(report: Report | None, lang: str, width: int, missing_under: Path) -> Group:
    """The report.json section: "reading…" until ``report`` is read, "not found under
    ``missing_under``" without one, else its file, timings, correctness and device."""
    words = headings(lang)
    return Group(heading(words["report"]), _report(report, words, width, missing_under))


def full_text(kernel: Kernel) -> str:
    """Every long field of the kernel, whole: what ``e`` pages."""
    k = kernel
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


@lru_cache(maxsize=1)
def _console() -> Console:
    """A console to measure tables with, when the caller has none (tests)."""
    return Console(width=200, color_system=None, legacy_windows=False)


class _Detail:
    """One drawing of the detail: its inputs, and the reason the blocker section led with."""

    def __init__(
        self,
        kernel: Kernel,
        status: Status,
        history: History | None,
        lang: str,
        width: int,
        height: int,
        thresholds: Thresholds,
        full_history: bool,
        console: Console | None,
    ) -> None:
        self.kernel, self.status, self.history, self.lang = kernel, status, history, lang
        self.width, self.height, self.thresholds = width, height, thresholds
        self.full_history, self.console = full_history, console
        self.words = headings(lang)
        self.runs: Sequence[Run] = ()
        self.failed: Sequence[FailedRun] = ()
        self.moves: Moves = ((), (), None)
        self.shape_dirs: Sequence[str] = ()
        self._led_with: str | None = None  # the reason the blocker section already showed

    def _fit(self, text: str, style: str = "") -> Text:
        """``text`` cut to one screenful, with a line saying how much more there is."""
        clipped = clip_field(self.kernel, text, max(self.height - 4, 5), max(self.width - 4, 20))
        shown = Text(clean(clipped.shown), style=style, overflow="fold")
        if clipped.cut:
            shown.append("\n" + self.words["more"].format(more=clipped.note()), style="italic yellow")
        return shown

    def build(self) -> Group:
        k, words = self.kernel, self.words
        reading = explain(k, self.lang, self.thresholds)
        title = Text()
        title.append_text(render.badge(k.tier))
        # One line: a name holding a newline must not split the title; a very long one is cut.
        room = max(self.width - title.cell_len - 1 - (len("  scalar-heavy") if k.scalar_heavy else 0), 16)
        title.append(" " + one_line(clean(k.name), room), style="bold")
        if k.scalar_heavy:
            title.append("  scalar-heavy", style="yellow")
        parts: list[RenderableType] = [title, Text("\n" + reading.verdict, style="bold")]
        moved = self._moved()
        if moved is not None:
            parts += [heading(words["moved"]), moved]
        if is_blocker(k) or self.status.entry is not None:
            parts += [heading(words["triage"]), self._triage()]
        if is_blocker(k):
            # A blocker leads with what blocks it and the gaps; the rest follows.
            parts += [heading(words["blocking"]), self._blocking()]
            if k.gap_ids:
                parts += [heading(words["gaps"]), self._gaps()]
        parts += [Text("")] + [indented(Text(line)) for line in reading.reading]
        parts.append(indented(Text(f"{words['next']}: " + " ".join(reading.next_steps), style="italic")))
        parts += [heading(words["facts"]), self._facts()]
        history = self._history()
        if history is not None:
            parts += [heading(words["history"]), history]
        runs = self._runs()
        if runs is not None:
            parts += [heading(words["runs"]), runs]
        parts += [heading(words["variants"]), self._variants()]
        parts += [heading(words["reasons"]), self._reasons()]
        if not (is_blocker(k) and k.gap_ids):
            parts += [heading(words["gaps"]), self._gaps()]
        if k.scalar_matches:
            parts += [heading(words["scalar"]), self._fit("\n".join(k.scalar_matches[:10_000]))]
        return Group(*parts)

    def _history(self) -> Group | None:
        """The kernel across snapshots, one row each, and its current state as the last point.

        A row is a grid row: a class too long for the line wraps in its own column,
        under the class, not back at the screen's left edge."""
        history, k, words = self.history, self.kernel, self.words
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
        return Group(text, indented(grid))

    def _moved(self) -> Group | None:
        """Which side moved: the kernel's changes since the previous snapshot and its newest
        changes on reload, each with the sides' latencies and its verdict."""
        since, logged, reference = self.moves
        if not since and not logged:
            return None
        lines = []
        for label, changes in (
            (self.words["moved_since"].format(reference=clean(reference or "")), since),
            *(
                (self.words["moved_reload"].format(at=time.strftime("%H:%M:%S", time.localtime(when))), [c])
                for when, c in logged
            ),
        ):
            for change in changes:
                why = change.why()
                line = Text(label + ": ", style="dim")
                line.append(clean(change.fact()), style="bold red" if change.regression else "")
                if why:
                    line.append(": " + why)
                lines.append(indented(line))
        return Group(*lines)

    def _runs(self) -> Group | None:
        """The kernel's bench runs (bench/results), newest last: latency per side, each the
        median over shapes of the run's per-shape medians, with the lowest..highest shape."""
        runs, words = self.runs, self.words
        if not runs:
            return self._failed_runs(Group()) if self.failed else None
        shown = runs if self.full_history else runs[-HISTORY_LINES:]
        text = Text(style="cyan")
        newest = runs[-39:]
        labels = [words["baseline_ms"], words["pto_ms"]]
        pad = max(Text(label).cell_len for label in labels)
        for label, values in zip(labels, ([r.baseline_ms for r in newest], [r.pto_ms for r in newest]), strict=True):
            text.append(label + " " * (pad - Text(label).cell_len) + f" {latency_spark(values)}\n")
        total = len(runs)
        if len(shown) < total:
            note = words["runs_of"].format(shown=len(shown), total=total)
        else:
            note = ngettext("{total} run", "{total} runs", total, self.lang).format(total=total)
        text.append(note + words["runs_note"], style="dim italic")
        where = runs[-1].environment
        if where:  # where the newest ran; a run whose environment differs from the one before says how
            text.append("\n" + words["runs_where"].format(where=clean(where.replace("=", " "))), style="dim")
        grid = Table.grid(padding=(0, 1))
        for _column in range(6):
            grid.add_column(no_wrap=True)
        before = {id(run): earlier for earlier, run in zip(runs, runs[1:], strict=False)}
        for run in shown:
            earlier = before.get(id(run))
            grid.add_row(
                Text(clean(run.started)),
                Text(f"{run.baseline_status or '?'}/{run.pto_status or '?'}"),
                ms_spread(run.baseline_ms, run.baseline_min_ms, run.baseline_max_ms),
                ms_spread(run.pto_ms, run.pto_min_ms, run.pto_max_ms),
                pct(run.ratio_pct),
                Text(moved_environment(earlier, run), style="bold yellow"),
            )
        return self._failed_runs(Group(text, indented(grid)))

    def _failed_runs(self, runs: Group) -> Group:
        """The run directories failed re-runs left behind, after the runs: failed, never running."""
        lines = []
        for failed in self.failed[-HISTORY_LINES:]:
            line = Text(clean(failed.started) + "  ")
            said = self.words["failed_run"].format(status=clean(failed.status))
            line.append(said, style="bold red")
            if failed.last_err:
                line.append(" — " + one_line(clean(failed.last_err), max(self.width - 40, 20)))
            lines.append(indented(line))
        return Group(*runs.renderables, *lines)

    def _triage(self) -> Text:
        """State, note, who, since, and whether it went stale or was resolved, and why."""
        status = self.status
        entry = status.entry
        if entry is None:
            return Text("  " + self.words["untriaged"], style="bold yellow")
        text = Text("  ")
        key = "resolved" if status.resolved else entry.state
        text.append(status.label(), style=render.TRIAGE_STYLES.get(key, "") + " bold")
        by_since = self.words["by_since"].format(by=clean(entry.by) or "?", since=clean(entry.since) or "?")
        text.append("   " + by_since, style="dim")
        if entry.note:
            text.append(f"\n  {self.words['note']}: ", style="bold")
            text.append_text(self._fit(entry.note))
        why = triage_why(entry.blocker, self.kernel)
        if status.resolved:
            text.append("\n  " + self.words["resolved"].format(why=why), style="green")
        elif status.stale:
            text.append("\n  " + self.words["stale"].format(why=why), style="yellow")
        return text

    def _blocking(self) -> Group:
        """The reason of the side that is blocked: PTO's for PTO's side, the baseline's for the host's."""
        k = self.kernel
        host = blocker_side(k) == "host"
        words = self.words
        label, reason = (words["baseline_reason"], k.baseline_reason) if host else (words["pto_reason"], k.pto_reason)
        if not reason:  # only per variant, or (a correctness gap) only the baseline's
            variant = next((v for v in k.variants if (v.baseline_reason if host else v.pto_reason)), None)
            reason = (variant.baseline_reason if host else variant.pto_reason) if variant else None
        if not reason and not host and k.baseline_reason:
            label, reason = words["baseline_reason"], k.baseline_reason
        if not reason:
            return Group(Text(f"  {label}: " + self.words["none"], style="dim"))
        self._led_with = reason  # not shown a second time under the reasons
        return Group(Text(label + ":", style="bold"), self._fit(reason))

    def _from_run(self) -> list[tuple[str, RenderableType]]:
        """A fact row when the kernel is shown as its newest run gives it."""
        k = self.kernel
        if not k.from_run:
            return []
        return [(self.words["from_run"], self.words["from_run_note"].format(run=clean(k.from_run)))]

    def _facts(self) -> Table:
        k, lang = self.kernel, self.lang
        label = fact_labels(lang)
        gaps = open_gap_ids(k)
        # A working kernel has no blocker layer; its gaps are open work (model.blockers).
        layer = (label["open_gaps"], ", ".join(gaps)) if k.blocker_layer is None and gaps else None
        return kv_table(
            [
                (label["tier"], TIER_LABELS.get(k.tier, k.tier)),
                *(
                    [(self.words["from_run"], self.words["from_run_note"].format(run=clean(k.from_run)))]
                    if k.from_run
                    else []
                ),
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
        console = self.console or _console()
        room = max(self.width - 4, 20)  # the screen's padding and scrollbar
        used = Measurement.get(console, console.options.update_width(room), table).maximum
        if room - used - 3 >= LIMITATIONS_MIN:
            return self._variants_table(variants, limits)
        below: list[RenderableType] = [table, Text(self.words["limitations"] + ":", style="bold")]
        for index, text in enumerate(limits):
            if text:
                variant = self.words["variant_n"].format(n=index + 1)
                below.append(indented(Text(f"{variant}: ", style="dim") + self._fit(text)))
        return Group(*below)

    def _variants_table(self, variants: list, limits: list[str] | None) -> Table:
        table = Table(show_edge=False, pad_edge=False, expand=False)
        words = self.words
        columns: list[tuple[str, JustifyMethod]] = [
            (words["shape"], "left"),
            (words["baseline_ms"], "right"),
            (words["pto_ms"], "right"),
            (words["ratio"], "right"),
            (words["baseline"], "left"),
            (words["pto"], "left"),
        ]
        if limits is not None:
            columns.append((words["limitations"], "left"))
        for label, justify in columns:
            table.add_column(label, justify=justify, overflow="fold")
        labels = labels_of([(v.shape, v.params) for v in variants], self.shape_dirs)
        for index, v in enumerate(variants):
            cells: list[RenderableType] = [
                Text("null", style="dim") if not labels[index] else self._fit(labels[index]),
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
                more = words["more_variants"].format(n=f"{len(self.kernel.variants) - index - 1:,}")
                table.add_row(Text(more, style="italic"))
                break
        return table

    def _reasons(self) -> Group:
        k, words = self.kernel, self.words
        lines: list[RenderableType] = []
        for label, value in ((words["baseline_reason"], k.baseline_reason), (words["pto_reason"], k.pto_reason)):
            if value and value is self._led_with:
                lines.append(Text(words["shown_above"].format(label=label), style="dim"))
            elif value:
                lines.append(Text(label + ":", style="bold"))
                lines.append(self._fit(value))  # literal, newlines kept
        if k.limitations:
            lines.append(Text(words["limitations"] + ":", style="bold"))
            lines.append(self._fit("\n".join(k.limitations[:10_000])))
        return Group(*(lines or [Text(self.words["none"], style="dim")]))

    def _gaps(self) -> Group:
        k = self.kernel
        if not k.gap_ids:
            return Group(Text(self.words["none"], style="dim"))
        known = {g.id: g for g in k.gaps}
        lines: list[RenderableType] = []
        for gap_id in k.gap_ids:
            gap = known.get(gap_id)
            head = Text(clean(gap_id), style="bold cyan")
            if gap is not None:
                head.append(f"  [{clean(gap.component)}, {clean(gap.status)}]", style="dim")
                lines += [head, indented(self._fit(gap.summary))]
            else:
                lines += [head, Text("  " + self.words["not_on_board"], style="dim")]
        return Group(*lines)


def _report(report: Report | None, words: dict[str, str], width: int, missing_under: Path) -> RenderableType:
    if report is None:
        return Text(words["reading"], style="dim")
    path, text, facts, problems = report
    if path is None or text is None:
        where = visible(render.display_path(path or missing_under))
        return Text(words["missing"].format(path=where) + "".join(f"\n{w.shown()}" for w in problems), style="dim")
    # Paths with their control characters escaped, as the warnings show them: the file can be found.
    shown = left_cut(visible(render.display_path(path)), width - REPORT_KEYS)
    rows: list[tuple[str, RenderableType]] = [(words["file"], Text(shown, overflow="fold"))]
    for side in ("baseline", "pto"):
        info = facts.get(side) or {}
        timings = info.get("timings_ms") or {}
        rows.append(
            (words[f"{side}_timings"], " / ".join(f"{n} {ms(timings.get(n))}" for n in ("min", "median", "max")))
        )
        rows.append(
            (
                words[f"{side}_correctness"],
                "  ".join(f"{n} {fact(info.get(n))}" for n in ("atol", "rtol", "max_abs_diff", "passes")),
            )
        )
        rows.append((words[f"{side}_entrypoint"], clean(info.get("entrypoint") or "n/a")))
    device = facts.get("device") or {}
    rows.append((words["device"], ", ".join(f"{k}={clean(v)}" for k, v in device.items()) or "n/a"))
    for problem in problems:
        rows.append((words["warning"], problem.shown()))
    return kv_table(rows)
