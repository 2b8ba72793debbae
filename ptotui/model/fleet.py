"""Many bench hosts in one table: each host's published branch judged by the one verdict.

``ptotui publish`` puts each bench host's reports and runs on ``ptotui/hosts/<host>`` of a shared
repository. The fleet reads every such branch (the local ones, and a remote's remote-tracking ones,
fetched first when asked) without a checkout: the files under the commit's ``bench/`` that a verdict
reads (:func:`judged_file`) are listed with ``git ls-tree`` and written with ``git cat-file
--batch`` into a directory of their own under the user's state directory, keyed by host and commit
id (written again only when the branch moved; the others are removed). Each host's tree is then
judged by :func:`ptotui.model.verdict.judge`, as ``ptotui summary`` judges a tree on disk: no second
verdict. Only regular files with plain names are written, each at most
:data:`ptotui.model.publish.MAX_FILE_BYTES`: a branch is other people's data, and its reports are
read as untrusted as any report.

A row per kernel (the union of the hosts'), per host its tier, median ratio, newest PTO ms, statuses
and whether that host's verdict says PTO regressed. Ratios compare across hosts; milliseconds only
between hosts of one environment (the environment of each host's newest run).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ptotui.model.core.environment import Environment, as_text, differences, of_text
from ptotui.model.core.tiers import Thresholds
from ptotui.model.history.gitreports import GitError
from ptotui.model.i18n import _
from ptotui.model.publish import BRANCH_PREFIX, MAX_FILE_BYTES, Git, PublishError, host_ref
from ptotui.model.text import clean, one_line, visible

SCHEMA = "ptotui.fleet/1"
MAX_DEPTH = 12  # bench/results/<family>/<kernel>/<stamp>/<shape>/<stage>/kernel.pto is 8 deep
FETCH_TIMEOUT_S = 300
_LEFTOVER_S = 3600  # a half-written directory older than this is another run's that died
WARNINGS = "warnings.json"  # beside the tree's bench/: what was not written, and why
JUDGED = "judged.json"  # beside it too: the host as judged, read again while its commit is the same
_OID = re.compile(r"^[0-9a-f]{40,64}$")
# In the name of each host's tree: a tree written by a release that wrote other files (before 2,
# every file of a run) is not reused but written again, and the old one removed.
LAYOUT = "2"


class FleetError(Exception):
    """The fleet cannot be shown: its message is one line for the user (exit 2)."""


@dataclass(frozen=True)
class HostRef:
    """A host's branch: its name as shown, the full ref, its commit and the commit's time."""

    name: str
    ref: str
    commit: str
    time: int  # committer time, seconds since the epoch


@dataclass(frozen=True)
class Cell:
    """One kernel on one host, in that host's newest state."""

    tier: str
    ratio_median_pct: float | None
    pto_ms: float | None
    baseline_status: str | None
    pto_status: str | None
    regressed: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "tier": self.tier,
            "ratio_median_pct": _finite(self.ratio_median_pct),
            "pto_ms": _finite(self.pto_ms),
            "baseline_status": self.baseline_status,
            "pto_status": self.pto_status,
            "regressed": self.regressed,
        }


@dataclass
class Host:
    """One bench host as its newest publish gives it."""

    name: str
    ref: str
    commit: str
    published_at: int
    environment: Environment = field(default_factory=dict)
    reference: dict[str, str | None] | None = None  # {"kind": "snapshot"|"commit", "stamp"}: as export's
    reference_words: str | None = None  # ``snapshot 20260314T170132Z``
    regressed: list[str] = field(default_factory=list)
    cells: dict[str, Cell] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    group: int = 0  # its environment's index among the fleet's (0: the environment of most hosts)
    publishes: list[int] = field(default_factory=list)  # the times of its newest publishes, newest first
    root: str | None = None  # the tree written out (holding ``bench/``), for the detail's runs

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "ref": self.ref,
            "commit": self.commit,
            "published_at": iso_time(self.published_at),
            "environment": dict(self.environment),
            "reference": self.reference,
            "regressed_kernels": list(self.regressed),
            "warnings": list(self.warnings),
        }


@dataclass(frozen=True)
class Row:
    """A kernel across the hosts: the cells of the hosts that have it."""

    name: str
    cells: dict[str, Cell]
    disagree: bool


