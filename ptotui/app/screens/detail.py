"""Everything known about one kernel, with a plain-words reading at the top."""

from __future__ import annotations

import json

from rich.console import Group, JustifyMethod, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, Static

from ptotui.app import render
from ptotui.app.screens.base import PtoScreen
from ptotui.model.explain import explain, layer_name
from ptotui.model.export import ms, pct
from ptotui.model.loader import read_file
from ptotui.model.readers import read_kernel_report
from ptotui.model.text import clean
from ptotui.model.tiers import TIER_LABELS
from ptotui.model.types import Kernel

HEADINGS = {
    "en": {
        "facts": "Facts",
        "variants": "Variants",
        "reasons": "Reasons and limitations",
        "gaps": "Gaps",
        "scalar": "Scalar matches",
        "report": "report.json",
        "next": "Look next",
        "history": "History",
        "none": "none",
        "missing": "not found under {path}",
    },
    "zh": {
        "facts": "概况",
        "variants": "输入形状",
        "reasons": "原因与限制",
        "gaps": "缺口",
        "scalar": "标量匹配",
        "report": "report.json",
        "next": "下一步",
        "history": "历史",
        "none": "无",
        "missing": "在 {path} 下未找到",
    },
}


def _kv_table(rows: list[tuple[str, RenderableType]]) -> Table:
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for key, value in rows:
        table.add_row(key, value if not isinstance(value, str) else Text(value))
    return table


def _heading(text: str) -> Text:
    return Text("\n" + text, style="bold underline")


def _shape(value: object) -> Text:
    if value is None:
        return Text("null", style="dim")
    return Text(clean(json.dumps(value) if not isinstance(value, str) else value), overflow="fold")


def _correct(value: bool | None, status: str | None = "ok") -> Text:
    if status == "blocked":
        return Text("n/a", style="dim")  # a side that did not run has no correctness
    return Text(
        {True: "pass", False: "FAIL", None: "?"}[value],
        style={True: "green", False: "bold magenta", None: "dim"}[value],
    )


