"""Triage of blockers, stored outside the reports directory.

One JSON file (by default in the user's state directory) holds the entries of
every reports directory, keyed by the repository's identity and the reports' path in it
when the reports are in git, else by their resolved path (:mod:`ptotui.model.reportskey`);
entries under the older key (the resolved path) move to the new one when first read. Each change is a
read-modify-write of that one entry under an exclusive lock, written to a temp
file and renamed over the old one, so two ptotui processes sharing the file
keep each other's entries and a crash never leaves a half-written file. A file
that cannot be parsed is renamed aside and reported, never silently emptied.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
import os
import re
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from ptotui.model.core.blockers import blocker_order, is_blocker
from ptotui.model.core.tiers import LAYER_LABELS
from ptotui.model.i18n import N_, _
from ptotui.model.read import safefile
from ptotui.model.reportskey import ReportsKey
from ptotui.model.text import clean, one_line
from ptotui.model.types import Kernel, ReadWarning

SCHEMA = "ptotui.triage/1"
STATES = ("acknowledged", "investigating", "needs-upstream", "wont-fix")
STATE_WORDS = {  # how each state is shown (Status.label); the codes are what files and JSON hold
    "acknowledged": N_("acknowledged"),
    "investigating": N_("investigating"),
    "needs-upstream": N_("needs-upstream"),
    "wont-fix": N_("wont-fix"),
}
# The triage list's states beside STATES (the codes its JSON holds; the markdown says the words).
LIST_WORDS = {**STATE_WORDS, "untriaged": N_("untriaged"), "resolved": N_("resolved")}


def state_word(code: str) -> str:
    """A triage list's state as shown, in the language in force (a code from a newer ptotui as it is)."""
    return _(LIST_WORDS[code]) if code in LIST_WORDS else code


_NUMBERS = re.compile(r"\d+")
MAX_DEPTH = 32  # a triage file nests 5 levels (top, reports, reports dir, kernel, blocker)


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
        """The state as shown, in the language in force (the file and JSON keep the codes)."""
        if self.entry is None:
            return ""
        if self.resolved:
            return _("resolved")
        state = _(STATE_WORDS[self.entry.state]) if self.entry.state in STATE_WORDS else self.entry.state
        return state + (" " + _("(stale)") if self.stale else "")


def triage_rank(status: Status | None, kernel: Kernel) -> tuple[int, int, str] | None:
    """What sorting by Triage compares: the blockers to look at first (untriaged, then those
    whose entry went stale), then each state in the order of STATES with its note, then the
    resolved; a kernel with neither an entry nor a blocker (a blank cell) is missing."""
    entry = status.entry if status is not None else None
    if status is None or entry is None:
        return (0, 0, "") if is_blocker(kernel) else None
    note = entry.note.lower()
    if status.resolved:
        return (2, 0, note)
    if status.stale:
        return (0, 1, note)
    rank = STATES.index(entry.state) if entry.state in STATES else len(STATES)
    return (1, rank, entry.state + "\0" + note)


def status_of(entry: Entry | None, kernel: Kernel) -> Status:
    if entry is None:
        return Status(None, False, False)
    now = fingerprint(kernel)
    resolved = _blocking(entry.blocker) and not _blocking(now) and not is_blocker(kernel)
    stale = not resolved and now != entry.blocker
    return Status(entry, stale, resolved)


