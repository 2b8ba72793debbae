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

import bisect
import calendar
import heapq
import json
import os
import re
import stat
import sys
import time
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, overload

import orjson

from ptotui.model.core.tiers import median
from ptotui.model.i18n import N_, _, ngettext
from ptotui.model.read import readers, safefile
from ptotui.model.read.loader import decode
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReadWarning, no_items, shared_if_empty

STAMP = re.compile(r"^\d{8}T\d{6}Z$")
_STAMP_IN_PATH = re.compile(r"/results/[^/]+/[^/]+/(\d{8}T\d{6}Z)(?:/|$)")
SCHEMA = "ptotui.runs/1"
NEWEST_STAMP = "99991231T235959Z"  # later than any run


def stamp_of_time(seconds: float) -> str:
    """A file time as the runner's stamp format (UTC)."""
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y%m%dT%H%M%SZ")


def stamp_seconds(stamp: str) -> float | None:
    """Seconds since the epoch of a ``YYYYMMDDTHHMMSSZ`` stamp (None when it is not one).

    By slicing, not strptime: a reload derives the durations of many runs from their stamps.
    A stamp of no real time (month 13, 99:99:99) is not one: ``datetime`` checks the fields."""
    if type(stamp) is not str or not STAMP.match(stamp):
        return None
    try:
        moment = (int(stamp[0:4]), int(stamp[4:6]), int(stamp[6:8]), int(stamp[9:11]), int(stamp[11:13]))
        datetime(*moment, int(stamp[13:15]))  # raises ValueError for a field out of its range
        return float(calendar.timegm((*moment, int(stamp[13:15]), 0, 0, 0)))
    except (ValueError, OverflowError):
        return None


# -- one report.json, by the summary generator's rules ------------------------------------


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def _list_of_dicts(value: Any) -> list[dict[str, Any]]:
    return [item for item in value if type(item) is dict] if type(value) is list else []


