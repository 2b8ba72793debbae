"""The user's settings file updated in place (the column chooser, ``l``, the theme, the fleet
view's host columns): through tomlkit, which keeps the file's comments and layout, written through
a symlink to its target, with the target's mode, by an atomic rename (a crash never leaves half a
file). A file that cannot be read as settings is never overwritten. Imported when a setting is
saved, never on the start-up path; :mod:`ptotui.model.config` reads the file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ptotui.model.config import (
    DEFAULT_COLUMNS,
    MAX_FLEET_HOSTS,
    THEME_NAME,
    FleetSettings,
    fleet_name,
    normal_columns,
    read_settings_bytes,
)
from ptotui.model.i18n import LANGS, _

HEADER = (
    "# ptotui settings: written by ptotui (v, the column chooser; l, the language; the theme;"
    " the fleet view's host columns), edit freely\n\n"
)


def _write_atomic(path: Path, text: str) -> None:
    """A temporary file beside the file ``path`` names, then a rename: readers see the old or
    the new file. A symlink is followed (its target is what gets replaced, the link stays) and
    the file keeps its mode; a new file is readable by its owner only."""
    import stat
    import tempfile  # only when saving: off the start-up path

    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = None
    fd, temp = tempfile.mkstemp(prefix=".config-", suffix=".toml", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _load_for_update(path: Path) -> Any:
    """The settings in ``path`` as a tomlkit document to update, comments and layout kept (a
    new one with the header when there is no file); ValueError for a file ptotui cannot read
    as settings, which is then never overwritten."""
    import tomlkit  # only when saving: off the start-up path

    try:
        text = read_settings_bytes(path).decode("utf-8")
    except FileNotFoundError:
        document = tomlkit.document()
        for line in HEADER.strip().splitlines():
            document.add(tomlkit.comment(line.removeprefix("# ")))
        document.add(tomlkit.nl())
        return document
    except ValueError as exc:  # not UTF-8 (an OSError, as a FIFO or a device, propagates as before)
        said = _("{path} is not a settings file ptotui can update ({error}); left as it is")
        raise ValueError(said.format(path=path, error=exc)) from None
    try:
        import tomllib

        tomllib.loads(text)  # what every reader of the file uses: it must still read it
        return tomlkit.parse(text)
    except (ValueError, RecursionError, tomlkit.exceptions.TOMLKitError) as exc:
        said = _("{path} is not a settings file ptotui can update ({error}); left as it is")
        raise ValueError(said.format(path=path, error=exc)) from None


def _save(path: Path, document: Any) -> None:
    import tomlkit

    _write_atomic(path, tomlkit.dumps(document))


def save_lang(path: Path, lang: str | None) -> None:
    """Set ``lang`` in ``path``, keeping every other key of the file as it is (as
    :func:`save_columns`: a file ptotui cannot read is left alone, ValueError). None: the
    language the environment gives, which is not pinned: ``lang`` is taken out of the file."""
    if lang is not None and lang not in LANGS:
        raise ValueError(f"{lang!r} is not one of " + ", ".join(LANGS))
    _save_top(path, "lang", lang)


def save_theme(path: Path, theme: str | None) -> None:
    """Set ``theme`` in ``path`` as :func:`save_lang` sets ``lang``. None: the app's default
    theme, which is not kept: ``theme`` is taken out of the file (a later default then holds)."""
    if theme is not None and not THEME_NAME.fullmatch(theme):
        raise ValueError(f"{theme!r} is not a theme's name")
    _save_top(path, "theme", theme)


def _save_top(path: Path, key: str, value: str | None) -> None:
    """A top-level key of the file set to ``value``, or taken out for None."""
    if value is None and not _there(path):
        return  # nothing pinned, nothing to write
    document = _load_for_update(path)
    if value is None:
        if key not in document:
            return
        del document[key]
    elif document.get(key) == value:
        return
    else:
        document[key] = value  # tomlkit puts a new top-level key before the first table
    _save(path, document)


def save_columns(path: Path, columns: tuple[str, ...] | None) -> None:
    """Set ``table.columns`` in ``path``, keeping every other key of the file as it is. None
    (or the default columns): not set, so a later default holds; the key is taken out.

    A file that cannot be read as a settings file is never overwritten: ValueError
    (OSError when it cannot be written), and the user's file stays as it was.
    """
    chosen = None if columns is None else normal_columns(columns)  # never empty: kernel is put back
    _set_keys(path, "table", {"columns": None if chosen in (None, DEFAULT_COLUMNS) else list(chosen)})


def save_fleet(path: Path, fleet: FleetSettings) -> None:
    """Set ``[fleet]`` in ``path`` as :func:`save_columns` sets ``table.columns``: every other key
    kept; a key with nothing to keep (the order by name, nothing hidden, no reference) is taken
    out, and the ``[fleet]`` ptotui made for them alone with it. A name that could not be read
    back is not written. ValueError for a file ptotui cannot update (left as it is)."""
    wanted: dict[str, Any] = {
        "order": [name for name in fleet.order if fleet_name(name)][:MAX_FLEET_HOSTS],
        "hidden": [name for name in fleet.hidden if fleet_name(name)][:MAX_FLEET_HOSTS],
        "reference": fleet.reference if fleet_name(fleet.reference) else None,
    }
    _set_keys(path, "fleet", wanted)


def _set_keys(path: Path, name: str, wanted: dict[str, Any]) -> None:
    """Each key of ``wanted`` set in the ``[name]`` table of ``path``, every other key of the file
    kept as it is; a key whose value is empty (None, an empty list) taken out, and with the last
    of them the ``[name]`` ptotui made for them alone (nothing else and no comment in it). Nothing
    written when nothing changes. A file that cannot be read as a settings file is never
    overwritten: ValueError (OSError when it cannot be written)."""
    import tomlkit

    if not any(wanted.values()) and not _there(path):
        return
    document = _load_for_update(path)
    table = document.get(name)
    if table is not None and not isinstance(table, dict):
        raise ValueError(_("{path}: [{table}] is not a table; left as it is").format(path=path, table=name))
    if table is None:
        if not any(wanted.values()):
            return
        document[name] = table = tomlkit.table()
    changed = removed = False
    for key, value in wanted.items():
        if not value:
            if key in table:
                del table[key]
                changed = removed = True
        elif table.get(key) != value:
            table[key] = value
            changed = True
    if not changed:
        return
    made_for_these = isinstance(table, tomlkit.items.Table) and not table.trivia.comment
    if removed and made_for_these and not table.as_string().strip():
        del document[name]  # the table ptotui made for these keys alone (no comment in it)
    _save(path, document)


def _there(path: Path) -> bool:
    """Whether a settings file is at ``path`` (a removal need not create one)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True  # not a file ptotui can look at: _load_for_update says so
    return True
