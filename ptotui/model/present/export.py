"""The merged model as JSON (a stable, documented interface), CSV and markdown."""

from __future__ import annotations

import csv
import io
import json
import math
from typing import TYPE_CHECKING, Any

import orjson

from ptotui.model.core.fmt import csv_text, md_cell, ms, ratio_range
from ptotui.model.core.tiers import LAYER_LABELS
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReportSet

if TYPE_CHECKING:
    from ptotui.model.history.since import SinceSnapshot

SCHEMA = "ptotui.export/1"
CSV_COLUMNS = (
    "name",
    "family",
    "wave",
    "class",
    "tier",
    "scalar_heavy",
    "baseline_status",
    "pto_status",
    "ratio_min_pct",
    "ratio_median_pct",
    "ratio_max_pct",
    "baseline_ms",
    "pto_ms",
    "blocker_layer",
    "gap_ids",
    "baseline_reason",
    "pto_reason",
    "from_run",
    "regression",
)


def kernel_dict(kernel: Kernel) -> dict[str, Any]:
    """The kernel as the export's JSON object. Its lists are the kernel's own, not copies (10,000
    kernels): the dict is written out, never changed."""
    return {
        "name": kernel.name,
        "family": kernel.family,
        "wave": kernel.wave,
        "phase": kernel.phase,
        "class": kernel.klass,
        "tier": kernel.tier,
        "scalar_heavy": kernel.scalar_heavy,
        "scalar_matches": kernel.scalar_matches,
        "baseline_status": kernel.baseline_status,
        "pto_status": kernel.pto_status,
        "ratio_min_pct": kernel.ratio_min_pct,
        "ratio_median_pct": kernel.ratio_median_pct,
        "ratio_max_pct": kernel.ratio_max_pct,
        "baseline_ms": kernel.baseline_ms,
        "pto_ms": kernel.pto_ms,
        "baseline_reason": kernel.baseline_reason,
        "pto_reason": kernel.pto_reason,
        "limitations": kernel.limitations,
        "block_use": kernel.block_use,
        "gap_ids": kernel.gap_ids,
        "gaps": [gap.as_dict() for gap in kernel.gaps],
        "blocker_layer": kernel.blocker_layer,
        "report_path": kernel.report_path,
        "variants": [variant.as_dict() for variant in kernel.variants],
        "from_run": kernel.from_run,
    }


def verdict_dict(since: SinceSnapshot | None) -> dict[str, Any]:
    """What regressed since the reference, as the dashboard's header counts it (schema
    ``ptotui.diff/2``'s changes); ``reference`` None when there is none to judge against."""
    from ptotui.model.core.diff import baseline_kernels

    if since is None or since.stamp is None:
        return {"reference": None, "regressed_kernels": [], "baseline_moved_kernels": [], "changes": []}
    return {
        "reference": {"kind": "commit" if since.committed else "snapshot", "stamp": since.stamp},
        "regressed_kernels": since.regressed,
        "baseline_moved_kernels": baseline_kernels(since.changes),
        "changes": [change.as_dict() for change in since.changes],
    }


def _regressed(since: SinceSnapshot | None) -> set[str] | None:
    return None if since is None or since.stamp is None else set(since.regressed)


def to_json(reports: ReportSet, since: SinceSnapshot | None = None) -> str:
    """Strict JSON (RFC 8259): a NaN or infinity from a report becomes null, which
    JavaScript's JSON.parse and every other strict reader accept."""
    return json_bytes(reports, since).decode("utf-8")


def _kernels(reports: ReportSet, since: SinceSnapshot | None) -> list[dict[str, Any]]:
    """Each kernel's object with ``regression``: whether it regressed since the reference
    (None when there is no reference)."""
    regressed = _regressed(since)
    out = []
    for kernel in reports.kernels:
        row = kernel_dict(kernel)
        row["regression"] = None if regressed is None else kernel.name in regressed
        out.append(row)
    return out


def json_bytes(reports: ReportSet, since: SinceSnapshot | None = None) -> bytes:
    """:func:`to_json` as UTF-8 bytes, as orjson writes them: ``ptotui export`` hands these to
    stdout as they are (decoding 30 MB to text only to encode it again costs ~50 ms at
    10,000 kernels, benchmarks/bench_scale.py)."""
    payload = {
        "schema": SCHEMA,
        "source": reports.source,
        "generated_at": reports.generated_at,
        "verdict": verdict_dict(since),
        "kernels": _kernels(reports, since),
        "warnings": [w.as_dict() for w in reports.warnings],
    }
    try:
        # NaN and infinities as null; the newline appended by orjson, not by copying 30 MB
        return orjson.dumps(payload, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # an integer past 64 bits in a shape's params
        text = json.dumps(_finite(payload), indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        return text.encode("utf-8")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None (the readers bound nesting to a few levels)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(one_line(clean(v)) for v in value)
    if isinstance(value, bool):
        return str(value).lower()
    return one_line(clean(value))


def _csv_cell(value: Any) -> str:
    """Numbers and booleans as they are; text neutralised against spreadsheet formulas."""
    text = _cell(value)
    return csv_text(text) if isinstance(value, str | list) else text


def to_csv(reports: ReportSet, since: SinceSnapshot | None = None) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for row in _kernels(reports, since):
        writer.writerow([_csv_cell(row[c]) for c in CSV_COLUMNS])
    return out.getvalue()


def _since_line(since: SinceSnapshot | None) -> list[str]:
    if since is None or since.stamp is None:
        return []
    kernels = ", ".join(since.regressed) or "none"
    return [f"Regressions since {md_cell(since.reference())}: {len(since.regressed)} ({md_cell(kernels)})", ""]


def to_markdown(reports: ReportSet, since: SinceSnapshot | None = None) -> str:
    regressed = _regressed(since) or set()
    lines = [
        "# ptotui export",
        "",
        f"Source: {md_cell(reports.source)}  ",
        f"Generated: {md_cell(reports.generated_at or 'n/a')}",
        "",
        *_since_line(since),
        "| Tier | Kernel | Family | Wave | Class | Baseline | PTO | Baseline / PTO | PTO ms | Layer | Gap ids |",
        "| --- | --- | --- | --- | --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    for k in reports.kernels:
        cells = [
            k.tier + (" (scalar-heavy)" if k.scalar_heavy else "") + (" ▼" if k.name in regressed else ""),
            k.name + (f" (run {k.from_run})" if k.from_run else ""),
            k.family,
            k.wave,
            k.klass,
            k.baseline_status,
            k.pto_status,
            ratio_range(k),
            ms(k.pto_ms),
            LAYER_LABELS.get(k.blocker_layer or "", ""),
            k.gap_ids,
        ]
        lines.append("| " + " | ".join(md_cell(_cell(c)) for c in cells) + " |")
    if reports.warnings:
        lines += ["", "## Warnings", ""] + [f"- {md_cell(w)}" for w in reports.warnings]
    return "\n".join(lines) + "\n"
