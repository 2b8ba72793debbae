"""The shown names in the table at 80x24."""

from __future__ import annotations

from tests.model.test_names import REAL


async def test_at_80x24_no_two_rows_show_the_same_name(sample_location):
    from textual.geometry import Region

    from tests.helpers import build, loaded, rewrite_kernels, table

    long = {"softmax_online_fused": REAL[5], "layernorm_gated": REAL[6], "rmsnorm_residual_add": REAL[4]}
    rewrite_kernels(sample_location.reports, {old: (lambda k, n=new: k.update(name=n)) for old, new in long.items()})
    app = build(sample_location)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        widget = table(app)
        layout = widget.fit()
        start = sum(w + layout.gap for k, w in layout.columns[: layout.keys.index("kernel")]) + layout.gap
        width = layout.width("kernel")
        assert width is not None and width < len(REAL[6])  # the names are cut here
        lines = widget.render_lines(Region(0, 1, widget.size.width, widget.row_count))
        drawn = ["".join(s.text for s in line)[start : start + width].rstrip() for line in lines]
        assert len(set(drawn)) == len(drawn), drawn
        assert any("…_grad" in name for name in drawn) and any(name.endswith("_map") for name in drawn), drawn
