"""Triage of blockers, stored outside the reports directory.

One JSON file (by default in the user's state directory) holds the entries of
every reports directory, keyed by its resolved path. Each change is a
read-modify-write of that one entry under an exclusive lock, written to a temp
file and renamed over the old one, so two ptotui processes sharing the file
keep each other's entries and a crash never leaves a half-written file. A file
that cannot be parsed is renamed aside and reported, never silently emptied.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import socket
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ptotui.model.blockers import blocker_order, is_blocker
from ptotui.model.tiers import LAYER_LABELS
from ptotui.model.types import Kernel, ReadWarning

SCHEMA = "ptotui.triage/1"
STATES = ("acknowledged", "investigating", "needs-upstream", "wont-fix")
_NUMBERS = re.compile(r"\d+")


def default_state_file() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "ptotui" / "triage.json"


def _normal_reason(text: str | None) -> str:
    """Reasons with their numbers (PIDs, times, addresses) folded: reruns do not go stale."""
    return " ".join(_NUMBERS.sub("#", text or "").split())


def fingerprint(kernel: Kernel) -> dict[str, Any]:
    """The blocker as it is now: what a triage entry remembers."""
    return {
        "baseline_status": kernel.baseline_status,
        "pto_status": kernel.pto_status,
        "class": kernel.klass,
        "tier": kernel.tier,
        "baseline_reason": _normal_reason(kernel.baseline_reason),
        "pto_reason": _normal_reason(kernel.pto_reason),
        "gap_ids": sorted(kernel.gap_ids),
    }


def _blocking(print_: dict[str, Any]) -> bool:
    return (
        print_.get("baseline_status") == "blocked"
        or print_.get("pto_status") == "blocked"
        or str(print_.get("class") or "").startswith("blocked")
        or print_.get("tier") == "correctness-gap"
    )


@dataclass(frozen=True)
class Entry:
    kernel: str
    state: str
    note: str
    since: str
    by: str
    blocker: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"state": self.state, "note": self.note, "since": self.since, "by": self.by, "blocker": self.blocker}


@dataclass(frozen=True)
class Status:
    """An entry read against the kernel as it is now."""

    entry: Entry | None
    stale: bool
    resolved: bool

    @property
    def untriaged(self) -> bool:
        return self.entry is None or self.stale

    def label(self) -> str:
        if self.entry is None:
            return ""
        if self.resolved:
            return "resolved"
        return self.entry.state + (" (stale)" if self.stale else "")


def status_of(entry: Entry | None, kernel: Kernel) -> Status:
    if entry is None:
        return Status(None, False, False)
    now = fingerprint(kernel)
    resolved = _blocking(entry.blocker) and not _blocking(now) and not is_blocker(kernel)
    stale = not resolved and now != entry.blocker
    return Status(entry, stale, resolved)


class TriageStore:
    """Triage entries of one reports directory, backed by a shared JSON file."""

    def __init__(self, path: Path, reports_key: str) -> None:
        self.path = path
        self.key = reports_key
        self.warnings: list[ReadWarning] = []
        self.read_only = False
        self.entries: dict[str, Entry] = {}
        self.reload()

    # -- reading -------------------------------------------------------------------

    def reload(self) -> None:
        with self._locked(shared=True):
            data = self._read()
        if data is not None:
            self.entries = self._entries(data)

    def _read(self) -> dict[str, Any] | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            self._warn(f"cannot be read ({exc.strerror}); triage is read-only until it can")
            self.read_only = True
            return None
        try:
            data = json.loads(raw.decode("utf-8")) if raw.strip() else {}
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            aside = self.path.with_name(f"{self.path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
            try:
                os.replace(self.path, aside)
                self._warn(f"was not valid JSON ({exc}); moved aside to {aside.name}, starting empty")
            except OSError as move_error:
                self._warn(f"is not valid JSON and could not be moved aside ({move_error.strerror}); read-only")
                self.read_only = True
                return None
            return {}
        self.read_only = False
        return data

    def _entries(self, data: dict[str, Any]) -> dict[str, Entry]:
        reports = data.get("reports")
        mine = reports.get(self.key) if isinstance(reports, dict) else None
        entries = {}
        for kernel, raw in (mine or {}).items() if isinstance(mine, dict) else []:
            if isinstance(raw, dict) and raw.get("state") in STATES:
                entries[kernel] = Entry(
                    kernel,
                    raw["state"],
                    str(raw.get("note") or ""),
                    str(raw.get("since") or ""),
                    str(raw.get("by") or ""),
                    blocker if isinstance(blocker := raw.get("blocker"), dict) else {},
                )
        return entries

    def _warn(self, message: str) -> None:
        warning = ReadWarning(str(self.path), message)
        if warning not in self.warnings:
            self.warnings.append(warning)

    # -- writing -------------------------------------------------------------------

    def set(self, kernel: Kernel, state: str | None = None, note: str | None = None) -> Entry | None:
        """Set the state and/or note of ``kernel``; returns the entry as stored."""
        if state is not None and state not in STATES:
            raise ValueError(f"unknown triage state {state!r}")
        old = self.entries.get(kernel.name)
        entry = Entry(
            kernel.name,
            state or (old.state if old else "acknowledged"),
            note if note is not None else (old.note if old else ""),
            time.strftime("%Y-%m-%dT%H:%M:%S%z") if old is None or state not in (None, old.state) else old.since,
            f"{getpass.getuser()}@{socket.gethostname()}",
            fingerprint(kernel),
        )
        self._update(kernel.name, entry)
        return self.entries.get(kernel.name)

    def clear(self, kernel: str) -> None:
        self._update(kernel, None)

    def _update(self, kernel: str, entry: Entry | None) -> None:
        if self.read_only:
            raise PermissionError(f"{self.path} is read-only for ptotui (see warnings)")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked(shared=False):
            data = self._read()  # the other processes' entries, as they are now
            if data is None:
                raise PermissionError(f"{self.path} cannot be read, so it is not written")
            data.setdefault("schema", SCHEMA)
            reports = data.setdefault("reports", {})
            mine = reports.setdefault(self.key, {})
            if entry is None:
                mine.pop(kernel, None)
            else:
                mine[kernel] = entry.as_dict()
            self._write(data)
            self.entries = self._entries(data)

    def _write(self, data: dict[str, Any]) -> None:
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=str(self.path.parent))
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2, sort_keys=True)
                handle.write("\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    @contextlib.contextmanager
    def _locked(self, shared: bool) -> Iterator[None]:
        """An advisory lock on a sidecar file (the data file itself is replaced on write)."""
        try:
            import fcntl
        except ImportError:  # not POSIX: atomic replace still protects the file
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        try:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            handle = open(lock_path, "a+")
        except OSError:
            yield  # a read-only state dir: reading still works
            return
        with handle:
            fcntl.flock(handle, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- views ---------------------------------------------------------------------

    def status(self, kernel: Kernel) -> Status:
        return status_of(self.entries.get(kernel.name), kernel)


def triage_rows(kernels: list[Kernel], store: TriageStore) -> list[dict[str, Any]]:
    """The triage list: every blocker in the blocker pane's order, then every other kernel with an entry."""
    blockers = blocker_order(kernels)
    listed = {k.name for k in blockers}
    others = sorted((k for k in kernels if k.name not in listed and k.name in store.entries), key=lambda k: k.name)
    rows = []
    for kernel in blockers + others:
        status = store.status(kernel)
        entry = status.entry
        rows.append(
            {
                "kernel": kernel.name,
                "tier": kernel.tier,
                "layer": LAYER_LABELS.get(kernel.blocker_layer or "") if is_blocker(kernel) else None,
                "gap_ids": list(kernel.gap_ids),
                "state": "resolved" if status.resolved else (entry.state if entry else "untriaged"),
                "note": entry.note if entry else "",
                "since": entry.since if entry else None,
                "by": entry.by if entry else None,
                "stale": status.stale,
            }
        )
    return rows
