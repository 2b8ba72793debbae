"""Read every report file of a location and merge them into one ReportSet."""

from __future__ import annotations

import codecs
import contextlib
import gc
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from ptotui.model.core.aggregate import aggregate
from ptotui.model.core.merge import fill_missing
from ptotui.model.core.tiers import Thresholds, classify
from ptotui.model.i18n import _
from ptotui.model.location import REGRESSION_FILES, STATE_FILES, Location
from ptotui.model.read import readers, safefile, sidefiles
from ptotui.model.text import clean
from ptotui.model.types import Kernel, ReadWarning, ReportSet, kernel_fields

# A file source: path -> text (or JSON it already parsed), or None when the file does
# not exist. It reports read problems through the warnings list it is given.
FileSource = Callable[[Path, list[ReadWarning]], "readers.Source | None"]
SideReader = Callable[[str, str], "tuple[dict[str, Any], list[ReadWarning]]"]


class LastGood(Protocol):
    """What a live source remembers of a JSON of no use now: torn, wrong-shaped, not a regular
    file or over the cap (``ptotui.model.live.source.StableSource``)."""

    def used(self, path: Path) -> None:
        """The text just handed out for ``path`` gave kernels: the one to keep if it goes bad."""
        ...

    def kept(self, path: Path) -> tuple[readers.Source, str] | None:
        """The text the load used last and the warning to show it with, if it had one."""
        ...

    def release(self, path: Path) -> None:
        """Its twins are read instead: forget that text."""
        ...

    def modified(self, path: Path) -> int | None:
        """The modification time (ns) of the version of ``path`` last handed out whole (of a
        JSON invalid now: of its last good version), None when unknown."""
        ...


def stamp_key(generated_at: str | None) -> str:
    """A ``generated_at`` as comparable digits (``20260321T024111Z`` and ``2026-03-21T02:41:11Z``
    both give ``20260321024111``); "" when there is none to compare."""
    digits = "".join(c for c in generated_at or "" if c.isascii() and c.isdigit())
    return digits if len(digits) >= 8 else ""


def decode(data: bytes, name: str, warnings: list[ReadWarning]) -> str:
    """UTF-8 text of ``data``; undecodable bytes become U+FFFD with a warning."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        warnings.append(
            ReadWarning(
                name,
                _("not valid UTF-8 (first bad byte at offset {offset}); shown with replacements").format(
                    offset=exc.start
                ),
            )
        )
        return data.decode("utf-8", errors="replace")


def _file_bytes(path: Path, warnings: list[ReadWarning]) -> bytes | None:
    try:
        return safefile.read_bytes(path)
    except FileNotFoundError:
        return None
    except safefile.FileRefused as exc:
        warnings.append(ReadWarning(str(path), exc.message))
        return None
    except OSError as exc:
        warnings.append(ReadWarning(str(path), _("not readable: {error}").format(error=clean(exc.strerror or exc))))
        return None


def read_file(path: Path, warnings: list[ReadWarning]) -> str | None:
    """The plain file source: one read, no retries; the file's text."""
    data = _file_bytes(path, warnings)
    return None if data is None else decode(data, str(path), warnings)


def read_source(path: Path, warnings: list[ReadWarning]) -> readers.Source | None:
    """The headless commands' file source: :func:`read_file`, but a JSON file orjson takes is
    parsed from its bytes at once, not decoded to text first (30 MB at 10,000 kernels: a
    tenth of ``ptotui export``, benchmarks/bench_startup.py). One orjson refuses (not UTF-8,
    NaN literals, deep nesting) is handed on as text, whose reader says what is wrong."""
    data = _file_bytes(path, warnings)
    if data is None:
        return None
    if path.suffix == ".json":
        try:
            value = orjson.loads(data[3:] if data.startswith(codecs.BOM_UTF8) else data)
            return readers.ParsedJson(value, reused=False)
        except orjson.JSONDecodeError:
            pass
    return decode(data, str(path), warnings)


