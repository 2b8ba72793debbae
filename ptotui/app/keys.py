"""Key bindings with ids: what the settings file's ``[keys]`` table remaps, and the command palette.

Every binding the user may remap has an ``id`` (``main.reload``; the list is
``ptotui.model.config.KEY_IDS``, which the README documents). A :class:`Command` is a
binding that is also a command-palette entry: the palette is made from the screens'
bindings, so an entry runs the binding's own action and shows its key as remapped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from textual.binding import Binding

from ptotui.model.i18n import _


@dataclass(frozen=True)
class Command(Binding):
    """A binding that is also in the command palette, as ``title`` with ``help`` under it.

    ``title`` and ``help`` are marked with ``N_()`` and translated when the palette opens,
    then filled with ``fill``'s ``{name}``s (the tier filters: ``Only {label}``).

    Textual copies bindings into plain ``Binding``s when it maps keys, so the palette
    reads these from the ``BINDINGS`` lists themselves. ``needs`` names an attribute of
    the app that must be true for the entry to be offered (``compare_sources``)."""

    title: str = ""
    help: str = ""
    needs: str = ""
    fill: tuple[tuple[str, str], ...] = ()

    def entry(self) -> tuple[str, str]:
        """The palette's title and help, in the language now shown."""
        fill = dict(self.fill)
        return _(self.title).format(**fill), _(self.help).format(**fill)


def keys_of(binding: Binding, keymap: Mapping[str, str]) -> list[str]:
    """The keys ``binding`` answers to: the settings file's, else its own."""
    keys = keymap.get(binding.id, binding.key) if binding.id else binding.key
    return [key.strip() for key in keys.split(",") if key.strip()]


def remapped(binding: Binding, keymap: Mapping[str, str]) -> bool:
    return binding.id is not None and binding.id in keymap


def binding_ids(bindings: Iterable[object]) -> Iterator[str]:
    for binding in bindings:
        if isinstance(binding, Binding) and binding.id:
            yield binding.id


def commands(bindings: Iterable[object]) -> Iterator[Command]:
    """The palette entries among ``bindings``, in their order."""
    for binding in bindings:
        if isinstance(binding, Command) and binding.title:
            yield binding
