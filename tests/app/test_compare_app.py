"""Compared sources in the dashboard: a column per source beside each kernel."""

from __future__ import annotations

import shutil
from pathlib import Path

from ptotui.model.history import compare
from ptotui.model.location import locate
from tests.model import test_compare
from tests.model.test_compare import Repo

repo = test_compare.repo  # the fixture (pytest finds it by this name)


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