class DetailScreen(PtoScreen[None]):
    """The detail of one kernel; ``l`` switches between English and Chinese."""

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("l", "switch_language", "中文/English"),
        Binding("q", "app.pop_screen", "Back", show=False),
    ]

    def __init__(self, kernel: Kernel) -> None:
        super().__init__()
        self.kernel = kernel

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="detail-scroll"):
            yield Static("", id="detail", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.title = self.kernel.name
        self.redraw()
        self.query_one("#detail-scroll").focus()

    def action_switch_language(self) -> None:
        self.app.lang = "zh" if self.app.lang == "en" else "en"
        self.redraw()

    def redraw(self) -> None:
        self.query_one("#detail", Static).update(self.build(self.app.lang))

    def build(self, lang: str) -> Group:
        k = self.kernel
        words = HEADINGS.get(lang, HEADINGS["en"])
        reading = explain(k, lang, self.app.thresholds)
        title = Text()
        title.append_text(render.badge(k.tier))
        title.append(" " + clean(k.name), style="bold")
        if k.scalar_heavy:
            title.append("  scalar-heavy", style="yellow")
        parts: list[RenderableType] = [title, Text("\n" + reading.verdict, style="bold")]
        parts += [Text("  " + line) for line in reading.reading]
        parts.append(Text(f"  {words['next']}: " + " ".join(reading.next_steps), style="italic"))
        parts += [_heading(words["facts"]), self._facts(lang)]
        history = self._history()
        if history is not None:
            parts += [_heading(words["history"]), history]
        parts += [_heading(words["variants"]), self._variants()]
        parts += [_heading(words["reasons"]), self._reasons(words)]
        parts += [_heading(words["gaps"]), self._gaps(words)]
        if k.scalar_matches:
            parts += [_heading(words["scalar"])] + [Text("  " + clean(m)) for m in k.scalar_matches]
        parts += [_heading(words["report"]), self._report(words)]
        return Group(*parts)

    def _history(self) -> Text | None:
        """The kernel's history across snapshots, one line per snapshot, when known."""
        history, kernel = self.app.history, self.kernel.name
        if history is None or kernel not in history.kernels:
            return None
        text = Text(history.sparkline(kernel, width=40) + "\n", style="cyan")
        for point in history.kernels[kernel][-12:]:
            ratio = "n/a" if point.ratio_min_pct is None else f"{pct(point.ratio_min_pct)}..{pct(point.ratio_max_pct)}"
            text.append(f"  {point.stamp}  {point.tier:<17} {ratio:<15} {point.baseline_status}/{point.pto_status}  ")
            text.append((point.klass or "") + "\n", style="dim")
        return text

    def _facts(self, lang: str) -> Table:
        k = self.kernel
        return _kv_table(
            [
                ("tier", TIER_LABELS.get(k.tier, k.tier)),
                ("class", clean(k.klass or "n/a")),
                ("layer", layer_name(k.blocker_layer, lang)),
                ("family / wave / phase", " / ".join(clean(v or "n/a") for v in (k.family, k.wave, k.phase))),
                ("baseline / PTO", Text.assemble(render.status(k.baseline_status), " / ", render.status(k.pto_status))),
                ("Baseline / PTO ratio", f"{render.ratio(k).plain}  (median {pct(k.ratio_median_pct)})"),
                ("baseline ms / PTO ms", f"{ms(k.baseline_ms)} / {ms(k.pto_ms)}  (median over variants)"),
                (
                    "correctness (baseline / PTO)",
                    Text.assemble(
                        _correct(k.baseline_correct, k.baseline_status), " / ", _correct(k.pto_correct, k.pto_status)
                    ),
                ),
                ("block use", clean(k.block_use or "n/a")),
                ("inventory status", clean(k.inventory_status or "n/a")),
            ]
        )

    def _variants(self) -> Table:
        table = Table(show_edge=False, pad_edge=False, expand=False)
        columns: tuple[tuple[str, JustifyMethod], ...] = (
            ("shape", "left"),
            ("baseline ms", "right"),
            ("PTO ms", "right"),
            ("ratio", "right"),
            ("baseline", "left"),
            ("PTO", "left"),
            ("limitations", "left"),
        )
        for label, justify in columns:
            table.add_column(label, justify=justify, overflow="fold")
        for v in self.kernel.variants:
            table.add_row(
                _shape(v.shape),
                ms(v.baseline_ms),
                ms(v.pto_ms),
                pct(v.ratio_pct),
                Text.assemble(render.status(v.baseline_status), " ", _correct(v.baseline_correct, v.baseline_status)),
                Text.assemble(render.status(v.pto_status), " ", _correct(v.pto_correct, v.pto_status)),
                Text(clean("; ".join(v.limitations))),
            )
        return table

    def _reasons(self, words: dict[str, str]) -> Group:
        k = self.kernel
        lines: list[RenderableType] = []
        for label, value in (("baseline reason", k.baseline_reason), ("PTO reason", k.pto_reason)):
            if value:
                lines.append(Text(label + ":", style="bold"))
                lines.append(Text(clean(value), overflow="fold"))  # literal, newlines kept
        for item in k.limitations:
            lines.append(Text("limitation: ", style="bold") + Text(clean(item)))
        return Group(*(lines or [Text(words["none"], style="dim")]))

    def _gaps(self, words: dict[str, str]) -> Group:
        k = self.kernel
        if not k.gap_ids:
            return Group(Text(words["none"], style="dim"))
        known = {g.id: g for g in k.gaps}
        lines = []
        for gap_id in k.gap_ids:
            gap = known.get(gap_id)
            head = Text(clean(gap_id), style="bold cyan")
            if gap is not None:
                head.append(f"  [{clean(gap.component)}, {clean(gap.status)}]", style="dim")
                lines += [head, Text("  " + clean(gap.summary), overflow="fold")]
            else:
                lines += [head, Text("  not on the gap board", style="dim")]
        return Group(*lines)

    def _report(self, words: dict[str, str]) -> RenderableType:
        path = self.app.location.local_report(self.kernel.report_path)
        warnings: list = []
        text = read_file(path, warnings) if path is not None else None
        if path is None or text is None:
            where = render.display_path(path or self.app.location.generated)
            return Text(words["missing"].format(path=where) + "".join(f"\n{w}" for w in warnings), style="dim")
        facts, problems = read_kernel_report(text, str(path))
        rows: list[tuple[str, RenderableType]] = [("file", clean(render.display_path(path)))]
        for side in ("baseline", "pto"):
            info = facts.get(side) or {}
            timings = info.get("timings_ms") or {}
            rows.append(
                (f"{side} timings ms", " / ".join(f"{n} {ms(timings.get(n))}" for n in ("min", "median", "max")))
            )
            rows.append(
                (
                    f"{side} correctness",
                    f"atol {info.get('atol')}  rtol {info.get('rtol')}  "
                    f"max_abs_diff {info.get('max_abs_diff')}  passes {info.get('passes')}",
                )
            )
            rows.append((f"{side} entrypoint", clean(info.get("entrypoint") or "n/a")))
        device = facts.get("device") or {}
        rows.append(("device", ", ".join(f"{k}={clean(v)}" for k, v in device.items()) or "n/a"))
        for problem in problems:
            rows.append(("warning", str(problem)))
        return _kv_table(rows)
