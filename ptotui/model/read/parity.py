"""The older summaries with repeated rounds: ``kernel_parity_*`` and ``regression_parity_*``.

Before ``regression_latest.*`` a pto-kernels checkout wrote "Kernel Parity Summary"
(``kernel_parity_latest.json|md`` and timestamped twins) and "Regression Parity Summary"
(``regression_parity_*``, ``scripts/measure_regression_parity.py``). Each measures every kernel
``rounds`` times; the rounds are the same code measured again, so their spread is the
run-to-run noise. The readers give the kernels as the regression reader does (so the rest of
the model needs nothing new) and each kernel's rounds beside them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ptotui.model.core.merge import kernel_status, merge_duplicates
from ptotui.model.core.tiers import median
from ptotui.model.i18n import _
from ptotui.model.read import readers, values
from ptotui.model.text import clean, clean_optional
from ptotui.model.types import Kernel, ReadWarning, Variant

KINDS = {
    "regression_parity": "Regression Parity Summary",
    "kernel_parity": "Kernel Parity Summary",
}


@dataclass(frozen=True, slots=True)
class Round:
    """One round of one kernel: the same code measured again."""

    round: int | None
    baseline_status: str | None
    pto_status: str | None
    baseline_ms: float | None
    pto_ms: float | None
    ratio_pct: float | None


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return median(known) if known else None


def _round(record: dict[str, Any]) -> Round:
    rows = [row for row in record.get("variant_rows") or [] if type(row) is dict]
    baseline_ms = values.as_float(record.get("baseline_median_ms"))
    pto_ms = values.as_float(record.get("pto_median_ms"))
    ratio = values.as_float(record.get("baseline_over_pto_pct"))
    if baseline_ms is None:
        baseline_ms = _median([values.as_float(row.get("baseline_median_ms")) for row in rows])
    if pto_ms is None:
        pto_ms = _median([values.as_float(row.get("pto_median_ms")) for row in rows])
    if ratio is None:
        ratio = _median([values.as_float(row.get("baseline_over_pto_pct")) for row in rows])
    number = record.get("round")
    return Round(
        number if type(number) is int else None,
        values.as_status(record.get("baseline_status")),
        values.as_status(record.get("pto_status")),
        baseline_ms,
        pto_ms,
        ratio,
    )


def _parity_kernel(record: dict[str, Any], rounds: dict[str, list[Round]]) -> Kernel:
    get = record.get
    kernel_rounds = [_round(r) for r in get("rounds") or [] if type(r) is dict] if type(get("rounds")) is list else []
    last = kernel_rounds[-1] if kernel_rounds else None
    # The statuses are the last round's (the summary's own figures are over all rounds).
    baseline_status = last.baseline_status if last else None
    pto_status = last.pto_status if last else None
    variants = []
    raw = get("variants")
    for item in raw if type(raw) is list else []:
        if type(item) is not dict:
            continue
        correct = values.as_bool(item.get("all_correct"))
        b_correct, p_correct = readers.correctness_of(  # the markdown's pass/fail rule
            "pass" if correct else "fail", baseline_status, pto_status
        )
        params = item.get("variant")
        variants.append(
            readers.derived_ratio(
                Variant(
                    shape=values.bounded(item.get("shape_summary")),
                    params=params if type(params) is dict and values.within_depth(params, values.MAX_DEPTH) else None,
                    baseline_status=baseline_status,
                    pto_status=pto_status,
                    baseline_ms=values.as_float(item.get("baseline_median_ms")),
                    pto_ms=values.as_float(item.get("pto_median_ms")),
                    ratio_pct=values.as_float(item.get("baseline_over_pto_pct")),
                    baseline_correct=b_correct,
                    pto_correct=p_correct,
                )
            )
        )
    report_path = values.as_str(get("latest_report_path")) or values.as_str(get("report_path"))
    name = clean(record["name"]).strip()
    rounds[name] = kernel_rounds
    return Kernel(
        name=name,
        family=values.as_str(get("family")) or values.family_from_link(report_path),
        baseline_status=baseline_status,
        pto_status=pto_status,
        variants=variants,
        report_path=report_path,
        spec=values.as_str(get("spec")),
    )


def _empty() -> dict[str, Any]:
    return {"generated_at": None, "kernels": [], "rounds": {}, "round_count": None}


@readers.guarded(_empty)
def read_parity_json(text: readers.Source, name: str) -> readers.Result[dict[str, Any]]:
    """kernel_parity_*.json / regression_parity_*.json -> {"generated_at", "kernels", "rounds", "round_count"}."""
    warnings: list[ReadWarning] = []
    data = readers.load_json(text, name, warnings)  # the one JSON reading rule
    records = readers.records_of(data, name, warnings) if data is not None else []
    rounds: dict[str, list[Round]] = {}
    kernels = merge_duplicates([_parity_kernel(r, rounds) for r in records], name, warnings)
    count = data.get("rounds") if isinstance(data, dict) else None
    return {
        "generated_at": readers.generated_at_of(data),
        "kernels": kernels,
        "rounds": rounds,
        "round_count": count if type(count) is int else None,
    }, warnings


_ROUNDS = re.compile(r"^Rounds per kernel:\s*`?(\d+)`?", re.IGNORECASE | re.MULTILINE)


@readers.guarded(_empty)
def read_parity_md(text: str, name: str) -> readers.Result[dict[str, Any]]:
    """The markdown twin: ``| Kernel | Input Shape | Baseline ms | PTO ms | Baseline / PTO | Correctness | Latest |``.

    It has no status columns: a side with a latency ran (``ok``); one without is read as
    ``blocked`` (it gave nothing to compare), which is what the JSON twin says in the real reports.
    Its rows are the summary over all rounds; the rounds themselves are only in the JSON.
    """
    if not text.strip():
        return _empty(), [ReadWarning(name, _("file is empty"))]
    from ptotui.model.read.mdtable import parse_table

    table = parse_table(text, ("kernel", "baseline ms", "pto ms"))
    warnings = readers.table_warnings(name, table.problems, table.complete)
    kernels: list[Kernel] = []
    for row in table.rows:
        cells = row.cells
        kernel_name = clean(cells.get("kernel", "")).strip()
        if not kernel_name:
            continue
        baseline_ms = values.as_float(cells.get("baseline ms"))
        pto_ms = values.as_float(cells.get("pto ms"))
        b_status = "ok" if baseline_ms is not None else "blocked"
        p_status = "ok" if pto_ms is not None else "blocked"
        b_correct, p_correct = readers.correctness_of(cells.get("correctness", ""), b_status, p_status)
        variant = readers.derived_ratio(
            Variant(
                shape=values.parse_shape(cells.get("input shape", "")),
                baseline_status=b_status,
                pto_status=p_status,
                baseline_ms=baseline_ms,
                pto_ms=pto_ms,
                ratio_pct=values.as_float(cells.get("baseline / pto")),
                baseline_correct=b_correct,
                pto_correct=p_correct,
            )
        )
        kernel = kernels[-1] if kernels and kernels[-1].name == kernel_name else None
        if kernel is None:
            latest = cells.get("latest", "")
            link = values.LINK.search(latest)
            kernel = Kernel(
                name=kernel_name,
                family=values.family_from_link(latest),
                report_path=link[0] if link else None,
                variants=[],
            )
            kernels.append(kernel)
        kernel.variants.append(variant)
    for kernel in kernels:
        kernel.baseline_status = kernel_status(v.baseline_status for v in kernel.variants)
        kernel.pto_status = kernel_status(v.pto_status for v in kernel.variants)
    kernels = merge_duplicates(kernels, name, warnings)
    match = _ROUNDS.search(text[:4096])
    return {
        "generated_at": clean_optional(table.generated_at),
        "kernels": kernels,
        "rounds": {},
        "round_count": int(match.group(1)) if match else None,
    }, warnings
