"""The message catalogue is whole and fresh (issue 22).

Babel extracts the messages from the code here, as ``pybabel extract`` does with the
settings in pyproject.toml, and the test compares them with ``ptotui/locale``: a message
in the code but not in a ``.po`` (or in a ``.po`` but gone from the code), one without a
translation, a fuzzy one, a translation that drops or invents a ``{placeholder}``, and a
``.mo`` that is not what its ``.po`` compiles to each fail it, naming the messages.
"""

from __future__ import annotations

import io
import string
import tomllib
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from ptotui.model import i18n
from tests.conftest import ROOT

LOCALE_DIR = ROOT / "ptotui" / "locale"
LOCALES = sorted(p.name for p in LOCALE_DIR.iterdir() if (p / "LC_MESSAGES" / "ptotui.po").is_file())
FIX = "run `pybabel extract && pybabel update`, translate, `pybabel compile` (see pyproject.toml)"

MessageKey = tuple[str | None, str]


def _key(message_id: str | tuple[str, ...], context: str | None) -> MessageKey:
    return context, message_id if isinstance(message_id, str) else message_id[0]


def extracted() -> dict[MessageKey, str | tuple[str, ...]]:
    """Every message the code marks, as ``pybabel extract`` finds it."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["babel"]["extract_messages"]
    assert config["input-paths"] == "ptotui"
    found: dict[MessageKey, str | tuple[str, ...]] = {}
    for _filename, _line, message, _comments, context in extract_from_dir(
        str(ROOT / "ptotui"), keywords=DEFAULT_KEYWORDS, comment_tags=[config["add-comments"]]
    ):
        found[_key(message, context)] = message
    return found


def catalog(locale: str) -> Catalog:
    with open(LOCALE_DIR / locale / "LC_MESSAGES" / "ptotui.po", "rb") as handle:
        return read_po(handle, locale=locale)


def _fields(text: str) -> set[str]:
    try:
        return {name for _text, name, _spec, _conv in string.Formatter().parse(text) if name is not None}
    except ValueError:  # a lone brace: not a format string
        return set()


def _show(keys: object) -> str:
    return "\n  ".join(repr(k) for k in sorted(keys, key=str))  # type: ignore[call-overload]


def test_there_is_a_chinese_catalogue():
    assert "zh_CN" in LOCALES
    assert i18n.LOCALES["zh"] == "zh_CN"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_catalogue_holds_every_message_of_the_code_and_no_other(locale: str):
    code = set(extracted())
    assert len(code) > 50  # the extraction found the code's messages at all
    po = {_key(m.id, m.context) for m in catalog(locale) if m.id}
    assert not code - po, f"in the code, not in {locale}'s .po ({FIX}):\n  {_show(code - po)}"
    assert not po - code, f"in {locale}'s .po, gone from the code ({FIX}):\n  {_show(po - code)}"


@pytest.mark.parametrize("locale", LOCALES)
def test_every_message_is_translated_and_keeps_its_placeholders(locale: str):
    untranslated, fuzzy, fields = [], [], []
    for m in catalog(locale):
        if not m.id:
            continue
        ids = (m.id,) if isinstance(m.id, str) else m.id
        strings = (m.string,) if isinstance(m.string, str) else m.string
        if not all(s and s.strip() for s in strings):
            untranslated.append(ids[0])
        if m.fuzzy:
            fuzzy.append(ids[0])
        wanted = set().union(*(_fields(i) for i in ids))
        if any(s and _fields(s) != wanted for s in strings):
            fields.append(ids[0])
    assert not untranslated, f"no {locale} translation ({FIX}):\n  {_show(untranslated)}"
    assert not fuzzy, f"fuzzy in {locale} (check the translation, then drop the flag):\n  {_show(fuzzy)}"
    assert not fields, f"{locale} translations whose {{placeholders}} differ from the message's:\n  {_show(fields)}"


@pytest.mark.parametrize("locale", LOCALES)
def test_the_shipped_mo_is_what_its_po_compiles_to(locale: str):
    mo = LOCALE_DIR / locale / "LC_MESSAGES" / "ptotui.mo"
    assert mo.is_file(), f"{mo} is missing: pybabel compile"
    compiled = io.BytesIO()
    write_mo(compiled, catalog(locale))
    assert compiled.getvalue() == mo.read_bytes(), f"{mo} is stale against its .po: pybabel compile"


def test_gettext_reads_the_shipped_catalogue():
    message = "Not a failure: PTO runs, but slowly."
    assert i18n._(message, "zh") == "不是失败：PTO 可运行，只是较慢。"
    assert i18n._(message, "en") == message
    assert i18n.LOCALE_DIR == Path(i18n.__file__).resolve().parent.parent / "locale"
