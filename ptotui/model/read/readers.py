"""Readers for every report format. None of them raises on bad input.

Each ``read_*`` function takes the file's text and a display name and returns
``(result, warnings)``; a file that cannot be used gives an empty result and a
warning that names it and says what is wrong.
"""

from __future__ import annotations

import functools
import io
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from ptotui.model.core.merge import kernel_status, merge_duplicates
from ptotui.model.i18n import _
from ptotui.model.location import REGRESSION_FILES, STATE_FILES
from ptotui.model.read import jsonstream
from ptotui.model.read.values import (
    LINK,
    MAX_DEPTH,
    MAX_MS,
    MAX_RATIO_PCT,
    NA,
    as_bool,
    as_status,
    as_str,
    as_str_list,
    as_word,
    bounded,
    checked_number,
    family_from_link,
    invalid_numbers_warning,
    parse_shape,
    shown_number,
    strip_ticks,
    within_depth,
)
from ptotui.model.text import clean, clean_optional
from ptotui.model.types import Kernel, ReadWarning, Variant, shared_if_empty

if TYPE_CHECKING:  # the markdown readers import it when a markdown report is read
    from ptotui.model.read.mdtable import MdRow

T = TypeVar("T")
Result = tuple[T, list[ReadWarning]]


@dataclass
class ParsedJson:
    """A JSON file its source already parsed (the live source while validating it, the
    headless commands' source from its bytes); its text is not kept.

    ``value`` is the parse. With ``reused`` (the live source), the readers of the regression
    summary and the state matrix put the Kernel they build from a record in the record's place
    in ``value["kernels"]``: the live source's parser hands back that slot's value for an
    element whose text did not change, so the next load reuses the Kernel, and the record is
    not kept (a record of a 10,000-kernel report is several times its kernel's size). Such a
    kernel is shared: whoever merges into it copies it first
    (:func:`ptotui.model.read.loader.load` does). Without, the parse is left as it was.
    """

    value: Any
    reused: bool = True


# What a file source hands a reader: the file's text, or its already parsed JSON.
Source = str | ParsedJson


def text_of(source: Source) -> str:
    """The text a markdown, CSV or YAML reader reads (the live source parses only JSON)."""
    if isinstance(source, ParsedJson):
        raise TypeError("a parsed JSON file has no text to read as another format")
    return source


def guarded(default: Callable[[], T]) -> Callable[[Callable[..., Result]], Callable[..., Result]]:
    """Turn any unexpected exception of a reader into a warning (last line of defence)."""

    def wrap(func: Callable[..., Result]) -> Callable[..., Result]:
        def inner(text: Source, name: str, *args: Any) -> Result:
            try:
                return func(text, name, *args)
            except Exception as exc:  # noqa: BLE001 - a reader must never raise
                said = _("could not be read: {error}").format(error=f"{type(exc).__name__}: {clean(exc)}")
                return default(), [ReadWarning(name, said)]

        return functools.wraps(func)(inner)

    return wrap


def as_built(build: Callable[[dict[str, Any]], Kernel]) -> Callable[[Any], Any]:
    """For the parser (``jsonstream.loads(convert=...)``): a record turned into its kernel as
    soon as it is decoded. Anything else, or a record ``build`` fails on, stays as it is, for
    the reader to say what is wrong with it."""

    def convert(record: Any) -> Any:
        if not _named(record):
            return record
        try:
            return build(record)
        except Exception:  # noqa: BLE001 - the reader builds it again and its guard names the problem
            return record

    return convert


def kernel_builders(name: str) -> dict[str, Callable[[Any], Any]] | None:
    """What the live source's parser turns the records of the JSON file ``name`` into (see
    :func:`kernels_of`): the summary's and the state matrix's kernels; None for other files."""
    if name in REGRESSION_FILES:
        return {"kernels": as_built(_regression_kernel)}
    if name in STATE_FILES:
        return {"kernels": as_built(_state_kernel)}
    return None


