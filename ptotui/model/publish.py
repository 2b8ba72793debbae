"""A bench host's reports and runs published to a git branch of its own, with git plumbing.

``ptotui publish`` commits what the fleet needs of a bench tree onto ``ptotui/hosts/<host>``:
``bench/reports/*`` and, for each run under ``bench/results/``, its ``report.json``, the
benchmark JSONs and the generated sources (``*.pto``, ``*.cpp``; never ``*.so``). The commit is
made from blobs and trees written straight into the object store (``hash-object``, ``mktree``,
``commit-tree``, ``update-ref``): the work tree, the index and the current branch are never
touched, so the tree may be any directory, in a checkout or not. Each publish is a child of the
last; when nothing changed, nothing is written. Every host pushes its own branch only, so
publishes from many hosts never conflict.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ptotui.model.history.gitreports import GitError, git_command
from ptotui.model.i18n import _
from ptotui.model.location import STAMP, Location
from ptotui.model.text import clean, one_line, visible
from ptotui.model.types import ReadWarning

BRANCH_PREFIX = "ptotui/hosts/"
MAX_FILE_BYTES = 16 * 1024 * 1024  # a report is KBs, a generated source rarely 1 MB
MAX_DEPTH = 6  # below a run directory: q16_k16_d16/stage2_softmax/kernel.pto is 2 deep
RUN_FILES = re.compile(r"^(report\.json|[^/]*benchmark[^/]*\.json|[^/]+\.pto|[^/]+\.cpp)$")
_REF_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# A publish is a machine's commit: its own identity, whatever the user's git is set to.
_IDENTITY = {
    "GIT_AUTHOR_NAME": "ptotui publish",
    "GIT_AUTHOR_EMAIL": "ptotui@localhost",
    "GIT_COMMITTER_NAME": "ptotui publish",
    "GIT_COMMITTER_EMAIL": "ptotui@localhost",
}


class PublishError(Exception):
    """Publishing cannot go on: its message is one line for the user."""


def host_ref(host: str) -> tuple[str, str | None]:
    """The branch name for ``host`` (``ptotui/hosts/<name>``) and, when the name had to be made
    safe for a ref (spaces, slashes, ``..``, control characters), a note saying so."""
    safe = _REF_UNSAFE.sub("-", host).strip(".-") or "host"
    safe = re.sub(r"\.{2,}", ".", safe)
    if safe.endswith(".lock"):
        safe = safe[: -len(".lock")] + "-lock"
    safe = safe[:100]
    note = None
    if safe != host:
        note = _("host name {name} is not a valid branch name; published as {safe}").format(
            name=visible(host), safe=safe
        )
    return BRANCH_PREFIX + safe, note


def default_host() -> str:
    return socket.gethostname() or "host"


@dataclass
class Files:
    """What a tree offers to publish: path in the commit -> file on disk and its signature
    (inode, size, mtime): a file whose signature is as last time is not hashed again."""

    paths: dict[str, Path] = field(default_factory=dict)
    signatures: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    warnings: list[ReadWarning] = field(default_factory=list)
    runs: int = 0


def _plain_name(name: str) -> bool:
    return bool(name) and name not in (".", "..") and clean(name) == name and "\n" not in name and "\\" not in name


def _regular(entry: os.DirEntry[str], files: Files) -> tuple[int, int, int] | None:
    """The signature of a regular file (not followed through a symlink) of at most
    MAX_FILE_BYTES; else None and a warning naming it."""
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError as exc:
        said = _("not published ({error})").format(error=one_line(clean(exc)))
        files.warnings.append(ReadWarning(visible(entry.path), said))
        return None
    if not stat.S_ISREG(st.st_mode):
        files.warnings.append(ReadWarning(visible(entry.path), _("not a regular file; not published")))
        return None
    if st.st_size > MAX_FILE_BYTES:
        said = _("over {mb} MB; not published").format(mb=MAX_FILE_BYTES // (1024 * 1024))
        files.warnings.append(ReadWarning(visible(entry.path), said))
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns)


def _entries(directory: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as found:
            return sorted(found, key=lambda e: e.name)
    except OSError:
        return []


def _run_files(run: Path, inside: str, depth: int = 0) -> Iterator[tuple[str, os.DirEntry[str]]]:
    for entry in _entries(run):
        if not _plain_name(entry.name):
            continue
        if entry.is_dir(follow_symlinks=False):
            if depth < MAX_DEPTH:
                yield from _run_files(Path(entry.path), f"{inside}/{entry.name}", depth + 1)
        elif RUN_FILES.match(entry.name):
            yield f"{inside}/{entry.name}", entry


def _add(files: Files, name: str, entry: os.DirEntry[str], signature: tuple[int, int, int]) -> None:
    files.paths[name] = Path(entry.path)
    files.signatures[name] = signature


def collect(location: Location) -> Files:
    """The files of ``location``'s bench tree to publish, by their path in the commit
    (``bench/reports/…``, ``bench/results/<family>/<kernel>/<stamp>/…``)."""
    files = Files()
    for entry in _entries(location.reports):
        if _plain_name(entry.name) and not entry.is_dir(follow_symlinks=False):
            signature = _regular(entry, files)
            if signature is not None:
                _add(files, f"bench/reports/{entry.name}", entry, signature)
    results = location.bench / "results"
    for family in _entries(results):
        if not (family.is_dir(follow_symlinks=False) and _plain_name(family.name)):
            continue
        for kernel in _entries(Path(family.path)):
            if not (kernel.is_dir(follow_symlinks=False) and _plain_name(kernel.name)):
                continue
            for run in _entries(Path(kernel.path)):
                if not (run.is_dir(follow_symlinks=False) and STAMP.match(run.name)):
                    continue
                inside = f"bench/results/{family.name}/{kernel.name}/{run.name}"
                listed = _run_files(Path(run.path), inside)
                found = [(name, e, sig) for name, e in listed if (sig := _regular(e, files))]
                if any(name.endswith("/report.json") for name, _entry, _sig in found):
                    files.runs += 1
                    for name, entry, signature in found:
                        _add(files, name, entry, signature)
    return files


@dataclass(frozen=True)
class Published:
    """What a publish did."""

    ref: str
    commit: str | None  # None: nothing changed since the last publish
    files: int
    runs: int
    pushed: bool
    warnings: tuple[ReadWarning, ...] = ()
    notes: tuple[str, ...] = ()
    push_error: str | None = None  # the commit is kept; the next publish pushes it


CACHE_NAME = "ptotui-publish.json"  # in the repository's git directory, beside git's own files
CACHE_SCHEMA = "ptotui.publish-cache/1"
CACHE_MAX_BYTES = 64 * 1024 * 1024


@dataclass
class Cache:
    """The ids of what the last publishes wrote: each file's blob by its path and signature, and
    each directory's tree by its listing. Valid only while the objects exist: the host branch
    keeps them reachable; a stale id makes ``mktree`` fail, and the publish is made again
    without the cache. Keeps the publish of one new run under a second (bench_publish.py)."""

    blobs: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    trees: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path) -> Cache:
        import orjson

        from ptotui.model.read import safefile

        try:
            data = orjson.loads(safefile.read_bytes(path, CACHE_MAX_BYTES))
        except (OSError, ValueError, safefile.FileRefused):
            return cls()
        if not isinstance(data, dict) or data.get("schema") != CACHE_SCHEMA:
            return cls()
        blobs, trees = data.get("blobs"), data.get("trees")
        cache = cls()
        if isinstance(blobs, dict):
            for name, value in blobs.items():
                if isinstance(value, list) and len(value) == 4 and isinstance(value[3], str):
                    cache.blobs[name] = (value[0], value[1], value[2], value[3])
        if isinstance(trees, dict):
            cache.trees = {k: v for k, v in trees.items() if isinstance(v, str)}
        return cache

    def write(self, path: Path) -> None:
        """Kept for the next publish; a cache that cannot be written is only slower next time."""
        import orjson

        from ptotui.model import private

        data = {"schema": CACHE_SCHEMA, "blobs": self.blobs, "trees": self.trees}
        with contextlib.suppress(OSError):
            private.write_atomic(path, orjson.dumps(data))


class Git:
    """Plumbing in one repository, never its work tree or index."""

    def __init__(self, repository: Path) -> None:
        git = git_command()
        if git is None:
            raise PublishError(_("git is not installed"))
        self.git = git
        self.repository = repository
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **_IDENTITY}

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> str:
        # S603: an argument list to the full path of git; refs are made safe by host_ref.
        done = subprocess.run(  # noqa: S603
            [self.git, "-C", str(self.repository), *args],
            input=stdin,
            capture_output=True,
            env=self.env,
            check=False,
        )
        if check and done.returncode != 0:
            said = one_line(clean(done.stderr.decode("utf-8", "replace")), 300) or f"exit {done.returncode}"
            raise GitError(f"git {args[0]}: {said}")
        return done.stdout.decode("utf-8", "replace").strip()

    def hash_files(self, paths: list[Path]) -> list[str]:
        if not paths:
            return []
        listing = "".join(f"{path}\n" for path in paths).encode("utf-8", "surrogateescape")
        out = self.run("hash-object", "-w", "--no-filters", "--stdin-paths", stdin=listing).split()
        if len(out) != len(paths):
            raise GitError(_("git hash-object gave {got} ids for {want} files").format(got=len(out), want=len(paths)))
        return out

    def git_dir(self) -> Path:
        found = Path(self.run("rev-parse", "--git-dir"))
        return found if found.is_absolute() else (self.repository / found).resolve()

    def blobs(self, files: Files, cache: Cache) -> dict[str, str]:
        """Each file's blob id: from the cache when its signature is as then, else hashed."""
        out: dict[str, str] = {}
        todo: list[str] = []
        for name, signature in files.signatures.items():
            known = cache.blobs.get(name)
            if known is not None and known[:3] == signature:
                out[name] = known[3]
            else:
                todo.append(name)
        for name, blob in zip(todo, self.hash_files([files.paths[n] for n in todo]), strict=True):
            out[name] = blob
        cache.blobs = {name: (*files.signatures[name], blob) for name, blob in out.items()}
        return out

    def make_tree(self, blobs: dict[str, str], cache: Cache | None = None) -> str:
        """A tree of ``blobs`` (path -> blob id): one ``git mktree --batch`` process is given each
        directory whose listing is not in ``cache``, deepest first, and answers with its id."""
        cache = cache if cache is not None else Cache()
        files: dict[str, dict[str, str]] = {"": {}}
        subdirs: dict[str, set[str]] = {"": set()}
        for path, blob in blobs.items():
            parent, _sep, name = path.rpartition("/")
            files.setdefault(parent, {})[name] = blob
            while parent:  # each directory is listed under the one above it
                above, _sep, base = parent.rpartition("/")
                files.setdefault(above, {})
                subdirs.setdefault(above, set()).add(base)
                subdirs.setdefault(parent, set())
                parent = above
        ids: dict[str, str] = {}
        used: dict[str, str] = {}
        # S603: an argument list to the full path of git.
        with subprocess.Popen(  # noqa: S603
            [self.git, "-C", str(self.repository), "mktree", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
        ) as mktree:
            stdin, stdout, stderr = mktree.stdin, mktree.stdout, mktree.stderr
            if stdin is None or stdout is None or stderr is None:  # (PIPE makes them: for the type checker)
                raise GitError("git mktree: no pipe")
            for directory in sorted(files, key=lambda d: d.count("/") + (1 if d else 0), reverse=True):
                entries = [(name, f"100644 blob {oid}") for name, oid in files[directory].items()]
                prefix = f"{directory}/" if directory else ""
                entries += [(name, f"040000 tree {ids[prefix + name]}") for name in subdirs.get(directory, ())]
                listing = "".join(f"{kind}\t{name}\n" for name, kind in sorted(entries)) + "\n"
                digest = hashlib.sha256(listing.encode("utf-8", "surrogateescape")).hexdigest()
                if digest in cache.trees:
                    ids[directory] = used[digest] = cache.trees[digest]
                    continue
                stdin.write(listing.encode("utf-8", "surrogateescape"))
                stdin.flush()
                answer = stdout.readline().decode().strip()
                if not re.fullmatch(r"[0-9a-f]{40,64}", answer):
                    stdin.close()
                    error = one_line(clean(stderr.read(2000).decode("utf-8", "replace")), 200)
                    raise GitError(f"git mktree: {error or answer or 'no answer'}")
                ids[directory] = used[digest] = answer
            stdin.close()
        cache.trees = used  # only the listings of this tree: the cache does not grow without end
        return ids[""]

    def ref(self, ref: str) -> str | None:
        found = self.run("rev-parse", "--verify", "-q", f"{ref}^{{commit}}", check=False)
        return found or None


def repository_of(path: Path, given: Path | None) -> Path:
    """The repository to publish into: ``given``, else the one holding ``path``."""
    git = git_command()
    if git is None:
        raise PublishError(_("git is not installed"))
    start = given if given is not None else path
    # S603: an argument list to the full path of git.
    found = subprocess.run(  # noqa: S603
        [git, "-C", str(start), "rev-parse", "--git-dir"], capture_output=True, env={**os.environ, "LC_ALL": "C"}
    )
    if found.returncode != 0:
        where = visible(str(start))
        raise PublishError(_("{path} is not in a git repository; give one with --repo").format(path=where))
    git_dir = Path(found.stdout.decode("utf-8", "surrogateescape").strip())
    return git_dir if git_dir.is_absolute() else (start / git_dir).resolve()


def publish(location: Location, repository: Path, host: str, remote: str | None) -> Published:
    """Commit ``location``'s reports and runs onto ``ptotui/hosts/<host>`` of ``repository``
    (a git directory or a work tree's root) and push that branch to ``remote`` (None: no push).
    Raises PublishError or GitError with one line."""
    ref_name, note = host_ref(host)
    ref = f"refs/heads/{ref_name}"
    remote = remote_argument(remote) if remote is not None else None
    files = collect(location)
    if not files.paths:
        raise PublishError(
            _("{path} holds no reports and no runs to publish").format(path=visible(str(location.bench)))
        )
    git = Git(repository)
    cache_path = git.git_dir() / CACHE_NAME
    cache = Cache.read(cache_path)

    def build(cache: Cache) -> str:
        tree = git.make_tree(git.blobs(files, cache), cache)
        git.run("cat-file", "-e", f"{tree}^{{tree}}")  # every id came from the cache: is it still there?
        return tree

    try:
        tree = build(cache)
    except GitError:  # an id the cache kept is gone (the branch deleted, the objects pruned)
        cache = Cache()
        tree = build(cache)
    names = files.paths
    parent = git.ref(ref)
    notes = (note,) if note else ()
    if parent is not None and git.run("rev-parse", f"{parent}^{{tree}}") == tree:
        cache.write(cache_path)
        pushed, error = _push(git, remote, ref)
        return Published(ref_name, None, len(names), files.runs, pushed, tuple(files.warnings), notes, error)
    message = f"ptotui publish: {host_ref(host)[0][len(BRANCH_PREFIX) :]}, {files.runs} runs, {len(names)} files\n"
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    commit = git.run(*args, stdin=message.encode())
    git.run("update-ref", ref, commit, parent or "0" * 40)  # only if nobody moved it meanwhile
    cache.write(cache_path)
    pushed, error = _push(git, remote, ref)
    return Published(ref_name, commit, len(names), files.runs, pushed, tuple(files.warnings), notes, error)


def remote_argument(remote: str) -> str:
    """A remote as git is to be given it: a local path made absolute (git runs in the repository,
    not where the user typed it), a remote's name or URL as it is."""
    if remote.startswith("-"):
        raise PublishError(_("--remote {remote}: not a remote").format(remote=visible(remote)))
    return str(Path(remote).resolve()) if os.path.exists(remote) else remote


def _push(git: Git, remote: str | None, ref: str) -> tuple[bool, str | None]:
    """Push the host's branch, only it; (pushed, why not)."""
    if remote is None:
        return False, None
    try:
        git.run("push", "-q", "--", remote, f"{ref}:{ref}")
    except GitError as exc:
        return False, str(exc)
    return True, None