def _read_first(
    location: Location,
    names: tuple[str, ...],
    parsers: dict[str, Callable[[readers.Source, str], Any]],
    source: FileSource,
    warnings: list[ReadWarning],
    files_read: list[str],
    last_good: LastGood | None = None,
) -> list[dict[str, Any]]:
    """Parse the first usable file of ``names``; fall back to the others when it fails.

    JSON is preferred. When it is missing, empty, torn or wrong-shaped, the other formats
    are all read and merged so that nothing they hold is lost. A JSON of no use now (torn,
    wrong-shaped, not a regular file, over the cap) whose last used text ``last_good`` still
    holds keeps showing that text when its twins are older (by ``generated_at``; of the same
    ``generated_at``, when their files are not newer than that text's): a bad rewrite does not
    bring back older data as current. Twins newer (or with nothing to compare) are read instead.
    """
    results = []
    paths: list[Path] = []  # of each result
    held: tuple[Path, readers.Source, str] | None = None
    for name in names:
        path = location.reports / name
        file_warnings: list[ReadWarning] = []
        text = source(path, file_warnings)
        warnings.extend(file_warnings)
        if text is None:
            if name.endswith(".json") and file_warnings and last_good is not None and held is None:
                kept = last_good.kept(path)  # there but refused (a FIFO, a directory, over the cap)
                if kept is not None:
                    held = (path, *kept)
            continue
        files_read.append(str(path))
        suffix = name.rsplit(".", 1)[1]
        parsed, parse_warnings = parsers[suffix](text if suffix == "json" else readers.text_of(text), str(path))
        warnings.extend(parse_warnings)
        if suffix == "json" and last_good is not None:
            if parsed["kernels"]:
                last_good.used(path)
            elif parse_warnings:  # torn or wrong-shaped
                kept = last_good.kept(path)
                if kept is not None:
                    held = (path, *kept)
        if parsed["kernels"] or not parse_warnings:
            results.append(parsed)
            paths.append(path)
        if parsed["kernels"] and not parse_warnings and not file_warnings and held is None:
            break  # a clean file says everything; the twins would only repeat it (a CSV has no stamp)
    if held is not None and last_good is not None:
        path, text, said = held
        good, _ = parsers["json"](text, str(path))
        shown = stamp_key(good["generated_at"])
        stamps = [(stamp_key(r["generated_at"]), p) for r, p in zip(results, paths, strict=True) if r["kernels"]]
        twins = max((stamp for stamp, _p in stamps), default="")
        if good["kernels"] and shown and _twins_not_newer(twins, shown, stamps, path, last_good):
            warnings.append(ReadWarning(str(path), said))
            return [good]
        last_good.release(path)
    return results


def _twins_not_newer(twins: str, shown: str, stamps: list[tuple[str, Path]], held: Path, last_good: LastGood) -> bool:
    """Whether the twins of the held JSON are older than its last good text: by stamp (twins
    with no stamp cannot be shown newer), and for the same stamp (a generator run again on
    it, or the JSON rewritten alone) by file time: the newer file wins; a tie keeps what is shown."""
    if twins < shown:
        return True
    if twins > shown:
        return False
    kept = last_good.modified(held)
    if kept is None:
        return False
    times = [last_good.modified(p) for stamp, p in stamps if stamp == shown]
    return all(t is not None and t <= kept for t in times)


def _same(one: Kernel | None, other: Kernel | None) -> bool:
    """The same kernel facts: the very object (what the live source's parse hands back for
    an unchanged record), or equal in every field."""
    if one is None or other is None:
        return one is other
    return one is other or kernel_fields(one) == kernel_fields(other)


def _merge(results: list[dict[str, Any]]) -> tuple[dict[str, Kernel], str | None]:
    merged: dict[str, Kernel] = {}
    copied: dict[str, Kernel] = {}
    generated_at = None
    for result in results:
        generated_at = generated_at or result["generated_at"]
        for kernel in result["kernels"]:
            if kernel.name in merged:
                if kernel.name not in copied:  # it may be a parser's cached kernel: merge into a copy
                    merged[kernel.name] = copied[kernel.name] = merged[kernel.name].copy()
                fill_missing(merged[kernel.name], kernel)
            else:
                merged[kernel.name] = kernel
    return merged, generated_at


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic GC while parsing: JSON makes millions of containers, and
    the collector's passes over a growing heap slow a 10k-kernel load several times
    over (benchmarks/bench_scale.py measures the load)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass
