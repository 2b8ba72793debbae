"""The repeated measurements a comparison has to hand, read from a bench tree (a
directory on disk, or a revision of a git repository), for :mod:`ptotui.model.core.noise`.

Per kernel and side:

- ``history``: ``bench/results/<family>/<kernel>/<stamp>/report.json``, the runs of the
  newer tree, oldest first with their stamps (the newest ``HISTORY_READ``: a band takes the
  window of those at or before its reference);
- ``rounds``: the rounds of ``reports/kernel_parity_latest.json`` (the same code measured again);
- ``spreads``: the per-shape min and median of ``bench/generated/<family>/<kernel>/report.json``
  in both trees compared.

A file that cannot be read is one warning naming it, and that kernel's band comes from what
is left (at worst the default).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from ptotui.model.core.environment import environment_of
from ptotui.model.core.noise import FLOOR_PCT, HISTORY_READ, Noise, SideNoise, empty_side, shape_key
from ptotui.model.i18n import _
from ptotui.model.location import STAMP
from ptotui.model.read import jsonstream, safefile
from ptotui.model.read.values import as_float
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReadWarning

if TYPE_CHECKING:
    from ptotui.model.history.gitreports import Repository
    from ptotui.model.location import Location

SIDES = ("pto", "baseline")
MAX_REPORT_BYTES = 16 * 1024 * 1024  # a real run's report.json is 5-30 KB
_NAME = re.compile(r"^[A-Za-z0-9_.+-]{1,200}$")  # a family or kernel name that is a plain path part
_GENERATED = re.compile(r"(?:^|/)generated/([^/]+)/([^/]+)/report\.json$")


class Tree(Protocol):
    """A bench directory to read from: paths are relative to it (``results/gmm``)."""

    label: str

    def names(self, path: str) -> list[str] | None: ...

    def read(self, path: str) -> bytes | None: ...


@dataclass
class DiskTree:
    """A bench directory on disk."""

    bench: Path
    label: str = ""

    def names(self, path: str) -> list[str] | None:
        try:
            return sorted(entry.name for entry in (self.bench / path).iterdir())
        except OSError:
            return None

    def read(self, path: str) -> bytes | None:
        try:
            return safefile.read_bytes(self.bench / path, MAX_REPORT_BYTES)
        except FileNotFoundError:
            return None

    def name(self, path: str) -> str:
        return str(self.bench / path)


@dataclass
class GitTree:
    """The bench directory of one commit of a repository."""

    repository: Repository
    commit: str
    bench: str  # relative to the repository root ("" is the root)
    label: str = ""

    def _path(self, path: str) -> str:
        return f"{self.bench}/{path}" if self.bench else path

    def names(self, path: str) -> list[str] | None:
        entries = self.repository.tree(self.commit, self._path(path))
        return sorted(entries) if entries is not None else None

    def read(self, path: str) -> bytes | None:
        directory, _, name = self._path(path).rpartition("/")
        entries = self.repository.tree(self.commit, directory)
        entry = (entries or {}).get(name)
        if entry is None or not entry[0].startswith("10"):  # a regular blob only
            return None
        return self.repository.blob(entry[1], MAX_REPORT_BYTES)

    def name(self, path: str) -> str:
        return f"{self.label}:{self._path(path)}"


def _name_of(tree: Tree, path: str) -> str:
    namer = getattr(tree, "name", None)
    return namer(path) if callable(namer) else path


def _json(tree: Tree, path: str, warnings: list[ReadWarning]) -> Any:
    try:
        data = tree.read(path)
    except OSError as exc:  # not a regular file, over the cap, unreadable
        said = _("{problem}; not used for noise bands").format(problem=one_line(clean(exc), 160))
        warnings.append(ReadWarning(_name_of(tree, path), said))
        return None
    if data is None:
        return None
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        pass  # NaN literals (the runner's json.dumps writes them), or not JSON: the careful parser says
    try:
        return jsonstream.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        if not data.strip():
            message = _("file is empty")
        else:
            message = _("invalid JSON ({error})").format(error=one_line(clean(exc), 80))
        said = _("{problem}; not used for noise bands").format(problem=message)
        warnings.append(ReadWarning(_name_of(tree, path), said))
        return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def side_timings(report: Any, side: str) -> dict[str, tuple[float | None, float]]:
    """One side of a run's report.json: shape key -> (min, median) ms, shapes that ran only."""
    bench = _dict(_dict(_dict(report).get(side)).get("benchmark"))
    if bench.get("status") == "blocked":
        return {}
    out: dict[str, tuple[float | None, float]] = {}
    for item in _dicts(bench.get("variant_reports")):
        timings = _dict(item.get("timings_ms"))
        middle = as_float(timings.get("median"))
        if middle is not None and middle > 0 and item.get("status") != "blocked":
            out[shape_key(item.get("variant"), item.get("shape_summary"))] = (as_float(timings.get("min")), middle)
    if not out:  # a report without shapes: its one timing
        timings = _dict(bench.get("timings_ms"))
        middle = as_float(timings.get("median"))
        if middle is not None and middle > 0:
            out[shape_key({}, None)] = (as_float(timings.get("min")), middle)
    return out


