"""The fleet read again and again: fetch, then judge only the hosts whose branch moved.

A :class:`FleetFeed` keeps each host as judged at its commit. Each :meth:`FleetFeed.read`
(the fleet view calls it on a timer, off the UI thread) fetches the remote's host branches when
asked, lists them, and reads a host again only when its commit changed: its tree is written out
(only the files that differ from the commit written before, :func:`ptotui.model.fleet.extract`)
and judged, or, when this commit was judged before (by an earlier ``ptotui fleet``), its judged
form is read back from ``judged.json`` beside the tree. A fetch that fails keeps the branches
fetched before: the reading says why it failed, and the view keeps showing them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ptotui
from ptotui.model import fleet as fl
from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.gitreports import GitError
from ptotui.model.i18n import _
from ptotui.model.publish import BRANCH_PREFIX, Git
from ptotui.model.text import clean, one_line, visible

JUDGED_SCHEMA = 1
PUBLISH_HISTORY = 11  # publishes kept per host: ten gaps, for its usual interval


@dataclass
class Reading:
    """One read of the fleet: the fleet, why the fetch failed (None: it did, or none was
    asked), the hosts read again (their branch moved, or they are new)."""

    fleet: fl.Fleet
    fetch_error: str | None = None
    moved: list[str] = field(default_factory=list)
    fetched: bool = False


def publish_times(git: Git, commit: str) -> list[int]:
    """The committer times of the host's newest publishes (first parents), newest first."""
    out = subprocess.run(  # noqa: S603 - an argument list to the full path of git; the commit is an id
        [git.git, "-C", str(git.repository), "rev-list", "--first-parent", f"--max-count={PUBLISH_HISTORY}"]
        + ["--format=%ct", commit],
        capture_output=True,
        env=git.env,
        check=False,
    )
    times = []
    for line in out.stdout.decode("ascii", "replace").splitlines():
        if line.strip().isdigit():
            times.append(int(line.strip()))
    return times


def _judged_key(thresholds: Thresholds) -> str:
    return f"{JUDGED_SCHEMA}:{ptotui.__version__}:{thresholds.high:g}:{thresholds.mid:g}"


