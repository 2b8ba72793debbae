"""Plain data classes of the merged report model."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from ptotui.model.text import clean, visible

if TYPE_CHECKING:  # the later stages' types, for the fields they fill in (no import at run time)
    from ptotui.model.bench.benchrun import BenchRun
    from ptotui.model.core.diff import Change


class _NoItems(list[Any]):
    """The one empty list that every kernel and shape without limitations, gaps, matches or
    gap ids holds (at 10,000 kernels x 50 runs, 211,000 empty lists were 12 MB). It equals
    ``[]`` and reads like it; changing it in place raises: assign a new list instead (what
    merging and classifying do anyway)."""

    __slots__ = ()

    def _shared(self, *args: object, **kwargs: object) -> None:
        raise TypeError("this empty list is shared by many kernels: assign a new list instead")

    append = extend = insert = remove = pop = clear = sort = reverse = _shared
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _shared  # type: ignore[assignment]


NO_ITEMS: list[Any] = _NoItems()


def no_items() -> list[Any]:
    """A dataclass field's default: the shared empty list."""
    return NO_ITEMS


def shared_if_empty(items: list[Any]) -> list[Any]:
    """``items``, or the shared empty list when there are none."""
    return items if items else NO_ITEMS


def to_json(value: Any) -> str:
    """A JSON value as compact text (keys in their order); what orjson cannot write (an
    integer past 64 bits) is written by the json module. A ``str`` of its own size: orjson's
    bytes keep the buffer they were written in (1 KB), and 60,000 such buffers shrunk in
    place left the C heap full of holes (~190 MB at 10,000 kernels)."""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(value, default=str, separators=(",", ":"))


def from_json(text: str | None) -> Any:
    if text is None:
        return None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


@dataclass(frozen=True)
class ReadWarning:
    """A problem with one input file; the rest of the reports still load."""

    file: str
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"

    def shown(self) -> str:
        """For the screen: the file with its control characters written as escapes (cleaning
        them away would name another file), the message cleaned."""
        where = visible(self.file)
        return f"{where}:{self.line}: {clean(self.message)}" if self.line else f"{where}: {clean(self.message)}"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "message": self.message}
        if self.line:
            out["line"] = self.line
        return out


@dataclass(frozen=True)
class Gap:
    """One blocker from gap_board.yaml."""

    id: str
    component: str = ""
    status: str = ""
    summary: str = ""
    blocking_kernels: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "component": self.component,
            "status": self.status,
            "summary": self.summary,
            "blocking_kernels": list(self.blocking_kernels),
        }


@dataclass(slots=True, init=False)
class Variant:
    """One (kernel, input shape) row of the regression summary.

    ``baseline_correct`` / ``pto_correct`` are ``None`` when the source only says
    that the pair failed (the markdown's ``blocked/fail``) without saying which side.

    ``shape`` and ``params`` (the JSON objects of the report) are held as their compact JSON
    text and read back when asked for: a parameter object of a few keys and a shape with its
    lists are ~500 bytes a variant as Python objects, ~150 as text (30,000 variants in a
    10,000-kernel report: ~11 MB). Two variants are equal when those texts are.
    """

    shape_json: str | None
    params_json: str | None
    baseline_status: str | None
    pto_status: str | None
    baseline_ms: float | None
    pto_ms: float | None
    ratio_pct: float | None
    baseline_correct: bool | None
    pto_correct: bool | None
    limitations: list[str]
    baseline_reason: str | None
    pto_reason: str | None
    # The numbers the reader found invalid (not finite, negative or absurd) and read as
    # missing, as "field value" texts: its file's one warning names them (readers.py).
    invalid: tuple[str, ...]

    def __init__(
        self,
        shape: Any = None,
        params: dict[str, Any] | None = None,
        baseline_status: str | None = None,
        pto_status: str | None = None,
        baseline_ms: float | None = None,
        pto_ms: float | None = None,
        ratio_pct: float | None = None,
        baseline_correct: bool | None = None,
        pto_correct: bool | None = None,
        limitations: list[str] | None = None,
        baseline_reason: str | None = None,
        pto_reason: str | None = None,
        invalid: tuple[str, ...] = (),
        *,
        shape_json: str | None = None,
        params_json: str | None = None,
    ) -> None:
        self.shape_json = to_json(shape) if shape is not None else shape_json
        self.params_json = to_json(params) if params is not None else params_json
        self.baseline_status, self.pto_status = baseline_status, pto_status
        self.baseline_ms, self.pto_ms, self.ratio_pct = baseline_ms, pto_ms, ratio_pct
        self.baseline_correct, self.pto_correct = baseline_correct, pto_correct
        self.limitations = NO_ITEMS if limitations is None else limitations
        self.baseline_reason, self.pto_reason = baseline_reason, pto_reason
        self.invalid = invalid

    @property
    def shape(self) -> Any:
        return from_json(self.shape_json)

    @property
    def params(self) -> dict[str, Any] | None:
        value = from_json(self.params_json)
        return value if isinstance(value, dict) else None

    @property
    def both_correct(self) -> bool:
        return bool(self.baseline_correct) and bool(self.pto_correct)

    def as_dict(self) -> dict[str, Any]:
        return {
            "shape": self.shape,
            "params": self.params,
            "baseline_status": self.baseline_status,
            "pto_status": self.pto_status,
            "baseline_ms": self.baseline_ms,
            "pto_ms": self.pto_ms,
            "ratio_pct": self.ratio_pct,
            "baseline_correct": self.baseline_correct,
            "pto_correct": self.pto_correct,
            "limitations": list(self.limitations),
        }


