"""``ptotui fleet``: every host's published branch judged by the one verdict, side by side.

Invented trees in the runner's format (tests/model/test_verdict.py builds them), published with
``ptotui.model.publish.publish`` into a bare repository in tmp_path; the fleet reads a clone of it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ptotui.cli import main
from ptotui.model.fleet import _key, read_fleet
from ptotui.model.location import locate
from ptotui.model.publish import publish
from ptotui.model.verdict import judge
from tests.model.test_publish import git
from tests.model.test_verdict import FAMILY, STEADY, WOBBLE, _set_device, build_tree, land

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HOSTS = ("host-a", "host-b", "host-c")


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hosts' trees are written under the state directory: a temporary one."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "ptotui" / "fleet"


class Team:
    """Three bench hosts publishing to one bare remote, and a viewer's clone of it."""

    def __init__(self, root: Path, toolkit_c: str | None = None) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.remote = root / "remote.git"
        git(root, "init", "-q", "--bare", str(self.remote))
        self.benches: dict[str, Path] = {}
        self.repos: dict[str, Path] = {}
        for host in HOSTS:
            bench = build_tree(root / host)
            if host == "host-c" and toolkit_c is not None:
                for report in (bench / "results").glob("*/*/*/report.json"):
                    _set_device(report, toolkit_c)
            self.benches[host] = bench
            self.repos[host] = root / f"{host}.git"
            git(root, "init", "-q", "--bare", str(self.repos[host]))
            self.publish(host)
        self.clone = root / "clone"
        git(root, "clone", "-q", str(self.remote), str(self.clone))

    def publish(self, host: str) -> None:
        done = publish(locate(self.benches[host]), self.repos[host], host, str(self.remote))
        assert done.pushed, done.push_error

    def git_files(self, host: str) -> list[str]:
        """The files under bench/ of the host's branch on the remote, relative to bench/."""
        listed = git(self.remote, "ls-tree", "-r", "--name-only", f"refs/heads/ptotui/hosts/{host}", "--", "bench/")
        return sorted(line[len("bench/") :] for line in listed.splitlines())


