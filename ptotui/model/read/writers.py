"""Render report data in the generators' formats.

ptotui never writes into a reports directory it watches. These writers serve the
sample reports, ``ptotui demo`` (which rewrites its own temporary copy), the
scale benchmark and the round-trip tests of the readers. Like the generators,
:func:`write_in_place` uses a plain, non-atomic write.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ptotui.model.core.fmt import ms, pct

REGRESSION_COLUMNS = (
    "Kernel",
    "Input Shape",
    "Baseline",
    "PTO",
    "Baseline ms",
    "PTO ms",
    "Baseline / PTO",
    "Correctness",
    "Latest",
)
STATE_COLUMNS = (
    "Kernel",
    "Wave",
    "Class",
    "Scalar Hot Path",
    "Block Use",
    "Baseline",
    "PTO",
    "Baseline / PTO",
    "Latest",
)


def _link(kernel: dict[str, Any]) -> str:
    return f"[report](bench/generated/{kernel.get('family')}/{kernel['name']}/report.json)"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _note_row(notes: list[str], width: int) -> str:
    cells = ["", ""] + notes + [""] * (width - 2 - len(notes))
    return "|" + "|".join(f" {c} " if c else "  " for c in cells) + "|"


def _correctness(variant: dict[str, Any]) -> str:
    return "pass" if variant.get("baseline_correct") and variant.get("pto_correct") else "blocked/fail"


def _variant_cells(kernel: dict[str, Any], variant: dict[str, Any], shape: str, latest: str) -> list[str]:
    """The columns the markdown and the CSV share, in REGRESSION_COLUMNS order."""
    return [
        kernel["name"],
        shape,
        variant.get("baseline_status", "n/a"),
        variant.get("pto_status", "n/a"),
        ms(variant.get("baseline_median_ms")),
        ms(variant.get("pto_median_ms")),
        pct(variant.get("baseline_over_pto_pct")),
        _correctness(variant),
        latest,
    ]


def regression_md(data: dict[str, Any]) -> str:
    lines = ["# Latest Regression Summary", "", f"Generated: `{data.get('generated_at')}`", ""]
    lines.append(_row(list(REGRESSION_COLUMNS)))
    lines.append("| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |")
    for kernel in data["kernels"]:
        for variant in kernel["variants"]:
            shape = f"`{json.dumps(variant.get('shape_summary'))}`"
            lines.append(_row(_variant_cells(kernel, variant, shape, _link(kernel))))
            if "baseline_reason" in variant or "pto_reason" in variant:
                notes = [
                    f"baseline reason: {variant.get('baseline_reason')}",
                    f"pto reason: {variant.get('pto_reason')}",
                ]
                lines.append(_note_row(notes, len(REGRESSION_COLUMNS)))
            if variant.get("baseline_limitations"):
                notes = ["baseline limitations: " + "; ".join(variant["baseline_limitations"])]
                lines.append(_note_row(notes, len(REGRESSION_COLUMNS)))
    return "\n".join(lines)  # the generators end without a newline


def regression_csv(data: dict[str, Any]) -> str:
    """The CSV twin: the markdown's columns plus family, reasons and limitations."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        list(REGRESSION_COLUMNS)
        + ["Family", "Baseline Correct", "PTO Correct", "Baseline Reason", "PTO Reason", "Baseline Limitations"]
    )
    for kernel in data["kernels"]:
        for variant in kernel["variants"]:
            latest = f"bench/generated/{kernel.get('family')}/{kernel['name']}/report.json"
            writer.writerow(
                _variant_cells(kernel, variant, json.dumps(variant.get("shape_summary")), latest)
                + [
                    kernel.get("family") or "",
                    str(bool(variant.get("baseline_correct"))).lower(),
                    str(bool(variant.get("pto_correct"))).lower(),
                    variant.get("baseline_reason") or "",
                    variant.get("pto_reason") or "",
                    "; ".join(variant.get("baseline_limitations") or []),
                ]
            )
    return out.getvalue()


def _block_use(value: Any) -> str:
    if not isinstance(value, dict) or value.get("requested_block_dim") is None:
        return "n/a"
    return f"{value['requested_block_dim']} blocks, all={value.get('uses_all_blocks')}"


def state_md(data: dict[str, Any]) -> str:
    lines = ["# Kernel State Matrix", "", f"Generated: `{data.get('generated_at')}`", ""]
    lines.append(_row(list(STATE_COLUMNS)))
    lines.append("| --- | --- | --- | --- | --- | --- | --- | ---: | --- |")
    for kernel in data["kernels"]:
        lines.append(
            _row(
                [
                    kernel["name"],
                    kernel.get("wave") or "n/a",
                    kernel.get("primary_class") or "n/a",
                    "yes" if kernel.get("scalar_hot_path") else "no",
                    _block_use(kernel.get("block_utilization")),
                    kernel.get("baseline_status") or "n/a",
                    kernel.get("pto_status") or "n/a",
                    kernel.get("baseline_over_pto_range") or "n/a",
                    _link(kernel),
                ]
            )
        )
        if kernel.get("scalar_matches"):
            lines.append(_note_row([f"scalar matches: `{'; '.join(kernel['scalar_matches'])}`"], len(STATE_COLUMNS)))
        if kernel.get("gap_ids"):
            lines.append(_note_row([f"gap ids: `{', '.join(kernel['gap_ids'])}`"], len(STATE_COLUMNS)))
    return "\n".join(lines)  # the generators end without a newline


def dump_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=True) + "\n"


def write_in_place(path: Path, text: str) -> None:
    """Write like the generators do: truncate and write, no temp file, no rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def write_regression(reports: Path, data: dict[str, Any], csv_too: bool = True) -> None:
    write_in_place(reports / "regression_latest.json", dump_json(data))
    write_in_place(reports / "regression_latest.md", regression_md(data))
    if csv_too:
        write_in_place(reports / "regression_latest.csv", regression_csv(data))


def write_state(reports: Path, data: dict[str, Any], snapshot: bool = False) -> None:
    write_in_place(reports / "kernel_state_matrix_latest.json", dump_json(data))
    write_in_place(reports / "kernel_state_matrix_latest.md", state_md(data))
    if snapshot:
        stamp = data["generated_at"]
        write_in_place(reports / f"kernel_state_matrix_{stamp}.json", dump_json(data))
        write_in_place(reports / f"kernel_state_matrix_{stamp}.md", state_md(data))
