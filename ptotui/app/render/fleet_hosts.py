"""The fleet view's header: a line per host, in aligned columns (name, age of its newest publish,
environment, what sets it apart: ``≠env``, stale, regressions), as full as the width allows.

Each line says at least the host's name, a short environment (SoC and toolkit) and the age of
its newest publish. When the full lines do not fit, they are made shorter all together, one
deliberate step at a time (:func:`forms`), never by a cut in the middle of a word: the
environment's other fields go first (the bench settings, then the architectures; a field the
hosts differ in after the ones they share), then each host's warning count (the status line
counts them all, ``w`` lists them), the reference of the regressions, the words around the age
and the stale mark, the labels of the environment; only then the regressions' word and the
environment itself. Every field is on the hosts screen (``i``) and in a kernel's detail.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from rich.text import Text

from ptotui.model.core.environment import FIELDS
from ptotui.model.fleetview import age, is_stale, stale_after
from ptotui.model.i18n import _, ngettext
from ptotui.model.text import visible

if TYPE_CHECKING:
    from ptotui.model.fleet import Host
    from ptotui.model.fleetview import FleetView

# The environment's fields, the one kept longest first: SoC and toolkit tell most hosts apart
# (the short environment); then the architectures; the bench settings go first.
KEPT_LONGEST = ("SoC", "toolkit", "NPU arch", "PTO arch", "warmup", "repeat", "statistic")
SHORT_ENVIRONMENT = KEPT_LONGEST[:2]
GAP = "  "


def environment_words(host: Host) -> str:
    """Every field of the host's environment, labelled: ``SoC ascend910b, NPU arch …``."""
    parts = [f"{_(label)} {host.environment[label]}" for _s, _k, label in FIELDS if label in host.environment]
    return ", ".join(parts) if parts else _("environment unknown")


@dataclass(frozen=True)
class Form:
    """How much each host's line says; the header takes the fullest form whose lines all fit."""

    fields: tuple[str, ...] = KEPT_LONGEST  # the environment's fields shown (in KEPT_LONGEST's order)
    labels: bool = True  # ``SoC ascend910b, toolkit 9.0.0`` or ``ascend910b 9.0.0``
    published: bool = True  # ``published 5m ago`` or ``5m ago``
    stale_words: bool = True  # ``STALE: silent over 3h`` or ``STALE``
    regressions: int = 2  # 2: ``4 regressions since snapshot …``, 1: ``4 regressions``, 0: ``▼4``
    warnings: bool = True  # the host's warning count


def forms(hosts: list[Host]) -> list[Form]:
    """The forms from the fullest to the leanest, each one step shorter than the one before."""
    others = [label for label in reversed(KEPT_LONGEST) if label not in SHORT_ENVIRONMENT]

    def differ(label: str) -> bool:
        return len({host.environment[label] for host in hosts if label in host.environment}) > 1

    drop = [label for label in others if not differ(label)] + [label for label in others if differ(label)]
    out = [Form()]
    for label in drop:
        out.append(replace(out[-1], fields=tuple(f for f in out[-1].fields if f != label)))
    for step in (
        {"warnings": False},
        {"regressions": 1},
        {"published": False},
        {"stale_words": False},
        {"labels": False},
        {"regressions": 0},
        {"fields": SHORT_ENVIRONMENT[:1]},
        {"fields": ()},
    ):
        out.append(replace(out[-1], **step))
    return out


def _environment(host: Host, form: Form) -> Text:
    text = Text()
    shown = [label for label in form.fields if label in host.environment]
    if shown:
        if form.labels:
            text.append(", ".join(f"{_(label)} {host.environment[label]}" for label in shown))
        else:
            text.append(" ".join(host.environment[label] for label in shown))
    elif form.fields:  # its reports name no device (or nothing at all)
        text.append(_("device not named") if host.environment else _("environment unknown"), style="dim")
    return text


def _flags(view: FleetView, host: Host, now: float, form: Form) -> Text:
    """What sets the host apart: another environment, stale, its regressions, its warnings."""
    parts: list[Text] = []
    if not view.ms_comparable(host):
        parts.append(Text("≠env", style="bold yellow"))
    if is_stale(host, now):
        words = _("STALE: silent over {limit}").format(limit=age(stale_after(host) or 0))
        parts.append(Text(words if form.stale_words else _("STALE"), style="bold red"))
    count = len(host.regressed)
    if host.reference_words is not None and count:
        if form.regressions == 2:
            said = ngettext("{n} regression since {reference}", "{n} regressions since {reference}", count)
            words = said.format(n=count, reference=host.reference_words)
        elif form.regressions == 1:
            words = ngettext("{n} regression", "{n} regressions", count).format(n=count)
        else:
            words = f"▼{count}"
        parts.append(Text(words, style="bold red"))
    if form.warnings and host.warnings:
        parts.append(Text(ngettext("{n} warning", "{n} warnings", len(host.warnings)).format(n=len(host.warnings))))
    return Text(GAP).join(parts)


def _cells(view: FleetView, host: Host, now: float, form: Form) -> list[Text]:
    name = Text("★ " if view.columns.reference == host.name else "  ", style="bold yellow")
    name.append(visible(host.name), style="bold")
    if host.name in view.columns.hidden:
        name.append(" " + _("(hidden)"), style="dim")
    ago = age(now - host.published_at)
    said = _("published {age} ago") if form.published else _("{age} ago")
    return [name, Text(said.format(age=ago), style="dim"), _environment(host, form), _flags(view, host, now, form)]


def _aligned(rows: list[list[Text]]) -> tuple[list[Text], int]:
    """The cells of each row padded into columns (an empty column left out); the widest line."""
    widths = [max((row[i].cell_len for row in rows), default=0) for i in range(len(rows[0]) if rows else 0)]
    lines = []
    for row in rows:
        line = Text(no_wrap=True, overflow="ellipsis")
        filled = [i for i, width in enumerate(widths) if width]
        last = max((i for i in filled if row[i].cell_len), default=-1)
        for i in filled:
            if i > last:
                break
            if i != filled[0]:
                line.append(GAP)
            line.append_text(row[i])
            if i != last:
                line.append(" " * (widths[i] - row[i].cell_len))
        lines.append(line)
    return lines, max((line.cell_len for line in lines), default=0)


def host_lines(view: FleetView, hosts: list[Host], now: float, width: int) -> list[Text]:
    """A line per host, in aligned columns, in the fullest form that fits ``width`` (the leanest
    when none does: then the end of a line too long is cut, with ``…``)."""
    lines: list[Text] = []
    for form in forms(hosts):
        lines, widest = _aligned([_cells(view, host, now, form) for host in hosts])
        if widest <= width:
            break
    return lines