def _plain(name: str | None) -> str | None:
    return name if name and _NAME.match(name) and name not in (".", "..") else None


def family_of(kernel: Kernel) -> str | None:
    """The kernel's family: the reports' own, else the one in its report path."""
    if _plain(kernel.family):
        return kernel.family
    match = _GENERATED.search((kernel.report_path or "").replace("\\", "/"))
    return _plain(match.group(1)) if match else None


def _medians(timings: dict[str, tuple[float | None, float]]) -> dict[str, float]:
    return {key: middle for key, (_, middle) in timings.items()}


def _spreads(timings: dict[str, tuple[float | None, float]]) -> list[tuple[float, float]]:
    return [(low, middle) for low, middle in timings.values() if low is not None]


@dataclass
class _Collected:
    sides: dict[str, SideNoise] = field(default_factory=lambda: {side: empty_side() for side in SIDES})


def _history(tree: Tree, family: str, name: str, collected: _Collected, warnings: list[ReadWarning]) -> None:
    stamps = [s for s in tree.names(f"results/{family}/{name}") or [] if STAMP.match(s)]
    for stamp in stamps[-HISTORY_READ:]:
        report = _json(tree, f"results/{family}/{name}/{stamp}/report.json", warnings)
        if report is None:
            continue
        for side in SIDES:
            timings = side_timings(report, side)
            if timings:
                collected.sides[side].history.append(_medians(timings))
                collected.sides[side].stamps.append(stamp)
                collected.sides[side].run_spreads.append(_spreads(timings))
                collected.sides[side].environments.append(environment_of(report))


def _generated(tree: Tree, family: str, name: str, collected: _Collected, warnings: list[ReadWarning]) -> None:
    report = _json(tree, f"generated/{family}/{name}/report.json", warnings)
    for side in SIDES:
        spread = _spreads(side_timings(report, side)) if report is not None else []
        if spread:
            collected.sides[side].spreads.append(spread)


def _rounds(tree: Tree, reports: str, warnings: list[ReadWarning]) -> dict[str, dict[str, list[dict[str, float]]]]:
    """kernel -> side -> one point per round, from the parity summary."""
    data = _json(tree, f"{reports}/kernel_parity_latest.json", warnings)
    out: dict[str, dict[str, list[dict[str, float]]]] = {}
    for record in _dicts(_dict(data).get("kernels")):
        name = record.get("name")
        if not isinstance(name, str):
            continue
        per_side: dict[str, list[dict[str, float]]] = {side: [] for side in SIDES}
        for round_ in _dicts(record.get("rounds")):
            for side in SIDES:
                point = {}
                for row in _dicts(round_.get("variant_rows")):
                    value = as_float(row.get(f"{side}_median_ms"))
                    if value is not None and value > 0:
                        point[shape_key(row.get("variant"), row.get("shape_summary"))] = value
                if point:
                    per_side[side].append(point)
        out[clean(name)] = per_side
    return out


def collect(
    old: Tree | None,
    new: Tree | None,
    kernels: Iterable[Kernel],
    reports: str = "reports",
    floor: float = FLOOR_PCT,
) -> tuple[Noise, list[ReadWarning]]:
    """The noise of ``kernels`` from the two trees compared (either may be None: a snapshot
    file, or a reports directory whose earlier files are gone), read per kernel on first asking.

    ``reports`` is the reports directory relative to the bench directory (for the parity
    rounds). The warnings list fills as kernels are read."""
    warnings: list[ReadWarning] = []
    by_name = {kernel.name: kernel for kernel in kernels}
    rounds: dict[str, dict[str, list[dict[str, float]]]] | None = None

    def load(name: str) -> dict[str, SideNoise]:
        nonlocal rounds
        if rounds is None:
            rounds = _rounds(new, reports, warnings) if new is not None else {}
        collected = _Collected()
        kernel = by_name.get(name)
        family, plain = (family_of(kernel), _plain(kernel.name)) if kernel is not None else (None, None)
        if family and plain:
            if new is not None:
                _history(new, family, plain, collected, warnings)
            for tree in (old, new):
                if tree is not None:
                    _generated(tree, family, plain, collected, warnings)
        for side in SIDES:
            collected.sides[side].rounds.extend(rounds.get(name, {}).get(side, []))
        return collected.sides

    return Noise({}, floor, load), warnings


def bench_noise(
    location: Location, kernels: Iterable[Kernel], floor: float = FLOOR_PCT
) -> tuple[Noise, list[ReadWarning]]:
    """The noise of ``kernels`` from the bench tree as it is now: its runs, parity rounds and
    generated reports (the earlier reports' own files are gone, rewritten)."""
    try:
        inside = location.reports.relative_to(location.bench).as_posix()
    except ValueError:
        inside = "reports"
    return collect(None, DiskTree(location.bench), kernels, inside, floor)
