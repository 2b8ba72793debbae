"""Key bindings with ids: what the settings file's ``[keys]`` table remaps, and the command palette.

Every binding the user may remap has an ``id`` (``main.reload``; the list is
``ptotui.model.config.KEY_IDS``, which the README documents). A :class:`PaletteCommand` is a
binding that is also a command-palette entry: the palette is made from the screens'
bindings, so an entry runs the binding's own action and shows its key as remapped.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.widget import Widget

from ptotui.model.i18n import N_, _


@dataclass(frozen=True)
class PaletteCommand(Binding):
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


def commands(bindings: Iterable[object]) -> Iterator[PaletteCommand]:
    """The palette entries among ``bindings``, in their order."""
    for binding in bindings:
        if isinstance(binding, PaletteCommand) and binding.title:
            yield binding


# Textual's own words that the app shows: its system commands in the palette, the palette's
# search placeholder and its footer key. Marked here for the catalogue; translated where they
# are drawn (palette_commands, PtoTuiApp.action_command_palette, widgets/footer.py).
TEXTUAL_WORDS = (
    *(N_("Theme"), N_("Change the current theme"), N_("Quit"), N_("Quit the application as soon as possible")),
    *(N_("Keys"), N_("Hide the keys and widget help panel")),
    N_("Show help for the focused widget and a summary of available keys"),
    *(N_("Minimize"), N_("Minimize the widget and restore to normal size"), N_("Maximize")),
    *(N_("Maximize the focused widget"), N_("Screenshot"), N_("Save an SVG 'screenshot' of the current screen")),
    *(N_("Bell"), N_("Ring the bell"), N_("palette"), N_("Open the command palette")),
)


def palette_commands(
    app: App,
    keymap: Mapping[str, str],
    nodes: Iterable[tuple[App | Widget, Iterable[object]]],
    has: Callable[[str], bool],
) -> Iterator[SystemCommand]:
    """Our entries of the command palette: made from the bindings that are Commands, each
    running its binding's action and showing its key as the settings file maps it
    (``has``: whether the session has what a command ``needs``)."""
    for node, bindings in nodes:
        for command in commands(bindings):
            if command.needs and not has(command.needs):
                continue
            keys = keys_of(command, keymap)
            own = not remapped(command, keymap) and command.key_display
            title, about = command.entry()
            run = functools.partial(node.call_later, node.run_action, command.action)
            yield SystemCommand(title, f"{about} ({own or app.get_key_display(Binding(keys[0], ''))})", run)


APP_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [  # the App's own keys
    Binding("q", "quit", N_("Quit"), id="app.quit"),
    # Textual's ctrl+c only says "press ctrl+q"; in a terminal tool it quits. (In the
    # filter and note inputs it still copies: the focused widget's binding comes first.)
    Binding("ctrl+c", "quit", N_("Quit"), show=False, id="app.interrupt"),
    PaletteCommand(
        "question_mark,f1",
        "show_help",
        N_("Help"),
        key_display="?",
        id="app.help",
        title=N_("Show keys"),
        help=N_("Every key binding"),
    ),
    Binding("l", "switch_language", N_("English / 中文"), show=False, id="app.language"),
]
