"""Reading a report file a generator may be writing now: torn writes waited out, the last good text kept."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ptotui.model.i18n import _
from ptotui.model.live.pipeline import clock
from ptotui.model.read import jsonstream, safefile
from ptotui.model.read.loader import MergeMemo, decode
from ptotui.model.read.readers import ParsedJson, Source, kernel_builders, read_state_json
from ptotui.model.text import clean
from ptotui.model.types import Kernel, ReadWarning

if TYPE_CHECKING:
    pass


RETRY_DELAYS = (0.1, 0.2, 0.4, 0.8)
# A file that changes while it is read is being written right now: look again soon
# rather than after a whole retry delay (a 26 MB report is one write of ~70 ms), for at
# most BUSY_BUDGET seconds before the regular retries take over.
BUSY_DELAY = 0.02
BUSY_BUDGET = 1.0


def signature(path: Path) -> tuple[int, int, int] | None:
    try:
        return present(path)
    except OSError:
        return None


def present(path: Path) -> tuple[int, int, int] | None:
    """The signature of ``path``; None when there is nothing there. A path that is there but
    cannot be looked at (a directory without permission on the way, a symlink loop) raises
    the ``OSError``: it is not "gone", and its last good data still stands."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def looks_complete(path: Path, text: str, memos: dict | None = None) -> Source | None:
    """Validation of a file the generator has finished writing: the text to use, or None."""
    suffix = path.suffix
    if not text.strip():
        return None
    if suffix == ".json":
        try:
            value = jsonstream.loads(text, memos, kernel_builders(path.name))
        except ValueError:
            return None
        return ParsedJson(value)
    complete = True
    if suffix == ".md":
        complete = text.rstrip().endswith("|")
    elif suffix in (".csv", ".yaml", ".yml"):
        complete = text.endswith("\n")
    return text if complete else None


@dataclass
class _Good:
    text: Source
    since: float
    fingerprint: bytes
    warnings: tuple[ReadWarning, ...] = ()  # what decoding said (bad UTF-8), said again on reuse
    mtime_ns: int = 0  # the modification time of the version read