def _host_data(host: fl.Host, key: str) -> dict[str, Any]:
    return {
        "key": key,
        "commit": host.commit,
        "environment": dict(host.environment),
        "reference": host.reference,
        "reference_words": host.reference_words,
        "regressed": list(host.regressed),
        "warnings": list(host.warnings),
        "publishes": list(host.publishes),
        "cells": {name: cell.as_dict() for name, cell in host.cells.items()},
    }


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def load_judged(root: Path, ref: fl.HostRef, key: str) -> fl.Host | None:
    """The host as judged before at this commit (None: not judged yet, or by another version
    of ptotui or other thresholds, or the file is not what it wrote)."""
    try:
        data = json.loads((root / fl.JUDGED).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("key") != key or data.get("commit") != ref.commit:
            return None
        cells = {
            str(name): fl.Cell(
                str(cell["tier"]),
                _number(cell.get("ratio_median_pct")),
                _number(cell.get("pto_ms")),
                _text(cell.get("baseline_status")),
                _text(cell.get("pto_status")),
                cell.get("regressed") is True,
            )
            for name, cell in data["cells"].items()
        }
        reference = data.get("reference")
        return fl.Host(
            ref.name,
            ref.ref,
            ref.commit,
            ref.time,
            environment={str(k): str(v) for k, v in data["environment"].items()},
            reference=reference if isinstance(reference, dict) else None,
            reference_words=_text(data.get("reference_words")),
            regressed=[str(name) for name in data["regressed"]],
            cells=cells,
            warnings=[str(w) for w in data["warnings"]],
            publishes=[int(t) for t in data["publishes"]],
            root=str(root),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def save_judged(root: Path, host: fl.Host, key: str) -> None:
    temp = root / f".{fl.JUDGED}.{os.getpid()}"
    try:
        temp.write_text(json.dumps(_host_data(host, key), allow_nan=False), encoding="utf-8")
        os.replace(temp, root / fl.JUDGED)
    except (OSError, ValueError):
        temp.unlink(missing_ok=True)


def read_host(
    git: Git, ref: fl.HostRef, directory: Path, thresholds: Thresholds, clock: Callable[[], float] | None
) -> fl.Host:
    """One host at its commit: written out and judged, or its judged form read back."""
    warnings: list[str] = []
    try:
        root = fl.extract(git, ref, directory, warnings)
    except (GitError, OSError) as exc:
        warnings.append(_("not read: {error}").format(error=one_line(clean(exc), 300)))
        return fl.Host(ref.name, ref.ref, ref.commit, ref.time, warnings=warnings)
    key = _judged_key(thresholds)
    judged = load_judged(root, ref, key)
    if judged is not None:
        return judged
    host = fl.judge_host(ref, root, thresholds, clock, warnings)
    host.publishes = publish_times(git, ref.commit)
    host.root = str(root)
    save_judged(root, host, key)
    return host


def assemble(hosts: list[fl.Host], warnings: list[str]) -> fl.Fleet:
    """The fleet of these hosts: their environments numbered, a row per kernel."""
    fl.group_environments(hosts)
    names = sorted({name for host in hosts for name in host.cells}, key=lambda n: (n.casefold(), n))
    rows = []
    for name in names:
        cells = {host.name: host.cells[name] for host in hosts if name in host.cells}
        rows.append(fl.Row(name, cells, fl.disagree(list(cells.values()))))
    return fl.Fleet(hosts, rows, warnings)


class FleetFeed:
    """The fleet of one repository, read again on each :meth:`read`; a host is judged again
    only when its branch moved. Raises FleetError (one line) outside a repository and for an
    unknown remote."""

    def __init__(
        self,
        repository: Path,
        remote: str | None = None,
        thresholds: Thresholds = Thresholds(),
        cache: Path | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.git_dir = fl.repository_of(repository)
        self.git = Git(self.git_dir)
        self.remote = remote
        if remote is not None:
            fl.check_remote(self.git, remote)
        self.thresholds = thresholds
        self.directory = (cache or fl.cache_root()) / fl._key(str(self.git_dir))
        self.clock = clock
        self._hosts: dict[str, fl.Host] = {}  # by name, at the commit it was read at

    def read(self, fetch: bool = False, elsewhere: bool = False) -> Reading:
        """``elsewhere``: the hosts to judge are judged by a child process first (the view's
        choice: judging tens of thousands of runs in a thread holds the interpreter's lock, and
        the keys wait for it); this process then reads their judged form back."""
        failed = None
        if fetch and self.remote is not None:
            failed = fl.fetch(self.git, self.remote)
        refs, warnings = fl.host_refs(self.git, self.remote)
        if elsewhere:
            self._judge_elsewhere([ref for ref in refs if self._moved(ref)])
        hosts, moved = [], []
        for ref in refs:
            known = self._hosts.get(ref.name)
            if known is None or self._moved(ref):
                known = read_host(self.git, ref, self.directory, self.thresholds, self.clock)
                moved.append(ref.name)
            hosts.append(known)
        self._hosts = {host.name: host for host in hosts}
        fl.prune(self.directory, {Path(host.root) for host in hosts if host.root is not None})
        fleet = assemble(hosts, warnings)
        return Reading(fleet, failed, moved, fetch and self.remote is not None)

    def _moved(self, ref: fl.HostRef) -> bool:
        known = self._hosts.get(ref.name)
        return known is None or known.commit != ref.commit or known.ref != ref.ref

    def _judge_elsewhere(self, refs: list[fl.HostRef]) -> None:
        """Judge these hosts in a child process (written out, judged, kept beside their trees);
        when it fails, they are judged here as before."""
        key = _judged_key(self.thresholds)
        wanted = [
            ref for ref in refs if load_judged(self.directory / f"{fl._key(ref.name)}-{ref.commit}", ref, key) is None
        ]
        if not wanted:
            return
        order = {
            "git_dir": str(self.git_dir),
            "directory": str(self.directory),
            "high": self.thresholds.high,
            "mid": self.thresholds.mid,
            "refs": [[ref.name, ref.ref, ref.commit, ref.time] for ref in wanted],
        }
        code = "from ptotui.model.fleetfeed import judge_main; judge_main()"
        # S603: this interpreter, running ptotui's own function; the order is data on stdin.
        subprocess.run(  # noqa: S603
            [sys.executable, "-c", code],
            input=json.dumps(order).encode(),
            capture_output=True,
            check=False,
        )

    def no_hosts(self) -> str:
        """Why there is no host, in one line."""
        elsewhere = fl.hosts_elsewhere(self.git) if self.remote is None else {}
        if elsewhere:
            name, count = max(elsewhere.items(), key=lambda item: item[1])
            said = _("no host branches {prefix}* here; {remote} has {n}: give --remote {remote}")
            return said.format(prefix=BRANCH_PREFIX, remote=visible(name), n=count)
        if self.remote is not None:
            said = _("no host branches {prefix}* on {remote} yet")
            return said.format(prefix=BRANCH_PREFIX, remote=visible(self.remote))
        return _("no host branches {prefix}* in {path}").format(prefix=BRANCH_PREFIX, path=self.git_dir)


def judge_main() -> None:
    """The child process of :meth:`FleetFeed._judge_elsewhere`: the hosts named on stdin written
    out and judged, each kept beside its tree (``judged.json``)."""
    import contextlib
    import time

    with contextlib.suppress(OSError):
        os.nice(10)  # the view's process answers keys on the same cores: it goes first
    order = json.loads(sys.stdin.buffer.read())
    git = Git(Path(order["git_dir"]))
    thresholds = Thresholds(high=float(order["high"]), mid=float(order["mid"]))
    for name, ref, commit, when in order["refs"]:
        read_host(git, fl.HostRef(name, ref, commit, int(when)), Path(order["directory"]), thresholds, time.time)