def _named(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("name"), str) and bool(record["name"].strip())


def records_of(data: Any, name: str, warnings: list[ReadWarning], built: bool = False) -> list[Any]:
    """The records of ``data["kernels"]`` with a name (each other one a warning); with ``built``,
    a Kernel a reader put in a record's place counts as a record."""
    if not isinstance(data, dict):
        warnings.append(ReadWarning(name, _("expected a JSON object, found {type}").format(type=type(data).__name__)))
        return []
    kernels = data.get("kernels")
    if not isinstance(kernels, list):
        warnings.append(ReadWarning(name, _('no "{key}" list').format(key="kernels")))
        return []
    records = []
    for index, record in enumerate(kernels):
        if _named(record) or (built and type(record) is Kernel):
            records.append(record)
        else:
            warnings.append(ReadWarning(name, _("kernels[{index}] has no name; skipped").format(index=index)))
    return records


_LITERALS = ("true", "false", "null", "NaN", "Infinity", "-Infinity")


def ends_early(text: str, error: ValueError) -> bool:
    """Whether the parse failed because the text stops (a torn file), not because it is not JSON:
    the error is where the text ends, or inside a string or a word left unfinished there.
    ``hello not json`` fails at its first byte, ``{"a":1} trailing`` after a whole value."""
    position = getattr(error, "pos", None)
    if not isinstance(position, int):
        return False
    rest = text[position:].strip()
    if not rest:
        return True
    if getattr(error, "msg", "").startswith("Unterminated string"):
        return True
    return any(word.startswith(rest) and word != rest for word in _LITERALS)


def load_json(source: Source, name: str, warnings: list[ReadWarning]) -> Any:
    if isinstance(source, ParsedJson):
        return source.value  # validated (and parsed) by the live file source already
    text = source
    try:  # the headless path (export, summary, diff): C-speed parsing of the whole text
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass  # NaN literals (Python's json writes them), nesting past 1,024, or not JSON: the careful parser says
    try:
        return jsonstream.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        if not text.strip():
            message = _("file is empty")
        elif ends_early(text, exc):
            message = _("JSON ends early (file truncated or still being written)")
        else:
            message = _("invalid JSON: {error}").format(error=getattr(exc, "msg", exc))
        warnings.append(ReadWarning(name, message, line))
        return None


def kernels_of(
    source: Source, data: Any, name: str, warnings: list[ReadWarning], build: Callable[[dict[str, Any]], Kernel]
) -> list[Kernel]:
    """The kernels of ``data["kernels"]``, each record built by ``build`` (one without a name
    is skipped with a warning). In the live source's parse (a reused :class:`ParsedJson`) the
    parser built them already (:func:`kernel_builders`), and a record left there is built
    now and put in its place."""
    reused = isinstance(source, ParsedJson) and source.reused
    records = records_of(data, name, warnings, built=reused)
    if not reused or not records:
        return [build(record) for record in records]
    items = data["kernels"]  # (a list, else there would be no records)
    kernels = []
    for index, item in enumerate(items):
        if type(item) is Kernel:
            kernels.append(item)
        elif _named(item):
            items[index] = kernel = build(item)
            kernels.append(kernel)
    return kernels


def generated_at_of(data: Any) -> str | None:
    return as_str(data.get("generated_at")) if isinstance(data, dict) else None


# -- regression summary --------------------------------------------------------------


def derived_ratio(variant: Variant) -> Variant:
    """Fill a missing Baseline / PTO ratio from the two latencies when both sides ran.

    The ratio is baseline ms / PTO ms x 100 by definition; a report that left it out
    (``n/a``) while giving both latencies would otherwise show a running kernel as SLOW
    with no ratio. Read the same way from every format.
    """
    b, p = variant.baseline_ms, variant.pto_ms
    if variant.ratio_pct is None and variant.baseline_status == variant.pto_status == "ok" and b and p:
        if b > 0 and p > 0:
            ratio = b / p * 100
            if ratio <= MAX_RATIO_PCT:
                variant.ratio_pct = ratio
            else:  # two valid latencies, an absurd quotient (1e300 ms over 1e-300 ms)
                variant.invalid += (f"Baseline / PTO {b:g} ms / {p:g} ms",)
    return variant


