"""One bench run: its record, read from its ``report.json`` by the summary generator's rules
(``scripts/summarize_latest_regression.py``): :func:`summary_record` turns a report.json into
the very record the generator would write into ``regression_latest.json``, so the state a run
gives a kernel is the state the next summary will give it."""

from __future__ import annotations

import calendar
import json
import os
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from ptotui.model.core.environment import as_text, environment_of, of_text
from ptotui.model.core.tiers import median
from ptotui.model.i18n import _
from ptotui.model.location import STAMP
from ptotui.model.read import readers, safefile, values
from ptotui.model.read.loader import decode
from ptotui.model.types import Kernel, ReadWarning

STAMP_IN_PATH = re.compile(r"/results/[^/]+/[^/]+/(\d{8}T\d{6}Z)(?:/|$)")
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
    b, p = values.as_float(baseline), values.as_float(pto)
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
    environment: str | None = None  # where it ran (ptotui.model.core.environment.as_text)

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
            "environment": dict(of_text(self.environment)),
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


def run_of_kernel(
    kernel: Kernel,
    started: str,
    finished: str | None,
    path: str,
    keep_shapes: bool = False,
    environment: str | None = None,
) -> Run:
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
        environment=_intern(environment),
    )


class RunUnreadable(Exception):
    """A report.json that cannot be used (yet): its message says why."""


def parse_report(data: bytes, name: str) -> dict[str, Any]:
    """A report.json's object, or :class:`RunUnreadable` (empty, torn, not JSON, not an object)."""
    warnings: list[ReadWarning] = []
    text = decode(data, name, warnings)
    parsed_warnings: list[ReadWarning] = []
    value = readers.load_json(text, name, parsed_warnings)  # the one JSON reading rule
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
    name = values.as_str(report.get("name")) or kernel
    fam = values.as_str(report.get("family")) or family
    made = kernel_of_report(report, name if name == kernel else kernel, fam, name_of)
    where = as_text(environment_of(report))
    return run_of_kernel(made, started, stamp_of_time(info.st_mtime), name_of, keep_shapes, where), made


def started_of_path(text: str | None) -> str | None:
    """The run stamp in a report's ``report_path``/``artifacts_dir`` (…/results/f/k/<stamp>/…);
    None when there is none, or it is not a real time."""
    match = STAMP_IN_PATH.search((text or "").replace("\\", "/"))
    return match.group(1) if match and stamp_seconds(match.group(1)) is not None else None
