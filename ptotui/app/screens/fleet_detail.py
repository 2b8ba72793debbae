"""The fleet view's other screens: a kernel on every host side by side (its runs and change
points read off the UI thread), the keys (``?``), the warnings (``w``), every host in full (``i``)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from ptotui.app.render import badge, status
from ptotui.app.render.fleet_hosts import environment_words
from ptotui.app.screens.base import thread_worker
from ptotui.app.screens.fleet import FleetScreen
from ptotui.app.widgets.footer import StableFooter
from ptotui.model.core.fmt import ms, pct
from ptotui.model.fleet import Host
from ptotui.model.fleetview import (
    RUNS_SHOWN,
    FleetView,
    HostKernel,
    age,
    is_stale,
    kernel_on_hosts,
    stale_after,
    usual_interval,
)
from ptotui.model.i18n import N_, _
from ptotui.model.text import clean, visible

CLOSE: list[BindingType] = [Binding("escape,q", "app.pop_screen", N_("Back"), id="fleet.back")]


class FleetTextScreen(Screen[None]):
    """A title and lines of text, scrolled: the keys, the warnings, the hosts."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark,f1,w,i", "app.pop_screen", N_("Back"), id="fleet.text.back")
    ]

    def __init__(self, title: str, lines: Sequence[Text | str]) -> None:
        super().__init__()
        self.title_words = title
        self.lines = lines

    def compose(self) -> ComposeResult:
        body = Text(self.title_words + "\n\n", style="bold")
        for line in self.lines:
            body.append_text(line if isinstance(line, Text) else Text(line))
            body.append("\n")
        with VerticalScroll(classes="fleet-scroll"):
            yield Static(body, markup=False)
        yield StableFooter()


class FleetHelpScreen(FleetTextScreen):
    def __init__(self) -> None:
        from ptotui.app.fleet_app import FleetApp

        lines: list[Text | str] = []
        for binding in [*FleetScreen.BINDINGS, *FleetApp.BINDINGS, *CLOSE]:
            if not isinstance(binding, Binding):
                continue
            keys = binding.key.replace("less_than_sign", "<").replace("greater_than_sign", ">")
            keys = keys.replace("full_stop", ".").replace("comma", ",").replace("question_mark", "?")
            lines.append(Text(f"{keys:<14} {_(binding.description)}"))
        lines += [
            "",
            _("A row per kernel, a column per host: its tier, median Baseline / PTO, newest PTO ms."),
            _("▼ PTO regressed on that host (its verdict); ≠ the hosts differ in tier or a status"),
            _("With a reference (★) each cell also says its ratio's difference (pp) and, within one"),
            _("environment only, its PTO ms against the reference's; ≠env: another environment."),
            _("STALE: a host silent for over 3× its usual interval between publishes (at least 15 min)."),
            _("The header shortens each host's line to fit: its environment's other fields go first,"),
            _("then words; its name, SoC, toolkit and the age of its newest publish stay. i: all of it."),
        ]
        super().__init__(_("ptotui fleet: keys"), lines)


class FleetHostsScreen(FleetTextScreen):
    """Every host in full (``i``): its branch, its publishes, its whole environment, its
    regressions; what the header leaves out to fit."""

    def __init__(self, view: FleetView, hosts: Sequence[Host], now: float) -> None:
        super().__init__(_("ptotui fleet: hosts"), [])
        self.view = view
        self.hosts = hosts
        self.now = now

    def compose(self) -> ComposeResult:
        parts: list[RenderableType] = [Text(self.title_words + "\n", style="bold")]
        for host in self.hosts:
            parts += [host_details(self.view, host, self.now), Text("")]
        if not self.hosts:
            parts.append(Text(_("none")))
        with VerticalScroll(classes="fleet-scroll"):
            yield Static(Group(*parts), markup=False)
        yield StableFooter()


def host_details(view: FleetView, host: Host, now: float) -> RenderableType:
    """A host on the hosts screen: its name, then a labelled line per fact (a long one wraps
    beside its label)."""
    head = Text("★ " if view.columns.reference == host.name else "", style="bold yellow")
    head.append(visible(host.name), style="bold")
    if host.name in view.columns.hidden:
        head.append(" " + _("(hidden)"), style="dim")
    published = time.strftime("%Y-%m-%d %H:%M", time.localtime(host.published_at))
    said = _("{time} ({age} ago)").format(time=published, age=age(now - host.published_at))
    usual = usual_interval(host.publishes)
    if usual is None:
        said += "; " + _("fewer than three publishes: never called stale")
    else:
        limit = age(stale_after(host) or 0)
        said += "; " + _("usual interval {usual}, stale after {limit}").format(usual=age(usual), limit=limit)
    environment = Text(environment_words(host))
    if not view.ms_comparable(host):
        environment.append("  ≠env", style="bold yellow")
    if host.reference_words is None:
        regressions = Text(_("no reference"), style="dim")
    elif host.regressed:
        words = _("{n} since {reference}: {kernels}")
        kernels = ", ".join(clean(name) for name in host.regressed)
        regressions = Text(words.format(n=len(host.regressed), reference=host.reference_words, kernels=kernels))
        regressions.stylize("bold red")
    else:
        regressions = Text(_("none since {reference}").format(reference=host.reference_words))
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    grid.add_row("  " + _("branch"), Text(f"{visible(host.ref)} {host.commit[:12]}"))
    grid.add_row("  " + _("published"), Text(said, style="bold red" if is_stale(host, now) else ""))
    grid.add_row("  " + _("environment"), environment)
    grid.add_row("  " + _("regressions"), regressions)
    if host.warnings:
        grid.add_row("  " + _("warnings"), Text(f"{len(host.warnings)} (w)", style="yellow"))
    return Group(head, grid)