def _numbers(baseline: Any, pto: Any, ratio: Any) -> tuple[float | None, float | None, float | None, tuple[str, ...]]:
    """A variant's latencies and ratio, each checked (``checked_number``), and what was invalid."""
    invalid: list[str] = []
    b = checked_number(baseline, MAX_MS, "baseline ms", invalid)
    p = checked_number(pto, MAX_MS, "PTO ms", invalid)
    r = checked_number(ratio, MAX_RATIO_PCT, "Baseline / PTO", invalid)
    return b, p, r, tuple(invalid)


def _variant_from_json(record: dict[str, Any]) -> Variant:
    get = record.get
    params = get("variant")
    baseline_ms, pto_ms, ratio_pct, invalid = _numbers(
        get("baseline_median_ms"), get("pto_median_ms"), get("baseline_over_pto_pct")
    )
    return derived_ratio(
        Variant(
            shape=bounded(get("shape_summary")),
            params=params if isinstance(params, dict) and within_depth(params, MAX_DEPTH) else None,
            baseline_status=as_status(get("baseline_status")),
            pto_status=as_status(get("pto_status")),
            baseline_ms=baseline_ms,
            pto_ms=pto_ms,
            ratio_pct=ratio_pct,
            baseline_correct=as_bool(get("baseline_correct")),
            pto_correct=as_bool(get("pto_correct")),
            limitations=as_str_list(get("baseline_limitations")),
            baseline_reason=as_str(get("baseline_reason")),
            pto_reason=as_str(get("pto_reason")),
            invalid=invalid,
        )
    )


def unique_limitations(variants: list[Variant]) -> list[str]:
    """Every variant's limitations, each once, in first-seen order (linear: a dict keeps the order)."""
    return shared_if_empty(list(dict.fromkeys(item for variant in variants for item in variant.limitations)))


def _regression_kernel(record: dict[str, Any]) -> Kernel:
    get = record.get
    variants_raw = get("variants")
    records = variants_raw if isinstance(variants_raw, list) else []
    variants = [_variant_from_json(v) for v in records if isinstance(v, dict)]
    # The kernel's own fields count with its variants', by the rules the markdown (which
    # has only the variants) is read with: the same facts give the same kernel from either.
    baseline = [as_status(get("baseline_status"))] + [v.baseline_status for v in variants]
    pto = [as_status(get("pto_status"))] + [v.pto_status for v in variants]
    return Kernel(
        name=sys.intern(clean(record["name"]).strip()),
        family=as_word(get("family")),
        baseline_status=kernel_status(baseline),
        pto_status=kernel_status(pto),
        baseline_reason=as_str(get("baseline_reason")) or _first(v.baseline_reason for v in variants),
        pto_reason=as_str(get("pto_reason")) or _first(v.pto_reason for v in variants),
        limitations=unique_limitations(variants),
        variants=variants,
        report_path=as_word(get("report_path"), longest=None),
        spec=as_str(get("spec")),
    )


def _first(values: Iterable[str | None]) -> str | None:
    """The first value that is not empty (None, "")."""
    return next((value for value in values if value), None)


def _kernels_json(text: Source, name: str, build: Callable[[dict[str, Any]], Kernel]) -> Result[dict[str, Any]]:
    """A JSON report of kernel records -> {"generated_at", "kernels": [Kernel]}, each built by ``build``."""
    warnings: list[ReadWarning] = []
    data = load_json(text, name, warnings)
    kernels = kernels_of(text, data, name, warnings, build) if data is not None else []
    invalid_numbers_warning(kernels, name, warnings)
    kernels = merge_duplicates(kernels, name, warnings)
    return {"generated_at": generated_at_of(data), "kernels": kernels}, warnings


