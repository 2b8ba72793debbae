"""Change points kept true while runs land: each kernel's searched again only when its runs
changed, and a PTO slowdown that a landed run made significant told once.

The dashboard holds one :class:`Steps` per reports directory. The table's Step column asks it
for every kernel's newest PTO step (:meth:`Steps.newest`: at 10,000 kernels x 50 runs a few
seconds the first time, then only the kernels whose runs changed); each load with landed runs
asks it what they made significant (:meth:`Steps.landed`: those kernels only, about a
millisecond each, benchmarks/bench_changepoints.py). Both run on worker threads: one lock
keeps the kernels' held results whole.

A slowdown is *new* when a kernel's series grew by runs at its end (a run landed) and its
search now finds a PTO step of the kernel's own series that the search before did not, nor
one within :data:`NEAR` runs of it: a step found again one run later or earlier, as a longer
series can move it, is the same step. A pending point (fewer than ``MIN_AFTER`` runs after it
yet, :mod:`.points`) is no step: it is told at the landing that gives it its third run after.
Runs that joined older than the newest one (the history filling in), or a run read again, make
the search run again and say nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ptotui.model.bench.record import Run
from ptotui.model.changes.points import ChangePoint, Settings, by_kernel, kernel_changes, newest_pto_step, series

NEAR = 2  # runs: a slowdown this close to one already found or told is that one
Key = tuple[str, str | None]  # (kernel, family)


class RunSource(Protocol):
    """Where :class:`Steps` reads runs from: a runs reader's view (RunView), a kernel at a time."""

    def of(self, kernel: str) -> list[Run]:
        """The kernel's runs, oldest first."""
        ...

    def newest(self) -> Mapping[str, Run]:
        """Each kernel's newest run, by name (here: which kernels there are)."""
        ...


@dataclass
class _Held:
    signature: int  # of the runs searched (series_signature): not the runs, which the reader holds
    changes: list[ChangePoint]
    told: set[str] = field(default_factory=set)  # the first runs after of the slowdowns told


def series_signature(runs: Sequence[Run]) -> int:
    """What a kernel's PTO search depends on, as one number: each run's stamp, directory, PTO
    status and PTO ms. Holding the runs themselves kept every Run of the tree alive twice
    (500,000 at 10,000 x 50: ~350 MB more in the app)."""
    return hash(tuple((run.started, run.path, run.pto_status, run.pto_ms) for run in runs))


def _pto_slowdowns(changes: Iterable[ChangePoint]) -> list[ChangePoint]:
    """The PTO slowdowns of the kernel's own series for good: a pending one (fewer than
    MIN_AFTER runs after it yet) is not told, and it is told, once, when it holds; one whose runs
    either side ran in different environments is the environment's, never told as PTO's."""
    return [
        c for c in changes if c.side == "pto" and c.shape is None and c.slower and not c.pending and not c.environment
    ]


def _positions(runs: Sequence[Run]) -> dict[str, int]:
    """Each run's place in the kernel's PTO series (its runs where PTO is ok), by stamp."""
    return {run.started: place for place, (run, _ms) in enumerate(series(runs, "pto"))}


class Steps:
    """Each kernel's change points of its own PTO series, held per kernel (the baseline's
    never make a regression, and the Step column shows PTO's; the detail finds both)."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self._held: dict[Key, _Held] = {}
        self._lock = threading.Lock()

    def _search(self, runs: tuple[Run, ...]) -> list[ChangePoint]:
        return kernel_changes(runs, self.settings, ("pto",))

    def _hold(self, key: Key, runs: tuple[Run, ...]) -> _Held:
        """The kernel's held search, searched again when its runs are not the ones held."""
        held = self._held.get(key)
        signature = series_signature(runs)
        if held is None or held.signature != signature:
            told = held.told if held is not None else set()
            held = self._held[key] = _Held(signature, self._search(runs), told)
        return held

    def newest(self, source: RunSource) -> dict[str, ChangePoint]:
        """Each kernel's newest change point of its own PTO series, by kernel name (the Step
        column): the kernels whose runs did not change since the last call are not searched.
        One kernel's runs at a time (not every run of the tree at once)."""
        out: dict[str, ChangePoint] = {}
        seen: set[Key] = set()
        with self._lock:
            for key, held_runs in (item for name in source.newest() for item in by_kernel(source.of(name)).items()):
                seen.add(key)
                held = self._hold(key, tuple(sorted(held_runs, key=lambda run: run.started)))
                step = newest_pto_step(held.changes)
                if step is not None and (key[0] not in out or step.after > out[key[0]].after):
                    out[key[0]] = step
            for gone in self._held.keys() - seen:
                del self._held[gone]
        return out

    def landed(self, source: RunSource, landed: Iterable[Run]) -> list[ChangePoint]:
        """The PTO slowdowns ``landed`` (the runs a read found new) made significant, each
        kernel's searched again from ``source`` (every run now); each slowdown once."""
        new_paths: dict[Key, set[str]] = {}
        for run in landed:
            new_paths.setdefault((run.kernel, run.family), set()).add(run.path)
        fresh: list[ChangePoint] = []
        with self._lock:
            for key, paths in new_paths.items():
                now = tuple(r for r in source.of(key[0]) if r.family == key[1])
                fresh.extend(self._landed_one(key, now, paths))
        return fresh

    def _landed_one(self, key: Key, now: tuple[Run, ...], paths: set[str]) -> list[ChangePoint]:
        earlier = tuple(r for r in now if r.path not in paths)  # the series as it was before they landed
        # Runs landed at its end; else a new kernel, runs read again, or older runs than its newest.
        appended = 0 < len(earlier) < len(now) and now[: len(earlier)] == earlier
        held = self._held.get(key)  # (as it was before it holds ``now``)
        after = self._hold(key, now)
        if not appended:
            return []  # nothing to tell
        # The earlier runs' search: held already when the landing before or the Step column made it.
        if held is not None and held.signature == series_signature(earlier):
            before = held.changes
        else:
            before = self._search(earlier)
        places = _positions(now)
        known = [places[c.after] for c in _pto_slowdowns(before) if c.after in places]
        known += [places[s] for s in after.told if s in places]
        out = []
        for change in _pto_slowdowns(after.changes):
            at = places.get(change.after)
            if at is None or any(abs(at - k) <= NEAR for k in known):
                continue
            after.told.add(change.after)
            known.append(at)
            out.append(change)
        return out
