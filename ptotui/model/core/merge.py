"""How the records about one kernel combine into one: statuses, and names seen twice in a file."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ptotui.model.i18n import _, ngettext
from ptotui.model.types import Kernel, ReadWarning, Variant

# What one record says about a kernel that another lacks: used to merge a JSON file with its
# markdown/CSV twins, the state matrix into the regression, and repeated records of one file.
MERGED_FIELDS = (
    "family",
    "wave",
    "phase",
    "inventory_status",
    "klass",
    "baseline_status",
    "pto_status",
    "baseline_reason",
    "pto_reason",
    "scalar_hot_path",
    "block_use",
    "state_ratio_range",
    "report_path",
    "spec",
)
LIST_FIELDS = ("limitations", "scalar_matches", "gap_ids", "gap_components", "variants")


def fill_missing(target: Kernel, source: Kernel) -> None:
    """Copy into ``target`` the fields it lacks and ``source`` has."""
    for name in MERGED_FIELDS:
        if getattr(target, name) is None and (value := getattr(source, name)) is not None:
            setattr(target, name, value)
    for name in LIST_FIELDS:
        if not getattr(target, name) and (items := getattr(source, name)):
            setattr(target, name, list(items))


_SHOWN_NAMES = 5


def _badness(status: str | None) -> int:
    """Unknown < ok < anything else (blocked, fail, ...)."""
    if not status:
        return 0
    return 1 if status == "ok" else 2


def kernel_status(values: Iterable[str | None]) -> str | None:
    """One side's status from all that is said about it (the kernel's own field, its
    variants', a second record's): the worst. A kernel blocked on one shape is blocked,
    whichever format says so."""
    known = [value for value in values if value]
    bad = [value for value in known if value != "ok"]
    if not bad:
        return "ok" if known else None
    return "blocked" if "blocked" in bad else bad[0]


def _rank(kernel: Kernel) -> tuple[int, int]:
    return _badness(kernel.pto_status), _badness(kernel.baseline_status)


def _variant_key(variant: Variant) -> str:
    return json.dumps(variant.as_dict(), sort_keys=True, default=str)


def combine(records: list[Kernel]) -> Kernel:
    """Records of one kernel as one: the worst record's facts, each side's worst status,
    every distinct shape of all, and what the worst record lacks from the others.
    Linear in the records and their shapes (a file may repeat a name many times)."""
    worst = max(records, key=_rank)  # the first of the worst
    ordered = [worst, *(record for record in records if record is not worst)]
    merged = worst.copy()  # a new object: the records may be cached and shared
    merged.baseline_status = kernel_status(record.baseline_status for record in records)
    merged.pto_status = kernel_status(record.pto_status for record in records)
    shapes: dict[str, Variant] = {}
    for record in ordered:
        for variant in record.variants:
            shapes.setdefault(_variant_key(variant), variant)
    merged.variants = list(shapes.values())
    merged.limitations = list(dict.fromkeys(item for record in ordered for item in record.limitations))
    merged.scalar_matches = list(dict.fromkeys(item for record in ordered for item in record.scalar_matches))
    with_gaps = next((record for record in ordered if record.gap_ids), worst)
    merged.gap_ids, merged.gap_components = list(with_gaps.gap_ids), list(with_gaps.gap_components)  # aligned
    for other in ordered[1:]:
        fill_missing(merged, other)
    return merged


def merge_duplicates(kernels: list[Kernel], file: str, warnings: list[ReadWarning]) -> list[Kernel]:
    """Kernels of one file, each name once; one warning naming the file when a name repeats."""
    groups: dict[str, list[Kernel]] = {}
    for kernel in kernels:
        groups.setdefault(kernel.name, []).append(kernel)
    if len(groups) == len(kernels):
        return kernels
    names = [name for name, group in groups.items() if len(group) > 1]
    shown = ", ".join(names[:_SHOWN_NAMES])
    if len(names) > _SHOWN_NAMES:
        shown = _("{shown} and {n} more").format(shown=shown, n=len(names) - _SHOWN_NAMES)
    said = ngettext(
        "{n} kernel appears more than once ({shown}); merged, keeping the worst status",
        "{n} kernels appear more than once ({shown}); merged, keeping the worst status",
        len(names),
    )
    warnings.append(ReadWarning(file, said.format(n=len(names), shown=shown)))
    return [group[0] if len(group) == 1 else combine(group) for group in groups.values()]
