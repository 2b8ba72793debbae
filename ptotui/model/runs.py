"""The bench runs themselves: ``bench/results/<family>/<kernel>/<stamp>/report.json``.

The bench runner (``python/pto_kernels/bench/runner.py`` in pto-kernels) works kernel by
kernel: it creates the run directory ``bench/results/<family>/<kernel>/<YYYYMMDDTHHMMSSZ>/``
(UTC), compiles and benchmarks both sides, writes ``report.json`` there with a plain
``write_text``, then replaces ``bench/generated/<family>/<kernel>`` with a copy of the run
directory. Every run directory with a ``report.json`` is one :class:`Run`; one without it is a
:class:`Pending` run (still running, or abandoned when the runner died).

A run is read by the rules the summary generator (``scripts/summarize_latest_regression.py``)
applies to the same file: :func:`summary_record` turns a report.json into the very record the
generator would write into ``regression_latest.json``, and the regression reader makes the
kernel of it. So the state a run gives a kernel is the state the next summary will give it.

:class:`RunsReader` reads a tree again and again, re-reading only what is new: a kernel
directory whose (inode, mtime, link count) did not change is not listed again, and a
report.json already read is not read again unless its signature changed.
"""

from __future__ import annotations

import calendar
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ptotui.model import readers, safefile
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.loader import decode
from ptotui.model.text import clean, one_line
from ptotui.model.tiers import median
from ptotui.model.types import Kernel, ReadWarning

STAMP = re.compile(r"^\d{8}T\d{6}Z$")
_STAMP_IN_PATH = re.compile(r"/results/[^/]+/[^/]+/(\d{8}T\d{6}Z)(?:/|$)")
MAX_REPORT_BYTES = 16 * 1024 * 1024  # a real run's report.json is 5-30 KB
SCHEMA = "ptotui.runs/1"