class TriageStore:
    """Triage entries of one reports directory, backed by a shared JSON file.

    Safe to share between the UI thread and workers: :meth:`stage` changes only the
    entries in memory (cheap, for the UI thread, so a key shows its effect at once);
    :meth:`reload` and :meth:`flush` do the file I/O (for a worker). ``entries`` is
    replaced, never mutated, so a reader always sees one consistent dict.
    """

    def __init__(
        self,
        path: Path,
        reports_key: str | ReportsKey | Callable[[], ReportsKey],
        read: bool = True,
        writable: bool = True,
    ) -> None:
        """``reports_key``: the key, or what finds it (it may ask git: then it is called by the
        first :meth:`reload` or :meth:`flush`, off the UI thread, never by :meth:`stage`)."""
        self.path = path
        if isinstance(reports_key, str):
            reports_key = ReportsKey(reports_key, reports_key)
        self._keys: ReportsKey | None = None
        self._find_keys: Callable[[], ReportsKey] = reports_key if callable(reports_key) else lambda: reports_key
        self.warnings: list[ReadWarning] = []
        self.writable = writable  # False (``serve --read-only``): nothing is ever written, not even a lock
        self.read_only = not writable
        self.entries: dict[str, Entry] = {}
        self._io = threading.RLock()  # one reader or writer of the file per process at a time
        self._memory = threading.Lock()  # entries and staged changes; never held during I/O
        self._pending: list[tuple[str, Entry | None]] = []  # staged, not yet written, in key order
        if read:
            self.reload()

    @property
    def keys(self) -> ReportsKey:
        """The key entries are filed under and the older one they move from (found once)."""
        keys = self._keys
        if keys is None:
            with self._io:
                keys = self._keys = self._keys or self._find_keys()
        return keys

    @property
    def key(self) -> str:
        return self.keys.key

    @property
    def target(self) -> Path:
        """The file written: the end of the symlink chain when the state path is a symlink."""
        return Path(os.path.realpath(self.path))

    # -- reading (file I/O: call from a worker) ---------------------------------------

    def reload(self) -> None:
        with self._io:
            with self._locked(shared=True):
                data = self._read()
            if data is None:
                return
            self._show(self._entries(data))
            if self._legacy_entries(data) and not self.read_only:
                self._migrate()

    def _migrate(self) -> None:
        """Entries found under the older key moved to the key, in one atomic write. When that
        cannot be written they are still shown (read from the older key), with a warning."""
        try:
            self._write_changes([])
        except OSError as exc:
            said = _("entries under {old} could not be moved to {key} ({error}); they are still shown")
            keys = self.keys
            self._warn(said.format(old=keys.old, key=keys.key, error=getattr(exc, "strerror", None) or exc))

    def _read(self) -> dict[str, Any] | None:
        target = self.target
        try:
            raw = safefile.read_bytes(target)  # a FIFO or /dev/zero there must not block or fill memory
        except FileNotFoundError:
            return {}
        except safefile.FileRefused as exc:
            self._warn(_("{problem}; triage is read-only until it is a regular file").format(problem=exc.message))
            self.read_only = True
            return None
        except OSError as exc:
            self._warn(_("cannot be read ({error}); triage is read-only until it can").format(error=exc.strerror))
            self.read_only = True
            return None
        try:
            data = orjson.loads(raw) if raw.strip() else {}
            problem = shape_problem(data)
        except ValueError as exc:  # orjson refuses nesting past 1,024 levels rather than recursing
            problem = _("was not valid JSON ({error})").format(error=one_line(clean(exc), 120))
        if problem is None:
            self.read_only = not self.writable
            return data
        if not self.writable:  # moving it aside would be a write
            self._warn(_("{problem}; left as it is (read-only), no triage shown").format(problem=problem))
            return {}
        aside = target.with_name(f"{target.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
        try:
            os.replace(target, aside)
        except OSError as move_error:
            said = _("{problem} and could not be moved aside ({error}); read-only")
            self._warn(said.format(problem=problem, error=move_error.strerror))
            self.read_only = True
            return None
        self._warn(_("{problem}; moved aside to {name}, starting empty").format(problem=problem, name=aside.name))
        return {}

    def _legacy_entries(self, data: dict[str, Any]) -> dict[str, Any]:
        """This directory's entries still under the older key (the resolved path)."""
        old = self.keys.old
        return (data.get("reports", {}).get(old) or {}) if old is not None else {}

    def _mine(self, data: dict[str, Any]) -> dict[str, Any]:
        """This directory's entries: those under the key over those still under the older one."""
        return {**self._legacy_entries(data), **data.get("reports", {}).get(self.key, {})}

    def _move_legacy(self, data: dict[str, Any]) -> None:
        """Move the entries under the older key to the key (an entry already under the key
        is newer: it wins), and drop the older key."""
        old = self.keys.old
        reports = data.setdefault("reports", {})
        if old is not None and old in reports:
            reports[self.key] = self._mine(data)
            del reports[old]

    def _entries(self, data: dict[str, Any]) -> dict[str, Entry]:
        mine = self._mine(data)
        entries = {}
        for kernel, raw in mine.items():
            if raw["state"] in STATES:  # a state from a newer ptotui: kept in the file, not shown
                entries[clean(kernel)] = Entry(
                    clean(kernel),
                    raw["state"],
                    clean(raw.get("note") or ""),
                    clean(raw.get("since") or ""),
                    clean(raw.get("by") or ""),
                    raw.get("blocker") or {},
                )
        return entries

    def _show(self, entries: dict[str, Entry]) -> None:
        """The entries read from the file, with the changes staged since on top."""
        with self._memory:
            for kernel, entry in self._pending:
                if entry is None:
                    entries.pop(kernel, None)
                else:
                    entries[kernel] = entry
            self.entries = entries

    def _warn(self, message: str) -> None:
        warning = ReadWarning(str(self.path), message)
        if warning not in self.warnings:
            self.warnings.append(warning)

    # -- writing -------------------------------------------------------------------

    def set(self, kernel: Kernel, state: str | None = None, note: str | None = None) -> Entry | None:
        """Set the state and/or note of ``kernel`` and write it; returns the entry as stored."""
        self.stage(kernel, state, note)
        self.flush()
        return self.entries.get(kernel.name)

    def clear(self, kernel: str) -> None:
        self._stage(kernel, None)
        self.flush()

    def stage(self, kernel: Kernel, state: str | None = None, note: str | None = None) -> Entry | None:
        """Change the entry in memory only (no I/O; for the UI thread); :meth:`flush` writes it.
        Neither ``state`` nor ``note``: clear the entry."""
        if state is not None and state not in STATES:
            raise ValueError(f"unknown triage state {state!r}")
        if state is None and note is None:
            self._stage(kernel.name, None)
            return None
        old = self.entries.get(kernel.name)
        entry = Entry(
            kernel.name,
            state or (old.state if old else "acknowledged"),
            note if note is not None else (old.note if old else ""),
            time.strftime("%Y-%m-%dT%H:%M:%S%z") if old is None or state not in (None, old.state) else old.since,
            f"{getpass.getuser()}@{socket.gethostname()}",
            fingerprint(kernel),
        )
        self._stage(kernel.name, entry)
        return entry

    def _stage(self, kernel: str, entry: Entry | None) -> None:
        if self.read_only:
            raise PermissionError(_("{path} is read-only for ptotui (see warnings)").format(path=self.path))
        with self._memory:
            self._pending.append((kernel, entry))
            entries = dict(self.entries)
            if entry is None:
                entries.pop(kernel, None)
            else:
                entries[kernel] = entry
            self.entries = entries

    def flush(self) -> None:
        """Write every staged change, in order, in one read-modify-write under the file lock.
        On failure the staged changes are dropped and the entries show the file as it is."""
        with self._io:
            with self._memory:
                pending, self._pending = self._pending, []
            if not pending:
                return
            try:
                self._write_changes(pending)
            except BaseException:
                with contextlib.suppress(OSError):
                    self.reload()
                raise

    def _write_changes(self, pending: list[tuple[str, Entry | None]]) -> None:
        if self.read_only:
            raise PermissionError(_("{path} is read-only for ptotui (see warnings)").format(path=self.path))
        from ptotui.model import private  # (when writing: off the start-up path)

        private.make_dirs(self.target.parent)
        with self._locked(shared=False):
            data = self._read()  # the other processes' entries, as they are now
            if data is None:
                raise PermissionError(_("{path} cannot be read, so it is not written").format(path=self.path))
            data.setdefault("schema", SCHEMA)
            self._move_legacy(data)
            mine = data.setdefault("reports", {}).setdefault(self.key, {})
            for kernel, entry in pending:
                if entry is None:
                    mine.pop(kernel, None)
                else:
                    mine[kernel] = entry.as_dict()
            self._write(data)
            self._show(self._entries(data))

    def _write(self, data: dict[str, Any]) -> None:
        """Temp file next to the real file, then rename: keeps the old file's mode and group,
        and a symlinked state path stays a symlink (its target is what is replaced)."""
        target = self.target
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=str(target.parent))
        try:
            _copy_mode_and_group(target, fd)
            with os.fdopen(fd, "wb") as handle:
                handle.write(orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS))
                handle.write(b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    @contextlib.contextmanager
    def _locked(self, shared: bool) -> Iterator[None]:
        """An advisory lock on a sidecar file next to the real file (which is replaced on write),
        so every ptotui reaching it through a symlink takes the same lock.

        The sidecar exists only while someone holds it: the last holder removes it, so no
        ``<state>.lock`` is left beside the state file. A process that waited for a lock file
        that was removed meanwhile finds the path gone or another file there once it holds
        the lock, and starts again with the file now at the path. Reading a state file that
        does not exist takes no lock and creates nothing (there is nothing to read, and a
        writer's atomic replace makes it appear whole).
        """
        try:
            import fcntl
        except ImportError:  # not POSIX: atomic replace still protects the file
            yield
            return
        if not self.writable:  # creating the lock file would be a write; reads are atomic anyway
            yield
            return
        target = self.target
        if shared and not target.exists():
            yield
            return
        lock_path = target.with_name(target.name + ".lock")
        try:
            if not shared:
                from ptotui.model import private

                private.make_dirs(lock_path.parent)
            handle = self._lock_file(lock_path, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        except OSError as exc:
            if exc.errno == errno.ELOOP and not shared:  # planted: writing unlocked beside it is no answer
                said = _("{path} is a symlink, not followed: nothing is written")
                raise PermissionError(said.format(path=lock_path)) from exc
            yield  # a read-only state dir: reading still works
            return
        with handle:
            try:
                yield
            finally:
                self._unlink_lock(lock_path, handle, shared)
                fcntl.flock(handle, fcntl.LOCK_UN)

    @staticmethod
    def _lock_file(lock_path: Path, operation: int) -> IO[str]:
        """``lock_path`` opened (created if need be) and locked, the file that is at the path now."""
        import fcntl

        from ptotui.model.private import FILE_MODE

        while True:
            # A new lock file is made with O_EXCL and 0600; one already there is opened as it is;
            # neither follows a symlink (one planted at the lock's path is refused, ELOOP).
            flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                descriptor = os.open(lock_path, flags | os.O_CREAT | os.O_EXCL, FILE_MODE)
            except FileExistsError:
                try:
                    descriptor = os.open(lock_path, flags)
                except FileNotFoundError:  # its holder removed it meanwhile: make one again
                    continue
            handle = os.fdopen(descriptor, "r+")  # closed by the caller, or below
            try:
                fcntl.flock(handle, operation)
                try:
                    same = os.path.samestat(os.fstat(handle.fileno()), os.stat(lock_path))
                except FileNotFoundError:
                    same = False
            except BaseException:
                handle.close()
                raise
            if same:
                return handle
            handle.close()  # its holder removed it while this one waited: lock the one there now

    @staticmethod
    def _unlink_lock(lock_path: Path, handle: IO[str], shared: bool) -> None:
        """Remove the lock file while holding it, unless another holder of a shared lock has it
        too (the exclusive lock is then refused at once, and the last of them removes it)."""
        import fcntl

        if shared:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                return
        with contextlib.suppress(OSError):
            os.unlink(lock_path)

    # -- views ---------------------------------------------------------------------

    def status(self, kernel: Kernel) -> Status:
        return status_of(self.entries.get(kernel.name), kernel)


def _copy_mode_and_group(old: Path, fd: int) -> None:
    """Give the new file the old one's permission bits and group (a group-shared 664 file
    stays 664). A new file keeps mkstemp's 600: the default state dir is per-user."""
    try:
        st = os.stat(old)
    except OSError:
        return
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    if st.st_gid != os.getegid():
        with contextlib.suppress(OSError):  # only a member of the group may give it
            os.fchown(fd, -1, st.st_gid)


def shape_problem(data: Any) -> str | None:
    """What is wrong with the shape of a parsed triage file, or None when it is usable:
    ``{"schema": str, "reports": {reports key: {kernel: entry}}}`` where an entry has a
    string ``state``, optional string ``note``/``since``/``by`` and a flat ``blocker``."""
    if not isinstance(data, dict):
        return _("is not a JSON object")
    if _deeper_than(data, MAX_DEPTH):
        return _("nests deeper than {depth} levels").format(depth=MAX_DEPTH)
    if not isinstance(data.get("schema", ""), str):
        return _('"{field}" is not a string').format(field="schema")
    reports = data.get("reports", {})
    if not isinstance(reports, dict):
        return _('"{field}" is not an object').format(field="reports")
    for key, kernels in reports.items():
        if not isinstance(kernels, dict):
            return _("the entries of {key} are not an object").format(key=one_line(clean(key), 80))
        for kernel, entry in kernels.items():
            problem = _entry_problem(entry)
            if problem:
                return _("entry {kernel}: {problem}").format(kernel=one_line(clean(kernel), 80), problem=problem)
    return None


def _deeper_than(data: Any, limit: int) -> bool:
    """Without recursion: a file of another tool's keys nested 900 deep would load, and then
    make writing it back recurse past Python's limit."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)
    return False


def _entry_problem(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return _("is not an object")
    if not isinstance(entry.get("state"), str):
        return _('"{field}" is not a string').format(field="state")
    for field in ("note", "since", "by"):
        if not isinstance(entry.get(field) or "", str):
            return _('"{field}" is not a string').format(field=field)
    blocker = entry.get("blocker") or {}
    if not isinstance(blocker, dict):
        return _('"{field}" is not an object').format(field="blocker")
    for value in blocker.values():
        flat = value is None or isinstance(value, str | int | float | bool)
        if not flat and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            return _('"blocker" holds something other than text, numbers or lists of text')
    return None


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
