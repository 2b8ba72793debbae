"""The detail screen at 80×24: its footer keys are whole, history rows stay in their
columns, the report path keeps its file name, and ``h`` is offered only when it does
something (issue 11: nothing is cut mid-word, nothing wraps back to column 0)."""

from __future__ import annotations

from textual.widgets._footer import FooterKey

from ptotui.app.screens import detail as detail_module
from ptotui.app.screens.detail import HISTORY_LINES, DetailScreen
from ptotui.app.widgets.footer import StableFooter
from tests.helpers import build, loaded, until
from tests.test_detail_limits import open_detail, rendered_lines

SMALL = (80, 24)


def _footer_fits(screen: DetailScreen, width: int) -> list[str]:
    keys = list(screen.query_one(StableFooter).query(FooterKey))
    assert keys
    palette = [key for key in keys if key.has_class("-command-palette")]
    others = [key for key in keys if not key.has_class("-command-palette")]
    limit = palette[0].region.x if palette else width
    assert all(key.region.width > 0 for key in keys)
    assert max(key.region.right for key in others) <= limit, [(k.description, k.region) for k in keys]
    assert all(key.region.right <= width for key in keys)
    return [key.description for key in keys]


async def test_the_detail_footer_shows_only_whole_keys_at_80_columns(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: len(screen.query(FooterKey)) > 0)
        await pilot.pause()
        shown = _footer_fits(screen, SMALL[0])
        assert "Back" in shown and "Help" in shown and "Charts" in shown
        await pilot.press("g")  # the charts add "y Log/linear"
        await until(pilot, lambda: "Log/linear" in [k.description for k in screen.query(FooterKey)])
        await pilot.pause()
        shown = _footer_fits(screen, SMALL[0])
        assert "Back" in shown and "Help" in shown


async def test_the_detail_footer_shows_every_key_when_wide(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: len(screen.query(FooterKey)) > 0)
        await pilot.pause()
        shown = _footer_fits(screen, 160)
        assert {"Back", "中文/English", "Full text", "Charts", "Help", "palette"} <= set(shown)


async def test_h_is_offered_only_when_it_changes_the_history(sample_location, monkeypatch):
    app = build(sample_location, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: app.history is not None)
        points = len(app.history.kernels.get(screen.kernel.name, []))
        assert 0 < points <= HISTORY_LINES
        screen.redraw()
        lines = rendered_lines(app)
        assert any(f"{points} snapshots, then now" in line for line in lines)
        assert not any("h: fewer" in line or "h: all" in line for line in lines)
        assert screen.check_action("toggle_full_history", ()) is False
        monkeypatch.setattr(detail_module, "HISTORY_LINES", points - 1)
        assert screen.check_action("toggle_full_history", ()) is True
        screen.redraw()
        assert any("h: all" in line for line in rendered_lines(app))


async def test_history_rows_never_wrap_back_to_column_0(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        await until(pilot, lambda: app.history is not None)
        screen.redraw()
        part = screen._history(detail_module.headings("en"))
        assert part is not None
        lines = "".join(seg.text for seg in app.console.render(part, app.console.options.update_width(76)))
        rows = lines.splitlines()[2:]
        assert rows and all(row.startswith("  ") and not row[2:3].isspace() or row[:18].isspace() for row in rows), rows


async def test_the_report_path_keeps_its_file_name_at_80_columns(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await open_detail(pilot)
        lines = rendered_lines(app)
        at = next(i for i, line in enumerate(lines) if line.startswith("file "))
        assert len(str(sample_location.generated)) > 60  # long enough to need cutting at 80 columns
        assert lines[at].rstrip().endswith("/report.json"), lines[at]
        assert "…/" in lines[at]


def test_a_long_path_is_cut_from_the_left_keeping_its_file_name():
    from ptotui.app.screens.detail import _left_cut

    path = ".venv/lib/python3.11/site-packages/ptotui/sample_reports/bench/generated/quant/k/report.json"
    cut = _left_cut(path, 52)
    assert cut.startswith("…/") and cut.endswith("/k/report.json") and len(cut) <= 52
    assert path.endswith(cut[2:])
    assert _left_cut("a/report.json", 52) == "a/report.json"
    assert _left_cut("x" * 60 + "/report.json", 10) == "…/report.json"


def _lines(app, renderable, width: int) -> list[str]:
    options = app.console.options.update_width(width)
    return "".join(seg.text for seg in app.console.render(renderable, options)).splitlines()


async def test_variant_limitations_are_never_cut_mid_word_at_80_columns(sample_location):
    """The Variants' limitations column was a few cells wide at 80 columns: "group-scale" / "d"."""
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        await loaded(pilot, 15)
        app.main.open_detail("int4_weight_dequant_gemm")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        await until(pilot, lambda: app.screen.report is not None)
        screen = app.screen
        words = {w for v in screen.kernel.variants for item in v.limitations for w in item.split()}
        assert any(len(w) > 10 for w in words)
        lines = _lines(app, screen._variants(), SMALL[0] - 4)
        assert all(len(line.rstrip()) <= SMALL[0] - 4 for line in lines)
        tokens = {t for line in lines for t in line.replace("│", " ").split()}
        assert words <= tokens, sorted(words - tokens)


async def test_variant_limitations_keep_their_column_when_wide(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await loaded(pilot, 15)
        app.main.open_detail("int4_weight_dequant_gemm")
        await until(pilot, lambda: isinstance(app.screen, DetailScreen))
        await until(pilot, lambda: app.screen.report is not None)
        lines = _lines(app, app.screen._variants(), 156)
        assert "limitations" in lines[0] + lines[1]
        assert any("│ baseline dequant uses" in line for line in lines)


async def test_the_reading_wraps_under_itself_not_at_column_0(sample_location):
    app = build(sample_location, watch=False)
    async with app.run_test(size=SMALL) as pilot:
        screen = await open_detail(pilot)
        lines = _lines(app, screen._main_part("en"), SMALL[0] - 4)
        at = next(i for i, line in enumerate(lines) if line.startswith("  Look next:"))
        assert lines[at + 1].strip(), lines[at : at + 2]  # the line is long enough to wrap at 76
        assert lines[at + 1].startswith("  "), lines[at : at + 2]
