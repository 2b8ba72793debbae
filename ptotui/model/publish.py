"""A bench host's reports and runs published to a git branch of its own, with git plumbing.

``ptotui publish`` commits what the fleet needs of a bench tree onto ``ptotui/hosts/<host>``:
``bench/reports/*`` and, for each run under ``bench/results/``, its ``report.json``, the
benchmark JSONs and the generated sources (``*.pto``, ``*.cpp``; never ``*.so``). The commit is
made from blobs and trees written straight into the object store (``hash-object``, ``mktree``,
``commit-tree``, ``update-ref``): the work tree, the index and the current branch are never
touched, so the tree may be any directory, in a checkout or not. Each publish is a child of the
last; when nothing changed, nothing is written. Every host pushes its own branch only, so
publishes from many hosts never conflict. A run published before whose directory and report.json
are as then is taken as the tree it was, not walked (``collect``; ``full`` walks every run).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import stat
import subprocess
import time
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


RUN_SETTLE_NS = 60 * 10**9  # a run is kept whole once it and its report.json were left this long


@dataclass
class Files:
    """What a tree offers to publish: path in the commit -> file on disk and its signature
    (inode, size, mtime): a file whose signature is as last time is not hashed again.

    A run the last publish kept whole (the cache's ``runs``) whose signature is as then is not
    walked: ``kept`` holds its cache entry, by its kernel directory and name; a kernel directory
    whose runs are all so, the same runs as then, is in ``kernels`` with its tree as then. Each
    run walked that may be kept whole next time is in ``walked``: its cache entry but the tree."""

    paths: dict[str, str] = field(default_factory=dict)
    signatures: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    warnings: list[ReadWarning] = field(default_factory=list)
    runs: int = 0
    kept: dict[str, dict[str, list[object]]] = field(default_factory=dict)
    kept_files: int = 0
    kernels: dict[str, str] = field(default_factory=dict)
    walked: dict[str, list[object]] = field(default_factory=dict)
    unkept: set[str] = field(default_factory=set)  # kernel directories with a run not kept next time

    @property
    def count(self) -> int:
        """How many files the commit holds."""
        return len(self.paths) + self.kept_files

    def subtrees(self) -> dict[str, str]:
        """The trees taken as they were, by path: whole kernel directories, and the runs kept in
        the others."""
        out = dict(self.kernels)
        for kernel, runs in self.kept.items():
            if kernel not in self.kernels:
                out.update((f"{kernel}/{name}", str(entry[5])) for name, entry in runs.items())
        return out


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


def _entries(directory: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(directory) as found:
            return sorted(found, key=lambda e: e.name)
    except OSError:
        return []


def _run_files(run: str, inside: str, depth: int = 0) -> Iterator[tuple[str, os.DirEntry[str]]]:
    for entry in _entries(run):
        if not _plain_name(entry.name):
            continue
        if entry.is_dir(follow_symlinks=False):
            if depth < MAX_DEPTH:
                yield from _run_files(entry.path, f"{inside}/{entry.name}", depth + 1)
        elif RUN_FILES.match(entry.name):
            yield f"{inside}/{entry.name}", entry


def _add(files: Files, name: str, entry: os.DirEntry[str], signature: tuple[int, int, int]) -> None:
    files.paths[name] = entry.path
    files.signatures[name] = signature


def _walk_run(files: Files, run: str, inside: str) -> int:
    """Add the files of the run directory ``run`` if it has a report.json; how many."""
    found = [(name, e, sig) for name, e in _run_files(run, inside) if (sig := _regular(e, files))]
    if not any(name.endswith("/report.json") for name, _entry, _sig in found):
        return 0
    files.runs += 1
    for name, entry, signature in found:
        _add(files, name, entry, signature)
    return len(found)


def _kernel_runs(
    files: Files, kernel: str, inside: str, known: dict[str, object], kernel_tree: object, settled: int
) -> None:
    """The runs of one kernel directory: each kept as the cache has it (``known``: run name ->
    ``[dir ino, dir mtime, report ino, report size, report mtime, tree, files]``) when its
    directory and its report.json are as then (two stats, relative to the kernel directory: no
    path looked up again from /), else walked. When every run is kept and they are the runs of
    last time, the kernel directory's tree is as then (``kernel_tree``)."""
    try:
        fd = os.open(kernel, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return
    kept: dict[str, list[object]] = {}
    kept_files = walked = 0
    lstat, is_stamp, is_dir, is_file = os.lstat, STAMP.match, stat.S_ISDIR, stat.S_ISREG  # (a hot loop)
    try:
        names = sorted(os.listdir(fd))
    except OSError:
        names = []
    try:
        for name in names:
            if not is_stamp(name):
                continue
            try:
                own = lstat(name, dir_fd=fd)
            except OSError:
                continue
            if not is_dir(own.st_mode):
                continue
            try:  # before the walk: a change made meanwhile is seen next time
                report: os.stat_result | None = lstat(f"{name}/report.json", dir_fd=fd)
            except OSError:
                report = None
            signature: list[object] | None = None
            if report is not None and is_file(report.st_mode) and report.st_size <= MAX_FILE_BYTES:
                signature = [own.st_ino, own.st_mtime_ns, report.st_ino, report.st_size, report.st_mtime_ns]
                entry = known.get(name)
                if type(entry) is list and len(entry) == 7 and entry[:5] == signature:
                    count = entry[6]
                    if type(entry[5]) is str and type(count) is int and count > 0:
                        kept[name] = entry
                        kept_files += count
                        continue
            warned = len(files.warnings)
            count = _walk_run(files, f"{kernel}/{name}", f"{inside}/{name}")
            if not count:
                continue
            walked += 1
            # Kept whole next time only when it said nothing and was left a while: a run still
            # being written, or written again within the clock's tick, is walked again.
            if report is None or signature is None or len(files.warnings) != warned:
                files.unkept.add(inside)
            elif max(own.st_mtime_ns, report.st_mtime_ns) >= settled:
                files.unkept.add(inside)
            else:
                files.walked[f"{inside}/{name}"] = [*signature, count]
    finally:
        os.close(fd)
    if kept:
        files.kept[inside] = kept
        files.kept_files += kept_files
        files.runs += len(kept)
        if not walked and len(kept) == len(known) and isinstance(kernel_tree, str):
            files.kernels[inside] = kernel_tree  # the same runs, each as it was: the same tree


def collect(location: Location, cache: Cache | None = None) -> Files:
    """The files of ``location``'s bench tree to publish, by their path in the commit
    (``bench/reports/…``, ``bench/results/<family>/<kernel>/<stamp>/…``).

    ``cache``: the runs the last publish kept whole, by kernel directory then run name, and the
    trees of those kernel directories. A run whose directory and report.json are as then is taken
    as it was, not walked: the runner writes a run, its report.json last, then leaves it. What that
    misses (a file of an old run other than its report.json written again in place, a file added
    to or removed from one of its sub-directories) goes with ``ptotui publish --full``."""
    files = Files()
    known, trees = (cache.runs, cache.kernels) if cache is not None else ({}, {})
    for entry in _entries(str(location.reports)):
        if _plain_name(entry.name) and not entry.is_dir(follow_symlinks=False):
            signature = _regular(entry, files)
            if signature is not None:
                _add(files, f"bench/reports/{entry.name}", entry, signature)
    settled = time.time_ns() - RUN_SETTLE_NS
    for family in _entries(str(location.bench / "results")):
        if not (family.is_dir(follow_symlinks=False) and _plain_name(family.name)):
            continue
        for kernel in _entries(family.path):
            if kernel.is_dir(follow_symlinks=False) and _plain_name(kernel.name):
                inside = f"bench/results/{family.name}/{kernel.name}"
                runs = known.get(inside)
                runs = runs if isinstance(runs, dict) else {}
                _kernel_runs(files, kernel.path, inside, runs, trees.get(inside), settled)
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
CACHE_SCHEMA = "ptotui.publish-cache/2"  # another schema: the cache is dropped, everything walked again
CACHE_MAX_BYTES = 256 * 1024 * 1024  # ~130 bytes a run: 60,000 runs are 8 MB


@dataclass
class Cache:
    """The ids of what the last publishes wrote: each run kept whole, by its kernel directory and
    name, as ``[dir ino, dir mtime, report ino, report size, report mtime, tree, files]``, and the
    tree of each kernel directory whose runs are all kept so; each file walked (reports, runs new
    or changed) by its path and signature; each directory's tree made by its listing. Valid only
    while the objects exist: the host branch keeps them reachable; a stale id makes ``mktree`` or
    the check of the root fail, and the publish is made again without the cache. Keeps the publish
    of one new run into 60,000 under a second (benchmarks/bench_publish.py)."""

    blobs: dict[str, tuple[int, int, int, str]] = field(default_factory=dict)
    trees: dict[str, str] = field(default_factory=dict)
    runs: dict[str, dict[str, object]] = field(default_factory=dict)  # checked as used (collect)
    kernels: dict[str, str] = field(default_factory=dict)

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
        blobs, trees, runs, kernels = data.get("blobs"), data.get("trees"), data.get("runs"), data.get("kernels")
        cache = cls()
        if isinstance(blobs, dict):
            for name, value in blobs.items():
                if isinstance(value, list) and len(value) == 4 and isinstance(value[3], str):
                    cache.blobs[name] = (value[0], value[1], value[2], value[3])
        if isinstance(trees, dict):
            cache.trees = {k: v for k, v in trees.items() if isinstance(v, str)}
        if isinstance(runs, dict):
            cache.runs = {k: v for k, v in runs.items() if isinstance(v, dict)}
        if isinstance(kernels, dict):
            cache.kernels = {k: v for k, v in kernels.items() if isinstance(v, str)}
        return cache

    def keep_runs(self, files: Files, ids: dict[str, str]) -> None:
        """The runs to keep whole for the next publish: those kept this time, and those walked
        that may be (``files.walked``) with the trees just made for them (``ids``); the tree of
        each kernel directory all of whose runs are among them."""
        runs: dict[str, dict[str, object]] = {kernel: dict(kept) for kernel, kept in files.kept.items()}
        for name, entry in files.walked.items():
            if name in ids:
                kernel, _sep, run = name.rpartition("/")
                runs.setdefault(kernel, {})[run] = [*entry[:5], ids[name], entry[5]]
        self.runs = runs
        # What is kept of a run kept whole is its entry: not its files' blobs, nor its listing.
        whole = {name for name in files.walked if name in ids}
        if whole:
            blobs = self.blobs.items()
            self.blobs = {name: blob for name, blob in blobs if "/".join(name.split("/", 5)[:5]) not in whole}
            made = {ids[name] for name in whole}
            self.trees = {digest: tree for digest, tree in self.trees.items() if tree not in made}
        kernels = {kernel: files.kernels.get(kernel) or ids.get(kernel) for kernel in runs}
        self.kernels = {kernel: tree for kernel, tree in kernels.items() if tree and kernel not in files.unkept}

    def write(self, path: Path) -> None:
        """Kept for the next publish; a cache that cannot be written is only slower next time."""
        import orjson

        from ptotui.model import private

        data = {
            "schema": CACHE_SCHEMA,
            "kernels": self.kernels,
            "runs": self.runs,
            "blobs": self.blobs,
            "trees": self.trees,
        }
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

    def hash_files(self, paths: list[str]) -> list[str]:
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

    def make_trees(
        self, blobs: dict[str, str], cache: Cache | None = None, subtrees: dict[str, str] | None = None
    ) -> dict[str, str]:
        """The tree of ``blobs`` (path -> blob id) and ``subtrees`` (path of a directory -> its tree
        id, taken as it is): the id of each directory made, by its path (the root: ``""``). One
        ``git mktree --batch`` process is given each directory whose listing is not in ``cache``,
        deepest first, and answers with its id."""
        cache = cache if cache is not None else Cache()
        listed: dict[str, dict[str, str]] = {"": {}}  # directory -> name -> "<mode> <type> <id>"
        subdirs: dict[str, list[str]] = {"": []}  # directory -> the directories made under it

        def listing_of(directory: str) -> dict[str, str]:
            found = listed.get(directory)
            if found is None:  # a directory seen first: listed under the one above it, and so on up
                found = listed[directory] = {}
                subdirs[directory] = []
                child = directory
                while child:
                    above, _sep, base = child.rpartition("/")
                    subdirs.setdefault(above, []).append(base)
                    if above in listed:
                        break
                    listed[above] = {}
                    child = above
            return found

        for path, blob in blobs.items():
            parent, _sep, name = path.rpartition("/")
            listing_of(parent)[name] = f"100644 blob {blob}"
        for path, tree in (subtrees or {}).items():
            parent, _sep, name = path.rpartition("/")
            listing_of(parent)[name] = f"040000 tree {tree}"
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
            for directory in sorted(listed, key=lambda d: d.count("/") + (1 if d else 0), reverse=True):
                entries = listed[directory]
                prefix = f"{directory}/" if directory else ""
                for name in subdirs[directory]:
                    entries[name] = f"040000 tree {ids[prefix + name]}"
                listing = "".join([f"{entries[name]}\t{name}\n" for name in sorted(entries)]) + "\n"
                encoded = listing.encode("utf-8", "surrogateescape")
                digest = hashlib.sha256(encoded).hexdigest()
                if digest in cache.trees:
                    ids[directory] = used[digest] = cache.trees[digest]
                    continue
                stdin.write(encoded)
                stdin.flush()
                answer = stdout.readline().decode().strip()
                if not re.fullmatch(r"[0-9a-f]{40,64}", answer):
                    stdin.close()
                    error = one_line(clean(stderr.read(2000).decode("utf-8", "replace")), 200)
                    raise GitError(f"git mktree: {error or answer or 'no answer'}")
                ids[directory] = used[digest] = answer
            stdin.close()
        cache.trees = used  # only the listings of this tree: the cache does not grow without end
        return ids

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


def publish(location: Location, repository: Path, host: str, remote: str | None, full: bool = False) -> Published:
    """Commit ``location``'s reports and runs onto ``ptotui/hosts/<host>`` of ``repository``
    (a git directory or a work tree's root) and push that branch to ``remote`` (None: no push).
    ``full``: every run walked and every file hashed again, whatever the last publish kept.
    Raises PublishError or GitError with one line."""
    ref_name, note = host_ref(host)
    ref = f"refs/heads/{ref_name}"
    remote = remote_argument(remote) if remote is not None else None
    git = Git(repository)
    cache_path = git.git_dir() / CACHE_NAME
    cache = Cache() if full else Cache.read(cache_path)
    files = collect(location, cache)
    if not files.paths and not files.kept:
        raise PublishError(
            _("{path} holds no reports and no runs to publish").format(path=visible(str(location.bench)))
        )

    def build(files: Files, cache: Cache) -> str:
        ids = git.make_trees(git.blobs(files, cache), cache, files.subtrees())
        git.run("cat-file", "-e", f"{ids['']}^{{tree}}")  # every id came from the cache: is it still there?
        cache.keep_runs(files, ids)
        return ids[""]

    try:
        tree = build(files, cache)
    except GitError:  # an id the cache kept is gone (the branch deleted, the objects pruned)
        cache = Cache()
        files = collect(location)
        tree = build(files, cache)
    count = files.count
    parent = git.ref(ref)
    notes = (note,) if note else ()
    if parent is not None and git.run("rev-parse", f"{parent}^{{tree}}") == tree:
        cache.write(cache_path)
        pushed, error = _push(git, remote, ref)
        return Published(ref_name, None, count, files.runs, pushed, tuple(files.warnings), notes, error)
    message = f"ptotui publish: {host_ref(host)[0][len(BRANCH_PREFIX) :]}, {files.runs} runs, {count} files\n"
    args = ["commit-tree", tree, *(["-p", parent] if parent else []), "-F", "-"]
    commit = git.run(*args, stdin=message.encode())
    git.run("update-ref", ref, commit, parent or "0" * 40)  # only if nobody moved it meanwhile
    cache.write(cache_path)
    pushed, error = _push(git, remote, ref)
    return Published(ref_name, commit, count, files.runs, pushed, tuple(files.warnings), notes, error)


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