def _key(variant: Any) -> str | bytes:
    """What matches a baseline shape with its PTO shape: the variant's JSON with sorted keys
    (orjson: a fifth of the time json takes, and half a million runs are read; json for what
    orjson does not write, such as integers past 64 bits)."""
    try:
        return orjson.dumps(variant, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        pass
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
    parsed, _ = readers.read_regression_json(readers.ParsedJson({"kernels": [record]}), report_path)
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
        started=started,
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


def read_run(path: Path | str, family: str, kernel: str, started: str, keep_shapes: bool = True) -> tuple[Run, Kernel]:
    """Read one run's report.json. Raises FileNotFoundError, :class:`safefile.FileRefused`,
    OSError or :class:`RunUnreadable`. (A path as a string: pathlib interns every part of a
    path, and half a million run directories would leave the interpreter's table of interned
    strings that large.)"""
    name_of = os.fspath(path)
    data = safefile.read_bytes(name_of)  # the cap --max-file-mb sets (a real run's report.json is 5-30 KB)
    report = parse_report(data, name_of)
    info = os.stat(name_of)
    name = readers.as_str(report.get("name")) or kernel
    fam = readers.as_str(report.get("family")) or family
    made = kernel_of_report(report, name if name == kernel else kernel, fam, name_of)
    return run_of_kernel(made, started, stamp_of_time(info.st_mtime), name_of, keep_shapes), made


# -- the tree, held as columns -------------------------------------------------------------
#
# 10,000 kernels x 50 runs is the scale this is read at: one object per run (a Run, its path, its
# stamp, a signature) held ~1 KB a run, 500 MB in all. Each kernel directory's runs are held as
# a few arrays instead (55 bytes a run in the dashboard, 83 in a command); a Run record is made
# only when one is asked for (the kernel a screen shows, the run log a command prints).

UNREAD, NO_REPORT, READ, REFUSED = 0, 1, 2, 3  # the state of a run directory's report.json
_FIGURES = 7  # baseline_ms, pto_ms, baseline_min, baseline_max, pto_min, pto_max, ratio_pct
_NAN = float("nan")
_NO_FINISH = 0
PUBLISH_EVERY = 256  # kernel directories of history read between two publishes of a long read


FloatCode = Literal["d", "f"]  # a figure column's: 8-byte floats, or 4-byte (RunsReader's precise=False)


def _int_code(statuses: array[int]) -> Literal["H", "I"]:
    return "I" if statuses.typecode == "I" else "H"


def _code_of(figures: array[float]) -> FloatCode:
    return "f" if figures.typecode == "f" else "d"


def _stamp_number(stamp: str) -> int:
    """``20260316T031000Z`` as 20260316031000: it sorts as the stamp does and turns back exactly."""
    return int(stamp[:8] + stamp[9:15])


def _stamp_text(number: int) -> str:
    digits = f"{number:014d}"
    return f"{digits[:8]}T{digits[8:]}Z"


def _number_or_none(value: float) -> float | None:
    return None if value != value else value  # NaN: that side did not run


def _flag(value: bool | None) -> int:
    return -1 if value is None else int(bool(value))


def _unflag(value: int) -> bool | None:
    return None if value < 0 else bool(value)


class _Statuses:
    """The distinct status texts of one reader, each held once; a run holds their indexes."""

    def __init__(self) -> None:
        self.texts: list[str | None] = [None]  # append-only: views made earlier index it too
        self._index: dict[str | None, int] = {None: 0}

    def code(self, text: str | None) -> int:
        found = self._index.get(text)
        if found is None:
            found = self._index[text] = len(self.texts)
            self.texts.append(text)
        return found


def _file_signature(info: os.stat_result) -> int:
    """What says a report.json changed: a 31-bit hash of its inode, size and mtime (never -1,
    which stands for "no signature"; 4 bytes a run: a change goes unseen once in 2**31)."""
    return hash((info.st_ino, info.st_size, info.st_mtime_ns)) & 0x7FFFFFFF


def _finish_seconds(stamp: str | None) -> int:
    """A finish stamp as seconds since the epoch in 4 bytes (0: none, or outside 1970..2106)."""
    seconds = stamp_seconds(stamp) if stamp else None
    return int(seconds) if seconds is not None and 0 < seconds < 2**32 else _NO_FINISH


_NO_SIGNATURE = -1


class _Block:
    """One kernel directory's run directories, oldest first, as columns.

    Rows: every directory named as a stamp. ``state`` says whether its report.json was read
    (READ), is not there (NO_REPORT: running, or the runner died), could not be used (REFUSED:
    ``warnings`` says why), or was not read yet (UNREAD: the history is read after the newest
    run of every kernel). A block a :class:`RunView` holds is never changed: the reader changes
    a copy (:meth:`copy`) and publishes that.
    """

    __slots__ = (
        "family",
        "kernel",
        "stamps",
        "state",
        "signatures",
        "finished",
        "statuses",
        "figures",
        "correct",
        "warnings",
        "newest_kernel",
        "newest_stamp",
        "read",
        "unread",
        "missing",
    )

    def __init__(self, family: str, kernel: str, figures: FloatCode = "d") -> None:
        self.family = sys.intern(family)
        self.kernel = sys.intern(kernel)
        self.stamps = array("q")
        self.state = array("b")
        self.signatures = array("i")
        self.finished = array("I")  # seconds since the epoch
        self.statuses = array("H")  # two a row: baseline, PTO ("I" once a code passes 65,535)
        self.figures = array(figures)  # _FIGURES a row, NaN for None ("d", or "f": see RunsReader)
        self.correct = array("b")  # two a row: -1 None, 0 False, 1 True
        self.warnings: dict[int, ReadWarning] | None = None  # by stamp number: the REFUSED rows'
        self.newest_kernel: Kernel | None = None  # what the report of the row stamped newest_stamp gives
        self.newest_stamp = -1
        self.read = self.unread = self.missing = 0  # rows READ, UNREAD, NO_REPORT

    def copy(self) -> _Block:
        other = _Block.__new__(_Block)
        other.family, other.kernel = self.family, self.kernel
        other.stamps, other.state, other.signatures = self.stamps[:], self.state[:], self.signatures[:]
        other.finished, other.statuses, other.figures = self.finished[:], self.statuses[:], self.figures[:]
        other.correct, other.warnings = self.correct[:], dict(self.warnings) if self.warnings else None
        other.newest_kernel, other.newest_stamp = self.newest_kernel, self.newest_stamp
        other.read, other.unread, other.missing = self.read, self.unread, self.missing
        return other

    def recount(self) -> None:
        state = self.state
        self.read, self.unread, self.missing = state.count(READ), state.count(UNREAD), state.count(NO_REPORT)

    def relist(self, stamps: list[int]) -> None:
        """The rows for these stamps (sorted): rows kept where the stamp stays, new ones UNREAD.
        Each column is made whole at its size (appending row by row over-allocates)."""
        old = {stamp: row for row, stamp in enumerate(self.stamps)}
        rows = [old.get(stamp, -1) for stamp in stamps]
        f = _FIGURES
        self.state = array("b", [self.state[r] if r >= 0 else UNREAD for r in rows])
        self.signatures = array("i", [self.signatures[r] if r >= 0 else _NO_SIGNATURE for r in rows])
        self.finished = array("I", [self.finished[r] if r >= 0 else _NO_FINISH for r in rows])
        statuses, figures, correct = self.statuses, self.figures, self.correct
        self.statuses = array(_int_code(statuses), [statuses[2 * r + i] if r >= 0 else 0 for r in rows for i in (0, 1)])
        code = _code_of(figures)
        self.figures = array(code, [figures[f * r + i] if r >= 0 else _NAN for r in rows for i in range(f)])
        self.correct = array("b", [correct[2 * r + i] if r >= 0 else -1 for r in rows for i in (0, 1)])
        self.stamps = array("q", stamps)
        kept = set(stamps)
        if self.warnings:
            self.warnings = {stamp: w for stamp, w in self.warnings.items() if stamp in kept} or None
        self.recount()

    def set_run(self, row: int, run: Run, signature: int, codes: tuple[int, int]) -> None:
        self.set_state(row, READ, signature)
        self.finished[row] = _finish_seconds(run.finished)
        if max(codes) > 0xFFFF and self.statuses.typecode == "H":  # a tree with 65,536 distinct statuses
            self.statuses = array("I", self.statuses)
        self.statuses[2 * row], self.statuses[2 * row + 1] = codes
        self.figures[_FIGURES * row : _FIGURES * row + _FIGURES] = array(
            _code_of(self.figures),
            (
                _NAN if value is None else value
                for value in (
                    run.baseline_ms,
                    run.pto_ms,
                    run.baseline_min_ms,
                    run.baseline_max_ms,
                    run.pto_min_ms,
                    run.pto_max_ms,
                    run.ratio_pct,
                )
            ),
        )
        self.correct[2 * row] = _flag(run.baseline_correct)
        self.correct[2 * row + 1] = _flag(run.pto_correct)

    def set_state(self, row: int, state: int, signature: int, warning: ReadWarning | None = None) -> None:
        self.state[row] = state
        self.signatures[row] = signature
        stamp = self.stamps[row]
        if warning is None:
            if self.warnings and self.warnings.pop(stamp, None) is not None and not self.warnings:
                self.warnings = None
        elif self.warnings is None:
            self.warnings = {stamp: warning}
        else:
            self.warnings[stamp] = warning

    def kernel_of_newest(self) -> Kernel | None:
        """The kernel the newest READ row's report gives (None when that row's was not kept:
        a newer run directory removed since)."""
        row = self.newest_row()
        return self.newest_kernel if row >= 0 and self.stamps[row] == self.newest_stamp else None

    def newest_row(self) -> int:
        state = self.state
        for row in range(len(state) - 1, -1, -1):
            if state[row] == READ:
                return row
        return -1

    def path(self, row: int, results: str) -> str:
        return os.path.join(results, self.family, self.kernel, _stamp_text(self.stamps[row]), "report.json")

    def run(self, row: int, results: str, statuses: list[str | None]) -> Run:
        figures = self.figures[_FIGURES * row : _FIGURES * row + _FIGURES]
        finished = self.finished[row]
        return Run(
            kernel=self.kernel,
            family=self.family,
            started=_stamp_text(self.stamps[row]),
            finished=stamp_of_time(finished) if finished != _NO_FINISH else None,
            baseline_status=statuses[self.statuses[2 * row]],
            pto_status=statuses[self.statuses[2 * row + 1]],
            baseline_ms=_number_or_none(figures[0]),
            pto_ms=_number_or_none(figures[1]),
            baseline_min_ms=_number_or_none(figures[2]),
            baseline_max_ms=_number_or_none(figures[3]),
            pto_min_ms=_number_or_none(figures[4]),
            pto_max_ms=_number_or_none(figures[5]),
            ratio_pct=_number_or_none(figures[6]),
            baseline_correct=_unflag(self.correct[2 * row]),
            pto_correct=_unflag(self.correct[2 * row + 1]),
            path=self.path(row, results),
        )

    def runs(self, results: str, statuses: list[str | None]) -> Iterator[Run]:
        state = self.state
        for row in range(len(state)):
            if state[row] == READ:
                yield self.run(row, results, statuses)


@dataclass(frozen=True)
class _Published:
    """What one read gave: the blocks (never changed after), the runs only bench/generated
    holds, and the lookups made from them when first asked for."""

    blocks: tuple[_Block, ...]
    extra: tuple[Run, ...]
    results: str
    statuses: list[str | None]
    count: int
    by_name: dict[str, list[_Block]] = field(default_factory=dict, compare=False)

    def blocks_of(self, kernel: str) -> list[_Block]:
        index = self.by_name
        if not index and self.blocks:  # the UI thread and the loader's may both ask first
            built: dict[str, list[_Block]] = {}
            for block in self.blocks:
                built.setdefault(block.kernel, []).append(block)
            index.update(built)  # whole, in one step under the interpreter lock: never seen half made
        return index.get(kernel, [])


_EMPTY = _Published((), (), "", [None], 0)


def _run_order(run: Run) -> tuple[str, str]:
    return run.started, run.kernel


class RunView(Sequence[Run]):
    """Every finished run of a tree, oldest first (by stamp, then kernel): a sequence of
    :class:`Run` made on demand from the columns a :class:`RunsReader` holds.

    A view of one read never changes; :meth:`RunsReader.live` gives one that always shows the
    reader's latest read (the history fills in after the newest runs: the detail and the
    charts then show what is read so far). Iterating or indexing makes a Run for each run;
    :meth:`of`, :meth:`newest`, :meth:`at_or_before` and :meth:`next_start` do not.
    """

    __slots__ = ("_source",)

    def __init__(self, source: Callable[[], _Published]) -> None:
        self._source = source

    @classmethod
    def of_runs(cls, runs: Iterable[Run]) -> RunView:
        """A view of runs already made (a test's, or a tool's)."""
        ordered = tuple(sorted(runs, key=_run_order))
        published = _Published((), ordered, "", [None], len(ordered))
        return cls(lambda: published)

    def __len__(self) -> int:
        return self._source().count

    def __bool__(self) -> bool:
        return self._source().count > 0

    def __iter__(self) -> Iterator[Run]:
        now = self._source()
        streams = [block.runs(now.results, now.statuses) for block in now.blocks if block.read]
        return heapq.merge(*streams, now.extra, key=_run_order)

    @overload
    def __getitem__(self, index: int) -> Run: ...

    @overload
    def __getitem__(self, index: slice) -> list[Run]: ...

    def __getitem__(self, index: int | slice) -> Run | list[Run]:
        return list(self)[index]  # every Run made: for tests and small trees

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, RunView)):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RunView({len(self)} runs)"

    def of(self, kernel: str) -> list[Run]:
        """The kernel's runs, oldest first (every family's kernel of that name)."""
        now = self._source()
        out = [run for block in now.blocks_of(kernel) for run in block.runs(now.results, now.statuses)]
        out.extend(run for run in now.extra if run.kernel == kernel)
        out.sort(key=_run_order)
        return out

    def newest(self, after: str | None = None) -> dict[str, Run]:
        """Each kernel's newest run (by stamp; a later family's wins a tie, as in the order
        above); with ``after``, only the kernels whose newest run is newer than that stamp (a
        Run is made for those alone: 10,000 kernels, a few measured since the summary)."""
        now = self._source()
        floor = _stamp_number(after) if after is not None and stamp_seconds(after) is not None else -1
        newest: dict[str, tuple[int, _Block | Run, int]] = {}  # a block and its row, or a run made
        for block in now.blocks:
            if not block.read:
                continue
            row = block.newest_row()
            stamp = block.stamps[row]
            held = newest.get(block.kernel)
            if held is None or stamp >= held[0]:
                newest[block.kernel] = (stamp, block, row)
        for run in now.extra:
            stamp = _stamp_number(run.started)
            held = newest.get(run.kernel)
            if held is None or stamp >= held[0]:
                newest[run.kernel] = (stamp, run, -1)
        out: dict[str, Run] = {}
        for name, (stamp, where, row) in newest.items():
            if stamp > floor:
                out[name] = where.run(row, now.results, now.statuses) if isinstance(where, _Block) else where
        return out

    def at_or_before(self, kernel: str, stamp: str) -> list[tuple[str, str, str]]:
        """(path, family, started) of the kernel's run directories at or before ``stamp``, newest
        first: those read and those not read yet (the history still being read), not those
        without a report.json or refused."""
        if stamp_seconds(stamp) is None:
            return []
        now, limit = self._source(), _stamp_number(stamp)
        found: list[tuple[int, str, str, str]] = []
        for block in now.blocks_of(kernel):
            stop = bisect.bisect_right(block.stamps, limit)
            for row in range(stop - 1, -1, -1):
                if block.state[row] in (READ, UNREAD):
                    found.append(
                        (block.stamps[row], block.path(row, now.results), block.family, _stamp_text(block.stamps[row]))
                    )
        for run in now.extra:
            if run.kernel == kernel and run.started <= stamp:
                found.append((_stamp_number(run.started), run.path, run.family or "", run.started))
        found.sort(key=lambda item: item[0], reverse=True)
        return [(path, family, started) for _n, path, family, started in found]

    def next_start(self, stamp: str) -> str | None:
        """The first run directory's stamp after ``stamp``, of any kernel (finished or not): the
        runner works one kernel at a time, so a run ended before the next one started."""
        if stamp_seconds(stamp) is None:
            return None
        now, after = self._source(), _stamp_number(stamp)
        best: int | None = None
        for block in now.blocks:
            index = bisect.bisect_right(block.stamps, after)
            if index < len(block.stamps) and (best is None or block.stamps[index] < best):
                best = block.stamps[index]
        for run in now.extra:
            number = _stamp_number(run.started)
            if number > after and (best is None or number < best):
                best = number
        return _stamp_text(best) if best is not None else None


