"""The YAML side files (the gap board, the inventory) and a kernel's own report.json, read without raising."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ptotui.model.i18n import _
from ptotui.model.read.readers import Result, Source, guarded, load_json
from ptotui.model.read.values import as_bool, as_float, as_str, as_str_list
from ptotui.model.text import clean
from ptotui.model.types import Gap, ReadWarning

if TYPE_CHECKING:  # the markdown readers import it when a markdown report is read
    pass


# -- YAML side files -----------------------------------------------------------------


# The most nodes a YAML side file may have once its aliases are expanded. The real gap board has
# a few thousand; 1.3 KB of nested aliases expand to 10^8 (an "alias bomb": ~35 s to walk, a
# 469 MB cache file), which nothing that reads the data afterwards may be handed.
MAX_NODES = 1_000_000


class TooManyNodes(ValueError):
    """The YAML text's aliases expand past MAX_NODES nodes, or a node contains itself."""


def _strict_yaml(text: str) -> Any:
    """The YAML text as data, through a safe loader; raises yaml.YAMLError, or TooManyNodes
    (before anything is built) when its aliases expand past MAX_NODES nodes."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    try:
        node = loader.get_single_node()  # the node graph: an alias is the node it names, not a copy
        if node is None:
            return None
        _expanded_size(node, MAX_NODES)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _expanded_size(root: Any, budget: int) -> int:
    """How many nodes the graph below ``root`` has with every alias expanded (each distinct node
    visited once); TooManyNodes past ``budget``, or for a node that contains itself."""
    from yaml.nodes import CollectionNode, MappingNode

    def children(node: Any) -> list[Any]:
        if isinstance(node, MappingNode):
            return [part for pair in node.value for part in pair]
        return list(node.value) if isinstance(node, CollectionNode) else []

    sizes: dict[int, int] = {}
    inside: set[int] = set()  # the nodes whose subtree is being counted: their ancestors' path
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, counted = stack.pop()
        key = id(node)
        if counted:
            inside.discard(key)
            size = 1 + sum(sizes[id(child)] for child in children(node))
            if size > budget:
                raise TooManyNodes(_("its aliases expand to more than {budget} nodes").format(budget=f"{budget:,}"))
            sizes[key] = size
        elif key in inside:
            raise TooManyNodes(_("an alias refers to a node that contains it"))
        elif key not in sizes:
            inside.add(key)
            stack.append((node, True))
            stack.extend((child, False) for child in children(node) if id(child) not in sizes)
    return sizes[id(root)]


class _InvalidYaml(Exception):
    """The text is not valid YAML: ``error`` is PyYAML's (imported only when a text is parsed)."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


def _valid_yaml(text: str) -> Any:
    import yaml

    try:
        return _strict_yaml(text)
    except yaml.YAMLError as exc:
        raise _InvalidYaml(exc) from exc


def _yaml_list(text: str, name: str, key: str, warnings: list[ReadWarning]) -> list[Any]:
    """The list under ``key`` of a YAML mapping, or [] with a warning saying why not.

    A file that is not valid YAML is read entry by entry (see looseyaml), keeping
    every entry it can, with one warning at the first entry that was not valid.
    """
    if not text.strip():
        warnings.append(ReadWarning(name, _("file is empty")))
        return []
    try:
        data = _valid_yaml(text)
    except _InvalidYaml as invalid:
        return _loose_list(text, name, key, invalid.error, warnings)
    except TooManyNodes as refused:
        warnings.append(ReadWarning(name, _("not read: {reason}").format(reason=refused)))
        return []
    entries = data.get(key) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        warnings.append(ReadWarning(name, _('no "{key}" list').format(key=key)))
        return []
    return entries


