"""One short label per input shape of a kernel, the same on every surface.

The runner keeps each shape's code in a sub-directory of the run directory named by the
kernel's variant (``q16_k16_d16/stage2_softmax/kernel.pto`` for ``{"q_seq": 16, "kv_seq": 16,
"head_dim": 16, ...}``: each kernel's ``runtime.py`` writes its own ``label``, letters then a
parameter's value, joined by ``_``). That name is the shape's label when a run has one: its
numbers are the variant's (a letter names the parameter it starts a word of, ``d16`` for
``head_dim``), and it must fit one variant only. Else a compact form of the shape summary
(``query 1×1×16×16 · k_cache 1×16×16``), or of the variant's parameters when the report has
no summary: of its fields, those that tell the kernel's shapes apart (the fields every shape
shares, and one that splits no shapes the fields before it left together, left out); shapes
of one summary go on with the parameters that tell them apart (``out 128×512 · dtype
float16``). Two shapes of one kernel never share a label: a repeated one gets ``#2``, ``#3``.

A variant with no shape and no parameters (``{}``: a report from before the runner wrote
variants) is not a shape: its numbers are the kernel's own (:func:`is_empty`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ptotui.model.core.noise import shape_key
from ptotui.model.text import clean, one_line

LIMIT = 48  # cells of a compact label before it is cut with …
MAX_DIRS = 256  # sub-directories of a run directory looked at
_DIR_NAME = re.compile(r"[A-Za-z]+\d+(?:_[A-Za-z]+\d+)*")
_TOKEN = re.compile(r"([A-Za-z]+)(\d+)")

Shape = tuple[Any, Any]  # (shape summary, variant parameters) as a report gives them


def is_empty(shape: Any, params: Any) -> bool:
    """No shape summary and no parameters: the kernel's own series, not a shape of it."""
    return not shape and not params


def key(shape: Any, params: Any) -> str:
    """What matches a shape across reports (:func:`ptotui.model.core.noise.shape_key`)."""
    return shape_key(params, shape)


def shape_dirs(run_dir: str | os.PathLike[str] | None) -> list[str]:
    """The names of a run directory's sub-directories that look like a variant's label
    (``q16_k16_d16``, ``b1_m128_k128_n256``; not ``stage2_softmax``). Symlinks are not
    followed; an unreadable directory has none."""
    if run_dir is None:
        return []
    names: list[str] = []
    try:
        with os.scandir(run_dir) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_DIRS:
                    break
                name = entry.name
                if (
                    len(name) <= 64
                    and _DIR_NAME.fullmatch(name)
                    and not name.lower().startswith("stage")
                    and entry.is_dir(follow_symlinks=False)
                ):
                    names.append(name)
    except OSError:
        return []
    return sorted(names)


def _numbers(shape: Any, params: Any) -> list[tuple[str, int]]:
    """(name, whole number) of the variant's parameters; of its shape summary's lists when
    it has none."""
    out: list[tuple[str, int]] = []
    if isinstance(params, dict):
        for name, value in params.items():
            if isinstance(value, int) and not isinstance(value, bool):
                out.append((str(name).lower(), value))
        if out:
            return out
    if isinstance(shape, dict):
        for name, value in shape.items():
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, int) and not isinstance(item, bool):
                    out.append((str(name).lower(), item))
    return out


def _names(name: str, letters: str) -> bool:
    """``letters`` start the parameter's name or one of its words (``d`` and ``head_dim``)."""
    return any(word.startswith(letters) for word in (name, *name.split("_")))


def fit(directory: str, shape: Any, params: Any) -> int | None:
    """How well a directory name fits a variant: None when one of its numbers is not the
    variant's, else how many of its letters name the parameter they take."""
    tokens = [(m.group(1).lower(), int(m.group(2))) for m in _TOKEN.finditer(directory)]
    free = _numbers(shape, params)
    if not tokens or not free:
        return None
    named = 0
    for letters, number in tokens:
        same = [i for i, (_name, value) in enumerate(free) if value == number]
        if not same:
            return None
        by_name = [i for i in same if _names(free[i][0], letters)]
        named += bool(by_name)
        free.pop((by_name or same)[0])
    return named


def dir_labels(shapes: Sequence[Shape], dirs: Iterable[str]) -> dict[int, str]:
    """Which directory is which variant (by index in ``shapes``): each variant's best fitting
    directory when it is the only best one and that directory fits no other variant as well."""
    names = list(dirs)
    scores = [[fit(name, shape, params) for name in names] for shape, params in shapes]
    out: dict[int, str] = {}
    for index, row in enumerate(scores):
        fitting = [(score, d) for d, score in enumerate(row) if score is not None]
        if not fitting:
            continue
        best = max(score for score, _d in fitting)
        top = [d for score, d in fitting if score == best]
        if len(top) != 1:
            continue
        column = [scores[other][top[0]] for other in range(len(shapes)) if other != index]
        if any(score is not None and score >= best for score in column):
            continue
        out[index] = clean(names[top[0]])
    return out


