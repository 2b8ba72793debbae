"""The message catalogue: every word ptotui prints goes through ``_()`` / ``ngettext``.

Standard gettext: the sources are ``ptotui/locale/<locale>/LC_MESSAGES/ptotui.po``,
extracted from the code by Babel (``pybabel extract``, configured in pyproject.toml)
and compiled into the ``.mo`` files beside them, which ship in the wheel. English is
the code itself (the msgids); a language without a catalogue falls back to it.

The language in force is one module-level value, set once by the command line (or the
app's ``l``) and read at the moment a message is drawn, never at import: a message kept
in a table at import time is marked with ``N_()`` and translated where it is shown.

Textual-free and cheap: importing this module reads no catalogue; the first message
in a language loads that language's ``.mo`` once.
"""

from __future__ import annotations

import gettext as _gettext
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

LANGS = ("en", "zh")
DOMAIN = "ptotui"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
LOCALES = {"en": "en", "zh": "zh_CN"}  # our language codes -> the catalogue's directory
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE")  # in the order they are asked

_catalogues: dict[str, _gettext.NullTranslations] = {}
_current = "en"


def catalogue(lang: str) -> _gettext.NullTranslations:
    """The translations of ``lang`` (English: the messages as written)."""
    found = _catalogues.get(lang)
    if found is None:
        if lang == "en" or lang not in LOCALES:
            found = _gettext.NullTranslations()
        else:
            found = _gettext.translation(DOMAIN, LOCALE_DIR, [LOCALES[lang]], fallback=True)
        _catalogues[lang] = found
    return found


def set_language(lang: str) -> None:
    """Make ``lang`` the language in force (anything but a known code means English)."""
    global _current
    _current = lang if lang in LANGS else "en"


def language() -> str:
    return _current


@contextmanager
def speaking(lang: str | None) -> Iterator[None]:
    """``lang`` in force inside the block (None: the language in force stays). A JSON output
    is the same in every language: the warnings it holds are read with ``speaking("en")``."""
    before = _current
    if lang is not None:
        set_language(lang)
    try:
        yield
    finally:
        set_language(before)


def _(message: str, lang: str | None = None) -> str:
    """``message`` in the language in force (or ``lang``)."""
    return catalogue(lang or _current).gettext(message)


def ngettext(singular: str, plural: str, n: int, lang: str | None = None) -> str:
    return catalogue(lang or _current).ngettext(singular, plural, n)


def pgettext(context: str, message: str, lang: str | None = None) -> str:
    """``message`` in ``context``: one English word that needs two Chinese ones."""
    return catalogue(lang or _current).pgettext(context, message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue without translating it (a table built at import)."""
    return message


# -- which language: the flag, the environment, the settings file, the locale ----------


def locale_language(environ: Mapping[str, str]) -> str | None:
    """``zh`` or ``en`` from the first locale variable that is set, as gettext reads them;
    None when none is set. ``zh_CN.UTF-8``, ``zh_TW``, ``zh`` are Chinese; ``C``, ``en_US``
    or any other language is English (the app has no third one)."""
    for name in LOCALE_VARIABLES:
        value = environ.get(name, "")
        if value:
            first = value.split(":")[0].strip().lower()
            return "zh" if first.startswith("zh") else "en"
    return None


def choose_language(flag: str | None, environ: Mapping[str, str], settings: str | None) -> str:
    """``--lang``, then ``$PTOTUI_LANG``, then the settings file's ``lang``, then the
    locale; else English. A value that is not a language code is passed over."""
    for value in (flag, environ.get("PTOTUI_LANG"), settings):
        if value is not None and value in LANGS:
            return value
    return locale_language(environ) or "en"