@guarded(lambda: ({"generated_at": None, "kernels": []}))
def read_regression_json(text: Source, name: str) -> Result[dict[str, Any]]:
    """regression_latest.json -> {"generated_at", "kernels": [Kernel]}."""
    return _kernels_json(text, name, _regression_kernel)


def _notes_to_fields(row: MdRow) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for label, value in row.notes:
        if label == "baseline reason":
            fields["baseline_reason"] = clean_optional(value)
        elif label == "pto reason":
            fields["pto_reason"] = clean_optional(value)
        elif label in ("baseline limitations", "limitations"):
            fields["limitations"] = [clean(p).strip() for p in value.split("; ") if p.strip()]
        elif label == "scalar matches":
            fields["scalar_matches"] = [clean(p).strip() for p in strip_ticks(value).split(";") if p.strip()]
        elif label == "gap ids":
            fields["gap_ids"] = [clean(p).strip() for p in strip_ticks(value).split(",") if p.strip()]
    return fields


def correctness_of(text: str, baseline: str | None, pto: str | None) -> tuple[bool | None, bool | None]:
    """The markdown only says ``pass`` (both sides correct) or ``blocked/fail``."""
    if text.strip().lower() == "pass":
        return True, True
    baseline_ok, pto_ok = baseline == "ok", pto == "ok"
    if baseline_ok and pto_ok:
        return None, None  # one side failed its check; the summary does not say which
    return (None if baseline_ok else False), (None if pto_ok else False)


def _variant_from_cells(cells: dict[str, str], notes: dict[str, Any]) -> Variant:
    baseline = as_status(cells.get("baseline"))
    pto = as_status(cells.get("pto"))
    baseline_correct, pto_correct = correctness_of(cells.get("correctness", ""), baseline, pto)
    if "baseline correct" in cells:
        baseline_correct = as_bool(cells["baseline correct"])
    if "pto correct" in cells:
        pto_correct = as_bool(cells["pto correct"])
    baseline_ms, pto_ms, ratio_pct, invalid = _numbers(
        cells.get("baseline ms"), cells.get("pto ms"), cells.get("baseline / pto")
    )
    return derived_ratio(
        Variant(
            shape=parse_shape(cells.get("input shape", "")),
            baseline_status=baseline,
            pto_status=pto,
            baseline_ms=baseline_ms,
            pto_ms=pto_ms,
            ratio_pct=ratio_pct,
            invalid=invalid,
            baseline_correct=baseline_correct,
            pto_correct=pto_correct,
            limitations=notes.get("limitations", []),
            baseline_reason=notes.get("baseline_reason"),
            pto_reason=notes.get("pto_reason"),
        )
    )


def _kernels_from_rows(rows: list[tuple[dict[str, str], dict[str, Any]]]) -> list[Kernel]:
    """Group per-variant rows (cells, note fields) into kernels: a kernel's rows are
    consecutive, so a name that comes back later is a second record (see merge_duplicates)."""
    kernels: list[Kernel] = []
    for cells, notes in rows:
        name = clean(cells.get("kernel", "")).strip()
        if not name:
            continue
        variant = _variant_from_cells(cells, notes)
        kernel = kernels[-1] if kernels and kernels[-1].name == name else None
        if kernel is None:
            kernel = Kernel(
                name=name,
                family=as_str(cells.get("family")) or family_from_link(cells.get("latest")),
                report_path=(LINK.search(cells.get("latest", "")) or [None])[0],
                variants=[],
            )
            kernels.append(kernel)
        kernel.variants.append(variant)
        kernel.baseline_reason = kernel.baseline_reason or variant.baseline_reason
        kernel.pto_reason = kernel.pto_reason or variant.pto_reason
    for kernel in kernels:
        kernel.limitations = unique_limitations(kernel.variants)
        kernel.baseline_status = kernel_status(v.baseline_status for v in kernel.variants)
        kernel.pto_status = kernel_status(v.pto_status for v in kernel.variants)
    return kernels