def _value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "×".join(_value(v) for v in value) or "[]"
    if isinstance(value, dict):
        return "{…}"
    return one_line(clean(value), 24)


def _fields(shape: Any, params: Any) -> list[tuple[str, str]] | None:
    """The (name, value) pairs of the shape summary, else of the parameters."""
    for source in (shape, params):
        if isinstance(source, dict) and source:
            return [(one_line(clean(name), 24), _value(value)) for name, value in source.items()]
        if isinstance(source, list | tuple) and source:
            return [("", _value(source))]
    return None


def _summarised(shape: Any) -> bool:
    """The compact form is the shape summary's (not the parameters')."""
    return isinstance(shape, dict | list | tuple) and bool(shape)


def _cut(text: str) -> str:
    return text if len(text) <= LIMIT else text[: LIMIT - 1].rstrip(" ·") + "…"


def compact(shape: Any, params: Any, names: frozenset[str] | None = None) -> str:
    """``query 1×1×16×16 · k_cache 1×16×16 …``: the fields of the shape summary (else of the
    parameters), those in ``names`` only when given, cut to :data:`LIMIT`."""
    fields = _fields(shape, params)
    if fields is None:
        return one_line(clean(shape if shape is not None else params), LIMIT) or "?"
    kept = [pair for pair in fields if names is None or pair[0] in names] or fields
    return _cut(" · ".join(f"{name} {value}".strip() for name, value in kept))


def telling(shapes: Sequence[Shape]) -> frozenset[str] | None:
    """The fields that tell ``shapes`` apart: in order, each that splits shapes the ones kept
    before it left together (``out`` beside ``x`` of the same size says nothing more). None
    for fewer than two shapes: all of them."""
    if len(shapes) < 2:
        return None
    rows = [dict(_fields(*pair) or ()) for pair in shapes]
    names = list(dict.fromkeys(name for row in rows for name in row))
    kept: list[str] = []
    groups = len({() for _row in rows})
    for name in names:
        split = len({tuple(row.get(n) for n in (*kept, name)) for row in rows})
        if split > groups:
            kept.append(name)
            groups = split
    return frozenset(kept)


class Labeller:
    """The labels of one kernel's shapes, learnt from its runs (or one report): :meth:`add`
    each run's variants with its directory's sub-directories, oldest first (a newer run's
    directory name wins), then :meth:`labels`."""

    def __init__(self) -> None:
        self._shapes: dict[str, Shape] = {}  # key -> the newest (shape, params) with a summary
        self._dirs: dict[str, str] = {}

    def add(self, shapes: Sequence[Shape], dirs: Iterable[str] = ()) -> None:
        named = dir_labels(shapes, dirs)
        for index, (shape, params) in enumerate(shapes):
            if is_empty(shape, params):
                continue
            k = key(shape, params)
            if k not in self._shapes or shape or not self._shapes[k][0]:
                self._shapes[k] = (shape, params)
            if index in named:
                self._dirs[k] = named[index]

    def __len__(self) -> int:
        return len(self._shapes)

    def labels(self) -> dict[str, str]:
        """Each shape's label, by :func:`key`; no two the same."""
        names = {  # the shapes labelled from a summary, and from their parameters, apart
            kind: telling([pair for pair in self._shapes.values() if _summarised(pair[0]) == kind])
            for kind in (True, False)
        }
        raw = {
            k: self._dirs.get(k) or compact(shape, params, names[_summarised(shape)])
            for k, (shape, params) in self._shapes.items()
        }
        alike: dict[str, list[str]] = {}
        for k, label in raw.items():
            alike.setdefault(label, []).append(k)
        for label, keys in alike.items():  # one summary, other parameters (a dtype): those say which
            if len(keys) > 1 and all(k not in self._dirs and _summarised(self._shapes[k][0]) for k in keys):
                told = telling([(None, self._shapes[k][1]) for k in keys]) or frozenset()
                for k in keys:
                    params = self._shapes[k][1]
                    if told and isinstance(params, dict):
                        raw[k] = _cut(f"{label} · {compact(None, params, told)}")
        out: dict[str, str] = {}
        taken: dict[str, int] = {}
        for k in sorted(raw):
            label = raw[k]
            count = taken[label] = taken.get(label, 0) + 1
            out[k] = label if count == 1 else f"{label} #{count}"
        return out


def labels_of(shapes: Sequence[Shape], dirs: Iterable[str] = ()) -> list[str]:
    """One report's variants' labels, in order (a variant with no shape: empty)."""
    labeller = Labeller()
    labeller.add(shapes, dirs)
    known = labeller.labels()
    return [known.get(key(shape, params), "") if not is_empty(shape, params) else "" for shape, params in shapes]