@dataclass
class Fleet:
    hosts: list[Host]
    rows: list[Row]
    warnings: list[str] = field(default_factory=list)  # of the fleet as a whole (the fetch, names)

    @property
    def environments(self) -> int:
        return len({host.group for host in self.hosts})

    def as_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "hosts": [host.as_dict() for host in self.hosts],
            "kernels": [
                {
                    "name": row.name,
                    "hosts": {name: cell.as_dict() for name, cell in row.cells.items()},
                    "disagree": row.disagree,
                }
                for row in self.rows
            ],
        }


def _finite(value: float | None) -> float | None:
    return value if value is not None and value == value and abs(value) != float("inf") else None


def iso_time(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


# -- the repository and its host branches ------------------------------------------------


def repository_of(path: Path) -> Path:
    """The git directory of the repository holding ``path`` (a work tree or a bare repository)."""
    try:
        git = Git(path)
    except PublishError as exc:
        raise FleetError(str(exc)) from None
    if not path.is_dir():
        raise FleetError(_("{path}: not a directory").format(path=visible(str(path))))
    found = git.run("rev-parse", "--absolute-git-dir", check=False)
    if not found:
        raise FleetError(_("{path} is not in a git repository").format(path=visible(str(path))))
    return Path(found)


def remotes(git: Git) -> list[str]:
    return git.run("remote").split()


def check_remote(git: Git, remote: str) -> None:
    known = remotes(git)
    if remote not in known:
        said = _("{remote} is not a remote of this repository (its remotes: {remotes})")
        raise FleetError(said.format(remote=visible(remote), remotes=", ".join(known) or _("none")))


def fetch(git: Git, remote: str) -> str | None:
    """Fetch the host branches of ``remote`` into its remote-tracking refs (a force-pushed branch
    taken as it is now, a deleted one dropped); None, or why it failed (one line)."""
    spec = f"+refs/heads/{BRANCH_PREFIX}*:refs/remotes/{remote}/{BRANCH_PREFIX}*"
    try:
        # S603: an argument list to the full path of git; the remote is a configured remote's name.
        done = subprocess.run(  # noqa: S603
            [git.git, "-C", str(git.repository), "fetch", "-q", "--prune", "--no-write-fetch-head", remote, spec],
            capture_output=True,
            env=git.env,
            timeout=FETCH_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _("no answer in {s} s").format(s=FETCH_TIMEOUT_S)
    except OSError as exc:
        return one_line(clean(exc), 200)
    if done.returncode != 0:
        return one_line(clean(done.stderr.decode("utf-8", "replace")), 200) or f"exit {done.returncode}"
    return None


def host_refs(git: Git, remote: str | None) -> tuple[list[HostRef], list[str]]:
    """The host branches: local ones, and ``remote``'s remote-tracking ones; a host on both is
    its newer commit. Sorted by name; the warnings name a branch shown under another name."""
    prefixes = [f"refs/heads/{BRANCH_PREFIX}"]
    if remote is not None:
        prefixes.append(f"refs/remotes/{remote}/{BRANCH_PREFIX}")
    listing = git.run(
        "for-each-ref", "--format=%(refname)%00%(objectname)%00%(objecttype)%00%(committerdate:raw)", *prefixes
    )
    found: dict[str, HostRef] = {}
    warnings: list[str] = []
    for line in listing.splitlines():
        parts = line.split("\0")
        if len(parts) != 4:
            continue
        ref, commit, kind, date = parts
        prefix = next(p for p in prefixes if ref.startswith(p))
        raw = ref[len(prefix) :]
        name = visible(raw)
        if host_ref(raw)[0] != BRANCH_PREFIX + raw:
            said = _("host branch {ref}: not a name ptotui publish makes; shown as {name}")
            warnings.append(said.format(ref=visible(ref), name=name))
        if kind != "commit" or not _OID.match(commit):
            warnings.append(_("{ref}: not a commit; not shown").format(ref=visible(ref)))
            continue
        try:
            when = int(date.split()[0])
        except (ValueError, IndexError):
            when = 0
        host = HostRef(name, ref, commit, when)
        if name not in found or (when, ref.startswith("refs/remotes/")) > (found[name].time, False):
            found[name] = host
    return [found[name] for name in sorted(found)], warnings


def hosts_elsewhere(git: Git) -> dict[str, int]:
    """Per remote, how many host branches it has fetched (for the word when there are none here)."""
    listing = git.run("for-each-ref", "--format=%(refname)", "refs/remotes/")
    counts: Counter[str] = Counter()
    for ref in listing.splitlines():
        rest = ref[len("refs/remotes/") :]
        remote, sep, branch = rest.partition(f"/{BRANCH_PREFIX}")
        if sep and branch:
            counts[remote] += 1
    return dict(counts)


# -- a host's tree, written out ------------------------------------------------------------


def cache_root() -> Path:
    """Where the hosts' trees are written: ``$XDG_STATE_HOME/ptotui/fleet`` (the triage file's directory)."""
    from ptotui.model.triage import default_state_file

    return default_state_file().parent / "fleet"


def _plain(part: str) -> bool:
    return bool(part) and part not in (".", "..") and part.isprintable() and "\\" not in part


def _key(text: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip(".-")[:40] or "host"
    return f"{safe}-{hashlib.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()[:10]}"


RUN_DIRECTORIES = ("bench/results/", "bench/generated/")


def judged_file(path: str) -> bool:
    """Whether the fleet reads ``path`` (relative to the branch's root): everything under
    ``bench/`` but, of a run (``bench/results/…``, the runner's copy in ``bench/generated/…``),
    only its ``report.json``. The benchmark JSONs and generated sources are published for people
    (a code diff on the bench host's tree); no verdict reads them. On the real trees they are
    5,852 of a host's 6,321 files and 22 of its 30 MB: the first read of a host writes 13×
    fewer files."""
    return not path.startswith(RUN_DIRECTORIES) or path.rsplit("/", 1)[-1] == "report.json"


def _listing(git: Git, commit: str, warnings: list[str]) -> dict[str, tuple[str, int]]:
    """The blobs under the commit's ``bench/`` to write (:func:`judged_file`): path -> (blob id,
    size). A file no verdict reads is left out without a word, whatever its name."""
    out = subprocess.run(  # noqa: S603 - an argument list to the full path of git; the commit is an id
        [git.git, "-C", str(git.repository), "ls-tree", "-r", "-l", "-z", commit, "--", "bench/"],
        capture_output=True,
        env=git.env,
        check=False,
    )
    if out.returncode != 0:
        raise GitError("git ls-tree: " + one_line(clean(out.stderr.decode("utf-8", "replace")), 200))
    files: dict[str, tuple[str, int]] = {}
    for entry in out.stdout.split(b"\0"):
        if not entry:
            continue
        head, _tab, raw = entry.partition(b"\t")
        path = raw.decode("utf-8", "surrogateescape")
        if not judged_file(path):
            continue
        fields = head.decode("ascii", "replace").split()
        if len(fields) != 4:
            continue
        mode, kind, oid, size = fields
        parts = path.split("/")
        if not all(_plain(part) for part in parts) or len(parts) > MAX_DEPTH:
            warnings.append(_("{path}: not a plain file name; not read").format(path=visible(path)))
        elif kind != "blob" or mode not in ("100644", "100755") or not _OID.match(oid):
            warnings.append(_("{path}: not a regular file; not read").format(path=visible(path)))
        elif not size.isdigit() or int(size) > MAX_FILE_BYTES:
            said = _("{path}: over {mb} MB; not read").format(path=visible(path), mb=MAX_FILE_BYTES // (1024 * 1024))
            warnings.append(said)
        else:
            files[path] = (oid, int(size))
    # A file and a directory of one name cannot both be written: the directory wins.
    directories = {"/".join(p.split("/")[:n]) for p in files for n in range(1, p.count("/") + 1)}
    for path in [p for p in files if p in directories]:
        del files[path]
    return files


def _write_blobs(git: Git, files: dict[str, tuple[str, int]], root: Path, when: int) -> None:
    """Each blob's bytes into ``root``/path, read by one ``git cat-file --batch``."""
    by_oid: dict[str, list[str]] = {}
    for path, (oid, _size) in files.items():
        by_oid.setdefault(oid, []).append(path)
    made: set[Path] = set()
    with tempfile.TemporaryFile() as wanted:
        wanted.write("".join(f"{oid}\n" for oid in by_oid).encode())
        wanted.seek(0)
        with subprocess.Popen(  # noqa: S603 - an argument list to the full path of git
            [git.git, "-C", str(git.repository), "cat-file", "--batch"],
            stdin=wanted,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=git.env,
        ) as batch:
            stdout = batch.stdout
            if stdout is None:  # (PIPE makes it: for the type checker)
                raise GitError("git cat-file: no pipe")
            for _count in range(len(by_oid)):
                header = stdout.readline().decode("ascii", "replace").split()
                if len(header) != 3 or header[0] not in by_oid or header[1] != "blob" or not header[2].isdigit():
                    batch.kill()
                    raise GitError(_("git cat-file: {answer}").format(answer=one_line(" ".join(header), 200)))
                oid, size = header[0], int(header[2])
                first, *others = by_oid[oid]
                target = root / first
                if target.parent not in made:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    made.add(target.parent)
                flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
                with os.fdopen(os.open(target, flags, 0o644), "wb") as handle:
                    left = size
                    while left:
                        chunk = stdout.read(min(left, 1 << 20))
                        if not chunk:
                            raise GitError(_("git cat-file: the answer ended early"))
                        handle.write(chunk)
                        left -= len(chunk)
                stdout.read(1)  # the newline after each object
                os.utime(target, (when, when))
                for other in others:
                    again = root / other
                    if again.parent not in made:
                        again.parent.mkdir(parents=True, exist_ok=True)
                        made.add(again.parent)
                    shutil.copyfile(target, again, follow_symlinks=False)
                    os.utime(again, (when, when))


def extract(git: Git, host: HostRef, directory: Path, warnings: list[str]) -> Path:
    """The host's ``bench/`` at its commit, written under ``directory`` once per commit;
    returns the tree's root (holding ``bench/``). When an earlier commit of the host is written
    there, that tree is taken over and only the files that differ are written (a publish adds a
    run or two to tens of thousands)."""
    final = directory / f"{_key(host.name)}-{LAYOUT}-{host.commit}"
    if final.is_dir():
        warnings += _said_before(final / WARNINGS)
        return final
    directory.mkdir(parents=True, exist_ok=True)
    earlier = _earlier(directory, host)
    if earlier is not None:
        with contextlib.suppress(GitError, OSError):
            return _extract_since(git, host, earlier, final, warnings)
    temp = Path(tempfile.mkdtemp(prefix=".part-", dir=directory))
    try:
        said: list[str] = []
        files = _listing(git, host.commit, said)
        warnings += said
        (temp / "bench").mkdir()
        _write_blobs(git, files, temp, host.time)
        (temp / WARNINGS).write_text(json.dumps(said), encoding="utf-8")  # said again on each read of it
        _settle(temp, final)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    return final


def _settle(temp: Path, final: Path) -> None:
    try:
        os.rename(temp, final)
    except OSError:  # another fleet wrote the same commit meanwhile: theirs is as good
        if not final.is_dir():
            raise


def _earlier(directory: Path, host: HostRef) -> tuple[Path, str] | None:
    """A tree of an earlier commit of the host written before, and that commit."""
    prefix = f"{_key(host.name)}-{LAYOUT}-"
    with contextlib.suppress(OSError):
        for entry in directory.iterdir():
            commit = entry.name[len(prefix) :]
            if entry.name.startswith(prefix) and _OID.match(commit) and (entry / "bench").is_dir():
                return entry, commit
    return None


def _extract_since(git: Git, host: HostRef, earlier: tuple[Path, str], final: Path, warnings: list[str]) -> Path:
    """The earlier commit's tree made the new one's: the files whose blob changed written again,
    the ones gone removed (with the directories they leave empty). Raises GitError or OSError
    (then the tree is written whole)."""
    old_root, old_commit = earlier
    old = _listing(git, old_commit, [])
    said: list[str] = []
    new = _listing(git, host.commit, said)
    temp = Path(tempfile.mkdtemp(prefix=".part-", dir=final.parent))
    try:
        os.rename(old_root, temp / "tree")  # taken: no other read of the fleet uses it from now
        root = temp / "tree"
        gone = [path for path, (oid, _size) in old.items() if new.get(path, (None,))[0] != oid]
        for path in gone:
            (root / path).unlink(missing_ok=True)
        for path in sorted({str(Path(p).parent) for p in gone if p not in new}, key=len, reverse=True):
            parent = root / path
            while parent != root and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        _write_blobs(git, {p: blob for p, blob in new.items() if old.get(p, (None,))[0] != blob[0]}, root, host.time)
        (root / WARNINGS).write_text(json.dumps(said), encoding="utf-8")
        (root / JUDGED).unlink(missing_ok=True)
        _settle(root, final)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    warnings += said
    return final


def _said_before(path: Path) -> list[str]:
    """The warnings of the files not written, kept beside the tree written."""
    try:
        said = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [visible(one_line(item, 500)) for item in said if isinstance(item, str)] if isinstance(said, list) else []


def prune(directory: Path, keep: set[Path]) -> None:
    """Remove what earlier reads wrote and this one did not use."""
    try:
        entries = list(directory.iterdir())
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if entry in keep:
            continue
        if entry.name.startswith(".part-"):
            with contextlib.suppress(OSError):
                if now - entry.stat().st_mtime < _LEFTOVER_S:
                    continue  # another fleet writing now
        shutil.rmtree(entry, ignore_errors=True)


# -- judged ---------------------------------------------------------------------------------


def judge_host(
    host: HostRef,
    root: Path,
    thresholds: Thresholds,
    clock: Callable[[], float] | None,
    warnings: list[str],
) -> Host:
    """The host's tree judged as ``ptotui summary`` judges a tree on disk. The reference is the
    newest differing snapshot file: the branch's commits are publishes, not the generator's."""
    from ptotui.model.location import locate
    from ptotui.model.verdict import judge

    out = Host(host.name, host.ref, host.commit, host.time, warnings=warnings)
    bench = root / "bench"
    has_reports = (bench / "reports").is_dir() and any((bench / "reports").iterdir())
    has_runs = (bench / "results").is_dir()
    if not has_reports:
        said = _("no reports on the branch") if has_runs else _("no reports and no runs on the branch")
        out.warnings.append(said)
        if not has_runs:
            return out
    verdict = judge(locate(bench), thresholds, git=False, clock=clock)
    reports = verdict.reports
    regressed: set[str] = set()
    if verdict.since is not None and verdict.since.stamp is not None:
        since = verdict.since
        out.reference = {"kind": "commit" if since.committed else "snapshot", "stamp": since.stamp}
        out.reference_words = since.reference()
        out.regressed = list(since.regressed)
        regressed = set(out.regressed)
    runs = reports.bench_run.runs if reports.bench_run is not None else ()
    newest = max(runs, key=lambda run: (run.started, run.kernel), default=None)
    if newest is not None:
        out.environment = of_text(newest.environment)
    for kernel in reports.kernels:
        out.cells[kernel.name] = Cell(
            kernel.tier,
            kernel.ratio_median_pct,
            kernel.pto_ms,
            kernel.baseline_status,
            kernel.pto_status,
            kernel.name in regressed,
        )
    where = str(root) + os.sep
    out.warnings += [warning.shown().replace(where, "") for warning in reports.warnings]
    return out


def disagree(cells: list[Cell]) -> bool:
    if len(cells) < 2:
        return False
    return any(len({getattr(cell, name) for cell in cells}) > 1 for name in ("tier", "baseline_status", "pto_status"))


def group_environments(hosts: list[Host]) -> None:
    """Number the environments: 0 the one most hosts share (the first host's on a tie). As
    between two runs, a field only one host names differs from nothing: a host whose newest run
    names only ``bench`` is in the environment of one whose run names the device too, when the
    fields both name agree (:func:`ptotui.model.core.environment.differences`)."""
    texts = [as_text(host.environment) or "" for host in hosts]
    counts = Counter(texts)
    order = sorted(counts, key=lambda text: (-counts[text], -len(text), texts.index(text)))
    groups: list[Environment] = []
    of_group: dict[str, int] = {}
    for text in order:
        environment = of_text(text)
        match = next((n for n, seen in enumerate(groups) if not differences(seen, environment)), None)
        if match is None:
            groups.append(environment)
            match = len(groups) - 1
        of_group[text] = match
    for host, text in zip(hosts, texts, strict=True):
        host.group = of_group[text]


def read_fleet(
    repository: Path,
    remote: str | None = None,
    fetch_first: bool = False,
    thresholds: Thresholds = Thresholds(),
    cache: Path | None = None,
    clock: Callable[[], float] | None = None,
) -> Fleet:
    """The fleet of ``repository`` (a path in a work tree, or a git directory), read once
    (:class:`ptotui.model.fleetfeed.FleetFeed`). Raises FleetError (one line) outside a
    repository, for an unknown remote and with no host."""
    from ptotui.model.fleetfeed import FleetFeed

    feed = FleetFeed(repository, remote, thresholds, cache, clock)
    reading = feed.read(fetch_first)
    fleet = reading.fleet
    if reading.fetch_error is not None:
        said = _("fetch from {remote} failed ({reason}); the host branches fetched before are shown")
        fleet.warnings.insert(0, said.format(remote=visible(remote or ""), reason=reading.fetch_error))
    if not fleet.hosts:
        raise FleetError(feed.no_hosts())
    return fleet
