"""--compare sources: another branch of the repository, or another reports directory."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ptotui.model.history import compare
from ptotui.model.location import locate
from ptotui.model.read.loader import load
from tests.gitrepos import make_repository

Repo = tuple[Path, dict[str, str]]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    root = tmp_path / "kernels"
    root.mkdir()
    return root, make_repository(root)


def test_a_branch_side_by_side(repo: Repo) -> None:
    root, ids = repo
    main = locate(root)
    source = compare.resolve("host-b", main)
    assert source.revision == ids["b1"] and source.location is None and source.label == "host-b"
    sides = compare.compare(load(main), compare.read(source, main))
    assert sides["dequant_rope_quant_kvcache"].tier == "high" and sides["dequant_rope_quant_kvcache"].differs
    assert sides["grouped_matmul_add"].tier == "mid" and sides["grouped_matmul_add"].differs  # blocked on main
    assert not sides["grouped_matmul_finalize_routing"].differs
    assert sum(s.differs for s in sides.values()) == 4  # also grouped_matmul and apply_rotary_pos_emb


def test_a_directory_from_another_host(repo: Repo, tmp_path: Path) -> None:
    root, _ = repo
    other = tmp_path / "host-c" / "bench"
    shutil.copytree(root / "bench", other)
    (other / "reports" / "regression_latest.json").unlink()  # only the state matrix came over
    source = compare.resolve(str(other), locate(root))
    assert source.location == locate(other) and source.revision is None
    sides = compare.compare(load(locate(root)), compare.read(source, locate(root)))
    assert set(sides) == {k.name for k in load(locate(root)).kernels}


def test_bad_sources_are_one_line(repo: Repo, tmp_path: Path) -> None:
    root, _ = repo
    (tmp_path / "a-file").write_text("x")
    for spec, where in (("no-such-branch", locate(root)), (str(tmp_path / "a-file"), locate(root))):
        with pytest.raises(compare.CompareError) as error:
            compare.resolve(spec, where)
        assert "\n" not in str(error.value)
    outside = tmp_path / "outside"
    outside.mkdir()
    with pytest.raises(compare.CompareError, match="not in a git repository"):
        compare.resolve("HEAD", locate(outside))


async def test_the_app_shows_a_branch_and_a_host_beside_each_kernel(repo: Repo, tmp_path: Path) -> None:

    from tests.helpers import build, cell_text, every_variant, loaded, names, rewrite_kernels, until

    root, _ = repo
    other = tmp_path / "host-c" / "bench"
    shutil.copytree(root / "bench", other)
    sources = [compare.resolve("host-b", locate(root)), compare.resolve(str(other), locate(root))]
    app = build(str(root), compare=sources)
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot, 50)
        await until(pilot, lambda: all(r is not None for r in app.session.compare_reports))
        await pilot.pause()
        assert cell_text(app, "dequant_rope_quant_kvcache", "compare0") == "≠ HIGH 80.0%"
        assert cell_text(app, "grouped_matmul_finalize_routing", "compare0").startswith("= ")
        assert cell_text(app, "dequant_rope_quant_kvcache", "compare1").startswith("= ")  # the same files
        await pilot.press("equals_sign")
        differing = {"dequant_rope_quant_kvcache", "grouped_matmul_add", "grouped_matmul", "apply_rotary_pos_emb"}
        assert set(names(app)) == differing

        # The other host's directory is watched: a bench run there shows up.
        def blocked(kernel: dict) -> None:
            kernel["pto_status"] = "blocked"
            every_variant(pto_status="blocked", baseline_over_pto_pct=None)(kernel)

        rewrite_kernels(other / "reports", {"matmul_all_reduce": blocked})
        await until(pilot, lambda: "matmul_all_reduce" in names(app))
        assert cell_text(app, "matmul_all_reduce", "compare1").startswith("≠ PTO-BLOCKED")
        await pilot.press("equals_sign")
        assert len(names(app)) == 50


def test_the_cli_checks_compare_sources_before_starting(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    from ptotui.cli import main

    root, _ = repo
    for argv in (
        [str(root), "--compare", "no-such-branch"],
        [str(root), "--compare", "HEAD", "--compare", "HEAD~1", "--compare", "HEAD~2", "--compare", "HEAD~3"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("ptotui: error: --compare"), err


def test_a_directory_without_reports_is_refused_in_one_line(
    repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptotui.cli import main

    root, _ = repo
    empty = tmp_path / "scratch"
    (empty / "reports").mkdir(parents=True)
    (empty / "notes.txt").write_text("not a report")
    assert main([str(root), "--compare", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"ptotui: error: --compare {empty}: holds no reports"), err


def test_a_compare_error_never_cuts_the_users_path(
    repo: Repo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptotui.cli import main

    root, _ = repo
    deep = tmp_path / ("host-with-a-rather-long-name-" * 3) / "bench" / "reports"
    deep.mkdir(parents=True)
    report = deep / "regression_latest.json"
    shutil.copyfile(root / "bench" / "reports" / "regression_latest.json", report)
    assert len(str(report)) > 120
    assert main([str(root), "--compare", str(report)]) == 2
    err = capsys.readouterr().err
    assert err == f"ptotui: error: --compare {report}: a file; give a reports directory or a revision\n", err


async def test_a_compare_column_alone_beside_the_name_at_a_narrow_width(repo: Repo) -> None:
    """At 44 columns only one scrolled column fits beside the name; → reaches the
    --compare column too (the narrowest layout once looked it up among the built-in columns)."""
    from tests.helpers import build, loaded, table

    root, _ = repo
    app = build(str(root), compare=[compare.resolve("host-b", locate(root))])
    async with app.run_test(size=(44, 20)) as pilot:
        await loaded(pilot, 50)
        await pilot.pause()
        t = table(app)
        seen = set(t.fit().keys)
        for _ in range(len(t.column_keys)):
            await pilot.press("right")
            await pilot.pause()
            seen |= set(t.fit().keys)
        assert "compare0" in seen
