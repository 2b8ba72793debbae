"""Textual's Footer, without rebuilding its keys when they have not changed, and
showing only the keys that fit whole."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

from ptotui.app.compat.footer import FooterKey
from ptotui.model.i18n import _

# A key is drawn as " key description " and the palette's key has a border and a
# padding more (Textual's FooterKey and Footer CSS).
_KEY_EXTRA = 3
_PALETTE_EXTRA = 2


class StableFooter(Footer):
    """A Footer that recomposes only when the keys it shows change, and shows only
    the keys that fit whole in the screen's width.

    Textual's Footer removes and mounts all its key widgets again at every change
    of bindings, focus or screen: four times when a screen opens, each with a
    full layout pass. The keys shown are the same each time, so all but the
    first of those rebuilds is skipped.

    Textual's Footer draws every key and cuts the last ones mid-word when they do not
    fit (``h Al``). Here the least important keys are left out instead: first the
    command palette's, then the actions the screen lists in ``FOOTER_DROP`` (in that
    order), then the others from the right. ``?`` lists every key.

    ``eager``: the keys are built with the footer, so they are in the screen's first
    frame. Textual's Footer waits for the screen's first bindings signal, which comes
    after that frame, and then needs a frame of its own.
    """

    def __init__(self, eager: bool = False) -> None:
        super().__init__()
        self._shown: tuple | None = None
        if eager:
            self.set_reactive(Footer._bindings_ready, True)

    def _width(self) -> int:
        return self.size.width or self.app.size.width

    def _palette(self) -> tuple[Binding, bool, str] | None:
        if not (self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE):
            return None
        found = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
        return None if found is None else (found[1], found[2], found[3])

    def _key_width(self, binding: Binding) -> int:
        shown = Text(self.app.get_key_display(binding)).cell_len
        return shown + Text(_(binding.description)).cell_len + _KEY_EXTRA if binding.description else shown

    def _fitting(self) -> tuple[list[tuple[Binding, bool, str]], tuple[Binding, bool, str] | None]:
        """The screen's shown keys (one per action) and the palette's, less those that do not fit."""
        keys: dict[str, tuple[Binding, bool, str]] = {}
        for _key, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show:
                keys.setdefault(binding.action, (binding, enabled, tooltip))
        palette = self._palette()
        width = self._width()
        used = sum(self._key_width(b) for b, _enabled, _tip in keys.values())
        if palette is not None:
            used += self._key_width(palette[0]) + _PALETTE_EXTRA
            if used > width:
                used -= self._key_width(palette[0]) + _PALETTE_EXTRA
                palette = None
        drop = [a for a in getattr(self.screen, "FOOTER_DROP", ()) if a in keys]
        drop += [a for a in reversed(keys) if a not in drop]
        for action in drop:
            if used <= width:
                break
            used -= self._key_width(keys.pop(action)[0])
        return list(keys.values()), palette

    def _keys(self) -> tuple:
        kept, palette = self._fitting()
        return tuple(
            (binding.key, _(binding.description), binding.action, enabled, tooltip)
            for binding, enabled, tooltip in kept + ([palette] if palette else [])
        )

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = self._keys()
        kept, palette = self._fitting()
        for binding, enabled, tooltip in kept:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                _(binding.description),
                binding.action,
                disabled=not enabled,
                tooltip=tooltip,
            ).data_bind(compact=Footer.compact)
        if palette is not None:
            binding, enabled, tooltip = palette
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                _(binding.description),
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=_(binding.tooltip or binding.description),
            )

    def language_changed(self) -> None:
        """The keys' words changed (``l``): build them again."""
        self._shown = None
        if self._bindings_ready:
            self.call_later(self.recompose)  # in the footer's own context (its keys bind to it)

    def on_resize(self, event: events.Resize) -> None:
        if self._bindings_ready and self._shown is not None and self._keys() != self._shown:
            self._shown = None
            self.call_after_refresh(self.recompose)

    def bindings_changed(self, screen: Screen) -> None:
        if self.is_attached and screen is self.screen and not screen.is_current:
            return  # not on view: its keys are looked at again when its screen comes back
        if self.is_attached and screen is self.screen and self.app.app_focus:
            keys = self._keys()
            if keys == self._shown:  # already shown, or a rebuild with these keys is on its way
                return
            self._shown = keys
        super().bindings_changed(screen)
