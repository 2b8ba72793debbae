"""argparse's own words (``usage:``, ``options``, its errors) in the language in force.

argparse translates them with the module-level ``gettext.gettext``, that is through the
process-wide default domain and the locale variables: it never sees ``--lang``, the
settings file or our catalogue. Rather than bind a process-wide domain (which would also
translate every other library that uses the default one, and would need the
environment changed to follow ``--lang``) or replace ``argparse._``, a parser of ours
says them itself, where argparse lets it:

- ``Formatter`` gives ``usage:`` as the usage's prefix, a parameter of ``add_usage``;
- ``Parser`` titles its two groups and adds its own ``-h`` with the help translated;
- an error argparse made in English reaches ``Parser.error``, which says it again from
  the catalogue when it is one of argparse's templates (``ERRORS``), its values kept.

The templates are argparse's own msgids (the words of its ``_()`` calls), marked here
with ``N_()`` so that they are in our catalogue beside their translations.
"""

from __future__ import annotations

import argparse
import functools
import re
from typing import Any, NoReturn

from ptotui.model.i18n import N_, _

# argparse's error templates (Python 3.11 to 3.13), each with our msgid for it. The
# msgids use {names}: a translator moves them, and a value is never read as a format.
ERRORS: tuple[tuple[str, str], ...] = (
    ("argument %(argument_name)s: %(message)s", N_("argument {argument_name}: {message}")),
    ("the following arguments are required: %s", N_("the following arguments are required: {arguments}")),
    ("unrecognized arguments: %s", N_("unrecognized arguments: {arguments}")),
    ("invalid choice: %(value)r (choose from %(choices)s)", N_("invalid choice: {value} (choose from {choices})")),
    ("invalid %(type)s value: %(value)r", N_("invalid {type} value: {value}")),
    ("expected one argument", N_("expected one argument")),
    ("expected at most one argument", N_("expected at most one argument")),
    ("expected at least one argument", N_("expected at least one argument")),
    ("expected %s argument", N_("expected {n} argument")),
    ("expected %s arguments", N_("expected {n} arguments")),
    ("ambiguous option: %(option)s could match %(matches)s", N_("ambiguous option: {option} could match {matches}")),
    ("ignored explicit argument %r", N_("ignored explicit argument {argument}")),
    ("not allowed with argument %s", N_("not allowed with argument {argument}")),
    ("one of the arguments %s is required", N_("one of the arguments {arguments} is required")),
)
_FIELD = re.compile(r"%(?:\((\w+)\))?[sr]")


def _pattern(template: str, msgid: str) -> re.Pattern[str]:
    """``template`` as a regular expression whose groups are the msgid's ``{names}``, in order."""
    names = iter(re.findall(r"{(\w+)}", msgid))
    parts, at = [], 0
    for match in _FIELD.finditer(template):
        parts += [re.escape(template[at : match.start()]), f"(?P<{next(names)}>.*?)"]
        at = match.end()
    parts.append(re.escape(template[at:]))
    return re.compile("".join(parts), re.DOTALL)


@functools.cache
def _patterns() -> list[tuple[re.Pattern[str], str]]:
    """Compiled when argparse first says an error: not on the way to every start."""
    return [(_pattern(template, msgid), msgid) for template, msgid in ERRORS]


def translate_error(message: str) -> str:
    """``message``, an error argparse said in English, in the language in force; a message
    that is none of argparse's templates (one of ours, already translated) as it is."""
    for pattern, msgid in _patterns():
        match = pattern.fullmatch(message)
        if match:
            values = match.groupdict()
            if "message" in values:  # ``argument --lang: <the argument's own error>``
                values["message"] = translate_error(values["message"])
            return _(msgid).format(**values)
    return message


_WIDE = "\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6"


@functools.cache
def _tokens() -> re.Pattern[str]:
    return re.compile(rf"[{_WIDE}]|[^\s{_WIDE}]+|\s+")


def _cells(text: str) -> int:
    if text.isascii():  # every help line in English: no table to look up
        return len(text)
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap_cells(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal cells. argparse's textwrap counts
    characters, and a Chinese character takes two cells: its lines ran past the terminal.
    A line breaks at a space or between two wide characters (Chinese has no spaces)."""
    width = max(width, 10)
    lines: list[str] = []
    line, used, space = "", 0, False
    for token in _tokens().findall(text):
        if token.isspace():
            space = bool(line)
            continue
        need = _cells(token) + (1 if space else 0)
        if line and used + need > width:
            lines.append(line)
            line, used = token, _cells(token)
        else:
            line, used = line + (" " if space else "") + token, used + need
        space = False
    if line:
        lines.append(line)
    return lines


class Formatter(argparse.HelpFormatter):
    """argparse's formatter, with ``usage:`` from the catalogue and lines that fit in cells."""

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)

    def _split_lines(self, text: str, width: int) -> list[str]:
        if _cells(text) == len(text):  # no wide character: argparse's own wrapping, as before
            return super()._split_lines(text, width)
        return wrap_cells(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if _cells(text) == len(text):
            return super()._fill_text(text, width, indent)
        return "\n".join(indent + line for line in wrap_cells(text, width - len(indent)))


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that speaks the language in force (set before it is built).
    Its errors go to :meth:`fail`, translated (``ptotui.cli.Parser``: one line and exit 2)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        kwargs["add_help"] = False  # our own -h, below, says its help in the language in force
        super().__init__(*args, **kwargs)
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument(
            "-h", "--help", action="help", default=argparse.SUPPRESS, help=_("show this help message and exit")
        )

    def error(self, message: str) -> NoReturn:
        self.fail(translate_error(message))

    def fail(self, message: str) -> NoReturn:
        super().error(message)