@dataclass(slots=True)
class _KernelDir:
    signature: int | None = None  # a hash of the directory's inode, mtime and link count
    warnings: list[ReadWarning] = field(default_factory=no_items)  # of the directory's own names


@dataclass
class RunLog:
    """Every run of a tree at one read: finished runs oldest first, pending ones, warnings.

    ``landed``: the runs this read found that the reader's previous read had not (all of
    them on the first read). ``complete``: every run directory's report.json was looked at
    (False while the history behind each kernel's newest run is still being read).
    """

    runs: RunView
    pending: list[Pending]
    warnings: list[ReadWarning]
    landed: Sequence[Run] = ()
    complete: bool = True

    def by_kernel(self) -> dict[str, list[Run]]:
        out: dict[str, list[Run]] = {}
        for run in self.runs:
            out.setdefault(run.kernel, []).append(run)
        return out


def _lstat(path: str | Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _dir_signature(info: os.stat_result) -> tuple[int, int, int]:
    # A directory's link count moves with its subdirectories: a run directory made within
    # the mtime's tick still changes the signature.
    return info.st_ino, info.st_mtime_ns, info.st_nlink


def _subdirs(path: str | Path, what: str, warnings: list[ReadWarning]) -> Iterator[tuple[str, str]]:
    """The subdirectories of ``path`` (symlinks and other files named once each, not followed),
    as (name, path) strings: no pathlib here (it interns every part of every path it parses)."""
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
        yield item.name, item.path


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
    ``generated``: also the latest report of each kernel in ``bench/generated`` whose run
    directory is not in ``bench/results`` (a run directory removed, or never kept). One that
    vanishes is kept for :data:`GENERATED_GRACE_S` seconds: the runner replaces it by
    ``rm -rf`` and a copy, and the kernel must not flash as gone in between.

    ``read(history=False)`` reads only each kernel's newest run with a report.json (what the
    table shows) and leaves the older ones for :meth:`read_history`, which reads them a
    budget at a time; ``read()`` reads them all. Only the newest run of each kernel keeps the
    kernel its report gives (:meth:`kernel_of`); the others keep their figures only.

    ``precise``: the figures (each side's median, min and max over shapes, the ratio) as
    read; False (the dashboard): as 4-byte floats, 7 significant digits, what a chart or a
    table of the runs shows, half the memory of the run history (10,000 kernels x 50 runs:
    14 MB less). The kernel a newest run gives is always as read.
    """

    def __init__(
        self,
        bench: Path,
        generated: bool = True,
        monotonic: Callable[[], float] = time.monotonic,
        give_way: Callable[[], None] | None = None,
        precise: bool = True,
    ) -> None:
        self.bench = Path(bench)
        self._figures: FloatCode = "d" if precise else "f"
        self._results = str(self.bench / "results")  # as a string: a path made per kernel directory costs
        self.give_way = give_way  # called before each report.json is read (it may wait while keys come)
        self.generated = generated
        self.monotonic = monotonic
        self._dirs: dict[tuple[str, str], _KernelDir] = {}
        # family directory -> (its signature, its kernel directories, the warnings of listing it)
        # family directory -> (its signature, its kernel directories' names, the warnings of listing it)
        self._families: dict[str, tuple[tuple[int, int, int] | None, list[str], list[ReadWarning]]] = {}
        self._blocks: dict[tuple[str, str], _Block] = {}
        self._copied: set[tuple[str, str]] = set()  # blocks copied since the last publish: changed in place
        self._statuses = _Statuses()
        self._generated: dict[tuple[str, str], _Generated] = {}
        self._generated_seen: set[str] = set()
        self._by_path: dict[str, Kernel | None] = {}  # None: read again, and not usable
        self._landed: list[tuple[tuple[str, str], int]] = []  # (block key, stamp number) READ this read
        self._changed = True
        self.version = 0  # counts the reads that found something changed (not the history's progress)
        self._last: RunLog | None = None
        self._published = _EMPTY
        self._top_warnings: list[ReadWarning] = []
        self._first = True
        self._keep_after: str | None = None

    @property
    def keep_after(self) -> str | None:
        """The kernel a newest run's report gives is kept only for runs newer than this stamp
        (the summary's: older runs do not change what the table shows); None: all."""
        return self._keep_after

    @keep_after.setter
    def keep_after(self, stamp: str | None) -> None:
        if stamp == self._keep_after:
            return
        self._keep_after = stamp
        if stamp is None:
            return
        # Those kept before the stamp was known (the runs are read once before the first load
        # that has them) are let go: 10,000 kernels' newest runs, each with its shapes.
        for block in self._blocks.values():
            if block.newest_kernel is not None and _stamp_text(block.newest_stamp) <= stamp:
                row = block.newest_row()
                if row >= 0:
                    self._by_path.pop(block.path(row, self._results), None)
                block.newest_kernel = None  # (asked for, it is read again: :meth:`kernel_of`)

    @property
    def results(self) -> Path:
        return self.bench / "results"

    @property
    def complete(self) -> bool:
        """Whether every run directory's report.json has been looked at."""
        return not any(block.unread for block in self._blocks.values())

    @property
    def last(self) -> RunLog | None:
        """What the last :meth:`read` gave (its view brought up to the history read since)."""
        return self._last

    def live(self) -> RunView:
        """A view that always shows the latest read, the history read so far included."""
        return RunView(lambda: self._published)

    def kernel_of(self, run: Run) -> Kernel | None:
        """The kernel a run's report.json gives (the summary's rules), for each kernel's newest
        run: held when it is newer than :attr:`keep_after`, else read again when asked for."""
        held = self._by_path.get(run.path)
        if held is not None or run.path in self._by_path:
            return held
        key = (run.family or "", run.kernel)
        block = self._blocks.get(key)
        if block is None or block.newest_row() < 0 or block.path(block.newest_row(), self._results) != run.path:
            return None
        try:
            made = read_run(run.path, block.family, block.kernel, run.started, False)[1]
        except (OSError, RunUnreadable, safefile.FileRefused):
            made = None
        self._by_path[run.path] = made
        return made

    @property
    def kernels_by_path(self) -> dict[str, Kernel | None]:
        return self._by_path

    def pending_dirs(self) -> list[Path]:
        """The run directories without report.json, as last read (a watch on each sees it land)."""
        if self._last is None:
            return []
        return [Path(p.path) for p in self._last.pending]

    def kernel_dirs(self) -> list[Path]:
        """The family directories of results/ and generated/, as last read (the watched levels)."""
        families = {self.results / family for family, _ in self._dirs}
        families |= {self.bench / "generated" / family for family, _ in self._generated}
        return sorted(families)

    # -- reading -------------------------------------------------------------------------

    def read(self, history: bool = True) -> RunLog:
        """Look at the tree again. ``history=False``: of each kernel only the newest runs (down
        to the first with a usable report.json); :meth:`read_history` reads the rest later."""
        top: list[ReadWarning] = []
        present: set[tuple[str, str]] = set()
        for family, family_dir in _subdirs(self.results, N_("family directory"), top):
            for kernel in self._kernels_of(family_dir, top):
                key = (family, kernel)
                present.add(key)
                self._read_kernel(key, os.path.join(family_dir, kernel))
        for gone in set(self._dirs) - present:
            del self._dirs[gone]
            self._blocks.pop(gone, None)
            self._changed = True
        if self.generated:
            self._read_generated(top)
        if top != self._top_warnings:
            self._top_warnings = top
            self._changed = True
        if history:
            self.read_history(None)
        if not self._changed and self._last is not None:
            if self._copied:
                self._publish()
            last = self._last
            return RunLog(last.runs, last.pending, last.warnings, [], last.complete)
        self._changed = False
        self.version += 1
        log = self._assemble()
        self._last = log
        return log

    def read_history(self, budget_s: float | None) -> bool:
        """Read the runs behind each kernel's newest, newest first, for about ``budget_s``
        seconds (None: all of them; one file at least). True when every run has been read;
        the view (:meth:`live`) shows what was read. The read that completes the history
        counts as a change (:attr:`version`)."""
        began = self.monotonic()
        was_complete = self.complete
        results = self._results
        read_any = False  # at least one file a call, however short the budget
        for key, block in list(self._blocks.items()):
            if not block.unread:
                continue
            state = block.state
            for row in range(len(state) - 1, -1, -1):
                if state[row] != UNREAD:
                    continue
                if budget_s is not None and self.monotonic() - began >= budget_s and read_any:
                    self._recount(key)
                    self._publish()
                    return False
                self._read_row(key, row, results, newest=False)
                state, read_any = self._blocks[key].state, True
            self._recount(key)
            if len(self._copied) >= PUBLISH_EVERY:  # the blocks replaced are let go as it goes
                self._publish()
        self._publish()
        if not was_complete:
            self._changed = True
        return True

    def _snapshot(self) -> Callable[[], _Published]:
        published = self._published
        return lambda: published

    def _writable(self, key: tuple[str, str]) -> _Block:
        """The key's block, to change: a copy when the one held was published (views hold it)."""
        block = self._blocks[key]
        if key not in self._copied:
            block = self._blocks[key] = block.copy()
            self._copied.add(key)
        return block

    def _recount(self, key: tuple[str, str]) -> None:
        if key in self._copied:  # a published block is never changed, not even its counts
            self._blocks[key].recount()

    def _publish(self) -> None:
        extra = tuple(sorted(self._extra_runs(), key=_run_order))  # merged in order with the blocks' runs
        blocks = tuple(self._blocks.values())
        count = sum(block.read for block in blocks) + len(extra)
        self._published = _Published(blocks, extra, self._results, self._statuses.texts, count)
        self._copied.clear()
        last = self._last
        if last is not None:  # the reader's own last log lets go of the blocks replaced (half the memory)
            self._last = RunLog(RunView(self._snapshot()), last.pending, last.warnings, [], self.complete)

    def _extra_runs(self) -> Iterator[Run]:
        """The runs only bench/generated holds (their run directory gone, or never kept)."""
        if not self._generated:
            return
        by_kernel: dict[str, list[_Block]] = {}
        for block in self._blocks.values():
            by_kernel.setdefault(block.kernel, []).append(block)
        for gen in self._generated.values():
            copy = gen.run
            if copy is None:
                continue
            number = _stamp_number(copy.started)
            held = False
            for block in by_kernel.get(copy.kernel, []):
                index = bisect.bisect_left(block.stamps, number)
                if index < len(block.stamps) and block.stamps[index] == number and block.state[index] == READ:
                    held = True
            if not held:
                yield copy

    def _assemble(self) -> RunLog:
        self._publish()
        published = self._published
        warnings = list(self._top_warnings)
        pending: list[Pending] = []
        by_path: dict[str, Kernel | None] = {}
        newest_number: dict[str, int] = {}
        results = published.results
        for key, block in self._blocks.items():
            warnings.extend(self._dirs[key].warnings)
            if block.warnings:
                warnings.extend(block.warnings[stamp] for stamp in sorted(block.warnings))
            if block.missing:
                for row, state in enumerate(block.state):
                    if state == NO_REPORT:
                        started = _stamp_text(block.stamps[row])
                        pending.append(
                            Pending(
                                block.kernel,
                                block.family,
                                started,
                                os.path.join(results, block.family, block.kernel, started),
                            )
                        )
            row = block.newest_row() if block.read else -1
            if row >= 0:
                newest_number[block.kernel] = max(block.stamps[row], newest_number.get(block.kernel, 0))
                made_kernel = block.kernel_of_newest()
                if made_kernel is not None:
                    by_path[block.path(row, results)] = made_kernel
        for gen in self._generated.values():
            if gen.warning is not None:
                warnings.append(gen.warning)
        kernel_of_copy = {id(gen.run): gen.kernel for gen in self._generated.values() if gen.run is not None}
        for copy in published.extra:
            gen_kernel = kernel_of_copy.get(id(copy))
            if gen_kernel is not None and _stamp_number(copy.started) > newest_number.get(copy.kernel, 0):
                by_path[copy.path] = gen_kernel
        pending.sort(key=lambda p: (p.started, p.kernel))
        view = RunView(self._snapshot())
        landed: Sequence[Run]
        if self._first:
            landed, self._first = view, False
        else:
            made = []
            for key, number in self._landed:
                held = self._blocks.get(key)
                if held is None:
                    continue
                index = bisect.bisect_left(held.stamps, number)
                if index < len(held.stamps) and held.stamps[index] == number and held.state[index] == READ:
                    made.append(held.run(index, results, published.statuses))
            made.extend(run for run in published.extra if run.path not in self._generated_seen)
            landed = sorted(made, key=_run_order)
        self._landed = []
        self._generated_seen = {run.path for run in published.extra}
        self._by_path = by_path
        return RunLog(view, pending, warnings, landed, self.complete)

    def _kernels_of(self, family_dir: str, top: list[ReadWarning]) -> list[str]:
        """A family directory's kernel directories' names: listed again only when the directory
        changed (the rescan looks at 10,000 kernel directories every few seconds). Held as the
        names alone, each once (the summary's kernel names are the same strings)."""
        info = _lstat(family_dir)
        signature = _dir_signature(info) if info is not None else None
        held = self._families.get(family_dir)
        if held is not None and signature is not None and held[0] == signature:
            top.extend(held[2])
            return held[1]
        warnings: list[ReadWarning] = []
        kernels = [sys.intern(name) for name, _path in _subdirs(family_dir, N_("kernel directory"), warnings)]
        self._families[family_dir] = (signature, kernels, warnings)
        top.extend(warnings)
        return kernels

    def _read_kernel(self, key: tuple[str, str], path: str) -> None:
        family, kernel = key
        kdir = self._dirs.get(key)
        if kdir is None:
            kdir = self._dirs[key] = _KernelDir()
            self._blocks[key] = _Block(family, kernel, self._figures)
            self._copied.add(key)  # not published yet: changed in place
        info = _lstat(path)
        signature = hash(_dir_signature(info)) if info is not None else None
        if signature != kdir.signature or signature is None:
            kdir.signature = signature
            stamps: list[int] = []
            warnings: list[ReadWarning] = []
            odd: list[str] = []
            unreal: list[str] = []
            for name, _run_dir in _subdirs(path, N_("run directory"), warnings):
                if not STAMP.match(name):
                    odd.append(name)
                elif stamp_seconds(name) is None:
                    unreal.append(name)
                else:
                    stamps.append(_stamp_number(name))
            if unreal:  # 20261399T999999Z: a run's stamp, as the runner writes it, is a real UTC time
                said = ngettext(
                    "a run directory whose stamp is not a real time (YYYYMMDDTHHMMSSZ, UTC), skipped: {shown}",
                    "{n} run directories whose stamps are not real times (YYYYMMDDTHHMMSSZ, UTC), skipped: {shown}",
                    len(unreal),
                )
                warnings.append(ReadWarning(path, said.format(n=len(unreal), shown=_few(unreal))))
            if odd:  # one warning for the kernel's directory, however many (debug_probe, debug_probe2, ...)
                shown = _few(odd)
                said = ngettext(
                    "a directory not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    "{n} directories not named as a run (YYYYMMDDTHHMMSSZ), skipped: {shown}",
                    len(odd),
                )
                warnings.append(ReadWarning(path, said.format(n=len(odd), shown=shown)))
            if warnings != kdir.warnings:
                self._changed = True
            kdir.warnings = shared_if_empty(warnings)
            stamps.sort()
            if array("q", stamps) != self._blocks[key].stamps:
                self._changed = True
                self._writable(key).relist(stamps)
        self._read_newest(key, self._results)

    def _read_newest(self, key: tuple[str, str], results: str) -> None:
        """Every row not READ down to the newest READ one (what the table needs), and the rows
        without report.json or refused below it (they may have landed since)."""
        block = self._blocks[key]
        if block.state and block.state[-1] == READ and not block.missing and not block.warnings:
            return  # the newest read, nothing waiting or refused below it: only the history's rows left
        found = False
        for row in range(len(self._blocks[key].state) - 1, -1, -1):
            current = self._blocks[key].state[row]
            if current == READ:
                found = True
            elif current != UNREAD or not found:  # UNREAD below the newest: the history's
                self._read_row(key, row, results, newest=not found)
                found = found or self._blocks[key].state[row] == READ
        self._recount(key)

    def _read_row(self, key: tuple[str, str], row: int, results: str, newest: bool) -> None:
        """Look at one run directory's report.json; read it when it is new or changed. The
        block is copied before it changes (:meth:`_writable`). ``newest``: no newer row has a
        run, so this one keeps the kernel its report gives."""
        block = self._blocks[key]
        path = block.path(row, results)
        info = _lstat(path)
        was = block.state[row]
        if info is None:
            if was != NO_REPORT:
                self._writable(key).set_state(row, NO_REPORT, _NO_SIGNATURE)
                self._changed = True
            return
        signature = _file_signature(info)
        if signature == block.signatures[row] and was != UNREAD:
            return  # the same torn or refused file as last time: its warning stands
        block = self._writable(key)
        if self.give_way is not None:
            self.give_way()
        if stat.S_ISLNK(info.st_mode):
            block.set_state(row, REFUSED, signature, ReadWarning(path, _("is a symlink; not followed")))
            self._changed = True
            return
        try:
            run, made = read_run(path, block.family, block.kernel, _stamp_text(block.stamps[row]), False)
        except FileNotFoundError:  # gone between the stat and the read: looked at again next time
            block.set_state(row, NO_REPORT, _NO_SIGNATURE)
            self._changed = self._changed or was != NO_REPORT
            return
        except (safefile.FileRefused, RunUnreadable, OSError) as exc:
            if isinstance(exc, safefile.FileRefused):
                said = exc.message
            elif isinstance(exc, RunUnreadable):
                said = str(exc)
            else:
                said = _("cannot be read: {error}").format(error=clean(exc.strerror or exc))
            block.set_state(row, REFUSED, signature, ReadWarning(path, said))
            self._changed = True
            return
        codes = (self._statuses.code(run.baseline_status), self._statuses.code(run.pto_status))
        block.set_run(row, run, signature, codes)
        if newest:
            keep = self._keep_after is None or _stamp_text(block.stamps[row]) > self._keep_after
            block.newest_kernel, block.newest_stamp = (made if keep else None), block.stamps[row]
        if newest or was != UNREAD:  # not the history: a run that landed (or now reads)
            self._changed = True
            self._landed.append((key, block.stamps[row]))

    def _read_generated(self, top: list[ReadWarning]) -> None:
        present: set[tuple[str, str]] = set()
        now = self.monotonic()
        for family, family_dir in _subdirs(self.bench / "generated", N_("family directory"), top):
            for kernel in self._kernels_of(family_dir, top):
                key = (family, kernel)
                path = os.path.join(family_dir, kernel, "report.json")
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
        self, gen: _Generated, path: str, family: str, kernel: str, info: os.stat_result, signature: tuple
    ) -> None:
        self._changed = True
        gen.signature, gen.warning = signature, None
        if stat.S_ISLNK(info.st_mode):
            gen.run = gen.kernel = None
            gen.warning = ReadWarning(str(path), _("is a symlink; not followed"))
            return
        try:
            report = parse_report(safefile.read_bytes(path), str(path))
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
            gen.run = run_of_kernel(made, started, stamp_of_time(info.st_mtime), str(path))
            return
        # A torn copy (copytree still writing): the last good run stands, with the warning, until
        # the file reads whole (its signature changes then).


def _few(names: list[str]) -> str:
    """At most three directory names, cleaned, and how many more."""
    shown = ", ".join(one_line(clean(n), 40) for n in names[:3])
    if len(names) > 3:
        shown = _("{shown} and {n} more").format(shown=shown, n=len(names) - 3)
    return shown


def started_of_path(text: str | None) -> str | None:
    """The run stamp in a report's ``report_path``/``artifacts_dir`` (…/results/f/k/<stamp>/…);
    None when there is none, or it is not a real time."""
    match = _STAMP_IN_PATH.search((text or "").replace("\\", "/"))
    return match.group(1) if match and stamp_seconds(match.group(1)) is not None else None


def read_runs(bench: Path) -> RunLog:
    """Every run of a bench directory, once: ``bench/results`` and what only ``bench/generated`` holds."""
    return RunsReader(bench).read()