def table_warnings(name: str, problems: list[tuple[int, str]], complete: bool) -> list[ReadWarning]:
    from ptotui.model.read.mdtable import says_incomplete  # a markdown twin is read: off the JSON path

    warnings = [ReadWarning(name, message, line or None) for line, message in problems]
    if not complete and not any(says_incomplete(w.message) for w in warnings):
        warnings.append(ReadWarning(name, _("file does not end with a complete row (truncated?)")))
    return warnings


@guarded(lambda: ({"generated_at": None, "kernels": []}))
def read_regression_md(text: str, name: str) -> Result[dict[str, Any]]:
    """regression_latest.md -> {"generated_at", "kernels": [Kernel]}."""
    if not text.strip():
        return {"generated_at": None, "kernels": []}, [ReadWarning(name, _("file is empty"))]
    from ptotui.model.read.mdtable import parse_table

    table = parse_table(text, ("kernel", "baseline", "pto", "baseline / pto"))
    rows = [(row.cells, _notes_to_fields(row)) for row in table.rows]
    warnings = table_warnings(name, table.problems, table.complete)
    kernels = _kernels_from_rows(rows)
    invalid_numbers_warning(kernels, name, warnings)
    kernels = merge_duplicates(kernels, name, warnings)
    return {"generated_at": clean_optional(table.generated_at), "kernels": kernels}, warnings


@guarded(lambda: ({"generated_at": None, "kernels": []}))
def read_regression_csv(text: str, name: str) -> Result[dict[str, Any]]:
    """regression_latest.csv (the markdown's columns, any case, extra columns allowed)."""
    if not text.strip():
        return {"generated_at": None, "kernels": []}, [ReadWarning(name, _("file is empty"))]
    warnings: list[ReadWarning] = []
    if not text.endswith("\n"):
        # pandas parses a cut-off last line silently; say so and drop it.
        warnings.append(ReadWarning(name, _("last line is incomplete (file truncated?); it was skipped")))
        text = text[: text.rfind("\n") + 1]
    import pandas as pd  # deferred: keeps pandas off the JSON start-up path

    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, on_bad_lines="skip")
    except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        warnings.append(ReadWarning(name, _("not a CSV table: {error}").format(error=clean(exc))))
        return {"generated_at": None, "kernels": []}, warnings
    frame.columns = [str(c).strip().lower() for c in frame.columns]
    missing = [c for c in ("kernel", "baseline", "pto") if c not in frame.columns]
    if missing:
        warnings.append(ReadWarning(name, _("missing column(s): {columns}").format(columns=", ".join(missing))))
        return {"generated_at": None, "kernels": []}, warnings
    if "generated" in frame.columns:
        generated = next((v for v in frame["generated"] if v), None)
    else:
        generated = None
    rows = []
    for record in frame.to_dict("records"):
        cells = {str(k): str(v) for k, v in record.items()}
        notes: dict[str, Any] = {}
        if cells.get("baseline reason"):
            notes["baseline_reason"] = clean_optional(cells["baseline reason"])
        if cells.get("pto reason"):
            notes["pto_reason"] = clean_optional(cells["pto reason"])
        limits = cells.get("baseline limitations") or cells.get("limitations")
        if limits:
            notes["limitations"] = [clean(p).strip() for p in limits.split("; ") if p.strip()]
        rows.append((cells, notes))
    kernels = _kernels_from_rows(rows)
    invalid_numbers_warning(kernels, name, warnings)
    kernels = merge_duplicates(kernels, name, warnings)
    return {"generated_at": clean_optional(generated), "kernels": kernels}, warnings


# -- kernel state matrix -------------------------------------------------------------


