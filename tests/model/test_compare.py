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