@dataclass(slots=True, weakref_slot=True)
class Kernel:
    """Everything the reports say about one kernel, merged across files.

    Slotted: a 10,000-kernel report holds three of these a kernel (as each file gives it,
    and merged), and a plain instance's ``__dict__`` once asked for is ~1.3 KB more each.
    (The search and the detail's cut text cache by a weak reference to the kernel.)
    """

    name: str
    family: str | None = None
    wave: str | None = None
    phase: str | None = None
    inventory_status: str | None = None
    klass: str | None = None
    baseline_status: str | None = None
    pto_status: str | None = None
    baseline_reason: str | None = None
    pto_reason: str | None = None
    limitations: list[str] = field(default_factory=no_items)
    scalar_hot_path: bool | None = None
    scalar_matches: list[str] = field(default_factory=no_items)
    gap_ids: list[str] = field(default_factory=no_items)
    gap_components: list[str] = field(default_factory=no_items)
    block_use: str | None = None
    state_ratio_range: str | None = None
    variants: list[Variant] = field(default_factory=no_items)
    report_path: str | None = None
    spec: str | None = None
    invalid: tuple[str, ...] = ()  # as Variant.invalid, for the kernel's own fields (the state range)
    # Derived by ptotui.model.core.tiers.classify().
    tier: str = ""
    blocker_layer: str | None = None
    gaps: list[Gap] = field(default_factory=no_items)
    ratio_min_pct: float | None = None
    ratio_median_pct: float | None = None
    ratio_max_pct: float | None = None
    baseline_ms: float | None = None
    pto_ms: float | None = None
    local_report: Path | None = None
    # Set by ptotui.model.bench.benchrun: the stamp of the run this state comes from, when that run
    # is newer than the summary (None: the state is the summary's).
    from_run: str | None = None

    @property
    def scalar_heavy(self) -> bool:
        return bool(self.scalar_hot_path) or self.klass == "green but scalar-heavy"

    @property
    def pto_correct(self) -> bool | None:
        """False if any variant's PTO output failed its check, True if every one passed, else None."""
        return _all_correct([v.pto_correct for v in self.variants])

    @property
    def baseline_correct(self) -> bool | None:
        return _all_correct([v.baseline_correct for v in self.variants])

    def copy(self) -> Kernel:
        """A shallow copy (merging assigns fields, it never changes a kernel's lists in place);
        several times cheaper than ``copy.copy``."""
        return Kernel(*kernel_fields(self))


def _all_correct(said: list[bool | None]) -> bool | None:
    """What the variants' checks (each True, False or None) say of the kernel: False if one
    failed, True if all passed, else None."""
    if any(check is False for check in said):
        return False
    return True if said and all(check is True for check in said) else None


# Every field of a kernel as one tuple, in one C call: copying, and equality of two kernels
# (dataclass ``==`` reads 64 attributes in Python; this compares two tuples). Serves the live
# latency at 10,000 kernels: each reload compares every kernel with the last (bench_scale.py).
kernel_fields = attrgetter(*(f.name for f in fields(Kernel)))


@dataclass
class ReportSet:
    """The merged reports of one directory at one moment."""

    source: str
    generated_at: str | None = None
    kernels: list[Kernel] = field(default_factory=list)
    gaps: dict[str, Gap] = field(default_factory=dict)
    warnings: list[ReadWarning] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    # Set by the live loader (core/diff.py): what changed since the previous load (None for the first).
    changes: list[Change] | None = None
    # Set by the live loader: the snapshot file names present at this load.
    snapshots: tuple[str, ...] = ()
    # Set by the live loader: the kernels in the default order, sorted off the UI thread.
    ordered: list[Kernel] | None = None
    # Set by the live loader (bench/benchrun.py): the bench runs read with the reports, or None.
    bench_run: BenchRun | None = None

    def by_name(self) -> dict[str, Kernel]:
        return {k.name: k for k in self.kernels}