def block_use_text(value: Any) -> str | None:
    """Render block_utilization the way the markdown does: ``24 blocks, all=True``."""
    if not isinstance(value, dict):
        return None
    dim = value.get("requested_block_dim")
    if dim is None:
        return None
    return f"{clean(dim)} blocks, all={clean(value.get('uses_all_blocks'))}"


def checked_range(text: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The state matrix's ``42.3%..42.5%``, or None with what was invalid when an end is a
    number outside 0..MAX_RATIO_PCT (``1e308%``, ``inf%``, ``-5%``)."""
    if not text or ".." not in text:
        return text, ()
    invalid: list[str] = []
    for end in text.split("..", 1):
        checked_number(end, MAX_RATIO_PCT, "Baseline / PTO range", invalid)
    return (None, (f"Baseline / PTO range {shown_number(text)}",)) if invalid else (text, ())


def _state_kernel(record: dict[str, Any]) -> Kernel:
    get = record.get
    state_range, invalid = checked_range(as_str(get("baseline_over_pto_range")))
    return Kernel(
        name=sys.intern(clean(record["name"]).strip()),
        family=as_word(get("family")),
        wave=as_word(get("wave")),
        phase=as_word(get("phase")),
        inventory_status=as_word(get("inventory_status")),
        klass=as_word(get("primary_class")),
        baseline_status=as_status(get("baseline_status")),
        pto_status=as_status(get("pto_status")),
        baseline_reason=as_str(get("baseline_reason")),
        pto_reason=as_str(get("pto_reason")),
        scalar_hot_path=as_bool(get("scalar_hot_path")),
        scalar_matches=as_str_list(get("scalar_matches")),
        gap_ids=as_str_list(get("gap_ids")),
        gap_components=as_str_list(get("gap_components")),
        block_use=as_word(block_use_text(get("block_utilization"))),
        state_ratio_range=state_range,  # (each kernel's own: not held once)
        invalid=invalid,
        report_path=as_word(get("report_path"), longest=None),
    )


@guarded(lambda: ({"generated_at": None, "kernels": []}))
def read_state_json(text: Source, name: str) -> Result[dict[str, Any]]:
    """kernel_state_matrix_*.json -> {"generated_at", "kernels": [Kernel without variants]}."""
    return _kernels_json(text, name, _state_kernel)


@guarded(lambda: ({"generated_at": None, "kernels": []}))
def read_state_md(text: str, name: str) -> Result[dict[str, Any]]:
    """kernel_state_matrix_*.md -> the same facts as the JSON twin (reasons excepted)."""
    if not text.strip():
        return {"generated_at": None, "kernels": []}, [ReadWarning(name, _("file is empty"))]
    from ptotui.model.read.mdtable import parse_table

    table = parse_table(text, ("kernel", "class"))
    kernels: list[Kernel] = []
    for row in table.rows:
        cells, notes = row.cells, _notes_to_fields(row)
        kernel_name = clean(cells["kernel"]).strip()
        block_use = clean_optional(cells.get("block use"))
        state_range, invalid = checked_range(clean_optional(cells.get("baseline / pto")))
        kernels.append(
            Kernel(
                name=kernel_name,
                family=family_from_link(cells.get("latest")),
                wave=clean_optional(cells.get("wave")),
                klass=clean_optional(cells.get("class")),
                baseline_status=as_status(cells.get("baseline")),
                pto_status=as_status(cells.get("pto")),
                scalar_hot_path=as_bool(cells.get("scalar hot path")),
                scalar_matches=notes.get("scalar_matches", []),
                gap_ids=notes.get("gap_ids", []),
                block_use=None if (block_use or "").lower() in NA else block_use,
                state_ratio_range=state_range,
                invalid=invalid,
                report_path=(LINK.search(cells.get("latest", "")) or [None])[0],
            )
        )
    warnings = table_warnings(name, table.problems, table.complete)
    invalid_numbers_warning(kernels, name, warnings)
    return {
        "generated_at": clean_optional(table.generated_at),
        "kernels": merge_duplicates(kernels, name, warnings),
    }, warnings