class MergeMemo:
    """What the last load of one location merged, for the next load to reuse.

    Per kernel: the fields its regression and state records gave, and the kernel the
    merge and classification made of them. When the side files and thresholds are the
    same as well, a kernel whose records give the same fields is that very kernel:
    a rewrite that touches 1% of 10k kernels merges and classifies 100 of them
    (benchmarks/bench_scale.py). Comparing the field dicts is cheap because a parser's
    cache hands back the same value objects for records whose text did not change.
    """

    context: tuple | None = None  # (gaps, inventory, thresholds) of the last load
    kernels: dict[str, tuple[Kernel, Kernel | None, Kernel]] = field(default_factory=dict)  # read, row, merged


def load(
    location: Location,
    thresholds: Thresholds = Thresholds(),
    source: FileSource = read_source,
    memo: MergeMemo | None = None,
    last_good: LastGood | None = None,
) -> ReportSet:
    """Read and merge the reports at ``location``. Never raises for bad input.

    With ``memo`` (kept between loads of the same location), a kernel whose inputs
    did not change is the very Kernel object the last load returned. With ``last_good``
    (the live source), a JSON invalid now keeps its last good text while its twins are older.
    """
    with gc_paused():
        return _load(location, thresholds, source, memo, last_good)


def _load(
    location: Location,
    thresholds: Thresholds,
    source: FileSource,
    memo: MergeMemo | None,
    last_good: LastGood | None = None,
) -> ReportSet:
    warnings: list[ReadWarning] = []
    files_read: list[str] = []
    regression, generated_at = _merge(
        _read_first(
            location,
            REGRESSION_FILES,
            {
                "json": readers.read_regression_json,
                "csv": readers.read_regression_csv,
                "md": readers.read_regression_md,
            },
            source,
            warnings,
            files_read,
            last_good,
        )
    )
    if not regression and not any(Path(f).name in REGRESSION_FILES for f in files_read):
        regression, generated_at = _older_kind(location, source, warnings, files_read, last_good)
    state, state_generated = _merge(
        _read_first(
            location,
            STATE_FILES,
            {"json": readers.read_state_json, "md": readers.read_state_md},
            source,
            warnings,
            files_read,
            last_good,
        )
    )
    gaps = _read_side(location.gap_board, sidefiles.read_gap_board, source, warnings, files_read)
    inventory = _read_side(location.inventory, sidefiles.read_inventory, source, warnings, files_read)

    context = (gaps, inventory, thresholds)
    known = memo.kernels if memo is not None and memo.context == context else {}
    merged: dict[str, tuple[Kernel, Kernel | None, Kernel]] = {}
    kernels = []
    # The plain sources keep no parse and no kernel as read, and without a memo nothing is
    # compared with them later: merge into them (10,000 copies saved in `ptotui export`).
    in_place = memo is None and source in (read_source, read_file)
    for kernel in [*regression.values(), *(k for name, k in state.items() if name not in regression)]:
        name = kernel.name
        row = state.get(name) if name in regression else None
        hit = known.get(name)
        if hit is not None and _same(hit[0], kernel) and _same(hit[1], row):
            merged[name] = hit
            kernels.append(hit[2])
            continue
        read = kernel
        if not in_place:
            kernel = kernel.copy()  # a parser's cached kernel stays as it was read
        if row is not None:
            _apply_state(kernel, row)
        facts = inventory.get(name)
        if facts:
            kernel.family = kernel.family or facts.get("family")
            kernel.wave = kernel.wave or facts.get("wave")
            kernel.phase = kernel.phase or facts.get("phase")
            kernel.inventory_status = kernel.inventory_status or facts.get("status")
        classify(kernel, gaps, thresholds)
        merged[name] = (read, row, kernel)
        kernels.append(kernel)
    if memo is not None:
        memo.context, memo.kernels = context, merged

    if not files_read or not any(Path(f).parent == location.reports for f in files_read):
        warnings.append(
            ReadWarning(
                str(location.reports),
                _("no report found: looked for {files}").format(files=", ".join(REGRESSION_FILES + STATE_FILES)),
            )
        )
    return ReportSet(
        source=str(location.reports),
        generated_at=generated_at or state_generated,
        kernels=kernels,
        gaps=gaps,
        warnings=aggregate(warnings),
        files_read=files_read,
    )


