"""``?``: every key of the screen below, generated from its bindings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen

from ptotui.app.keys import PaletteCommand, keys_of, remapped
from ptotui.app.render import legend
from ptotui.app.screens.base import PtoScreen
from ptotui.app.widgets.rendered import RenderedStatic
from ptotui.model.core.tiers import Thresholds
from ptotui.model.i18n import N_, _

if TYPE_CHECKING:
    from ptotui.app.context import Context


def intro(thresholds: Thresholds) -> str:
    """What the screen is, and the tiers with the thresholds in force (``--high``/``--mid``)."""
    high, mid = f"{thresholds.high:g}", f"{thresholds.mid:g}"
    return "\n".join(
        (
            _("ptotui watches the reports directory and redraws when the generators rewrite it."),
            _("Tiers: HIGH ≥{high}%, MID {mid}–{high}%, SLOW <{mid}% (Baseline / PTO, median over shapes);").format(
                high=high, mid=mid
            ),
            _("BASELINE-BLOCKED is the host's problem, not PTO's. Δ marks rows that changed since you last looked."),
            _("CORRECTNESS: PTO runs but its output is wrong; PTO-BLOCKED: the baseline runs, PTO not yet;"),
            _("BOTH-BLOCKED: neither runs here. A low ratio is still a working kernel."),
            _("Narrow tables show short badges: {legend}.").format(legend=legend()),
        )
    )


class HelpScreen(PtoScreen[None]):
    """Lists the keys of ``screen`` and of the app; any of escape, q, ? closes it.

    A whole screen rather than a modal over the dashboard: a modal composites the
    10k-row table beneath it, which doubled the time ``?`` took to answer (~40 ms).
    """

    BINDINGS = [Binding("escape,q,question_mark,f1", "app.pop_screen", N_("Close"), id="help.close")]

    def __init__(self, screen: type[Screen], ctx: Context) -> None:
        super().__init__()
        self.target = screen
        self.ctx = ctx

    def compose(self) -> ComposeResult:
        # Rendered once per width: a Static renders the table twice at every layout, and
        # the screen is laid out each time ? shows it.
        keys = RenderedStatic(markup=False)
        keys.show(self._table())
        with VerticalScroll(id="help-box"):
            yield keys

    def _table(self) -> Table:
        table = Table(
            title=_("Keys"),
            show_edge=False,
            title_justify="left",
            caption=intro(self.ctx.thresholds),
            caption_justify="left",
        )
        table.add_column(_("key"), style="bold", no_wrap=True)
        # fold: a Chinese row has no spaces to wrap at, and Rich's default (ellipsis) cut it with …
        table.add_column(_("does"), overflow="fold")
        for keys, does in (*self._rows(), *self._extra()):  # _extra: keys that are not screen bindings
            table.add_row(Text(keys), Text(does))
        return table

    def _extra(self) -> list[tuple[str, str]]:
        """The screen's ``HELP_EXTRA`` rows: keys of its widgets (the table's, the charts'), as
        written there unless the settings file remaps one of the binding ids a row names; then
        that row's keys as mapped (the defaults of the others from ``HELP_BINDINGS``)."""
        keymap = self.ctx.keymap
        known = (*self.target.BINDINGS, *getattr(self.target, "HELP_BINDINGS", ()))
        defaults = {b.id: b.key for b in known if isinstance(b, Binding) and b.id}
        rows = []
        for keys, does, *named in getattr(self.target, "HELP_EXTRA", ()):
            ids = named[0] if named else ()
            if any(i in keymap for i in ids):
                mapped = (keymap.get(i, defaults.get(i, "")) for i in ids)
                keys = " ".join(
                    self.app.get_key_display(Binding(k.strip(), "")) for m in mapped for k in m.split(",") if k.strip()
                )
            rows.append((keys, _(does)))
        return rows

    def _rows(self) -> list[tuple[str, str]]:
        """One row per action, with every key that does it (the detail's ``esc`` and ``q``
        both go back). An app key the screen binds to something else is left out: on the
        detail screen ``q`` goes back, it does not quit."""
        taken: set[str] = set()
        rows: dict[str, tuple[list[str], str]] = {}
        for bindings, screens in ((self.target.BINDINGS, True), (self.app.BINDINGS, False)):
            for binding in bindings:
                if not isinstance(binding, Binding):
                    continue
                keys = keys_of(binding, self.ctx.keymap)  # as the settings file maps them
                if not screens:
                    keys = [k for k in keys if k not in taken]
                    if not keys:
                        continue
                taken.update(keys)
                own = not remapped(binding, self.ctx.keymap) and binding.key_display
                shown = own or ", ".join(self.app.get_key_display(Binding(k, "")) for k in keys)
                known = rows.setdefault(binding.action, ([], _described(binding)))
                if shown not in known[0]:
                    known[0].append(shown)
        return [(", ".join(keys), does) for keys, does in rows.values()]


def _described(binding: Binding) -> str:
    """What ``binding`` does, in the language shown; a tier filter's ``{label}`` filled in."""
    if not binding.description:
        return binding.action
    fill = dict(binding.fill) if isinstance(binding, PaletteCommand) else {}
    return _(binding.description).format(**fill) if fill else _(binding.description)