def _loose_list(text: str, name: str, key: str, exc: Exception, warnings: list[ReadWarning]) -> list[Any]:
    from ptotui.model.read import looseyaml

    mark = getattr(exc, "problem_mark", None)
    where = mark.line + 1 if mark else None
    problem = clean(getattr(exc, "problem", None) or str(exc).splitlines()[0])
    entries, bad = looseyaml.read_entries(text, key, _strict_yaml)
    if not entries:
        warnings.append(ReadWarning(name, _("invalid YAML: {problem}").format(problem=problem), where))
        return []
    at = _("{problem} at line {line}").format(problem=problem, line=where) if where else problem
    if bad:
        message = _(
            'invalid YAML ({problem}); read entry by entry: {bad} of {total} "{key}" entries read line by line,'
            " the first of them here"
        ).format(problem=at, bad=len(bad), total=len(entries), key=key)
        warnings.append(ReadWarning(name, message, bad[0].line))
    else:
        message = _('invalid YAML ({problem}); read entry by entry: all {total} "{key}" entries kept').format(
            problem=problem, total=len(entries), key=key
        )
        warnings.append(ReadWarning(name, message, where))
    return entries


@guarded(dict)
def read_gap_board(text: str, name: str) -> Result[dict[str, Gap]]:
    """gap_board.yaml -> {gap id: Gap}."""
    warnings: list[ReadWarning] = []
    entries = _yaml_list(text, name, "gaps", warnings)
    gaps: dict[str, Gap] = {}
    for index, entry in enumerate(entries):
        gap_id = as_str(entry.get("id")) if isinstance(entry, dict) else None
        if not gap_id:
            warnings.append(ReadWarning(name, _("gaps[{index}] has no id; skipped").format(index=index)))
            continue
        gaps[gap_id] = Gap(
            id=gap_id,
            component=as_str(entry.get("component")) or "",
            status=(as_str(entry.get("status")) or "").lower(),
            summary=" ".join((as_str(entry.get("summary")) or "").split()),
            blocking_kernels=tuple(as_str_list(entry.get("blocking_kernels"))),
        )
    return gaps, warnings


@guarded(dict)
def read_inventory(text: str, name: str) -> Result[dict[str, dict[str, str | None]]]:
    """kernel_inventory.yaml -> {kernel: {family, wave, phase, status}}."""
    warnings: list[ReadWarning] = []
    entries = _yaml_list(text, name, "included", warnings)
    inventory = {}
    for entry in entries:
        kernel = as_str(entry.get("name")) if isinstance(entry, dict) else None
        if kernel:
            inventory[kernel] = {key: as_str(entry.get(key)) for key in ("family", "wave", "phase", "status")}
    return inventory, warnings


# -- the per-kernel report.json ------------------------------------------------------


def _dig(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


@guarded(dict)
def read_kernel_report(text: Source, name: str) -> Result[dict[str, Any]]:
    """generated/<family>/<kernel>/report.json -> the facts the detail screen shows."""
    warnings: list[ReadWarning] = []
    data = load_json(text, name, warnings)
    if data is None:
        return {}, warnings
    if not isinstance(data, dict):
        return {}, [ReadWarning(name, _("expected a JSON object, found {type}").format(type=type(data).__name__))]
    facts: dict[str, Any] = {"status": as_str(data.get("status"))}
    for side in ("baseline", "pto"):
        bench = _dig(data, side, "benchmark")
        timings = _dig(bench, "timings_ms") or {}
        correctness = _dig(bench, "correctness") or {}
        facts[side] = {
            "status": as_str(_dig(bench, "status")),
            "entrypoint": as_str(_dig(bench, "entrypoint") or _dig(data, side, "runtime_entrypoint")),
            "compile_status": as_str(_dig(data, side, "compile", "status")),
            "timings_ms": {k: as_float(timings.get(k)) for k in ("min", "median", "max")}
            if isinstance(timings, dict)
            else {},
            "atol": as_float(correctness.get("atol")) if isinstance(correctness, dict) else None,
            "rtol": as_float(correctness.get("rtol")) if isinstance(correctness, dict) else None,
            "max_abs_diff": as_float(correctness.get("max_abs_diff")) if isinstance(correctness, dict) else None,
            "passes": as_bool(correctness.get("passes")) if isinstance(correctness, dict) else None,
        }
    device = data.get("device")
    facts["device"] = {clean(k): as_str(v) for k, v in device.items()} if isinstance(device, dict) else {}
    facts["blockers"] = as_str_list(_dig(data, "pto", "meta", "blockers"))
    facts["limits"] = as_str_list(_dig(data, "pto", "meta", "seed_variant", "limits"))
    return facts, warnings
