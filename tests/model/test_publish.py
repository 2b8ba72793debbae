"""``ptotui publish``: a host's reports and runs onto ptotui/hosts/<host> with git plumbing only.

Invented trees in the runner's format (tests/model/test_verdict.py builds them); git repositories made in
temporary directories; the remote is a bare repository on this disk.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from ptotui.model import publish as publish_module
from ptotui.model.location import locate
from ptotui.model.publish import CACHE_NAME, host_ref, publish
from tests.model.test_verdict import FAMILY, LANDED, STEADY, WOBBLE, build_tree, land

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_SYSTEM": "/dev/null", "HOME": str(repo)}
    env["PATH"] = os.environ.get("PATH", "/usr/bin:/bin")
    done = subprocess.run(
        ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.invalid", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return done.stdout.strip()


def checkout(tmp_path: Path) -> Path:
    """A checkout whose bench/ is committed, with a staged change and an untracked file besides."""
    root = tmp_path / "checkout"
    bench = build_tree(root)
    stage = bench / "results" / FAMILY / STEADY / "20201101T070000Z" / "stage1"
    stage.mkdir()
    (stage / "kernel.pto").write_text("func @k() { }\n")
    (stage / "kernel.cpp").write_text("// generated\n")
    (stage / "kernel.so").write_bytes(b"\x7fELF binary")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "bench")
    (root / "notes.txt").write_text("staged\n")
    git(root, "add", "notes.txt")
    (root / "scratch.txt").write_text("untracked\n")
    return root


def state(root: Path) -> tuple[str, str, str, str]:
    return (
        git(root, "rev-parse", "HEAD"),
        git(root, "symbolic-ref", "HEAD"),
        git(root, "status", "--porcelain=v1", "--untracked-files=all"),
        git(root, "diff", "--cached", "--stat"),
    )


def test_publish_commits_reports_and_runs_without_touching_the_checkout(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    before = state(root)
    done = publish(locate(root / "bench"), root, "bench-a", None)
    assert state(root) == before  # HEAD, the branch, the work tree and the index as they were
    assert done.ref == "ptotui/hosts/bench-a" and done.commit is not None and done.runs == 10
    files = git(root, "ls-tree", "-r", "--name-only", done.ref).splitlines()
    assert "bench/reports/regression_latest.json" in files
    assert f"bench/results/{FAMILY}/{STEADY}/{LANDED[:0]}20201101T070000Z/stage1/kernel.pto" in files
    assert f"bench/results/{FAMILY}/{STEADY}/20201101T070000Z/stage1/kernel.cpp" in files
    assert not [f for f in files if f.endswith(".so")]
    assert not [f for f in files if f.startswith(("notes", "scratch"))]
    shown = git(root, "show", f"{done.ref}:bench/results/{FAMILY}/{STEADY}/20201101T070000Z/report.json")
    assert (root / "bench" / "results" / FAMILY / STEADY / "20201101T070000Z" / "report.json").read_text() == shown


def test_a_publish_with_nothing_new_writes_nothing_and_a_new_run_is_a_child(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    first = publish(locate(root / "bench"), root, "h", None)
    again = publish(locate(root / "bench"), root, "h", None)
    assert again.commit is None and git(root, "rev-parse", "refs/heads/ptotui/hosts/h") == first.commit
    land(root / "bench", WOBBLE[-1] * 1.2)
    third = publish(locate(root / "bench"), root, "h", None)
    assert third.commit is not None and third.runs == first.runs + 1
    assert git(root, "rev-parse", f"{third.commit}^") == first.commit
    changed = git(root, "diff", "--name-only", str(first.commit), str(third.commit)).splitlines()
    assert f"bench/results/{FAMILY}/{STEADY}/{LANDED}/report.json" in changed


def test_hosts_push_their_own_branches_to_one_remote(tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    host_a = checkout(tmp_path / "a")
    host_b = build_tree(tmp_path / "b" / "plain")  # a plain directory, published into a repository of its own
    repo_b = tmp_path / "b" / "repo"
    git(tmp_path, "init", "-q", str(repo_b))
    a = publish(locate(host_a / "bench"), host_a, "host-a", str(remote))
    b = publish(locate(host_b), repo_b, "host-b", str(remote))
    assert a.pushed and b.pushed and a.push_error is None
    branches = git(remote, "for-each-ref", "--format=%(refname)", "refs/heads/").splitlines()
    assert branches == ["refs/heads/ptotui/hosts/host-a", "refs/heads/ptotui/hosts/host-b"]
    assert git(remote, "rev-parse", "refs/heads/ptotui/hosts/host-a") == a.commit


def test_a_host_name_that_is_no_branch_name_is_made_one_and_said() -> None:
    assert host_ref("bench-a") == ("ptotui/hosts/bench-a", None)
    ref, note = host_ref("bench a/../910b\x1b[31m.lock")
    assert ref.startswith("ptotui/hosts/") and ".." not in ref and "\x1b" not in ref and not ref.endswith(".lock")
    assert note is not None and "\\x1b" in note  # the name as typed, its control character escaped
    assert subprocess.run(["git", "check-ref-format", f"refs/heads/{ref}"], check=False).returncode == 0


def test_symlinks_fifos_and_huge_files_are_not_published(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    run = root / "bench" / "results" / FAMILY / STEADY / "20201101T070000Z"
    secret = tmp_path / "secret.pto"
    secret.write_text("not the run's")
    (run / "linked.pto").symlink_to(secret)
    os.mkfifo(run / "pipe.cpp")
    (root / "bench" / "reports" / "loop").symlink_to(root / "bench" / "reports" / "loop")
    done = publish(locate(root / "bench"), root, "h", None)
    files = git(root, "ls-tree", "-r", "--name-only", done.ref).splitlines()
    assert not [f for f in files if f.endswith(("linked.pto", "pipe.cpp", "/loop"))]
    said = " ".join(str(w) for w in done.warnings)
    assert "pipe.cpp" in said and "linked.pto" in said


def test_a_cache_whose_objects_are_gone_is_not_trusted(tmp_path: Path) -> None:
    root = checkout(tmp_path)
    first = publish(locate(root / "bench"), root, "h", None)
    tree = git(root, "rev-parse", f"{first.commit}^{{tree}}")
    git(root, "update-ref", "-d", "refs/heads/ptotui/hosts/h")
    git(root, "reflog", "expire", "--expire=now", "--all")
    git(root, "gc", "-q", "--prune=now")
    again = publish(locate(root / "bench"), root, "h", None)
    assert again.commit is not None
    assert git(root, "rev-parse", f"{again.commit}^{{tree}}") == tree  # the same content, written again
    git(root, "fsck", "--no-dangling")


def scratch_tree(bench: Path, tmp_path: Path) -> str:
    """The tree a first publish of ``bench`` makes, in a repository of its own (no cache)."""
    repo = tmp_path / f"scratch-{len(list(tmp_path.glob('scratch-*')))}.git"
    git(tmp_path, "init", "-q", "--bare", str(repo))
    done = publish(locate(bench), repo, "h", None)
    return git(repo, "rev-parse", f"{done.ref}^{{tree}}")


def published_tree(root: Path) -> str:
    done = publish(locate(root / "bench"), root, "h", None)
    return git(root, "rev-parse", f"refs/heads/{done.ref}^{{tree}}")


def test_a_publish_that_keeps_old_runs_whole_makes_the_tree_a_first_publish_makes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish_module, "RUN_SETTLE_NS", 0)  # every run kept whole at once
    root = checkout(tmp_path)
    bench = root / "bench"
    runs = bench / "results" / FAMILY / STEADY
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    cache = orjson.loads((root / ".git" / CACHE_NAME).read_bytes())
    assert len(cache["runs"][f"bench/results/{FAMILY}/{STEADY}"]) == len(WOBBLE)  # kept whole, by run
    assert f"bench/results/{FAMILY}/{STEADY}" in cache["kernels"]
    assert not [name for name in cache["blobs"] if name.startswith("bench/results/")]  # not by file

    land(bench, WOBBLE[-1] * 1.2)  # a run added
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    shutil.rmtree(runs / "20201101T010000Z")  # a run removed
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    shutil.rmtree(runs / LANDED)  # the kernel's runs as they were before the run was added
    assert published_tree(root) == scratch_tree(bench, tmp_path)

    report = runs / "20201101T020000Z" / "report.json"  # written again in place, longer
    with report.open("a") as handle:
        handle.write("\n")
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    data = report.read_bytes()  # and the same length, only its time moved
    report.write_bytes(data.replace(b"1", b"2", 1))
    os.utime(report, ns=(report.stat().st_atime_ns, report.stat().st_mtime_ns + 10**9))
    assert published_tree(root) == scratch_tree(bench, tmp_path)

    torn = runs / "20201101T030000Z" / "report.json"  # torn while it was published, whole later
    whole = torn.read_bytes()
    torn.write_bytes(whole[: len(whole) // 2])
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    torn.write_bytes(whole)
    assert published_tree(root) == scratch_tree(bench, tmp_path)

    gone = runs / "20201101T040000Z" / "report.json"  # no regular file: the run is not published
    before = publish(locate(bench), root, "h", None).runs
    gone.rename(gone.with_name("report.bak"))
    os.mkfifo(gone)
    done = publish(locate(bench), root, "h", None)
    assert done.runs == before - 1 and "report.json" in " ".join(str(w) for w in done.warnings)
    assert git(root, "rev-parse", f"{done.ref}^{{tree}}") == scratch_tree(bench, tmp_path)
    again = publish(locate(bench), root, "h", None)  # a run that warned is walked (and warns) again
    assert again.commit is None and [str(w) for w in again.warnings] == [str(w) for w in done.warnings]
    gone.unlink()
    gone.with_name("report.bak").rename(gone)
    assert published_tree(root) == scratch_tree(bench, tmp_path)
    assert publish(locate(bench), root, "h", None).files == publish(locate(bench), root, "h", None, full=True).files


def test_a_file_of_an_old_run_written_again_in_place_goes_with_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What keeping a run whole misses: its report.json and its directory are as they were."""
    monkeypatch.setattr(publish_module, "RUN_SETTLE_NS", 0)
    root = checkout(tmp_path)
    first = publish(locate(root / "bench"), root, "h", None)
    source = root / "bench" / "results" / FAMILY / STEADY / "20201101T070000Z" / "stage1" / "kernel.pto"
    source.write_text("func @k() { return }\n")
    assert publish(locate(root / "bench"), root, "h", None).commit is None  # missed
    full = publish(locate(root / "bench"), root, "h", None, full=True)
    assert full.commit is not None and full.files == first.files
    assert git(root, "show", f"{full.ref}:{source.relative_to(root)}") == source.read_text().strip()
    assert git(root, "rev-parse", f"{full.ref}^{{tree}}") == scratch_tree(root / "bench", tmp_path)