def stamp_of_time(seconds: float) -> str:
    """A file time as the runner's stamp format (UTC)."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y%m%dT%H%M%SZ")


def stamp_seconds(stamp: str) -> float | None:
    """Seconds since the epoch of a ``YYYYMMDDTHHMMSSZ`` stamp (None when it is not one).

    By slicing, not strptime: a reload derives the durations of many runs from their stamps."""
    if type(stamp) is not str or not STAMP.match(stamp):
        return None
    try:
        moment = (int(stamp[0:4]), int(stamp[4:6]), int(stamp[6:8]), int(stamp[9:11]), int(stamp[11:13]))
        return float(calendar.timegm((*moment, int(stamp[13:15]), 0, 0, 0)))
    except (ValueError, OverflowError):
        return None


# -- one report.json, by the summary generator's rules ------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def _list_of_dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if type(item) is dict] if type(value) is list else []


def _key(variant: Any) -> str:
    try:
        return json.dumps(variant, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):
        return repr(variant)


def _ratio(baseline: Any, pto: Any) -> float | None:
    b, p = readers.as_float(baseline), readers.as_float(pto)
    if b is None or p is None or p <= 0:
        return None
    return b / p * 100.0


def _passes(variant_report: dict[str, Any], benchmark: dict[str, Any]) -> bool:
    variant_correctness = _dict(variant_report.get("correctness"))
    benchmark_correctness = _dict(benchmark.get("correctness"))
    if "passes" in variant_correctness:
        return bool(variant_correctness["passes"])
    if "passes" in benchmark_correctness:
        return bool(benchmark_correctness["passes"])
    return variant_report.get("status", benchmark.get("status")) == "ok"


def _median_of(timings: Any) -> Any:
    return _dict(timings).get("median")


def summary_record(report: dict[str, Any], name: str, family: str | None, report_path: str) -> dict[str, Any]:
    """The record ``summarize_latest_regression.py`` writes for this report.json.

    Per shape: each side's median, the ratio baseline median / PTO median x 100, shapes
    matched by their ``variant``; statuses per shape falling back to the side's; correctness
    from the shape's check, else the side's, else its status. Wrong-shaped parts count as missing.
    """
    baseline = _dict(_dict(report.get("baseline")).get("benchmark"))
    pto = _dict(_dict(report.get("pto")).get("benchmark"))
    limitations = baseline.get("baseline_limitations") or []
    pto_by_variant = {_key(item.get("variant", {})): item for item in _list_of_dicts(pto.get("variant_reports"))}
    rows: list[dict[str, Any]] = []
    for baseline_variant in _list_of_dicts(baseline.get("variant_reports")):
        variant = baseline_variant.get("variant", {})
        pto_variant = pto_by_variant.get(_key(variant), {})
        baseline_ms = _median_of(baseline_variant.get("timings_ms"))
        pto_ms = _median_of(pto_variant.get("timings_ms"))
        rows.append(
            {
                "variant": variant,
                "shape_summary": baseline_variant.get("shape_summary"),
                "baseline_status": baseline_variant.get("status", baseline.get("status")),
                "pto_status": pto_variant.get("status", pto.get("status")),
                "baseline_median_ms": baseline_ms,
                "pto_median_ms": pto_ms,
                "baseline_over_pto_pct": _ratio(baseline_ms, pto_ms),
                "baseline_correct": _passes(baseline_variant, baseline),
                "pto_correct": _passes(pto_variant, pto),
                "baseline_limitations": limitations,
            }
        )
    if not rows:
        baseline_ms = _median_of(baseline.get("timings_ms"))
        pto_ms = _median_of(pto.get("timings_ms"))
        rows.append(
            {
                "variant": {},
                "shape_summary": baseline.get("shape_summary"),
                "baseline_status": baseline.get("status"),
                "pto_status": pto.get("status"),
                "baseline_median_ms": baseline_ms,
                "pto_median_ms": pto_ms,
                "baseline_over_pto_pct": _ratio(baseline_ms, pto_ms),
                "baseline_correct": _passes({}, baseline),
                "pto_correct": _passes({}, pto),
                "baseline_reason": baseline.get("reason"),
                "pto_reason": pto.get("reason"),
                "baseline_limitations": limitations,
            }
        )
    return {
        "name": name,
        "family": family,
        "report_path": report_path,
        "variants": rows,
        "baseline_status": baseline.get("status"),
        "pto_status": pto.get("status"),
        "baseline_reason": baseline.get("reason"),
        "pto_reason": pto.get("reason"),
    }


def kernel_of_report(report: dict[str, Any], name: str, family: str | None, report_path: str) -> Kernel:
    """The kernel a summary written now would show for this report.json (before the state matrix)."""
    record = summary_record(report, name, family, report_path)
    parsed, _ = readers.read_regression_json(readers.ParsedJson("", {"kernels": [record]}), report_path)
    kernels = parsed["kernels"]
    return kernels[0] if kernels else Kernel(name=name, family=family, report_path=report_path)


# -- the run record ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """One input shape of a run: each side's median and the ratio (the summary's rules)."""

    shape: Any
    baseline_ms: float | None
    pto_ms: float | None
    ratio_pct: float | None


@dataclass(frozen=True, slots=True)
class Run:
    """One run directory with its report.json.

    ``baseline_ms``/``pto_ms``: the median over shapes of the per-shape medians (None when
    that side did not run); ``*_min_ms``/``*_max_ms``: the lowest and highest per-shape median;
    ``ratio_pct``: the median over shapes of the per-shape ratios. ``finished``: the
    report.json's modification time, as a stamp. ``shapes`` only when the reader keeps them.
    """

    kernel: str
    family: str | None
    started: str
    finished: str | None
    baseline_status: str | None
    pto_status: str | None
    baseline_ms: float | None
    pto_ms: float | None
    baseline_min_ms: float | None
    baseline_max_ms: float | None
    pto_min_ms: float | None
    pto_max_ms: float | None
    ratio_pct: float | None
    baseline_correct: bool | None
    pto_correct: bool | None
    path: str
    shapes: tuple[Shape, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The ``ptotui.runs/1`` fields."""
        return {
            "kernel": self.kernel,
            "family": self.family,
            "started": self.started,
            "finished": self.finished,
            "baseline_status": self.baseline_status,
            "pto_status": self.pto_status,
            "baseline_ms": self.baseline_ms,
            "pto_ms": self.pto_ms,
            "ratio_pct": self.ratio_pct,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class Pending:
    """A run directory without report.json: a kernel running now, or a run that died."""

    kernel: str
    family: str
    started: str
    path: str


def _intern(text: str | None) -> str | None:
    return sys.intern(text) if text is not None else None


def _spread(values: list[float]) -> tuple[float | None, float | None, float | None]:
    if not values:
        return None, None, None
    return median(values), min(values), max(values)


def run_of_kernel(kernel: Kernel, started: str, finished: str | None, path: str, keep_shapes: bool = False) -> Run:
    """The run record of the kernel :func:`kernel_of_report` made of a run's report.json."""
    variants = kernel.variants
    b_med, b_min, b_max = _spread([v.baseline_ms for v in variants if v.baseline_ms is not None])
    p_med, p_min, p_max = _spread([v.pto_ms for v in variants if v.pto_ms is not None])
    ratios = [v.ratio_pct for v in variants if v.ratio_pct is not None]
    shapes = tuple(Shape(v.shape, v.baseline_ms, v.pto_ms, v.ratio_pct) for v in variants) if keep_shapes else ()
    return Run(
        kernel=sys.intern(kernel.name),
        family=_intern(kernel.family),
        started=sys.intern(started),
        finished=finished,
        baseline_status=_intern(kernel.baseline_status),
        pto_status=_intern(kernel.pto_status),
        baseline_ms=b_med,
        pto_ms=p_med,
        baseline_min_ms=b_min,
        baseline_max_ms=b_max,
        pto_min_ms=p_min,
        pto_max_ms=p_max,
        ratio_pct=median(ratios) if ratios else None,
        baseline_correct=kernel.baseline_correct,
        pto_correct=kernel.pto_correct,
        path=path,
        shapes=shapes,
    )


class RunUnreadable(Exception):
    """A report.json that cannot be used (yet): its message says why."""


def parse_report(data: bytes, name: str) -> dict[str, Any]:
    """A report.json's object, or :class:`RunUnreadable` (empty, torn, not JSON, not an object)."""
    warnings: list[ReadWarning] = []
    text = decode(data, name, warnings)
    parsed_warnings: list[ReadWarning] = []
    value = readers._load_json(text, name, parsed_warnings)  # noqa: SLF001 - the one JSON reading rule
    if value is None:
        raise RunUnreadable(parsed_warnings[0].message if parsed_warnings else _("not JSON"))
    if type(value) is not dict:
        raise RunUnreadable(_("expected a JSON object, found {type}").format(type=type(value).__name__))
    return value


def read_run(path: Path, family: str, kernel: str, started: str, keep_shapes: bool = True) -> tuple[Run, Kernel]:
    """Read one run's report.json. Raises FileNotFoundError, :class:`safefile.FileRefused`,
    OSError or :class:`RunUnreadable`."""
    data = safefile.read_bytes(path, MAX_REPORT_BYTES)
    report = parse_report(data, str(path))
    info = os.stat(path)
    name = readers.as_str(report.get("name")) or kernel
    fam = readers.as_str(report.get("family")) or family
    made = kernel_of_report(report, name if name == kernel else kernel, fam, str(path))
    return run_of_kernel(made, started, stamp_of_time(info.st_mtime), str(path), keep_shapes), made


# -- the tree ------------------------------------------------------------------------------


def _dir_signature(info: os.stat_result) -> tuple[int, int, int]:
    # A directory's link count moves with its subdirectories: a run directory made within
    # the mtime's tick still changes the signature.
    return info.st_ino, info.st_mtime_ns, info.st_nlink


def _file_signature(info: os.stat_result) -> int:
    """What says a report.json changed: its inode, size and mtime, held as one int (a
    tuple of three is ~170 bytes a run; 500,000 runs are the scale this is read at)."""
    return hash((info.st_ino, info.st_size, info.st_mtime_ns))


@dataclass(slots=True)
class _Entry:
    """One run directory as last read (slots: one of these per run)."""

    signature: int | None = None  # of its report.json (_file_signature); None: none there
    run: Run | None = None
    kernel: Kernel | None = None
    warning: ReadWarning | None = None


@dataclass
class _KernelDir:
    signature: tuple[int, int, int] | None = None
    entries: dict[str, _Entry] = field(default_factory=dict)
    warnings: list[ReadWarning] = field(default_factory=list)  # of the directory's own names


@dataclass
class RunLog:
    """Every run of a tree at one read: finished runs oldest first, pending ones, warnings.

    ``landed``: the runs this read found that the reader's previous read had not (all of
    them on the first read).
    """

    runs: list[Run]
    pending: list[Pending]
    warnings: list[ReadWarning]
    landed: list[Run] = field(default_factory=list)

    def by_kernel(self) -> dict[str, list[Run]]:
        out: dict[str, list[Run]] = {}
        for run in self.runs:
            out.setdefault(run.kernel, []).append(run)
        return out


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _subdirs(path: Path, what: str, warnings: list[ReadWarning]) -> Iterator[tuple[str, Path]]:
    """The subdirectories of ``path`` (symlinks and other files named once each, not followed)."""
    try:
        with os.scandir(path) as listing:
            items = list(listing)
    except FileNotFoundError:
        return
    except OSError as exc:
        warnings.append(ReadWarning(str(path), _("cannot be listed: {error}").format(error=clean(exc.strerror or exc))))
        return
    for item in sorted(items, key=lambda i: i.name):
        try:
            if item.is_symlink():
                said = _("is a symlink; not followed as a {what}").format(what=_(what))
                warnings.append(ReadWarning(item.path, said))
                continue
            if not item.is_dir(follow_symlinks=False):
                continue  # a stray file beside the run directories: nothing to say
        except OSError:
            continue
        yield item.name, Path(item.path)


GENERATED_GRACE_S = 10.0  # a generated report that vanished (rmtree + copytree) is kept this long


@dataclass
class _Generated:
    """One ``bench/generated/<family>/<kernel>/report.json`` as last read."""

    signature: tuple[int, int, int] | None = None
    run: Run | None = None
    kernel: Kernel | None = None
    warning: ReadWarning | None = None
    missing_since: float | None = None  # monotonic time it was first found gone


class RunsReader:
    """Reads ``bench/results`` (and ``bench/generated``) of one bench directory, incrementally.

    Each :meth:`read` returns a new :class:`RunLog`; one returned earlier is never changed.
    When nothing changed since the last read, the lists are the same objects as last time.
    ``keep_shapes``: keep each run's per-shape medians (the run log keeps only its figures).
    ``generated``: also the latest report of each kernel in ``bench/generated`` whose run
    directory is not in ``bench/results`` (a run directory removed, or never kept). One that
    vanishes is kept for :data:`GENERATED_GRACE_S` seconds: the runner replaces it by
    ``rm -rf`` and a copy, and the kernel must not flash as gone in between.

    Only the newest run of each kernel keeps the kernel its report gives (:meth:`kernel_of`);
    the others keep their figures only.
    """

    def __init__(
        self,
        bench: Path,
        keep_shapes: bool = False,
        generated: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.bench = Path(bench)
        self.keep_shapes = keep_shapes
        self.generated = generated
        self.monotonic = monotonic
        self._kernels: dict[tuple[str, str], _KernelDir] = {}
        self._generated: dict[tuple[str, str], _Generated] = {}
        self._seen: set[str] = set()
        self._by_path: dict[str, Kernel] = {}
        self._changed = True
        self.version = 0  # counts the reads that found something changed
        self._last: RunLog | None = None
        self._top_warnings: list[ReadWarning] = []

    @property
    def results(self) -> Path:
        return self.bench / "results"

    def kernel_of(self, run: Run) -> Kernel | None:
        """The kernel a run's report.json gives (the summary's rules), for each kernel's newest run."""
        return self._by_path.get(run.path)

    @property
    def kernels_by_path(self) -> dict[str, Kernel]:
        return self._by_path

    def pending_dirs(self) -> list[Path]:
        """The run directories without report.json, as last read (a watch on each sees it land)."""
        if self._last is None:
            return []
        return [Path(p.path) for p in self._last.pending]

    def kernel_dirs(self) -> list[Path]:
        """The family directories of results/ and generated/, as last read (the watched levels)."""
        families = {self.results / family for family, _ in self._kernels}
        families |= {self.bench / "generated" / family for family, _ in self._generated}
        return sorted(families)

    def read(self) -> RunLog:
        top: list[ReadWarning] = []
        present: set[tuple[str, str]] = set()
        for family, family_dir in _subdirs(self.results, N_("family directory"), top):
            for kernel, kernel_dir in _subdirs(family_dir, N_("kernel directory"), top):
                present.add((family, kernel))
                self._read_kernel(family, kernel, kernel_dir)
        for gone in set(self._kernels) - present:
            del self._kernels[gone]
            self._changed = True
        if self.generated:
            self._read_generated(top)
        if top != self._top_warnings:
            self._top_warnings = top
            self._changed = True
        if not self._changed and self._last is not None:
            last = self._last
            return RunLog(last.runs, last.pending, last.warnings, [])
        self._changed = False
        self.version += 1
        log = self._assemble()
        self._last = log
        return log

    def _assemble(self) -> RunLog:
        warnings = list(self._top_warnings)
        runs: list[Run] = []
        pending: list[Pending] = []
        by_path: dict[str, Kernel] = {}
        for (family, kernel), kdir in self._kernels.items():
            warnings.extend(kdir.warnings)
            newest: _Entry | None = None
            for stamp in sorted(kdir.entries):
                entry = kdir.entries[stamp]
                if entry.warning is not None:
                    warnings.append(entry.warning)
                if entry.run is not None:
                    runs.append(entry.run)
                    newest = entry
                elif entry.signature is None and entry.warning is None:
                    pending.append(Pending(kernel, family, stamp, str(self.results / family / kernel / stamp)))
            for entry in kdir.entries.values():  # only the newest keeps its kernel: memory
                if entry is not newest and entry.kernel is not None:
                    entry.kernel = None
            if newest is not None and newest.run is not None and newest.kernel is not None:
                by_path[newest.run.path] = newest.kernel
        have = {(run.kernel, run.started) for run in runs}
        newest_started: dict[str, str] = {}
        for run in runs:
            newest_started[run.kernel] = max(run.started, newest_started.get(run.kernel, ""))
        for gen in self._generated.values():
            if gen.warning is not None:
                warnings.append(gen.warning)
            copy = gen.run
            if copy is None or (copy.kernel, copy.started) in have:
                continue
            runs.append(copy)
            if gen.kernel is not None and copy.started > newest_started.get(copy.kernel, ""):
                by_path[copy.path] = gen.kernel
        runs.sort(key=lambda r: (r.started, r.kernel))
        pending.sort(key=lambda p: (p.started, p.kernel))
        landed = [run for run in runs if run.path not in self._seen]
        self._seen = {run.path for run in runs}
        self._by_path = by_path
        return RunLog(runs, pending, warnings, landed)

    def _read_kernel(self, family: str, kernel: str, path: Path) -> None:
        kdir = self._kernels.setdefault((family, kernel), _KernelDir())
        info = _lstat(path)
        signature = _dir_signature(info) if info is not None else None
        if signature != kdir.signature or signature is None:
            kdir.signature = signature
            names: dict[str, Path] = {}
            warnings: list[ReadWarning] = []
            odd: list[str] = []
            for name, run_dir in _subdirs(path, N_("run directory"), warnings):
                if STAMP.match(name):
                    names[name] = run_dir
                else:
                    odd.append(name)
            if odd:  # one warning for the kernel's directory, however many (debug_probe, debug_probe2, ...)
                shown = ", ".join(one_line(clean(n), 40) for n in odd[:3])
                if len(odd) > 3:
                    shown = _("{shown} and {n} more").format(shown=shown, n=len(odd) - 3)
                said = ngettext(
                    "a directory not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    "{n} directories not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    len(odd),
                )
                warnings.append(ReadWarning(str(path), said.format(n=len(odd), shown=shown)))
            if set(names) != set(kdir.entries) or warnings != kdir.warnings:
                self._changed = True
            kdir.warnings = warnings
            # The stamp interned here is the very string its Run keeps as ``started``: one copy.
            kdir.entries = {sys.intern(name): kdir.entries.get(name) or _Entry() for name in sorted(names)}
        for stamp, entry in kdir.entries.items():
            if entry.run is None or entry.warning is not None:
                self._read_entry(family, kernel, stamp, path / stamp / "report.json", entry)

    def _read_entry(self, family: str, kernel: str, stamp: str, path: Path, entry: _Entry) -> None:
        info = _lstat(path)
        if info is None:
            if entry.signature is not None or entry.run is not None or entry.warning is not None:
                self._changed = True
            entry.signature, entry.run, entry.kernel, entry.warning = None, None, None, None
            return
        signature = _file_signature(info)
        if signature == entry.signature:
            return  # the same torn or refused file as last time: its warning stands
        self._changed = True
        entry.signature = signature
        entry.run = entry.kernel = entry.warning = None
        if stat.S_ISLNK(info.st_mode):
            entry.warning = ReadWarning(str(path), _("is a symlink; not followed"))
            return
        try:
            entry.run, entry.kernel = read_run(path, family, kernel, stamp, self.keep_shapes)
        except FileNotFoundError:
            entry.signature = None  # gone between the stat and the read: looked at again next time
        except safefile.FileRefused as exc:
            entry.warning = ReadWarning(str(path), exc.message)
        except RunUnreadable as exc:
            entry.warning = ReadWarning(str(path), str(exc))
        except OSError as exc:
            entry.warning = ReadWarning(
                str(path), _("cannot be read: {error}").format(error=clean(exc.strerror or exc))
            )

    def _read_generated(self, top: list[ReadWarning]) -> None:
        present: set[tuple[str, str]] = set()
        now = self.monotonic()
        for family, family_dir in _subdirs(self.bench / "generated", N_("family directory"), top):
            for kernel, kernel_dir in _subdirs(family_dir, N_("kernel directory"), top):
                key = (family, kernel)
                path = kernel_dir / "report.json"
                info = _lstat(path)
                if info is None:
                    continue  # being replaced, or a kernel without a report yet: the grace below
                present.add(key)
                gen = self._generated.setdefault(key, _Generated())
                gen.missing_since = None
                signature = (info.st_ino, info.st_size, info.st_mtime_ns)
                if signature == gen.signature:
                    continue
                self._read_one_generated(gen, path, family, kernel, info, signature)
        for key in set(self._generated) - present:
            gen = self._generated[key]
            if gen.missing_since is None:
                gen.missing_since = now
            elif now - gen.missing_since > GENERATED_GRACE_S:
                del self._generated[key]
                self._changed = True

    def _read_one_generated(
        self, gen: _Generated, path: Path, family: str, kernel: str, info: os.stat_result, signature: tuple
    ) -> None:
        self._changed = True
        gen.signature, gen.warning = signature, None
        if stat.S_ISLNK(info.st_mode):
            gen.run = gen.kernel = None
            gen.warning = ReadWarning(str(path), _("is a symlink; not followed"))
            return
        try:
            report = parse_report(safefile.read_bytes(path, MAX_REPORT_BYTES), str(path))
        except FileNotFoundError:
            gen.signature = None
            return
        except (safefile.FileRefused, RunUnreadable) as exc:
            gen.warning = ReadWarning(str(path), str(exc))
        except OSError as exc:
            gen.warning = ReadWarning(str(path), _("cannot be read: {error}").format(error=clean(exc.strerror or exc)))
        else:
            started = started_of_path(readers.as_str(report.get("report_path"))) or started_of_path(
                readers.as_str(report.get("artifacts_dir"))
            )
            if started is None:  # not a copy of a run directory (written some other way): not a run
                gen.run = gen.kernel = None
                return
            made = kernel_of_report(report, kernel, readers.as_str(report.get("family")) or family, str(path))
            gen.kernel = made
            gen.run = run_of_kernel(made, started, stamp_of_time(info.st_mtime), str(path), self.keep_shapes)
            return
        # A torn copy (copytree still writing): the last good run stands, with the warning, until
        # the file reads whole (its signature changes then).


def started_of_path(text: str | None) -> str | None:
    """The run stamp in a report's ``report_path``/``artifacts_dir`` (…/results/f/k/<stamp>/…)."""
    match = _STAMP_IN_PATH.search((text or "").replace("\\", "/"))
    return match.group(1) if match else None


def read_runs(bench: Path, keep_shapes: bool = False) -> RunLog:
    """Every run of a bench directory, once: ``bench/results`` and what only ``bench/generated`` holds."""
    return RunsReader(bench, keep_shapes).read()