def fleet_json(clone: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["fleet", str(clone), "--remote", "origin", "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def table(clone: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    code = main(["fleet", str(clone), "--remote", "origin", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def row(out: str, kernel: str) -> list[str]:
    [line] = [line for line in out.splitlines() if f" {kernel} " in line]
    return [cell.strip() for cell in line.replace("┃", "│").split("│")[1:-1]]


def test_each_host_is_its_tree_judged_by_the_one_verdict(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team = Team(tmp_path)
    land(team.benches["host-b"], WOBBLE[-1] * 1.2)  # host-b's tree differs from the others
    team.publish("host-b")
    data = fleet_json(team.clone, "--fetch", capsys=capsys)
    assert data["schema"] == "ptotui.fleet/1"
    assert [h["name"] for h in data["hosts"]] == list(HOSTS)
    for host in data["hosts"]:
        verdict = judge(locate(team.benches[host["name"]]), git=False)
        assert verdict.since is not None
        assert host["reference"] == {"kind": "snapshot", "stamp": verdict.since.stamp}
        assert host["regressed_kernels"] == verdict.since.regressed
        assert host["ref"] == f"refs/remotes/origin/ptotui/hosts/{host['name']}"
        assert host["commit"] == git(team.remote, "rev-parse", f"refs/heads/ptotui/hosts/{host['name']}")
        assert host["warnings"] == []
        for kernel in verdict.reports.kernels:
            [entry] = [k for k in data["kernels"] if k["name"] == kernel.name]
            cell = entry["hosts"][host["name"]]
            assert cell["tier"] == kernel.tier and cell["ratio_median_pct"] == kernel.ratio_median_pct
            assert cell["pto_ms"] == kernel.pto_ms and cell["pto_status"] == kernel.pto_status
            assert cell["regressed"] == (kernel.name in verdict.since.regressed)
    kernels = judge(locate(team.benches["host-a"])).reports.kernels
    assert {k["name"] for k in data["kernels"]} == {k.name for k in kernels}


def test_a_run_landed_and_published_on_one_host_is_marked_on_its_column_only(
    tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = Team(tmp_path)
    out, _err = table(team.clone, capsys=capsys)
    assert "▼" not in "".join(row(out, STEADY))
    written = {path.name: path.stat().st_ino for path in next(state.iterdir()).iterdir()}
    assert len(written) == 3
    land(team.benches["host-b"], WOBBLE[-1] * 1.2)
    team.publish("host-b")
    out, _err = table(team.clone, capsys=capsys)  # not fetched yet: as before
    assert "▼" not in "".join(row(out, STEADY))
    out, _err = table(team.clone, "--fetch", capsys=capsys)
    header = row(out, "Kernel")
    cells = dict(zip(header, row(out, STEADY), strict=True))
    assert cells["host-b"].startswith("▼ MID") and "▼" not in cells["host-a"] + cells["host-c"]
    assert "1 regression" in [line for line in out.splitlines() if "host-b" in line][0]
    # Only host-b's tree is written again; its old one is gone.
    now = {path.name: path.stat().st_ino for path in next(state.iterdir()).iterdir()}
    assert len(now) == 3
    assert {n: i for n, i in now.items() if not n.startswith("host-b")} == {
        n: i for n, i in written.items() if not n.startswith("host-b")
    }
    assert [n for n in now if n.startswith("host-b")] != [n for n in written if n.startswith("host-b")]


def test_the_fleet_writes_of_a_run_only_what_it_judges(
    tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run's sources and benchmark JSONs are published (a code diff for people) but no verdict
    reads them: the fleet writes its report.json only. A tree an older release wrote whole is
    not taken over but removed."""
    team = Team(tmp_path)
    fleet_json(team.clone, capsys=capsys)
    [directory] = state.iterdir()  # the repository's
    # host-a's tree as a release before LAYOUT 2 named and wrote it: every file of its runs
    old = directory / f"{_key('host-a')}-{git(team.remote, 'rev-parse', 'refs/heads/ptotui/hosts/host-a')}"
    (old / "bench" / "results").mkdir(parents=True)
    (old / "bench" / "results" / "kernel.pto").write_text("// from an older release\n")
    run = sorted((team.benches["host-a"] / "results").glob("*/*/*/report.json"))[-1].parent
    (run / "q16_k16" / "stage1").mkdir(parents=True)
    (run / "q16_k16" / "stage1" / "kernel.pto").write_text("// pto\n")
    (run / "kernel.cpp").write_text("// cpp\n")
    (run / "pto_benchmark.json").write_text('{"median_ms": 1.0}')
    team.publish("host-a")
    published = team.git_files("host-a")
    assert {"kernel.cpp", "kernel.pto", "pto_benchmark.json"} <= {name.rsplit("/", 1)[-1] for name in published}
    data = fleet_json(team.clone, "--fetch", capsys=capsys)
    assert [h["warnings"] for h in data["hosts"]] == [[], [], []]
    written = [p.relative_to(state) for p in state.rglob("*") if p.is_file()]
    assert not [p for p in written if p.suffix in (".pto", ".cpp") or p.name.endswith("_benchmark.json")]
    assert not old.exists()
    trees = [p for p in directory.iterdir() if p.name.startswith("host-a")]
    assert len(trees) == 1
    in_tree = {str(p.relative_to(trees[0])) for p in trees[0].rglob("*") if p.is_file()}
    assert {f"bench/{name}" for name in published if name.endswith("report.json")} <= in_tree


def test_a_host_of_another_toolkit_is_another_environment(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team = Team(tmp_path, toolkit_c="9.0.0")
    for host in ("host-a", "host-b"):
        for report in (team.benches[host] / "results").glob("*/*/*/report.json"):
            _set_device(report, "8.5.0")
        team.publish(host)
    out, _err = table(team.clone, "--fetch", capsys=capsys)
    lines = out.splitlines()
    assert "3 bench hosts in 2 environments" in lines[0]
    [c_line] = [line for line in lines if line.startswith("  host-c")]
    assert "≠env" in c_line and "toolkit 9.0.0" in c_line
    assert all("≠env" not in line for line in lines if line.startswith(("  host-a", "  host-b")))
    assert row(out, "Kernel")[-1] == "host-c ≠env"
    data = fleet_json(team.clone, capsys=capsys)
    assert [h["environment"].get("toolkit") for h in data["hosts"]] == ["8.5.0", "8.5.0", "9.0.0"]


def test_hosts_that_disagree_on_a_status_are_marked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    team = Team(tmp_path)
    report = team.benches["host-a"] / "reports" / "regression_latest.json"
    data = json.loads(report.read_text())
    for kernel in data["kernels"]:
        if kernel["name"] == STEADY:
            for variant in kernel["variants"]:
                variant["pto_status"] = "blocked"
                variant["pto_median_ms"] = None
            kernel["pto_status"] = "blocked"
    report.write_text(json.dumps(data))
    team.publish("host-a")
    fleet = read_fleet(team.clone, "origin", fetch_first=True)
    [steady] = [r for r in fleet.rows if r.name == STEADY]
    assert steady.disagree and steady.cells["host-a"].pto_status == "blocked"
    assert not [r for r in fleet.rows if r.name != STEADY and r.disagree]
    out, _err = table(team.clone, capsys=capsys)
    assert row(out, STEADY)[0] == "≠"


def one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_outside_a_repository_or_without_hosts_one_line_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "is not in a git repository" in one_line_error(["fleet", str(plain)], capsys)
    empty = tmp_path / "empty"
    git(tmp_path, "init", "-q", str(empty))
    assert "no host branches ptotui/hosts/*" in one_line_error(["fleet", str(empty)], capsys)
    team = Team(tmp_path / "team")
    assert "origin has 3: give --remote origin" in one_line_error(["fleet", str(team.clone)], capsys)
    said = one_line_error(["fleet", str(team.clone), "--remote", "upstream"], capsys)
    assert "upstream is not a remote" in said
    assert "--fetch needs --remote" in one_line_error(["fleet", str(team.clone), "--fetch"], capsys)
    assert "no such file" in one_line_error(["fleet", str(tmp_path / "none")], capsys).lower()


def test_an_unreachable_remote_is_one_line_and_the_last_fetch_is_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = Team(tmp_path)
    team.remote.rename(tmp_path / "moved.git")
    out, err = table(team.clone, "--fetch", capsys=capsys)
    assert "3 bench hosts" in out and STEADY in out
    [line] = [line for line in err.splitlines() if "fetch from origin failed" in line]
    assert "the host branches fetched before are shown" in line


def _commit_tree(repo: Path, files: Path, ref: str) -> None:
    """Commit the directory ``files`` as it is (symlinks included) onto ``ref``, as a hostile
    host could push it."""
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / "hostile-index"), "GIT_DIR": str(repo)}
    env.update(GIT_AUTHOR_NAME="x", GIT_AUTHOR_EMAIL="x@x", GIT_COMMITTER_NAME="x", GIT_COMMITTER_EMAIL="x@x")

    def run(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=files, env=env, capture_output=True, text=True, check=True)
        return done.stdout.strip()

    run("--work-tree", str(files), "add", "-A", ".")
    tree = run("write-tree")
    commit = run("commit-tree", tree, "-m", "hostile")
    run("update-ref", ref, commit)


def test_hostile_torn_and_empty_branches_are_one_line_each(
    tmp_path: Path, state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    team = Team(tmp_path)
    hostile = tmp_path / "hostile"
    reports = hostile / "bench" / "reports"
    reports.mkdir(parents=True)
    (reports / "regression_latest.json").write_text('{"generated_at": "2020", "kernels": [')  # torn
    (reports / "kernel_state_matrix_latest.json").symlink_to("/etc/passwd")
    (reports / "\x1b]0;pwned\x07.json").write_text("{}")
    run = hostile / "bench" / "results" / FAMILY / STEADY / "20201101T000000Z"
    run.mkdir(parents=True)
    (run / "report.json").write_text(json.dumps({"name": "\x1b[31mevil\u202e", "variants": [{"pto_status": 5}]}))
    _commit_tree(team.remote, hostile, "refs/heads/ptotui/hosts/hostile")
    bare = tmp_path / "bare"
    (bare / "README").parent.mkdir()
    (bare / "README").write_text("no bench here\n")
    _commit_tree(team.remote, bare, "refs/heads/ptotui/hosts/empty")
    _commit_tree(team.remote, bare, "refs/heads/ptotui/hosts/nested/name")
    assert main(["fleet", str(team.clone), "--remote", "origin", "--fetch"]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\u202e" not in out + err and "Traceback" not in err
    lines = err.splitlines()
    assert any(line.startswith("ptotui: warning: empty: no reports and no runs on the branch") for line in lines)
    assert any("hostile: bench/reports/kernel_state_matrix_latest.json: not a regular file" in line for line in lines)
    assert any("hostile: bench/reports/regression_latest.json" in line for line in lines)
    assert any("ptotui/hosts/nested/name: not a name ptotui publish makes" in line for line in lines)
    written = list(state.rglob("*"))
    assert not [p for p in written if p.is_symlink()]
    assert all(str(p.resolve()).startswith(str(state)) for p in written)
    assert any("not a plain file name; not read" in line and "\\x1b" in line for line in lines)
    data = fleet_json(team.clone, capsys=capsys)  # the trees as written before, their warnings said again
    assert [h["name"] for h in data["hosts"]] == ["empty", "host-a", "host-b", "host-c", "hostile", "nested/name"]
    [hostile] = [h for h in data["hosts"] if h["name"] == "hostile"]
    assert any("kernel_state_matrix_latest.json: not a regular file" in w for w in hostile["warnings"])


def test_fleet_json_imports_no_textual(tmp_path: Path) -> None:
    """``fleet`` draws in a terminal; with --format (or a pipe) it is headless and Textual stays
    off its path (the import-linter contract cannot tell the two apart: tests/cli/test_layering.py)."""
    import sys

    team = Team(tmp_path)
    probe = (
        "import sys, contextlib, io\n"
        "from ptotui.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['fleet', {str(team.clone)!r}, '--remote', 'origin', '--format', 'json'])\n"
        "assert code == 0, code\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'textual_plotext', 'plotext')"
        " or m.startswith('ptotui.app')))\n"
    )
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "[]"