class FleetDetailScreen(Screen[None]):
    """One kernel on every host shown, side by side, the reference first."""

    BINDINGS: ClassVar[list[BindingType]] = CLOSE

    class Read(Message):
        def __init__(self, items: list[HostKernel]) -> None:
            super().__init__()
            self.items = items

    def __init__(self, view: FleetView, kernel: str) -> None:
        super().__init__()
        self.view = view
        self.kernel = kernel
        self.items: list[HostKernel] | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="fleet-scroll"):
            yield Static(self._body(), id="fleet-detail", markup=False)
        yield StableFooter()

    def on_mount(self) -> None:
        self._read()

    @thread_worker(N_("Reading the kernel's runs on each host"), group="fleet-detail", exclusive=True)
    def _read(self) -> None:
        self.post_message(self.Read(kernel_on_hosts(self.view.shown(), self.kernel)))

    @on(Read)
    def _done(self, message: Read) -> None:
        self.items = message.items
        self.query_one("#fleet-detail", Static).update(self._body())

    def _body(self) -> RenderableType:
        title = Text(clean(self.kernel), style="bold")
        hosts = self.view.shown()
        table = Table(show_lines=True, expand=True)
        table.add_column("")
        for host in hosts:
            table.add_column(Text(("★ " if self.view.columns.reference == host.name else "") + visible(host.name)))
        cells = [row.cells.get(host.name) for row in self.view.rows() if row.name == self.kernel for host in hosts]
        if not cells:
            return Group(title, Text(_("gone from every host shown"), style="dim"))

        def line(label: str, values: list[RenderableType]) -> None:
            table.add_row(Text(label, style="bold"), *values)

        marks = ["" if self.view.ms_comparable(h) else " ≠env" for h in hosts]
        line(_("environment"), [Text(environment_words(h) + mark) for h, mark in zip(hosts, marks, strict=True)])
        line(_("tier"), [badge(c.tier) if c else Text("—") for c in cells])
        line(_("Baseline / PTO"), [Text(pct(c.ratio_median_pct)) if c else Text("—") for c in cells])
        line(_("PTO ms"), [Text(ms(c.pto_ms)) if c else Text("—") for c in cells])
        line(_("baseline"), [status(c.baseline_status) if c else Text("—") for c in cells])
        line(_("PTO"), [status(c.pto_status) if c else Text("—") for c in cells])
        line(_("verdict"), [self._verdict(h, c is not None and c.regressed) for h, c in zip(hosts, cells, strict=True)])
        if self.items is None:
            return Group(title, table, Text(_("reading the runs…"), style="dim"))
        line(_("runs"), [self._runs(item) for item in self.items])
        line(_("change points"), [self._changes(item) for item in self.items])
        return Group(title, table)

    def _verdict(self, host: Host, regressed: bool) -> Text:
        if host.reference_words is None:
            return Text(_("no reference"), style="dim")
        if regressed:
            return Text(_("▼ PTO regressed since {reference}").format(reference=host.reference_words), style="bold red")
        return Text(_("no regression since {reference}").format(reference=host.reference_words))

    def _runs(self, item: HostKernel) -> Text:
        text = Text()
        if not item.runs:
            text.append(_("no runs"), style="dim")
        newest = item.runs[-RUNS_SHOWN:]
        if len(item.runs) > len(newest):
            text.append(_("{n} runs, the newest:").format(n=len(item.runs)) + "\n", style="dim")
        for run in reversed(newest):
            text.append(f"{run.started} {ms(run.pto_ms)} {pct(run.ratio_pct)}\n")
        for warning in item.warnings[:3]:
            text.append(clean(warning) + "\n", style="yellow")
        return text

    def _changes(self, item: HostKernel) -> Text:
        text = Text()
        if not item.changes and not item.pending:
            text.append(_("none"), style="dim")
        for change in reversed(item.changes):
            text.append(f"{change.after} {change.change_pct:+.1f}% {change.cause()}\n")
        for change in reversed(item.pending):
            text.append(_("pending:") + f" {change.after} {change.change_pct:+.1f}% {change.cause()}\n", style="dim")
        return text