def _older_kind(
    location: Location,
    source: FileSource,
    warnings: list[ReadWarning],
    files_read: list[str],
    last_good: LastGood | None = None,
) -> tuple[dict[str, Kernel], str | None]:
    """With no regression_latest.*: regression_parity_latest, else kernel_parity_latest (json, else md),
    said once in the warnings so nobody takes it for the current summary kind."""
    from ptotui.model.read import parity

    for kind, title in parity.KINDS.items():
        names = (f"{kind}_latest.json", f"{kind}_latest.md")
        before = len(files_read)
        results = _read_first(
            location,
            names,
            {"json": parity.read_parity_json, "md": parity.read_parity_md},
            source,
            warnings,
            files_read,
            last_good,
        )
        if len(files_read) > before:
            warnings.append(
                ReadWarning(
                    files_read[before],
                    _('an older report kind ("{title}"), read because there is no regression_latest.*').format(
                        title=title
                    ),
                )
            )
            return _merge(results)
    return {}, None


def _read_side(
    path: Path, reader: SideReader, source: FileSource, warnings: list[ReadWarning], files_read: list[str]
) -> dict:
    """gap_board.yaml or kernel_inventory.yaml beside the reports: {} when missing."""
    text = source(path, warnings)
    if text is None:
        return {}
    files_read.append(str(path))
    result, more = reader(readers.text_of(text), str(path))
    warnings.extend(more)
    return result


def _apply_state(kernel: Kernel, row: Kernel) -> None:
    """The state matrix owns class, wave, scalar and gap facts; the regression owns the rest."""
    kernel.klass = row.klass
    kernel.wave = row.wave or kernel.wave
    kernel.phase = row.phase or kernel.phase
    kernel.inventory_status = row.inventory_status or kernel.inventory_status
    kernel.scalar_hot_path = row.scalar_hot_path
    kernel.scalar_matches = row.scalar_matches
    kernel.gap_ids = row.gap_ids
    kernel.gap_components = row.gap_components
    kernel.block_use = row.block_use
    kernel.state_ratio_range = row.state_ratio_range
    fill_missing(kernel, row)


def load_file(path: Path, thresholds: Thresholds = Thresholds()) -> ReportSet:
    """One report file on its own (a snapshot, or a latest file): for ``ptotui diff``."""
    warnings: list[ReadWarning] = []
    text = read_file(path, warnings)
    kernels: list[Kernel] = []
    generated_at = None
    if text is not None:
        is_state = path.name.startswith("kernel_state_matrix") or (path.suffix == ".json" and '"primary_class"' in text)
        kind = "state" if is_state else "regression"
        reader = {
            ("state", ".json"): readers.read_state_json,
            ("state", ".md"): readers.read_state_md,
            ("regression", ".json"): readers.read_regression_json,
            ("regression", ".md"): readers.read_regression_md,
            ("regression", ".csv"): readers.read_regression_csv,
        }.get((kind, path.suffix))
        if reader is None:
            warnings.append(ReadWarning(str(path), _("not a report file (expected .json, .md or .csv)")))
        else:
            parsed, more = reader(text, str(path))
            warnings.extend(more)
            kernels, generated_at = parsed["kernels"], parsed["generated_at"]
    for kernel in kernels:
        classify(kernel, {}, thresholds)
    return ReportSet(str(path), generated_at, kernels, {}, aggregate(warnings), [str(path)] if text is not None else [])