def test_a_run_just_written_is_walked_again_until_it_was_left_a_while(tmp_path: Path) -> None:
    root = checkout(tmp_path)  # every run written a moment ago
    publish(locate(root / "bench"), root, "h", None)
    cache = orjson.loads((root / ".git" / CACHE_NAME).read_bytes())
    assert cache["runs"] == {} and cache["kernels"] == {}
    source = root / "bench" / "results" / FAMILY / STEADY / "20201101T070000Z" / "stage1" / "kernel.pto"
    source.write_text("func @k() { return }\n")  # a file of a run still being written
    done = publish(locate(root / "bench"), root, "h", None)
    assert done.commit is not None
    assert git(root, "show", f"{done.ref}:{source.relative_to(root)}") == source.read_text().strip()


def test_a_kept_run_whose_tree_is_gone_is_published_again_from_its_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(publish_module, "RUN_SETTLE_NS", 0)
    root = checkout(tmp_path)
    publish(locate(root / "bench"), root, "h", None)
    path = root / ".git" / CACHE_NAME
    cache = orjson.loads(path.read_bytes())
    kernel = f"bench/results/{FAMILY}/{STEADY}"
    del cache["kernels"][kernel]  # the kernel's listing made again, from its runs' trees
    for entry in cache["runs"][kernel].values():
        entry[5] = "1" * 40  # no such tree
    path.write_bytes(orjson.dumps(cache))
    land(root / "bench", WOBBLE[-1] * 1.2)
    assert published_tree(root) == scratch_tree(root / "bench", tmp_path)
