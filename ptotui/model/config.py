"""The user's settings file: table columns, default sort, tier thresholds, language, keys, the
fleet view's host columns.

``$XDG_CONFIG_HOME/ptotui/config.toml`` (``~/.config/ptotui/config.toml``), or the file
``--config`` names. Read here with tomllib; updated by ptotui (the column chooser, ``l``, the
theme, the fleet view's x a < > p) in :mod:`ptotui.model.configsave`.

The file is untrusted input like any report: it may be huge, a FIFO, binary, not
TOML, or TOML of the wrong shape. Reading never raises: every problem becomes one
warning, and each key that could not be used falls back to its default.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ptotui.model.i18n import LANGS, _
from ptotui.model.present.view import SORT_KEYS
from ptotui.model.read import safefile
from ptotui.model.text import clean, one_line, visible

MAX_BYTES = 64 * 1024  # a settings file is a few hundred bytes; anything bigger is not one
# Column keys the table knows, in its default order of importance. "mark" (the change
# mark) is always first and not listed; "kernel" cannot be hidden.
COLUMNS: tuple[str, ...] = (
    "tier",
    "kernel",
    "ratio",
    "pto_ms",
    "pto",
    "baseline",
    "triage",
    "range",
    "correct",
    "gaps",
    "scalar",
    "family",
    "wave",
    "class",
    "history",
    "step",
)
DEFAULT_COLUMNS: tuple[str, ...] = tuple(c for c in COLUMNS if c not in ("history", "step"))
SORTS: tuple[str, ...] = tuple(SORT_KEYS)
# The key bindings the [keys] table may remap, by id (the app's bindings carry these ids;
# tests/app/test_keys.py checks the two agree, and the README lists them).
TIER_KEY_IDS = ("high", "mid", "slow", "baseline-blocked", "correctness-gap", "pto-blocked", "both-blocked")
KEY_IDS: tuple[str, ...] = (
    "app.quit",
    "app.interrupt",
    "app.help",
    "app.language",
    "main.filter",
    "main.detail",
    "main.blockers",
    "main.sort",
    "main.sort-back",
    "main.order",
    "main.pane-view",
    "main.clear",
    "main.tier-all",
    *(f"main.tier-{tier}" for tier in TIER_KEY_IDS),
    "main.all-blockers",
    "main.reload",
    "main.acknowledged",
    "main.investigating",
    "main.needs-upstream",
    "main.wont-fix",
    "main.clear-triage",
    "main.note",
    "main.untriaged",
    "main.changed",
    "main.mark-seen",
    "main.changes",
    "main.history",
    "main.differing",
    "main.overview",
    "main.columns",
    "main.warnings",
    "main.notices",
    "main.copy-name",
    "main.copy-reasons",
    "main.rerun",
    "main.rerun-output",
    "main.focus-next",
    "main.focus-previous",
    "table.up",
    "table.down",
    "table.page-up",
    "table.page-down",
    "table.first",
    "table.last",
    "table.open",
    "table.left",
    "table.right",
    "warnings.close",
    "notices.close",
    "warnings.next",
    "warnings.previous",
    "warnings.dismiss",
    "detail.back",
    "detail.language",
    "detail.full-text",
    "detail.charts",
    "detail.history",
    "detail.code-changes",
    "detail.quit",
    "detail.search",
    "detail.next-match",
    "detail.previous-match",
    "rundiff.back",
    "rundiff.next-file",
    "rundiff.previous-file",
    "rundiff.next-change",
    "rundiff.previous-change",
    "rundiff.pager",
    "rundiff.quit",
    "rundiff.search",
    "rundiff.next-match",
    "rundiff.previous-match",
    "detail.rerun",
    "detail.rerun-output",
    "charts.log",
    "overview.back",
    "overview.previous",
    "overview.next",
    "overview.pick",
    "columns.show-hide",
    "columns.cursor-down",
    "columns.cursor-up",
    "columns.up",
    "columns.down",
    "columns.defaults",
    "columns.done",
    "pane.down",
    "pane.up",
    "help.close",
    "note.cancel",
    "confirm.yes",
    "confirm.no",
    "output.back",
    "output.quit",
)
# A theme's name as the app's themes are named ("textual-light", "catppuccin-mocha"); which exist, the app knows.
THEME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# A key as Textual names it ("r", "ctrl+r", "f5", "question_mark", "shift+tab") or one printable character.
_KEY = re.compile(r"(?:(?:ctrl|shift|alt|meta|super|hyper)\+)*(?:[a-z0-9_]{2,24}|[^\s,+])", re.IGNORECASE)


@dataclass(frozen=True)
class RunnerSettings:
    """The ``[runner]`` table: how ``R`` re-runs a kernel (``ptotui.model.rerun``).
    ``command``: a template with ``{spec}``, ``{kernel}``, ``{family}``, ``{root}`` (None: the
    tree's own runner); ``env``: variables added to the runner's environment; ``parallel``:
    how many run at once (None: one, for one device)."""

    command: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    parallel: int | None = None


MAX_FLEET_HOSTS = 256  # names kept in each list of [fleet]; a fleet has tens of hosts
MAX_FLEET_NAME = 255  # a host's name is a git ref's last part


@dataclass(frozen=True)
class FleetSettings:
    """The ``[fleet]`` table: the fleet view's host columns as the user left them. ``order``: the
    hosts' places (empty: by name), ``hidden``: the hosts whose columns are hidden,
    ``reference``: the host pinned as the reference. The names come from git refs (untrusted);
    one that is no host of the fleet viewed is passed over, and kept (another repository's)."""

    order: tuple[str, ...] = ()
    hidden: tuple[str, ...] = ()
    reference: str | None = None


def fleet_name(value: object) -> bool:
    """Whether ``value`` can be a host's name in ``[fleet]``: a short one-line text."""
    return isinstance(value, str) and 0 < len(value) <= MAX_FLEET_NAME and clean(value) == value


@dataclass(frozen=True)
class Config:
    """Settings as read from the file; ``None`` means "not set there" (use the default)."""

    columns: tuple[str, ...] | None = None
    sort: str | None = None
    reverse: bool = False
    high: float | None = None
    mid: float | None = None
    lang: str | None = None
    keys: tuple[tuple[str, str], ...] = ()  # (binding id, "key" or "key,key"), from [keys]
    runner: RunnerSettings = field(default_factory=lambda: RunnerSettings())  # [runner]: re-runs (R)
    theme: str | None = None  # the app's theme, as the command palette names it ("nord")
    host: str | None = None  # [host] name: this bench host's name for publish (default: the hostname)
    fleet: FleetSettings = field(default_factory=lambda: FleetSettings())  # [fleet]: the fleet view's columns
    path: Path | None = field(default=None, compare=False)

    def with_columns(self, columns: tuple[str, ...] | None) -> Config:
        return replace(self, columns=columns)


def default_path() -> Path:
    """``$XDG_CONFIG_HOME/ptotui/config.toml``; ``~/.config`` when the variable is unset or relative."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "ptotui" / "config.toml"


def normal_columns(columns: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """Known keys, each once, in the given order; ``kernel`` put back if missing."""
    seen: list[str] = []
    for key in columns:
        if key in COLUMNS and key not in seen:
            seen.append(key)
    if "kernel" not in seen:
        seen.insert(1 if seen[:1] == ["tier"] else 0, "kernel")
    return tuple(seen)


def read_settings_bytes(path: Path) -> bytes:
    """The file's bytes, without blocking on a FIFO or reading a device or a huge file."""
    return safefile.read_bytes(path, min(MAX_BYTES, safefile.max_file_bytes()))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) and 0 <= number <= 10_000 else None


def _parse(data: dict[str, Any]) -> tuple[Config, list[str]]:
    problems: list[str] = []
    table = data.get("table", {})
    if not isinstance(table, dict):
        problems.append(_("[{table}] is not a table").format(table="table"))
        table = {}
    columns: tuple[str, ...] | None = None
    if "columns" in table:
        raw = table["columns"]
        if isinstance(raw, list) and all(isinstance(c, str) for c in raw):
            unknown = [c for c in raw if c not in COLUMNS]
            if unknown:
                shown = ", ".join(one_line(c, 20) for c in unknown[:5])
                problems.append(_("unknown column(s) {columns}").format(columns=shown))
            columns = normal_columns(raw)
        else:
            problems.append(_("{key} is not a list of column names").format(key="table.columns"))
    sort = table.get("sort")
    if sort is not None and sort not in SORTS:
        problems.append(_("{key} is not one of {values}").format(key="table.sort", values=", ".join(SORTS)))
        sort = None
    reverse = table.get("reverse", False)
    if not isinstance(reverse, bool):
        problems.append(_("{key} is not true or false").format(key="table.reverse"))
        reverse = False
    tiers = data.get("thresholds", {})
    if not isinstance(tiers, dict):
        problems.append(_("[{table}] is not a table").format(table="thresholds"))
        tiers = {}
    high, mid = (_number(tiers[k]) if k in tiers else None for k in ("high", "mid"))
    for key, value in (("high", high), ("mid", mid)):
        if key in tiers and value is None:
            problems.append(_("{key} is not a percentage").format(key=f"thresholds.{key}"))
    if high is not None and mid is not None and mid >= high:
        problems.append(_("{mid} is not below {high}").format(mid="thresholds.mid", high="thresholds.high"))
        high = mid = None
    lang = data.get("lang")
    if lang is not None and lang not in LANGS:
        problems.append(_("{key} is not one of {values}").format(key="lang", values=", ".join(LANGS)))
        lang = None
    theme = data.get("theme")
    if theme is not None and not (isinstance(theme, str) and THEME_NAME.fullmatch(theme)):
        problems.append(_("{key} is not a theme's name").format(key="theme"))
        theme = None
    keys = _keys(data.get("keys", {}), problems)
    runner = _runner(data.get("runner", {}), problems)
    host = _host(data.get("host", {}), problems)
    fleet = _fleet(data.get("fleet", {}), problems)
    return Config(columns, sort, reverse, high, mid, lang, keys, runner, theme, host, fleet), problems


def _fleet(table: object, problems: list[str]) -> FleetSettings:
    """``[fleet]``: ``order`` and ``hidden`` (lists of host names), ``reference`` (a host's name).
    A key of the wrong shape is left out, with a problem; a name repeated counts once."""
    if not isinstance(table, dict):
        problems.append(_("[{table}] is not a table").format(table="fleet"))
        return FleetSettings()
    lists: dict[str, tuple[str, ...]] = {}
    for key in ("order", "hidden"):
        raw = table.get(key, [])
        if isinstance(raw, list) and len(raw) <= MAX_FLEET_HOSTS and all(fleet_name(name) for name in raw):
            lists[key] = tuple(dict.fromkeys(raw))
        else:
            said = _("{key} is not a list of at most {most} host names")
            problems.append(said.format(key=f"fleet.{key}", most=MAX_FLEET_HOSTS))
            lists[key] = ()
    reference = table.get("reference")
    if reference is not None and not fleet_name(reference):
        problems.append(_("{key} is not a host's name").format(key="fleet.reference"))
        reference = None
    return FleetSettings(lists["order"], lists["hidden"], reference)


def _host(table: object, problems: list[str]) -> str | None:
    """``[host]``: ``name``, this bench host's name on its publish branch (a short text; made a
    valid branch name when published, as ``--host``'s)."""
    if not isinstance(table, dict):
        problems.append(_("[{table}] is not a table").format(table="host"))
        return None
    name = table.get("name")
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip() or len(name) > 100 or clean(name) != name:
        problems.append(_("{key} is not a host's name").format(key="host.name"))
        return None
    return name


MAX_PARALLEL = 64


def _runner(table: object, problems: list[str]) -> RunnerSettings:
    """``[runner]``: ``command`` (a string), ``env`` (a table of strings), ``parallel`` (1..64)."""
    if not isinstance(table, dict):
        problems.append(_("[{table}] is not a table").format(table="runner"))
        return RunnerSettings()
    command = table.get("command")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        problems.append(_("{key} is not a command line").format(key="runner.command"))
        command = None
    env: list[tuple[str, str]] = []
    raw_env = table.get("env", {})
    if isinstance(raw_env, dict) and all(
        isinstance(k, str) and k and "=" not in k and "\0" not in k and isinstance(v, str) and "\0" not in v
        for k, v in raw_env.items()
    ):
        env = sorted(raw_env.items())
    else:
        problems.append(_("{key} is not a table of strings").format(key="runner.env"))
    parallel = table.get("parallel")
    if parallel is not None and (
        isinstance(parallel, bool) or not isinstance(parallel, int) or not 1 <= parallel <= MAX_PARALLEL
    ):
        problems.append(_("{key} is not a number from 1 to {most}").format(key="runner.parallel", most=MAX_PARALLEL))
        parallel = None
    return RunnerSettings(command, tuple(env), parallel)


def _flat(table: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """``main.reload = "f5"`` in TOML is a table ``main`` holding ``reload``: its id is the dotted path."""
    items: list[tuple[str, Any]] = []
    for key, value in table.items():
        if isinstance(value, dict) and prefix.count(".") < 2:
            items += _flat(value, f"{prefix}{key}.")
        else:
            items.append((prefix + key, value))
    return items


def _key_name(key: str) -> str:
    """Textual's spelling: "Ctrl+O" and "F5" are "ctrl+O" and "f5" (names and modifiers are lower
    case; a single character keeps its case, "G" is shift+g)."""
    *modifiers, name = key.split("+")
    return "+".join([*(m.lower() for m in modifiers), name if len(name) == 1 else name.lower()])


def _keys(table: object, problems: list[str]) -> tuple[tuple[str, str], ...]:
    """``[keys]``: binding id = "key", "key,key" or ["key", "key"]; a bad entry is left out."""
    if not isinstance(table, dict):
        problems.append(_("[{table}] is not a table").format(table="keys"))
        return ()
    keys: list[tuple[str, str]] = []
    unknown: list[str] = []
    for binding, value in _flat(table):
        if binding not in KEY_IDS:
            unknown.append(one_line(binding, 30))
            continue
        listed = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else None
        names = [k.strip() if isinstance(k, str) else None for k in listed] if listed is not None else None
        if not names or not all(k and _KEY.fullmatch(k) for k in names):
            problems.append(_("{key} is not a key or a list of keys").format(key=f"keys.{binding}"))
            continue
        keys.append((binding, ",".join(dict.fromkeys(_key_name(k) for k in names if k))))
    if unknown:
        said = _("unknown key binding id(s) {ids} (see the README for the ids)")
        problems.append(said.format(ids=", ".join(unknown[:5])))
    return tuple(keys)


def _load_toml(path: Path) -> dict[str, Any]:
    data = read_settings_bytes(path)
    # Imported once the file is known to exist: most people have no settings file, and
    # every start-up would pay for the import (benchmarks/startup_breakdown.py, cli+model).
    import tomllib

    return tomllib.loads(data.decode("utf-8"))


def read_config(path: Path) -> tuple[Config, str | None]:
    """The settings in ``path`` and at most one warning. A missing file is no problem."""
    try:
        data = _load_toml(path)
        config, problems = _parse(data)
    except FileNotFoundError:
        return Config(path=path), None
    except (OSError, ValueError, RecursionError) as exc:  # TOMLDecodeError and UnicodeError are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return Config(path=path), _warning(path, _("{problem}; using the defaults").format(problem=reason))
    config = replace(config, path=path)
    if problems:
        said = _("{problems} (the defaults are used for these)")
        return config, _warning(path, said.format(problems=_("; ").join(problems)))
    return config, None


DEFAULT_HIGH, DEFAULT_MID = 70.0, 30.0


def _valid(high: float, mid: float) -> bool:
    return 0 <= mid < high <= 100


def merge_thresholds(high: float | None, mid: float | None, config: Config) -> tuple[float, float, str | None]:
    """The tier thresholds: each from its flag, else the settings file, else 70/30, then the
    pair checked as a whole (``high = 25`` in the file and ``--mid 10`` give 25/10). When only
    the file's values make the pair wrong (``high = 30`` alone, against the default mid of
    30), they are dropped with a warning naming the file: a settings file never stops a
    command. ValueError when the flags themselves make it wrong (``--mid 80`` alone)."""
    merged_high = high if high is not None else config.high if config.high is not None else DEFAULT_HIGH
    merged_mid = mid if mid is not None else config.mid if config.mid is not None else DEFAULT_MID
    if _valid(merged_high, merged_mid):
        return merged_high, merged_mid, None
    flags_high = high if high is not None else DEFAULT_HIGH
    flags_mid = mid if mid is not None else DEFAULT_MID
    if not _valid(flags_high, flags_mid):
        said = _("--mid ({mid}) must be below --high ({high}), both within 0..100")
        raise ValueError(said.format(mid=f"{flags_mid:g}", high=f"{flags_high:g}"))
    used = [
        f"{k} = {v:g}"
        for k, v, flag in (("high", config.high, high), ("mid", config.mid, mid))
        if v is not None and flag is None
    ]
    said = _("thresholds {values} leave mid ({mid}) not below high ({high}); using {used}")
    warning = _warning(
        config.path,
        said.format(
            values=", ".join(used), mid=f"{merged_mid:g}", high=f"{merged_high:g}", used=f"{flags_high:g}/{flags_mid:g}"
        ),
    )
    return flags_high, flags_mid, warning


def _warning(path: Path | None, text: str) -> str:
    # The path as typed, its controls escaped (clean() would show another name); the rest cleaned.
    return one_line(_("settings file {path}: {problem}").format(path=visible(path), problem=clean(text)), 400)