class StableSource:
    """A file source for :func:`ptotui.model.read.loader.load` that waits out torn writes."""

    def __init__(self, delays: tuple[float, ...] = RETRY_DELAYS, sleep: Callable[[float], None] = time.sleep) -> None:
        self.delays = delays
        self.sleep = sleep
        self.last_good: dict[Path, _Good] = {}
        self.fingerprints: dict[Path, bytes] = {}  # per file handed out: a hash of its bytes
        self.gone: dict[Path, float] = {}  # files that vanished, and when that was noticed
        self.memos: dict[Path, dict] = {}  # per file: what the last parse decoded
        self.merge_memo = MergeMemo()  # what the last load merged, per kernel
        # The signature each file had when the text handed out was read, until the watcher
        # takes it (:meth:`take_read_signature`): events for that very version need no reload.
        self.read_signatures: dict[Path, tuple[int, int, int]] = {}
        # Per JSON: the last version the load used (it gave kernels). When the JSON is of no use
        # now (torn, wrong-shaped, not a regular file, over the cap), that version is what the
        # screen shows unless the twins are newer: an older markdown twin never replaces it.
        self.used_good: dict[Path, _Good] = {}
        # The JSONs of no use now whose used version the load shows instead (:meth:`kept`),
        # until they are whole again or the load reads their twins (:meth:`release`).
        self.held: dict[Path, _Good] = {}

    def __call__(self, path: Path, warnings: list[ReadWarning]) -> Source | None:
        text, problem = None, ""
        busy_until = time.monotonic() + BUSY_BUDGET
        attempt, busy = 0, False
        while attempt <= len(self.delays):
            if busy:  # being written now: read again once it holds still, without spending an attempt
                self._wait_until_still(path, busy_until)
            elif attempt:
                self.sleep(self.delays[attempt - 1])
            attempt += 1
            busy = False
            try:
                before = present(path)
            except OSError as exc:  # waiting does not change a permission or a symlink loop
                return self._unreadable(path, exc, warnings)
            if before is None:
                if attempt <= min(2, len(self.delays)) and path in self.last_good and path.parent.is_dir():
                    continue  # moved away to be replaced (an editor's save): give the new file a moment
                return self._missing(path, warnings)
            self.gone.pop(path, None)
            try:
                data = safefile.read_bytes(path)
            except safefile.FileRefused as exc:
                # Not a regular file, or over the cap: waiting will not help. Like a fresh
                # start, treat it as absent, with the reason: the twins are read instead, or the
                # version the load used last when they are older (:meth:`kept`).
                warnings.append(ReadWarning(str(path), exc.message))
                self.last_good.pop(path, None)
                self.fingerprints.pop(path, None)
                return None
            except FileNotFoundError:
                return self._missing(path, warnings)
            except OSError as exc:
                problem = _("not readable: {error}").format(error=clean(exc.strerror or exc))
                continue
            if signature(path) != before:
                problem = _("kept changing while being read")
                if time.monotonic() < busy_until:
                    attempt, busy = attempt - 1, True
                continue
            fingerprint = hashlib.blake2b(data, digest_size=16).digest()  # hashlib lets go of the GIL
            good = self.last_good.get(path)
            if good is not None and good.fingerprint == fingerprint:  # rewritten with the same bytes
                self.held.pop(path, None)
                warnings.extend(good.warnings)
                self.last_good[path] = _Good(good.text, time.time(), fingerprint, good.warnings, before[2])
                self.fingerprints[path] = fingerprint
                self.read_signatures[path] = before
                return good.text  # the same object: the kernels its readers put in it still hold
            file_warnings: list[ReadWarning] = []
            text = decode(data, str(path), file_warnings)
            valid = looks_complete(path, text, self.memos.setdefault(path, {}))
            if valid is not None:
                self.held.pop(path, None)
                warnings.extend(file_warnings)
                self.last_good[path] = _Good(valid, time.time(), fingerprint, tuple(file_warnings), before[2])
                self.fingerprints[path] = fingerprint
                self.read_signatures[path] = before
                return valid
            problem = _("is empty") if not text.strip() else _("is incomplete or invalid (torn write?)")
        good = self.last_good.get(path)
        if text is not None and path.suffix == ".json":
            # Still invalid after every retry: hand over its text, so the parser names the
            # problem and the load reads the CSV and markdown twins, as a fresh start does.
            # The version the load used last is kept meanwhile: the load shows it instead when
            # the twins are older than it (:meth:`kept`), and lets it go when they are not (:meth:`release`).
            if path not in self.used_good:
                self._forget(path)
            self.fingerprints[path] = fingerprint
            return text
        if good is not None:
            warnings.append(
                ReadWarning(
                    str(path),
                    _("{problem}; showing last good data from {time}").format(problem=problem, time=clock(good.since)),
                )
            )
            self.fingerprints[path] = good.fingerprint
            return good.text
        if text is None:
            warnings.append(ReadWarning(str(path), problem))
            return None
        self.fingerprints[path] = fingerprint
        return text  # let the parser say exactly what is wrong

    def parsed_state(self, path: Path) -> tuple[list[Kernel], str | None] | None:
        """The kernels of the state matrix JSON at ``path`` as the last load read them (of one
        of no use now, the version shown instead), and its stamp (for the comparison with the
        snapshots, on another thread); None when that load did not parse it (missing, invalid,
        or markdown)."""
        good = self.held.get(path) or self.last_good.get(path)
        if good is None or not isinstance(good.text, ParsedJson):
            return None
        result, _warnings = read_state_json(good.text, str(path))
        return result["kernels"], result["generated_at"]

    def used(self, path: Path) -> None:
        """The load used the text last handed out for the JSON at ``path`` (it gave kernels)."""
        good = self.last_good.get(path)
        if good is not None:
            self.used_good[path] = good

    def kept(self, path: Path) -> tuple[Source, str] | None:
        """The text of a JSON of no use now (torn, wrong-shaped, not a regular file, over the
        cap) that the load used last, and the warning to show it with."""
        good = self.used_good.get(path)
        if good is None:
            return None
        self.held[path] = good
        said = _("showing last good data from {time}: its CSV and markdown twins are not newer")
        return good.text, said.format(time=clock(good.since))

    def modified(self, path: Path) -> int | None:
        """The modification time of the version of ``path`` last handed out whole: of a JSON
        invalid now, its last good version's (what the screen shows)."""
        good = self.held.get(path) or self.last_good.get(path)
        return good.mtime_ns if good is not None and good.mtime_ns else None

    def release(self, path: Path) -> None:
        """The twins of an invalid JSON are not older than its last good text: read them, as
        a fresh start would, and forget that text."""
        if self.held.pop(path, None) is not None:
            self._forget(path)

    def _wait_until_still(self, path: Path, until: float) -> None:
        """Wait in steps of BUSY_DELAY until ``path`` stops changing (or ``until``): a stat
        a step, so a long write is not read in full again and again."""
        last = signature(path)
        while True:
            self.sleep(BUSY_DELAY)
            now = signature(path)
            if now == last or time.monotonic() >= until:
                return
            last = now

    def take_read_signature(self, path: Path, current: tuple[int, int, int] | None) -> tuple[int, int, int] | None:
        """The signature ``path`` had when its text was last handed out, else ``current``."""
        return self.read_signatures.pop(path, current)

    def _unreadable(self, path: Path, exc: OSError, warnings: list[ReadWarning]) -> Source | None:
        """A file that is there but cannot be looked at: its last good text, said so with one
        warning (unlike a file that is gone, whose twins are read as a fresh start would)."""
        self.gone.pop(path, None)
        problem = _("not readable: {error}").format(error=clean(exc.strerror or exc))
        good = self.last_good.get(path)
        if good is None:
            self.fingerprints.pop(path, None)
            warnings.append(ReadWarning(str(path), problem))
            return None
        said = _("{problem}; showing last good data from {time}").format(problem=problem, time=clock(good.since))
        warnings.append(ReadWarning(str(path), said))
        self.fingerprints[path] = good.fingerprint
        return good.text

    def _missing(self, path: Path, warnings: list[ReadWarning]) -> Source | None:
        """A file that is not there. One that was is forgotten with a warning, so the load
        falls back to the other formats exactly as a fresh start would."""
        self.fingerprints.pop(path, None)
        if self._forget(path):
            self.gone[path] = time.time()
        since = self.gone.get(path)
        if since is not None:
            warnings.append(
                ReadWarning(str(path), _("disappeared at {time}; read without it").format(time=clock(since)))
            )
        return None

    def _forget(self, path: Path) -> bool:
        """Drop the last good text of ``path`` and what its parse cached; True when there was one."""
        self.memos.pop(path, None)
        self.held.pop(path, None)
        self.used_good.pop(path, None)
        return self.last_good.pop(path, None) is not None

    def digest(self) -> str:
        """A hash of every file handed out by the last load: equal means nothing changed."""
        h = hashlib.blake2b(digest_size=16)
        for path in sorted(self.fingerprints):
            h.update(str(path).encode("utf-8", "surrogateescape"))
            h.update(self.fingerprints[path])
        return h.hexdigest()
